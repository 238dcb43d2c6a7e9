"""Each optimizer, with each option, follows PyTorch's parameter trajectory step for step."""
import copy
import importlib

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

SHAPES = [(3, 4), (5,), ()]


def _grad(p, k, t):
    # A smooth gradient field, different per parameter and per step, computed the same way for both libraries
    # from each library's own current values (float32 NumPy arithmetic).
    p = np.asarray(p, np.float32)
    return (np.float32(0.7 + 0.3 * k) * (p - np.float32(0.5)) + np.float32(0.2) * np.cos(p * np.float32(1 + t % 3))
            + np.float32(0.05 * (t + 1))).astype(np.float32)


def _initial(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.5, 1.5, size=s).astype(dtype) for s in SHAPES]


def _run(lib, opt_name, kwargs, steps=20, groups=None, dtype=np.float32):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in _initial(dtype=dtype)]
    if groups is None:
        opt = getattr(lib.optim, opt_name)(params, **kwargs)
    else:
        spec = [dict(params=[params[i] for i in idx], **extra) for idx, extra in groups]
        opt = getattr(lib.optim, opt_name)(spec, **kwargs)
    for t in range(steps):
        for k, p in enumerate(params):
            p.grad = lib.tensor(_grad(p.detach().numpy(), k, t).astype(dtype))
        opt.step()
    return [p.detach().numpy().copy() for p in params], opt


CONFIGS = {
    "SGD": [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, dampening=0.3),
            dict(lr=0.05, momentum=0.8, nesterov=True), dict(lr=0.1, weight_decay=0.1),
            dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.05, maximize=True),
            dict(lr=0.1, momentum=0.5, dampening=0.5, weight_decay=0.01)],
    "Adam": [dict(), dict(lr=0.01), dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6), dict(lr=0.01, weight_decay=0.1),
             dict(lr=0.01, amsgrad=True), dict(lr=0.01, maximize=True), dict(lr=0.02, amsgrad=True, weight_decay=0.05,
                                                                          maximize=True),
             dict(lr=0.01, betas=(0.6, 0.9))],
    "AdamW": [dict(), dict(lr=0.01), dict(lr=0.01, weight_decay=0.1), dict(lr=0.01, amsgrad=True),
              dict(lr=0.01, weight_decay=0.0), dict(lr=0.02, amsgrad=True, maximize=True, weight_decay=0.3)],
    "RMSprop": [dict(), dict(lr=0.001, alpha=0.9), dict(lr=0.01, momentum=0.9), dict(lr=0.01, centered=True),
                dict(lr=0.01, momentum=0.5, centered=True), dict(lr=0.01, weight_decay=0.1, eps=1e-4),
                dict(lr=0.01, maximize=True, momentum=0.3), dict(lr=0.01, alpha=0.3, centered=True)],
    "Adagrad": [dict(), dict(lr=0.1), dict(lr=0.1, lr_decay=0.05), dict(lr=0.1, weight_decay=0.1),
                dict(lr=0.1, initial_accumulator_value=0.5), dict(lr=0.1, eps=1e-3), dict(lr=0.1, maximize=True),
                dict(lr=0.1, lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.1)],
}
CASES = [(name, kw) for name, kws in CONFIGS.items() for kw in kws]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for name, kw in CASES]


def test_descends_without_torch():
    # Meaningful without the oracle: every optimizer moves parameters and reduces 0.5 * ||p - 0.5||^2.
    for name, kw in CASES:
        if kw.get("maximize"):
            continue
        params = [npgrad.tensor(a, requires_grad=True) for a in _initial()]
        opt = getattr(npgrad.optim, name)(params, **{**kw, "lr": 0.05})
        start = sum(float(((p.detach().numpy() - 0.5) ** 2).sum()) for p in params)
        for _ in range(30):
            for p in params:
                p.grad = npgrad.tensor(p.detach().numpy() - np.float32(0.5))
            opt.step()
        end = sum(float(((p.detach().numpy() - 0.5) ** 2).sum()) for p in params)
        assert end < start, (name, kw)


