"""softmax and log_softmax over the last axis, forward and backward, and cross-entropy's log-softmax + NLL.

Replaces (and is tested against) ``ops.softmax``'s NumPy rows path (``_softmax_rows``, ``_softmax_grad_rows``,
``log_softmax_np``, ``LogSoftmaxOp.grad``) and the forward and backward of ``nn._functional.loss.CrossEntropy``
for 2-D logits. A row is read while it sits in cache: max, exp and sum in one pass, the scaling in a second.
Row sums accumulate in the input's dtype over vector lanes (as the NumPy path's einsum sums do: float64 sums made
the float32 kernel ~2x slower); exp is ``_vecmath.exp`` (float32: within 1 ulp). The same NaN and inf results as
the NumPy path: a NaN anywhere in a row makes the row NaN, a row of -inf is NaN (0/0), +inf gives NaN.
"""
import math

import numpy as np

from .. import _parallel
from . import _vecmath
from ._jit import entry, kernel


@kernel(fastmath={"reassoc", "contract"})
def _softmax_rows(x, y, log, zero):
    rows, n = x.shape
    for i in range(rows):
        m = _vecmath.row_max(x[i])
        s = zero
        if log:
            for j in range(n):
                s += _vecmath.exp(x[i, j] - m)
            lse = math.log(s)
            for j in range(n):
                y[i, j] = (x[i, j] - m) - lse
        else:
            for j in range(n):
                e = _vecmath.exp(x[i, j] - m)
                y[i, j] = e
                s += e
            inv = 1 / s
            for j in range(n):
                y[i, j] = y[i, j] * inv


@kernel(fastmath={"reassoc", "contract"})
def _softmax_grad_rows(y, g, out, scale, log, zero):
    """softmax: (g - sum(g y)) y * scale; log_softmax: g - exp(y) sum(g)."""
    rows, n = y.shape
    for i in range(rows):
        s = zero
        if log:
            for j in range(n):
                s += g[i, j]
            for j in range(n):
                out[i, j] = g[i, j] - _vecmath.exp(y[i, j]) * s
        else:
            for j in range(n):
                s += g[i, j] * y[i, j]
            for j in range(n):
                out[i, j] = (g[i, j] - s) * y[i, j] * scale


@kernel(fastmath={"reassoc", "contract"})
def _cross_entropy_rows(x, t, p, lse, xt, srow, zero):
    """Per row of logits x: p = softmax, lse = log-sum-exp of x - max, xt = x[t] - max, srow = sum(x - max)."""
    rows, n = x.shape
    for i in range(rows):
        m = _vecmath.row_max(x[i])
        s = zero
        z = zero
        for j in range(n):
            d = x[i, j] - m
            e = _vecmath.exp(d)
            p[i, j] = e
            s += e
            z += d
        inv = 1 / s
        for j in range(n):
            p[i, j] = p[i, j] * inv
        lse[i] = math.log(s)
        xt[i] = x[i, t[i]] - m
        srow[i] = z


@kernel(fastmath={"contract"})
def _cross_entropy_grad_rows(p, t, a, hit, scale, gx):
    """gx = (p a - onehot(t) hit) * scale, row by row."""
    rows, n = p.shape
    for i in range(rows):
        ai = a[i]
        for j in range(n):
            gx[i, j] = p[i, j] * ai * scale
        gx[i, t[i]] = (p[i, t[i]] * ai - hit[i]) * scale


def _by_rows(fn, rows, n):
    _parallel.split(fn, rows, per=n)


@entry
def softmax(x, log=False):
    """softmax (or log_softmax) over the last axis of a contiguous float32/float64 array."""
    x2 = x.reshape(-1, x.shape[-1])
    y = np.empty_like(x2)
    _by_rows(lambda lo, hi: _softmax_rows(x2[lo:hi], y[lo:hi], log, x.dtype.type(0)), x2.shape[0], x2.shape[1])
    return y.reshape(x.shape)


@entry
def softmax_grad(y, g, log=False, scale=1.0):
    """The input gradient of softmax (times ``scale``) or log_softmax over the last axis, from its output."""
    y2, g2 = y.reshape(-1, y.shape[-1]), g.reshape(-1, g.shape[-1])
    out = np.empty_like(y2)
    _by_rows(lambda lo, hi: _softmax_grad_rows(y2[lo:hi], g2[lo:hi], out[lo:hi], y.dtype.type(scale), log,
                                                          y.dtype.type(0)), y2.shape[0],
             y2.shape[1])
    return out.reshape(y.shape)


@entry
def cross_entropy(x, t):
    """For (N, C) logits and in-range class indices t (int64): (p, lse, x[t] - max, row sums of x - max)."""
    rows, n = x.shape
    p = np.empty_like(x)
    lse, xt, srow = (np.empty(rows, x.dtype) for _ in range(3))
    _by_rows(lambda lo, hi: _cross_entropy_rows(x[lo:hi], t[lo:hi], p[lo:hi], lse[lo:hi], xt[lo:hi], srow[lo:hi],
                                                     x.dtype.type(0)),
             rows, n)
    return p, lse, xt, srow


@entry
def cross_entropy_grad(p, t, a, hit, scale):
    """(p * a[:, None] - onehot(t) * hit[:, None]) * scale for (N, C) p."""
    gx = np.empty_like(p)
    _by_rows(lambda lo, hi: _cross_entropy_grad_rows(p[lo:hi], t[lo:hi], a[lo:hi], hit[lo:hi], scale, gx[lo:hi]),
             p.shape[0], p.shape[1])
    return gx
