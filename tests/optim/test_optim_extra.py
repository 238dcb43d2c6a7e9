"""Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop follow PyTorch's parameter trajectory option by option."""
import copy
import inspect

import numpy as np
import pytest

import npgrad
from _optim_harness import assert_close, initial, make, run, to_npgrad, train
from oracle import HAS_TORCH, torch

CONFIGS = {
    "Adadelta": [dict(), dict(lr=0.5, rho=0.8), dict(eps=1e-4, weight_decay=0.1), dict(maximize=True, lr=0.3),
                 dict(rho=1.0), dict(foreach=True)],
    "Adamax": [dict(), dict(lr=0.05, betas=(0.8, 0.99)), dict(lr=0.05, weight_decay=0.1, eps=1e-3),
               dict(lr=0.05, maximize=True), dict(lr=0.05, foreach=True)],
    "NAdam": [dict(), dict(lr=0.01, momentum_decay=0.01), dict(lr=0.01, weight_decay=0.1),
              dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), dict(lr=0.01, maximize=True),
              dict(lr=0.01, betas=(0.5, 0.9), eps=1e-4), dict(lr=0.01, foreach=True)],
    "RAdam": [dict(), dict(lr=0.01, betas=(0.9, 0.9)), dict(lr=0.01, weight_decay=0.1),
              dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.8, 0.8)),
              dict(lr=0.01, maximize=True, betas=(0.9, 0.7)), dict(lr=0.01, foreach=True)],
    "ASGD": [dict(), dict(lr=0.1, lambd=0.01, alpha=0.5), dict(lr=0.05, t0=5), dict(lr=0.05, t0=3, weight_decay=0.1),
             dict(lr=0.05, maximize=True, t0=10), dict(lr=0.05, t0=2, foreach=True)],
    "Rprop": [dict(), dict(lr=0.05, etas=(0.3, 1.5)), dict(lr=0.1, step_sizes=(1e-3, 0.2)), dict(maximize=True),
              dict(lr=0.05, foreach=True)],
}
CASES = [(name, kw) for name, kws in CONFIGS.items() for kw in kws]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for name, kw in CASES]
NAMES = list(CONFIGS)


def test_one_step_closed_forms():
    # The first step from zero state, written out by hand for g = 2, p = 1.
    def first(name, **kw):
        p = npgrad.tensor(np.array([1.0]), requires_grad=True)
        opt = getattr(npgrad.optim, name)([p], **kw)
        p.grad = npgrad.tensor(np.array([2.0]))
        opt.step()
        return float(p._data[0]), opt.state[p]
    v, _ = first("Adadelta", lr=1.0, rho=0.9, eps=1e-6)
    delta = np.sqrt(1e-6) / np.sqrt(0.1 * 4 + 1e-6) * 2
    assert v == pytest.approx(1 - delta, rel=1e-14)
    v, st = first("Adamax", lr=0.1, eps=1e-8)
    assert v == pytest.approx(1 - 0.1 / 0.1 * (0.1 * 2) / (2 + 1e-8), rel=1e-14)
    assert float(st["exp_inf"]._data[0]) == pytest.approx(2 + 1e-8)
    v, st = first("NAdam", lr=0.1)
    mu1 = 0.9 * (1 - 0.5 * 0.96 ** 0.004)
    mu2 = 0.9 * (1 - 0.5 * 0.96 ** 0.008)
    mu_prod = float(np.float32(mu1))  # stored in float32, the default step dtype
    denom = np.sqrt(0.001 * 4 / 0.001) + 1e-8
    expect = 1 - 0.1 * (1 - mu1) / (1 - mu_prod) * 2 / denom - 0.1 * mu2 / (1 - mu_prod * mu2) * 0.2 / denom
    assert v == pytest.approx(expect, rel=1e-12)
    v, _ = first("RAdam", lr=0.1)  # rho_1 = 1 <= 5: a plain bias-corrected momentum step
    assert v == pytest.approx(1 - 0.1 * 2, rel=1e-14)
    v, st = first("ASGD", lr=0.1, lambd=0.5, alpha=1.0)
    assert v == pytest.approx(1 * (1 - 0.5 * 0.1) - 0.1 * 2, rel=1e-7)
    assert float(st["eta"]) == pytest.approx(0.1 / (1 + 0.5 * 0.1), rel=1e-7)
    assert float(st["ax"]._data[0]) == v  # mu starts at 1: ax copies the parameter
    v, st = first("Rprop", lr=0.25)
    assert v == 1 - 0.25 and float(st["step_size"]._data[0]) == 0.25