def test_update_is_in_place_float32_and_bumps_version():
    for name, kw in CASES[::3]:
        p = npgrad.tensor(np.ones((4, 3), np.float32), requires_grad=True)
        arr, view = p._data, p.detach()
        opt = getattr(npgrad.optim, name)([p], **kw)
        v0 = view._version
        p.grad = npgrad.ones(4, 3)
        opt.step()
        assert p._data is arr and p.dtype == npgrad.float32
        assert view._version == v0 + 1
        assert not np.all(arr == 1)
        for v in opt.state[p].values():
            if v.ndim:
                assert v.dtype == npgrad.float32


def test_params_without_grad_are_skipped():
    a = npgrad.tensor([1.0, 2.0], requires_grad=True)
    b = npgrad.tensor([3.0, 4.0], requires_grad=True)
    opt = npgrad.optim.Adam([a, b], lr=0.1)
    a.grad = npgrad.tensor([1.0, 1.0])
    opt.step()
    assert b.tolist() == [3.0, 4.0] and len(opt.state[b]) == 0
    assert a.tolist() != [1.0, 2.0]


def test_with_autograd_backward_and_closure():
    w = npgrad.tensor([[0.5, -0.3], [0.1, 0.8]], requires_grad=True)
    x = npgrad.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    opt = npgrad.optim.SGD([w], lr=0.1, momentum=0.9)

    def closure():
        opt.zero_grad()
        loss = ((x @ w) ** 2).sum()
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(5)]
    assert losses[-1] < losses[0]


