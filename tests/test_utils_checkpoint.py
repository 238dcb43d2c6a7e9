"""torch.utils.checkpoint: checkpoint / checkpoint_sequential recompute the forward during backward.

Checked: gradients equal the uncheckpointed ones (both use_reentrant values, dropout included thanks to
the replayed random state), the function really runs again in backward, intermediate arrays are released
after the checkpointed forward (weak references die), higher-order gradients, the warnings and errors
PyTorch 2.13 gives, and parity with torch for the same weights.
"""
import gc
import warnings
import weakref

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from npgrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def _net():
    npgrad.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.5), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))


def _grads(model, x):
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_equal_uncheckpointed_with_dropout(reentrant):
    model = _net()
    x = npgrad.randn(5, 4, requires_grad=True)
    npgrad.manual_seed(7)
    y = checkpoint(model, x, use_reentrant=reentrant)
    (y ** 2).sum().backward()
    got = _grads(model, x)
    model.zero_grad()
    x.grad = None
    npgrad.manual_seed(7)
    y2 = model(x)
    (y2 ** 2).sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), y2.detach().numpy())
    for a, b in zip(got, _grads(model, x)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("reentrant", [True, False])
def test_without_preserved_rng_dropout_differs(reentrant):
    model = _net()
    x = npgrad.randn(64, 4, requires_grad=True)
    y = checkpoint(model, x, use_reentrant=reentrant, preserve_rng_state=False)
    y.sum().backward()
    got = _grads(model, x)[0]
    model.zero_grad()
    x.grad = None
    npgrad.manual_seed(123)
    model(x).sum().backward()
    assert not np.array_equal(got, _grads(model, x)[0])


@pytest.mark.parametrize("reentrant", [True, False])
def test_forward_runs_again_in_backward(reentrant):
    calls = []

    def f(t):
        calls.append(npgrad.is_grad_enabled())
        return t.sin() * t

    x = npgrad.randn(3, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=reentrant)
    assert len(calls) == 1
    y.sum().backward()
    assert calls == [not reentrant, True]  # the reentrant forward runs under no_grad
    xn = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xn) * xn + np.sin(xn), rtol=1e-6)


def test_non_reentrant_releases_intermediates():
    refs = []

    def f(t):
        h = t.exp()
        refs.append(weakref.ref(h._data))  # sin's backward keeps its input array: h's
        return h.sin()

    x = npgrad.randn(1000, requires_grad=True)
    y_plain = f(x)
    gc.collect()
    assert refs[-1]() is not None  # the plain graph holds the intermediate
    y = checkpoint(f, x, use_reentrant=False)
    gc.collect()
    assert refs[-1]() is None  # the checkpointed one does not
    y.sum().backward()
    g = x.grad.numpy().copy()
    x.grad = None
    y_plain.sum().backward()
    np.testing.assert_allclose(g, x.grad.numpy(), rtol=1e-6)


def test_reentrant_keeps_no_graph():
    refs = []

    def f(t):
        h = t.exp()
        refs.append(weakref.ref(h._data))
        return h.sin()

    x = npgrad.randn(10, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=True)
    gc.collect()
    assert refs[-1]() is None
    y.sum().backward()
    xn = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(np.exp(xn)) * np.exp(xn), rtol=1e-5)


def test_non_reentrant_parameters_get_gradients_without_input_grad():
    model = _net().eval()
    x = npgrad.randn(3, 4)
    checkpoint(model, x, use_reentrant=False).sum().backward()
    got = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for a, p in zip(got, model.parameters()):
        np.testing.assert_allclose(a, p.grad.numpy(), rtol=1e-6)


