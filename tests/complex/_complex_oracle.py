"""The complex oracle: run ``fn(lib, *inputs)`` in npgrad and PyTorch on complex (and real) inputs, compare
values, dtypes and gradients, and check gradients against complex finite differences without PyTorch.

A gradient for an upstream ``G`` follows PyTorch's convention: it is dL/dx + i dL/dy of the real loss
``L = Re(sum(conj(G) * out))``, so the finite-difference reference perturbs real and imaginary parts."""
import numpy as np

import npgrad
from oracle import HAS_TORCH, torch

TOL = {np.complex64: dict(rtol=1e-5, atol=1e-5), np.complex128: dict(rtol=1e-10, atol=1e-10),
       np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-10)}
REAL = {np.complex64: np.float32, np.complex128: np.float64}


def make_input(rng, shape, dtype, kind="c", low=0.3, high=1.5):
    """Random values with moduli in [low, high] (away from branch cuts' trouble at 0) and random phases."""
    if kind == "r":
        return (rng.uniform(low, high, shape) * rng.choice([-1, 1], shape)).astype(REAL[dtype])
    r, t = rng.uniform(low, high, shape), rng.uniform(-2.5, 2.5, shape)
    return (r * np.exp(1j * t)).astype(dtype)


def _outs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _run(lib, fn, arrays, upstream=None):
    xs = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
    outs = [o for o in _outs(fn(lib, *xs)) if o.dtype.is_complex or o.dtype.is_floating_point]
    if upstream is None:
        upstream = [_upstream(o) for o in outs]
    loss_parts = [o for o in outs if o.requires_grad]
    grads = [None] * len(xs)
    if loss_parts:
        gs = [lib.tensor(u) for u, o in zip(upstream, outs) if o.requires_grad]
        got = lib.autograd.grad(loss_parts, xs, gs, allow_unused=True)
        grads = [None if g is None else g.detach().resolve_conj().resolve_neg().numpy().copy() for g in got]
    return [o.detach().resolve_conj().resolve_neg().numpy().copy() for o in outs], grads, upstream


def _upstream(o):
    rng = np.random.default_rng(7)
    shape, d = tuple(o.shape), np.dtype(str(o.dtype).split(".")[-1])
    g = rng.uniform(-1, 1, shape)
    if d.kind == "c":
        g = g + 1j * rng.uniform(-1, 1, shape)
    return g.astype(d)


def check_against_torch(fn, arrays, dtype):
    got, grads, up = _run(npgrad, fn, arrays)
    want, tgrads, _ = _run(torch, fn, arrays, up)
    tol = TOL[dtype]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
        np.testing.assert_allclose(a, b, **tol)
    for a, b in zip(grads, tgrads):
        assert (a is None) == (b is None) or (a is not None and not np.any(a)) or (b is not None and not np.any(b))
        if a is not None and b is not None:
            assert a.dtype == b.dtype, (a.dtype, b.dtype)
            np.testing.assert_allclose(a, b, **tol)


def check_finite_differences(fn, arrays, eps=1e-6, rtol=1e-5, atol=1e-7):
    """npgrad's gradients (complex128 inputs) against central differences of the real loss, perturbing the real
    and the imaginary part of every complex element."""
    arrays = [a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) for a in arrays]
    _, grads, up = _run(npgrad, fn, arrays)

    def loss(arrs):
        with npgrad.no_grad():
            outs = [o for o in _outs(fn(npgrad, *[npgrad.tensor(a) for a in arrs]))
                    if o.dtype.is_complex or o.dtype.is_floating_point]
        return sum(float(np.sum((np.conj(u) * o.numpy()).real)) for u, o in zip(up, outs))

    for i, a in enumerate(arrays):
        num = np.zeros(a.shape, a.dtype)
        for idx in np.ndindex(*a.shape):
            for step, part in ((eps, 1.0), (eps * 1j, 1j)) if a.dtype.kind == "c" else ((eps, 1.0),):
                plus = [b.copy() for b in arrays]
                minus = [b.copy() for b in arrays]
                plus[i][idx] += step
                minus[i][idx] -= step
                num[idx] += part * (loss(plus) - loss(minus)) / (2 * eps)
        g = grads[i] if grads[i] is not None else np.zeros_like(num)
        np.testing.assert_allclose(g, num, rtol=rtol, atol=atol)
