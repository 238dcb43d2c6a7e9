"""Deep graphs: backward, grad, double backward and teardown never recurse (full-size timings live
in benchmarks/; these run at a size that would overflow any recursive walk)."""
import sys

import numpy as np
import pytest

import npgrad

CHAIN = 20_000  # far beyond sys.getrecursionlimit() (1000 by default)
assert CHAIN > 10 * sys.getrecursionlimit()


def test_long_chain_backward():
    x = npgrad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x
    for _ in range(CHAIN):
        y = y * 1.0001
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(2, 1.0001 ** CHAIN), rtol=1e-10)


def test_long_chain_autograd_grad_and_teardown():
    x = npgrad.tensor(np.array([0.5]), requires_grad=True)
    y = x
    for _ in range(CHAIN // 2):
        y = (y + 0.001).sin() * 0.5 + y * 0.5
    (g,) = npgrad.autograd.grad(y.sum(), x)
    assert np.isfinite(g.numpy()).all()
    del y  # tearing down a 40k-node chain must not overflow the C stack either


def test_long_chain_without_backward_is_freed():
    x = npgrad.tensor(np.array([0.5]), requires_grad=True)
    y = x
    for _ in range(CHAIN):
        y = y.exp() * 0.1
    del y


def test_residual_network_1000_layers():
    rng = np.random.default_rng(0)
    ws = [npgrad.tensor(rng.standard_normal((4, 4)) * 0.02, requires_grad=True) for _ in range(1000)]
    x = npgrad.tensor(rng.standard_normal((3, 4)))
    h = x
    for w in ws:
        h = h + (h @ w).tanh()  # each layer: a skip edge plus a branch, two paths into every node
    h.pow(2).mean().backward()
    grads = [w.grad for w in ws]
    assert all(g is not None and np.isfinite(g.numpy()).all() for g in grads)

    # The first layer's gradient against finite differences of the whole 1000-layer net.
    def loss_with(w0):
        hh = x._data
        for k, w in enumerate(ws):
            ww = w0 if k == 0 else w._data
            hh = hh + np.tanh(hh @ ww)
        return np.mean(hh ** 2)
    eps = 1e-6
    w0 = ws[0]._data
    for idx in [(0, 0), (2, 3)]:
        plus, minus = w0.copy(), w0.copy()
        plus[idx] += eps
        minus[idx] -= eps
        num = (loss_with(plus) - loss_with(minus)) / (2 * eps)
        assert abs(num - ws[0].grad.numpy()[idx]) < 1e-6 * max(1.0, abs(num))


def test_deep_double_backward():
    x = npgrad.tensor(np.array([0.3]), requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 0.9999 + 0.0001 * y.tanh()
    (g,) = npgrad.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = npgrad.autograd.grad(g.sum(), x)
    assert np.isfinite(h.numpy()).all()


def test_wide_fan_in():
    x = npgrad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    parts = [x * float(k) for k in range(5000)]
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    total.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(2, sum(range(5000))))
