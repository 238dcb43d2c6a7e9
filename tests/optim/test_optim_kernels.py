"""The compiled Adam/AdamW/SGD updates (kernels/optim_updates.py) against the NumPy path: the same parameters and
state, bit for bit, after several steps with the kernels on and off; and against PyTorch where installed."""
import numpy as np
import pytest

import npgrad
from npgrad.kernels import _jit, optim_updates
from oracle import HAS_TORCH, torch

numba = pytest.importorskip("numba", reason="the [kernels] extra (numba) is not installed")

ADAM = [
    dict(),
    dict(weight_decay=0.1),  # L2 on the gradient
    dict(amsgrad=True, maximize=True),
    dict(weight_decay=0.05, amsgrad=True, betas=(0.3, 0.9)),  # |1 - beta1| >= 0.5: lerp's other formula
    dict(lr=1.0, eps=0.0),
]
SGD = [
    dict(lr=0.1),
    dict(lr=1.0, weight_decay=0.01, maximize=True),  # -lr == -1: the add without a multiply
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.02),
    dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True),
]
CASES = ([("Adam", k) for k in ADAM] + [("AdamW", k) for k in ADAM if k.get("weight_decay", 1)]
         + [("SGD", k) for k in SGD])
SHAPES = [(7, 5), (3,), (300_000,)]  # the last is split over the threads


def _grads(dtype, steps, special):
    rng = np.random.default_rng(3)
    out = []
    for _ in range(steps):
        gs = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
        if special:
            gs[0][0, :4] = [np.nan, np.inf, -np.inf, -0.0]
        out.append(gs)
    return out


def _run(name, kwargs, dtype, kernels, steps=4, special=False, spy=None):
    rng = np.random.default_rng(2)
    params = [npgrad.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    opt = getattr(npgrad.optim, name)(params, **kwargs)
    old = _jit._switch.enabled
    _jit._switch.enabled = kernels
    try:
        for gs in _grads(dtype, steps, special):
            for p, g in zip(params, gs):
                p.grad = npgrad.tensor(g)
            opt.step()
    finally:
        _jit._switch.enabled = old
    state = [{k: np.asarray(v._data).copy() for k, v in opt.state[p].items()} for p in params]
    return [p.detach().numpy().copy() for p in params], state


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_kernels_give_the_numpy_paths_bits(name, kwargs, dtype, monkeypatch):
    calls = []
    entry = optim_updates.adam_ if name.startswith("Adam") else optim_updates.sgd_
    monkeypatch.setattr(optim_updates, entry.__name__, lambda *a, f=entry: calls.append(1) or f(*a))
    p_on, s_on = _run(name, kwargs, dtype, True, special=dtype == np.float32)
    assert len(calls) == 4 * len(SHAPES) and _jit.ready()
    calls.clear()
    p_off, s_off = _run(name, kwargs, dtype, False, special=dtype == np.float32)
    for a, b in zip(p_on, p_off):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)  # NaN where NaN, same bits elsewhere (-0.0 included via the sign check)
        assert np.array_equal(np.signbit(a), np.signbit(b))
    for sa, sb in zip(s_on, s_off):
        assert sa.keys() == sb.keys()
        for k in sa:
            np.testing.assert_array_equal(sa[k], sb[k])


def test_same_bits_for_any_thread_count():
    before = npgrad.get_num_threads()
    try:
        npgrad.set_num_threads(1)
        one = _run("AdamW", dict(weight_decay=0.1), np.float32, True)[0]
        npgrad.set_num_threads(2)
        two = _run("AdamW", dict(weight_decay=0.1), np.float32, True)[0]
    finally:
        npgrad.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_other_dtypes_take_the_numpy_path():
    g = np.ones(4, np.float16)
    assert optim_updates.sgd_(np.zeros(4, np.float16), g, None, 0.1, 0.0, False) is None
    assert optim_updates.sgd_(np.zeros(8, np.float32)[::2], np.ones(4, np.float32), None, 0.1, 0.0, False) is None
    p = npgrad.tensor(np.ones(3, np.float16), requires_grad=True)
    opt = npgrad.optim.Adam([p], lr=0.1)
    p.grad = npgrad.tensor(np.ones(3, np.float16))
    opt.step()
    assert p.dtype == npgrad.float16 and np.all(p.detach().numpy() < 1)


def test_switch_off_never_loads_the_kernels(monkeypatch):
    monkeypatch.setattr(_jit._switch, "enabled", False)
    assert not _jit.ready()
    assert optim_updates.adam_(*[np.zeros(2)] * 4, None, 0.1, 0.9, 0.999, 1e-8, 0.0, False, False, 1.0, 1.0) is None


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("name,kwargs", [("AdamW", dict(weight_decay=0.1, amsgrad=True)),
                                         ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True))])
def test_matches_torch(name, kwargs):
    ours = _run(name, kwargs, np.float32, True)[0]
    rng = np.random.default_rng(2)
    params = [torch.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True) for s in SHAPES]
    opt = getattr(torch.optim, name)(params, **kwargs)
    for gs in _grads(np.float32, 4, False):
        for p, g in zip(params, gs):
            p.grad = torch.tensor(g)
        opt.step()
    for a, p in zip(ours, params):
        np.testing.assert_allclose(a, p.detach().numpy(), rtol=1e-5, atol=1e-6)
