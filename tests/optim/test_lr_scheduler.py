"""Every scheduler produces PyTorch's lr sequence, value for value, and round-trips its state_dict."""
import math
import warnings

import pytest

import npgrad
from oracle import HAS_TORCH, torch


def _optimizer(lib, kind="SGD", lrs=(0.1, 0.05)):
    groups = [{"params": [lib.tensor([1.0 + i], requires_grad=True)], "lr": lr} for i, lr in enumerate(lrs)]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return lib.optim.Adam(groups, lr=0.1)


def _sched(lib, name, opt, kw):
    S = lib.optim.lr_scheduler
    if name == "SequentialLR":
        return S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=5),
                                    S.CosineAnnealingLR(opt, T_max=20, eta_min=1e-4),
                                    S.StepLR(opt, step_size=4, gamma=0.5)], milestones=[5, 25])
    if name == "SequentialLR2":
        return S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=3),
                                    S.ExponentialLR(opt, gamma=0.9)], milestones=[6])
    if name == "ChainedScheduler":
        return S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=4), S.ExponentialLR(opt, gamma=0.9)])
    return getattr(S, name)(opt, **kw)


def _half(epoch):
    return 0.95 ** epoch


def _mult(epoch):
    return 0.9 if epoch % 3 else 1.01


CASES = [
    ("StepLR", dict(step_size=7, gamma=0.5)), ("StepLR", dict(step_size=1)),
    ("MultiStepLR", dict(milestones=[3, 10, 10, 25], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("CosineAnnealingLR", dict(T_max=10)), ("CosineAnnealingLR", dict(T_max=17, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=_half)), ("LambdaLR", dict(lr_lambda=[_half, lambda e: 1 / (e + 1)])),
    ("MultiplicativeLR", dict(lr_lambda=_mult)),
    ("LinearLR", dict()), ("LinearLR", dict(start_factor=0.25, end_factor=0.8, total_iters=13)),
    ("ConstantLR", dict()), ("ConstantLR", dict(factor=0.2, total_iters=9)),
    ("PolynomialLR", dict(total_iters=20, power=2.0)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=60)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], total_steps=60, anneal_strategy="linear")),
    ("OneCycleLR", dict(max_lr=0.3, epochs=6, steps_per_epoch=10, three_phase=True, pct_start=0.25)),
    ("OneCycleLR", dict(max_lr=0.3, total_steps=60, cycle_momentum=False, div_factor=10.0, final_div_factor=100.0)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=5)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=7, mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.97)),
    ("CosineAnnealingWarmRestarts", dict(T_0=7)), ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("SequentialLR", {}), ("SequentialLR2", {}), ("ChainedScheduler", {}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CASES)]


def _trace(lib, name, kw, steps=60, kind="SGD"):
    opt = _optimizer(lib, kind)
    sched = _sched(lib, name, opt, kw)
    lrs, momenta = [sched.get_last_lr()], []
    for _ in range(steps - 1):
        opt.step()
        sched.step()
        lrs.append(list(sched.get_last_lr()))
        momenta.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, momenta, sched


def test_sequences_without_torch():
    # Closed-form expectations that hold without the oracle.
    lrs, _, _ = _trace(npgrad, "StepLR", dict(step_size=3, gamma=0.5), steps=10)
    assert [round(l[0], 12) for l in lrs] == [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125]
    lrs, _, _ = _trace(npgrad, "CosineAnnealingLR", dict(T_max=10), steps=11)
    for e, l in enumerate(lrs):
        assert math.isclose(l[0], 0.1 * (1 + math.cos(math.pi * e / 10)) / 2, abs_tol=1e-12)
    lrs, _, _ = _trace(npgrad, "OneCycleLR", dict(max_lr=1.0, total_steps=20), steps=20)
    assert math.isclose(lrs[0][0], 1.0 / 25) and max(l[0] for l in lrs) <= 1.0 and lrs[-1][0] < 1e-4


def test_scheduler_updates_optimizer_lr_and_momentum():
    opt = _optimizer(npgrad)
    sched = npgrad.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["lr"] == sched.get_last_lr()[0]
    assert opt.param_groups[0]["momentum"] == 0.95
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == sched.get_last_lr()[0] and opt.param_groups[0]["momentum"] < 0.95


