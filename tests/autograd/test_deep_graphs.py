"""Deep graphs: backward, grad, double backward and teardown never recurse (full-size timings live
in benchmarks/; these run at a size that would overflow any recursive walk)."""
import gc
import sys
import weakref

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


def _chain_refs(y, every=1000):
    """Weak references to every ``every``-th node along one path down from ``y``'s node, and the path's length
    (walked with a loop: a recursive walk would overflow)."""
    refs, node, k = [], y.grad_fn, 0
    while node is not None:
        if k % every == 0:
            refs.append(weakref.ref(node))
        nxt = [n for n, _ in node.next_functions if n is not None and n.name() != "torch::autograd::AccumulateGrad"]
        node, k = (nxt[0] if nxt else None), k + 1
    return refs, k


def test_long_chain_autograd_grad_and_teardown():
    x = npgrad.tensor(np.array([0.5]), requires_grad=True)
    y = x
    for _ in range(CHAIN // 2):
        y = (y + 0.001).sin() * 0.5 + y * 0.5
    (g,) = npgrad.autograd.grad(y.sum(), x, retain_graph=True)
    # the closed form by the chain rule: each step's derivative is 0.5 cos(y + 0.001) + 0.5, at that step's input
    v, slope = 0.5, 1.0
    for _ in range(CHAIN // 2):
        slope *= 0.5 * np.cos(v + 0.001) + 0.5
        v = np.sin(v + 0.001) * 0.5 + v * 0.5
    np.testing.assert_allclose(y.item(), v, rtol=1e-12)
    np.testing.assert_allclose(g.item(), slope, rtol=1e-9)
    refs, depth = _chain_refs(y)
    assert depth >= 4 * (CHAIN // 2)  # at least four nodes a step along the first inputs' path
    gc.disable()  # freed by reference counting alone, without overflowing the C stack
    try:
        del y
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


def test_long_chain_without_backward_is_freed():
    x = npgrad.tensor(np.array([0.5]), requires_grad=True)
    y = x
    for _ in range(CHAIN):
        y = y.exp() * 0.1
    refs, depth = _chain_refs(y)
    assert depth == 2 * CHAIN and len(refs) == depth // 1000
    gc.disable()
    try:
        del y
        assert all(r() is None for r in refs)
    finally:
        gc.enable()
    assert x.grad_fn is None and x.grad is None


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
    # closed form, carried forward: y' = s y'_prev and y'' = s y''_prev + s' y'_prev ** 2, where the step's
    # slope is s = 0.9999 + 0.0001 sech^2(y) and s' = -0.0002 sech^2(y) tanh(y)
    v, d1, d2 = 0.3, 1.0, 0.0
    for _ in range(3000):
        sech2 = 1.0 - np.tanh(v) ** 2
        s, ds = 0.9999 + 0.0001 * sech2, -0.0002 * sech2 * np.tanh(v)
        d1, d2 = s * d1, s * d2 + ds * d1 * d1
        v = v * 0.9999 + 0.0001 * np.tanh(v)
    np.testing.assert_allclose(g.item(), d1, rtol=1e-10)
    np.testing.assert_allclose(h.item(), d2, rtol=1e-8)


def test_wide_fan_in():
    x = npgrad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    parts = [x * float(k) for k in range(5000)]
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    total.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(2, sum(range(5000))))