def test_errors():
    p = npgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        npgrad.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        npgrad.optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        npgrad.optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        npgrad.optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        npgrad.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid momentum value"):
        npgrad.optim.RMSprop([p], momentum=-0.1)
    with pytest.raises(ValueError, match="Invalid lr_decay value"):
        npgrad.optim.Adagrad([p], lr_decay=-0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        npgrad.optim.SGD([1], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        npgrad.optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        npgrad.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        npgrad.optim.SGD([{"params": {p}}], lr=0.1)


def test_zero_grad():
    p = npgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = npgrad.optim.SGD([p], lr=0.1)
    p.grad = npgrad.tensor([3.0, 4.0])
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_step_hooks():
    p = npgrad.tensor([1.0], requires_grad=True)
    opt = npgrad.optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    p.grad = npgrad.tensor([1.0])
    opt.step()
    h1.remove()
    opt.step()
    assert calls == ["pre", "post", "post"]


def _state_dict_roundtrip(lib, name, kw, split=10, steps=20, through_file=None):
    """Train `split` steps, save optimizer+params, continue in a fresh optimizer; return final params."""
    params = [lib.tensor(a.copy(), requires_grad=True) for a in _initial()]
    opt = getattr(lib.optim, name)(params, **kw)
    for t in range(split):
        for k, p in enumerate(params):
            p.grad = lib.tensor(_grad(p.detach().numpy(), k, t))
        opt.step()
    sd = opt.state_dict()
    if through_file is not None:
        npgrad.save(sd, through_file)
        sd = npgrad.load(through_file)
    else:
        sd = copy.deepcopy(sd)
    params2 = [lib.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    opt2 = getattr(lib.optim, name)(params2, **kw)
    opt2.load_state_dict(sd)
    for t in range(split, steps):
        for k, p in enumerate(params2):
            p.grad = lib.tensor(_grad(p.detach().numpy(), k, t))
        opt2.step()
    return [p.detach().numpy() for p in params2]


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                     ("AdamW", dict(lr=0.01)), ("RMSprop", dict(momentum=0.5, centered=True)),
                                     ("Adagrad", dict(lr=0.1, lr_decay=0.01))])
def test_state_dict_resume_equals_uninterrupted(name, kw, tmp_path):
    straight, _ = _run(npgrad, name, kw)
    resumed = _state_dict_roundtrip(npgrad, name, kw)
    via_file = _state_dict_roundtrip(npgrad, name, kw, through_file=tmp_path / "opt.pt")
    for a, b, c in zip(straight, resumed, via_file):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_load_state_dict_checks_and_copies():
    p = npgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = npgrad.optim.Adam([p], lr=0.1)
    p.grad = npgrad.tensor([1.0, 1.0])
    opt.step()
    sd = opt.state_dict()
    q = npgrad.tensor([1.0, 2.0], requires_grad=True)
    r = npgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        npgrad.optim.Adam([{"params": [q]}, {"params": [r]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        npgrad.optim.Adam([q, r]).load_state_dict(sd)
    opt2 = npgrad.optim.Adam([q], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["params"][0] is q
    assert opt2.state[q]["exp_avg"] is not opt.state[p]["exp_avg"]


def test_float64_params_keep_float64():
    p = npgrad.tensor(np.array([1.0, -2.0]), requires_grad=True)
    opt = npgrad.optim.Adam([p], lr=0.1)
    p.grad = npgrad.tensor(np.array([0.5, 0.5]))
    opt.step()
    assert p.dtype == npgrad.float64 and opt.state[p]["exp_avg"].dtype == npgrad.float64


if HAS_TORCH:
    def _close(a, b, dtype=np.float32):
        tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, **tol)

    @pytest.mark.parametrize("name,kw", CASES, ids=IDS)
    def test_matches_torch(name, kw):
        ours, opt = _run(npgrad, name, kw)
        theirs, topt = _run(torch, name, kw)
        _close(ours, theirs)
        # The state has torch's keys, dtypes and values.
        for p, tp in zip(opt.param_groups[0]["params"], topt.param_groups[0]["params"]):
            st, tst = opt.state[p], topt.state[tp]
            assert list(st) == list(tst)
            for k in st:
                assert str(st[k].dtype).split(".")[-1] == str(tst[k].dtype).split(".")[-1]
                # PyTorch's lerp/add kernels fuse multiply-adds (one rounding); NumPy rounds twice, so running
                # averages of differences (RMSprop's grad_avg) may drift by a few ulps of their scale.
                ref = tst[k].numpy()
                np.testing.assert_allclose(st[k].numpy(), ref, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(ref).max()))

    @pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                         ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                                         ("AdamW", dict(lr=0.01)), ("RMSprop", dict(centered=True, momentum=0.5)),
                                         ("Adagrad", dict(lr=0.1, lr_decay=0.01))])
    def test_matches_torch_float64(name, kw):
        ours, _ = _run(npgrad, name, kw, dtype=np.float64)
        theirs, _ = _run(torch, name, kw, dtype=np.float64)
        _close(ours, theirs, np.float64)

    @pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
                                         ("RMSprop", dict(lr=0.01)), ("Adagrad", dict(lr=0.1)),
                                         ("AdamW", dict(lr=0.01))])
    def test_param_groups_match_torch(name, kw):
        groups = [((0,), dict(lr=kw["lr"] * 3)), ((1, 2), dict(weight_decay=0.1))]
        ours, opt = _run(npgrad, name, kw, groups=groups)
        theirs, topt = _run(torch, name, kw, groups=groups)
        _close(ours, theirs)
        assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == \
            [{k: v for k, v in g.items() if k != "params"} for g in topt.param_groups]

    @pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(amsgrad=True)),
                                         ("AdamW", {}), ("RMSprop", dict(momentum=0.5, centered=True)),
                                         ("Adagrad", {}), ("SGD", {})])
    def test_state_dict_structure_matches_torch(name, kw):
        _, opt = _run(npgrad, name, kw, steps=2)
        _, topt = _run(torch, name, kw, steps=2)
        sd, tsd = opt.state_dict(), topt.state_dict()
        assert sd["param_groups"] == tsd["param_groups"]
        assert list(sd["state"]) == list(tsd["state"])
        for i in sd["state"]:
            assert list(sd["state"][i]) == list(tsd["state"][i])
            for k, v in sd["state"][i].items():
                assert v.shape == tuple(tsd["state"][i][k].shape)
                assert str(v.dtype).split(".")[-1] == str(tsd["state"][i][k].dtype).split(".")[-1]

    def test_resume_from_state_dict_matches_torch():
        for name, kw in [("Adam", dict(lr=0.01)), ("SGD", dict(lr=0.1, momentum=0.9))]:
            _close(_state_dict_roundtrip(npgrad, name, kw), _state_dict_roundtrip(torch, name, kw))

    def test_add_param_group_matches_torch():
        def run(lib):
            a = lib.tensor([1.0, -1.0], requires_grad=True)
            b = lib.tensor([0.5, 2.0, 3.0], requires_grad=True)
            opt = lib.optim.Adam([a], lr=0.05)
            for t in range(6):
                if t == 3:
                    opt.add_param_group({"params": b, "lr": 0.2, "betas": (0.5, 0.9)})
                for k, p in enumerate([a, b]):
                    p.grad = lib.tensor(_grad(p.detach().numpy(), k, t))
                opt.step()
            return [a.detach().numpy(), b.detach().numpy()], opt
        (ours, opt), (theirs, topt) = run(npgrad), run(torch)
        _close(ours, theirs)
        assert opt.param_groups[1]["betas"] == topt.param_groups[1]["betas"]

    def test_backward_training_matches_torch():
        rng = np.random.default_rng(3)
        w1, w2 = rng.normal(size=(4, 8)).astype(np.float32), rng.normal(size=(8, 1)).astype(np.float32)
        x, y = rng.normal(size=(16, 4)).astype(np.float32), rng.normal(size=(16, 1)).astype(np.float32)

        def run(lib):
            p1, p2 = lib.tensor(w1, requires_grad=True), lib.tensor(w2, requires_grad=True)
            X, Y = lib.tensor(x), lib.tensor(y)
            opt = lib.optim.Adam([p1, p2], lr=0.01)
            for _ in range(20):
                opt.zero_grad()
                loss = (((X @ p1).tanh() @ p2 - Y) ** 2).mean()
                loss.backward()
                opt.step()
            return [p1.detach().numpy(), p2.detach().numpy()]
        _close(run(npgrad), run(torch))

    def test_repr_matches_torch():
        p, tp = npgrad.tensor([1.0], requires_grad=True), torch.tensor([1.0], requires_grad=True)
        assert repr(npgrad.optim.Adam([p], lr=0.1)) == repr(torch.optim.Adam([tp], lr=0.1))

    def test_groups_repr_state_dict_layout_and_hooks_match_torch():
        def run(lib):
            a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)
            opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
            a.grad, b.grad = lib.tensor([0.5]), lib.tensor([0.25])
            opt.step()
            sd = opt.state_dict()
            layout = [list(g) for g in sd["param_groups"]], sorted(sd["state"])
            opt.register_load_state_dict_pre_hook(lambda o, d: {**d, "param_groups": [
                {**g, "lr": 0.01} for g in d["param_groups"]]})
            opt.load_state_dict(sd)
            with pytest.raises(ValueError) as missing:
                lib.optim.Optimizer([{"params": [lib.tensor([1.0], requires_grad=True)]}],
                                    {"momentum": 0.0, "lr": importlib.import_module(lib.__name__ + ".optim.optimizer").required})
            return repr(opt), layout, [g["lr"] for g in opt.param_groups], sd["param_groups"][0]["lr"], \
                str(missing.value)
        assert run(npgrad) == run(torch)