def test_warns_when_stepped_before_optimizer():
    opt = _optimizer(npgrad)
    sched = npgrad.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt2 = _optimizer(npgrad)
    sched2 = npgrad.optim.lr_scheduler.StepLR(opt2, 2)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()


def test_errors():
    S = npgrad.optim.lr_scheduler
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        S.StepLR(3, 2)
    opt = _optimizer(npgrad)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        S.ReduceLROnPlateau(opt, factor=1.5)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        S.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(opt, 2, last_epoch=3)
    sched = S.OneCycleLR(opt, max_lr=0.1, total_steps=2)
    opt.step()
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        sched.step()


@pytest.mark.parametrize("name,kw", [c for c in CASES if c[0] not in ("LambdaLR", "MultiplicativeLR")][::2])
def test_state_dict_resume(name, kw, tmp_path):
    full, _, _ = _trace(npgrad, name, kw, steps=40)
    opt = _optimizer(npgrad)
    sched = _sched(npgrad, name, opt, kw)
    for _ in range(17):
        opt.step()
        sched.step()
    npgrad.save({"opt": opt.state_dict(), "sched": sched.state_dict()}, tmp_path / "ck.pt")
    ck = npgrad.load(tmp_path / "ck.pt")
    opt2 = _optimizer(npgrad)
    sched2 = _sched(npgrad, name, opt2, kw)
    sched2.load_state_dict(ck["sched"])
    opt2.load_state_dict(ck["opt"])
    lrs = []
    for _ in range(40 - 18):
        opt2.step()
        sched2.step()
        lrs.append(sched2.get_last_lr())
    assert lrs == full[18:]


METRICS = [1.0, 0.9, 0.95, 0.95, 0.94, 0.96, 0.97, 0.5, 0.51, 0.52, 0.53, 0.5, 0.5, 0.5, 0.49999, 0.7, 0.8,
           0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.1999, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
PLATEAU = [dict(patience=2), dict(patience=1, factor=0.5, cooldown=2), dict(mode="max", patience=2, factor=0.3),
           dict(threshold=0.1, threshold_mode="abs", patience=1), dict(mode="max", threshold_mode="abs", patience=0),
           dict(patience=0, min_lr=[0.01, 0.03], factor=0.5), dict(patience=0, min_lr=0.02, eps=0.01),
           dict(threshold=0.05, patience=1)]


def _plateau(lib, kw):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
    out = []
    for m in METRICS:
        opt.step()
        sched.step(lib.tensor(m))
        out.append(sched.get_last_lr())
    return out, sched


def test_plateau_without_torch():
    lrs, _ = _plateau(npgrad, dict(patience=2))
    assert lrs[0] == [0.1, 0.05]
    assert any(math.isclose(l[0], 0.01) for l in lrs)


if HAS_TORCH:
    @pytest.mark.parametrize("name,kw", CASES, ids=IDS)
    def test_matches_torch(name, kw):
        ours, om, sched = _trace(npgrad, name, kw)
        theirs, tm, tsched = _trace(torch, name, kw)
        assert ours == theirs  # exact float equality
        assert om == tm
        ssd, tsd = sched.state_dict(), tsched.state_dict()
        assert sorted(k for k in ssd if k != "_scale_fn_ref") == sorted(k for k in tsd if k != "_scale_fn_ref")

    @pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR"])
    def test_beta1_cycling_matches_torch(name):
        kw = dict(max_lr=0.5, total_steps=30) if name == "OneCycleLR" else dict(base_lr=0.01, max_lr=0.1,
                                                                                step_size_up=4)
        ours, om, _ = _trace(npgrad, name, kw, steps=30, kind="Adam")
        theirs, tm, _ = _trace(torch, name, kw, steps=30, kind="Adam")
        assert ours == theirs and om == tm

    @pytest.mark.parametrize("kw", PLATEAU)
    def test_plateau_matches_torch(kw):
        ours, s = _plateau(npgrad, kw)
        theirs, t = _plateau(torch, kw)
        assert ours == theirs
        assert sorted(s.state_dict()) == sorted(t.state_dict())

    @pytest.mark.parametrize("name,kw", [("StepLR", dict(step_size=3)), ("MultiStepLR", dict(milestones=[2, 5])),
                                         ("ExponentialLR", dict(gamma=0.9)), ("CosineAnnealingLR", dict(T_max=10)),
                                         ("LinearLR", {}), ("ConstantLR", {}), ("PolynomialLR", {}),
                                         ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2))])
    def test_step_with_epoch_matches_torch(name, kw):
        def run(lib):
            opt = _optimizer(lib)
            s = _sched(lib, name, opt, kw)
            out = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for e in [1, 2, 5, 3, 9, 4, 12]:
                    opt.step()
                    s.step(e)
                    out.append(s.get_last_lr())
            return out
        assert run(npgrad) == run(torch)

    def test_tensor_lr_matches_torch():
        def run(lib):
            p = lib.tensor([1.0], requires_grad=True)
            opt = lib.optim.SGD([p], lr=lib.tensor(0.1))
            s = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
            for _ in range(3):
                opt.step()
                s.step()
            return float(opt.param_groups[0]["lr"]), [float(x) for x in s.get_last_lr()]
        assert run(npgrad) == run(torch)