def test_non_reentrant_autograd_grad_and_double_backward():
    w = npgrad.randn(4, dtype=npgrad.float64, requires_grad=True)

    def f(t):
        return (t.sin() * t * w).exp()

    x = npgrad.randn(5, 4, dtype=npgrad.float64, requires_grad=True)
    results = []
    for ck in (True, False):
        a = x * 2  # a non-leaf input
        y = checkpoint(f, a, use_reentrant=False) if ck else f(a)
        g = npgrad.autograd.grad(y.sum(), [x, w], create_graph=True)
        gg = npgrad.autograd.grad(g[0].sum() + g[1].sum(), [x, w])
        results.append([t.detach().numpy() for t in g + gg])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_non_reentrant_closure_tensor_and_nested_outputs():
    base = npgrad.randn(3, requires_grad=True)
    hidden = base * 3  # a non-leaf the function reads from its closure

    def f(t, scale=1.0):
        return {"a": (t * hidden * scale,), "b": [t.exp(), 5]}

    x = npgrad.randn(3, requires_grad=True)
    out = checkpoint(f, x, use_reentrant=False, scale=2.0)
    assert out["b"][1] == 5
    (out["a"][0].sum() + out["b"][0].sum()).backward()
    xn, bn = x.detach().numpy(), base.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 6 * bn + np.exp(xn), rtol=1e-6)
    np.testing.assert_allclose(base.grad.numpy(), 6 * xn, rtol=1e-6)


def test_checkpoint_sequential_matches():
    npgrad.manual_seed(0)
    seq = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(5)])
    x = npgrad.randn(3, 4, requires_grad=True)
    for reentrant in (True, False):
        seq.zero_grad()
        x.grad = None
        checkpoint_sequential(seq, 3, x, use_reentrant=reentrant).pow(2).sum().backward()
        got = _grads(seq, x)
        seq.zero_grad()
        x.grad = None
        seq(x).pow(2).sum().backward()
        for a, b in zip(got, _grads(seq, x)):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_warnings_and_errors():
    x = npgrad.randn(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(npgrad.sin, x)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([nn.Identity(), nn.Tanh()], 1, x)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(npgrad.sin, npgrad.randn(2), use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint(npgrad.sin, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(npgrad.sin, x, use_reentrant=True, debug=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(npgrad.sin, x, use_reentrant=False)


def test_determinism_check():
    state = {"n": 0}

    def f(t):
        state["n"] += 1
        return t.sin() if state["n"] == 1 else t.sin().sum()

    x = npgrad.randn(3, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="Recomputed values for the following tensors have different metadata"):
        y.sum().backward()


def test_no_grad_mode_just_runs():
    x = npgrad.randn(3, requires_grad=True)
    with npgrad.no_grad():
        y = checkpoint(npgrad.sin, x, use_reentrant=False)
    assert y.grad_fn is None


def test_context_fn():
    seen = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            seen.append(self.name)

        def __exit__(self, *a):
            return False

    x = npgrad.randn(3, requires_grad=True)
    y = checkpoint(npgrad.sin, x, use_reentrant=False, context_fn=lambda: (Ctx("fwd"), Ctx("recompute")))
    y.sum().backward()
    assert seen == ["fwd", "recompute"]


@needs_torch
@pytest.mark.parametrize("reentrant", [True, False])
def test_matches_torch(reentrant):
    import torch.utils.checkpoint as tc
    torch.manual_seed(0)
    mt = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.GELU(), torch.nn.Linear(6, 6), torch.nn.Tanh(),
                             torch.nn.Linear(6, 2)).double()
    mn = nn.Sequential(nn.Linear(4, 6), nn.GELU(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2)).double()
    mn.load_state_dict({k: npgrad.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((3, 4))
    xt, xn = torch.tensor(x, requires_grad=True), npgrad.tensor(x, requires_grad=True)
    yt = tc.checkpoint_sequential(mt, 2, xt, use_reentrant=reentrant)
    yn = checkpoint_sequential(mn, 2, xn, use_reentrant=reentrant)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    (yt ** 3).sum().backward()
    (yn ** 3).sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    for pt, pn in zip(mt.parameters(), mn.parameters()):
        np.testing.assert_allclose(pn.grad.numpy(), pt.grad.numpy(), rtol=1e-10, atol=1e-12)