def test_named_parameters_and_state_dict_hooks():
    a = npgrad.tensor([1.0], requires_grad=True)
    b = npgrad.tensor([2.0], requires_grad=True)
    opt = npgrad.optim.SGD([("a", a), ("b", b)], lr=0.1, momentum=0.5)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    with pytest.raises(ValueError, match="all optimizer param groups should be with/without names"):
        opt.add_param_group({"params": [npgrad.tensor([3.0], requires_grad=True)]})
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    seen = []
    opt.register_load_state_dict_post_hook(lambda o: seen.append(True))
    sd = opt.state_dict()
    assert sd["extra"] == 1 and sd["param_groups"][0]["param_names"] == ["a", "b"]
    opt.load_state_dict(sd)
    assert seen == [True]


if HAS_TORCH:
    def test_named_parameters_state_dict_matches_torch():
        def run(lib):
            a = lib.tensor([1.0, 2.0], requires_grad=True)
            b = lib.tensor([3.0], requires_grad=True)
            opt = lib.optim.Adam([{"params": [("a", a)]}, {"params": [("b", b)], "lr": 0.5}])
            return opt.state_dict()["param_groups"]
        assert run(npgrad) == run(torch)


@pytest.mark.parametrize("name,kw", CASES[::2], ids=IDS[::2])
def test_chunked_updates_equal_whole_array_updates(name, kw, monkeypatch):
    # Large parameters are updated in cache-sized chunks; shrink the thresholds so the small test
    # parameters (12 and 5 elements) take that path, with a ragged last chunk.
    whole, _ = _run(npgrad, name, kw)
    from npgrad.optim import optimizer
    monkeypatch.setattr(optimizer, "WHOLE", 4)
    monkeypatch.setattr(optimizer, "CHUNK", 5)
    chunked, _ = _run(npgrad, name, kw)
    for a, b in zip(whole, chunked):
        np.testing.assert_array_equal(a, b)