class _Decay:
    """A callable object: its attributes are what LambdaLR/MultiplicativeLR/CyclicLR save of it."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


def _edge_trace(lib, case):
    """A few schedules no other test reaches: a resumed epoch, a sequence inside a chain, fractional restarts,
    a custom scale function, the warning from get_lr outside step, callable-object state."""
    S = lib.optim.lr_scheduler
    opt = _optimizer(lib)
    out = []
    if case == "cosine-resumed":
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        s = S.CosineAnnealingLR(opt, T_max=6, eta_min=0.01, last_epoch=4)
    elif case == "chained-with-sequence":
        seq = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=2), S.StepLR(opt, 2)], [3])
        s = S.ChainedScheduler([seq, S.ExponentialLR(opt, 0.9)])
    elif case == "warm-restarts-fractional":
        s = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3, eta_min=0.001)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for e in (0.5, 1.75, 2.0, 7.3, 8.0, 25.9, 3.1):
                opt.step()
                s.step(e)
                out.append((s.get_last_lr(), s.T_cur, s.T_i, s.last_epoch))
        return out, s
    elif case == "cyclic-custom":
        s = S.CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=_Decay(0.9), scale_mode="iterations")
    elif case == "multiplicative-object":
        s = S.MultiplicativeLR(opt, lr_lambda=_Decay(0.97))
    for _ in range(12):
        opt.step()
        s.step()
        out.append(s.get_last_lr())
    if not isinstance(s, S.ChainedScheduler):
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            out.append(s.get_lr())
    return out, s


EDGE_CASES = ["cosine-resumed", "chained-with-sequence", "warm-restarts-fractional",
              "cyclic-custom", "multiplicative-object"]


@pytest.mark.parametrize("case", EDGE_CASES)
def test_edge_schedules_without_torch(case):
    if case == "warm-restarts-fractional":
        out, s = _edge_trace(npgrad, case)
        assert [o[1] for o in out][:3] == [0.5, 1.75, 0.0] and out[3][2] == 6 and out[5][3] == 25
        return
    out, s = _edge_trace(npgrad, case)
    assert all(isinstance(lr, float) for lr in out[0])
    state = s.state_dict()
    if case == "cyclic-custom":
        assert state["_scale_fn_custom"] == {"rate": 0.9}
    if case == "multiplicative-object":
        assert state["lr_lambdas"] == [{"rate": 0.97}, {"rate": 0.97}]


def test_plateau_group_count_change():
    S = npgrad.optim.lr_scheduler
    opt = _optimizer(npgrad)
    s = S.ReduceLROnPlateau(opt, patience=0, min_lr=[0.01, 0.02])
    opt.add_param_group({"params": [npgrad.tensor([3.0], requires_grad=True)], "lr": 0.2})
    s.step(1.0)
    with pytest.raises(RuntimeError, match="differs from when `ReduceLROnPlateau` was initialized"):
        s.step(2.0)
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 3"):
        S.ReduceLROnPlateau(_optimizer(npgrad), min_lr=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(_optimizer(npgrad), [_half])


if HAS_TORCH:
    @pytest.mark.parametrize("case", EDGE_CASES)
    def test_edge_schedules_match_torch(case):
        ours, s = _edge_trace(npgrad, case)
        theirs, t = _edge_trace(torch, case)
        assert ours == theirs
        assert sorted(k for k in s.state_dict() if k != "_scale_fn_ref") == sorted(
            k for k in t.state_dict() if k != "_scale_fn_ref")