def test_rprop_sign_logic_without_torch():
    p = npgrad.tensor(np.array([0.0, 0.0, 0.0]), requires_grad=True)
    opt = npgrad.optim.Rprop([p], lr=0.1, etas=(0.5, 2.0), step_sizes=(0.01, 0.3))
    for g in ([1.0, 1.0, 1.0], [1.0, -1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]):
        p.grad = npgrad.tensor(np.array(g))
        opt.step()
    # same sign: 0.1, 0.2, 0.3 (clamped), 0.3; flip: 0.1, skip (0.05), no compare (0.05), grow (0.1);
    # zero gradient: 0.1, no move (0.1), 0.1, grow 0.2
    np.testing.assert_allclose(p._data, [-0.9, -0.1 + 0 - 0.05 - 0.1, -0.1 - 0.1 - 0.2], rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_descends_and_updates_in_place(name):
    params, opt = make(npgrad, name, dict(lr=0.05) if name != "Adadelta" else {})
    arrays = [p._data for p in params]
    start = sum(float(((p._data - 0.5) ** 2).sum()) for p in params)
    for _ in range(40):
        for p in params:
            p.grad = npgrad.tensor(p._data - np.float32(0.5))
        opt.step()
    assert sum(float(((p._data - 0.5) ** 2).sum()) for p in params) < start
    assert all(p._data is a and p.dtype == npgrad.float32 for p, a in zip(params, arrays))


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_resume_equals_uninterrupted(name, tmp_path):
    kw = dict(CONFIGS[name][1])
    straight, _ = run(npgrad, name, kw)
    params, opt = make(npgrad, name, kw)
    train(npgrad, params, opt, 0, 10)
    npgrad.save(opt.state_dict(), tmp_path / "opt.pt")
    params2 = [npgrad.tensor(p._data.copy(), requires_grad=True) for p in params]
    opt2 = getattr(npgrad.optim, name)(params2, **kw)
    opt2.load_state_dict(npgrad.load(tmp_path / "opt.pt"))
    for a, b in zip(straight, train(npgrad, params2, opt2, 10, 20)):
        np.testing.assert_array_equal(a, b)


def test_errors():
    p = npgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        npgrad.optim.NAdam([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid rho value: 1.5"):
        npgrad.optim.Adadelta([p], rho=1.5)
    with pytest.raises(ValueError, match=r"Invalid eta values: 1.2, 0.5"):
        npgrad.optim.Rprop([p], etas=(1.2, 0.5))


BAD = {"Adadelta": [dict(lr=-1), dict(rho=-0.1), dict(eps=-1), dict(weight_decay=-1)],
       "Adamax": [dict(lr=-0.5), dict(eps=-1), dict(betas=(1.0, 0.9)), dict(betas=(0.9, -0.1)), dict(weight_decay=-1)],
       "NAdam": [dict(lr=-1), dict(eps=-1), dict(betas=(-0.1, 0.9)), dict(betas=(0.9, 1.0)), dict(weight_decay=-1),
                 dict(momentum_decay=-1)],
       "RAdam": [dict(lr=-1), dict(eps=-1), dict(betas=(1.5, 0.9)), dict(betas=(0.9, 1.5)), dict(weight_decay=-2)],
       "ASGD": [dict(lr=-1), dict(weight_decay=-1)],
       "Rprop": [dict(lr=-1), dict(etas=(0.0, 1.2)), dict(etas=(0.5, 1.0))]}


if HAS_TORCH:
    def _state_matches(opt, topt):
        for p, tp in zip(opt.param_groups[0]["params"], topt.param_groups[0]["params"]):
            st, tst = opt.state[p], topt.state[tp]
            assert list(st) == list(tst)
            for k in st:
                assert str(st[k].dtype).split(".")[-1] == str(tst[k].dtype).split(".")[-1], k
                ref = tst[k].numpy()
                np.testing.assert_allclose(st[k].numpy(), ref, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(ref).max()))

    @pytest.mark.parametrize("name,kw", CASES, ids=IDS)
    def test_matches_torch(name, kw):
        ours, opt = run(npgrad, name, kw)
        theirs, topt = run(torch, name, kw)
        assert_close(ours, theirs)
        _state_matches(opt, topt)

    @pytest.mark.parametrize("name,kw", CASES, ids=IDS)
    def test_matches_torch_float64(name, kw):
        ours, _ = run(npgrad, name, kw, dtype=np.float64)
        theirs, _ = run(torch, name, kw, dtype=np.float64)
        assert_close(ours, theirs, np.float64)

    @pytest.mark.parametrize("name", NAMES)
    def test_tensor_lr_matches_torch(name):
        kw = {**CONFIGS[name][-1], "lr": 0.05}
        ours, _ = run(npgrad, name, {**kw, "lr": npgrad.tensor(0.05)})
        theirs, _ = run(torch, name, {**kw, "lr": torch.tensor(0.05)})
        assert_close(ours, theirs)

    @pytest.mark.parametrize("name", NAMES)
    def test_param_groups_match_torch(name):
        kw = dict(lr=0.02)
        groups = [((0,), dict(lr=0.06)), ((1, 2), dict(maximize=False))]
        ours, opt = run(npgrad, name, kw, groups=groups)
        theirs, topt = run(torch, name, kw, groups=groups)
        assert_close(ours, theirs)
        assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == \
            [{k: v for k, v in g.items() if k != "params"} for g in topt.param_groups]

    @pytest.mark.parametrize("name", NAMES)
    def test_continues_from_torch_state_dict(name):
        # Train 10 steps in PyTorch, convert its optimizer state to npgrad tensors, continue 10 steps in npgrad.
        kw = CONFIGS[name][1]
        theirs, _ = run(torch, name, kw)
        tparams, topt = make(torch, name, kw)
        train(torch, tparams, topt, 0, 10)
        params = [npgrad.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tparams]
        opt = getattr(npgrad.optim, name)(params, **kw)
        sd = to_npgrad(topt.state_dict())
        assert sd["param_groups"] == opt.state_dict()["param_groups"]
        opt.load_state_dict(sd)
        assert_close(train(npgrad, params, opt, 10, 20), theirs)

    @pytest.mark.parametrize("name", NAMES)
    def test_errors_match_torch(name):
        for kw in BAD[name]:
            with pytest.raises(ValueError) as theirs:
                getattr(torch.optim, name)([torch.tensor([1.0], requires_grad=True)], **kw)
            with pytest.raises(ValueError, match=f"^{theirs.value}$".replace("(", r"\(").replace(")", r"\)")):
                getattr(npgrad.optim, name)([npgrad.tensor([1.0], requires_grad=True)], **kw)

    @pytest.mark.parametrize("name", NAMES)
    def test_signature_and_repr_match_torch(name):
        ours, theirs = getattr(npgrad.optim, name), getattr(torch.optim, name)
        sig, tsig = inspect.signature(ours.__init__), inspect.signature(theirs.__init__)
        assert [(p.name, p.default, p.kind) for p in sig.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in tsig.parameters.values()]
        assert repr(ours([npgrad.tensor([1.0], requires_grad=True)])) == \
            repr(theirs([torch.tensor([1.0], requires_grad=True)]))

    def test_float64_default_dtype_step_state():
        # With float64 as the default dtype, PyTorch keeps step counts (and NAdam's mu_product) in float64.
        old = npgrad.get_default_dtype()
        npgrad.set_default_dtype(npgrad.float64)
        torch.set_default_dtype(torch.float64)
        try:
            _, opt = run(npgrad, "NAdam", {}, steps=3)
            _, topt = run(torch, "NAdam", {}, steps=3)
            _state_matches(opt, topt)
        finally:
            npgrad.set_default_dtype(old)
            torch.set_default_dtype(torch.float32)


def test_deepcopy_keeps_state():
    params, opt = make(npgrad, "NAdam", {})
    train(npgrad, params, opt, 0, 3)
    clone = copy.deepcopy(opt)
    assert float(clone.state[clone.param_groups[0]["params"][0]]["mu_product"]) == \
        float(opt.state[params[0]]["mu_product"])
    assert initial()[0].shape == (3, 4)


def test_old_checkpoint_plain_number_scalars_load():
    # Older checkpoints stored step, mu_product (NAdam), eta and mu (ASGD) as plain numbers.
    for name, keys in [("NAdam", ("step", "mu_product")), ("ASGD", ("step", "eta", "mu"))]:
        kw = CONFIGS[name][1]
        straight, _ = run(npgrad, name, kw, steps=6)
        params, opt = make(npgrad, name, kw)
        train(npgrad, params, opt, 0, 3)
        sd = copy.deepcopy(opt.state_dict())
        for st in sd["state"].values():
            for k in keys:
                st[k] = float(st[k])
        opt2 = getattr(npgrad.optim, name)(params, **kw)
        opt2.load_state_dict(sd)
        assert all(isinstance(opt2.state[params[0]][k], npgrad.Tensor) for k in keys)
        for a, b in zip(straight, train(npgrad, params, opt2, 3, 6)):
            np.testing.assert_array_equal(a, b)


def test_profile_hook_step_and_hooks_on_new_optimizers():
    calls = []
    p = npgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = npgrad.optim.LBFGS([p], max_iter=2)
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    assert calls == ["pre", "post"]
    wrapped = npgrad.optim.Optimizer.profile_hook_step(lambda self, *a: calls.append("inner"))
    wrapped(opt)
    assert calls == ["pre", "post", "pre", "inner", "post"]


@pytest.mark.parametrize("name,kw", CASES[::2], ids=IDS[::2])
def test_chunked_updates_equal_whole_array_updates(name, kw, monkeypatch):
    # Large parameters are updated in cache-sized chunks; shrinking the thresholds sends the 12- and
    # 5-element test parameters down that path, with a ragged last chunk.
    whole, _ = run(npgrad, name, kw)
    from npgrad.optim import optimizer
    monkeypatch.setattr(optimizer, "WHOLE", 4)
    monkeypatch.setattr(optimizer, "CHUNK", 5)
    chunked, _ = run(npgrad, name, kw)
    for a, b in zip(whole, chunked):
        np.testing.assert_array_equal(a, b)
