"""Batch norm's channel layout (N, C, *spatial) in training: the moments, the affine output and the
backward's two passes.

Replaces (and is tested against) ``nn._functional.normalization``'s ``_channel_forward`` and ``_channel_backward``,
which make ~9 passes over the tensor forward and ~13 backward (BLAS block sums, then one ufunc per term). Here the
forward reads x for its sums, again for the centred copy and its squares, and that copy for the output; the
backward reads g and x - mean once for both sums and once for the gradient. The same formulas as the NumPy
path; block sums accumulate in float64 (the NumPy path's are float32 BLAS dots), so results agree within float32
rounding, not bit for bit. Each (sample, channel) block's sum goes into an (N, C) table that is reduced over the
samples in order, so a split over samples (one run of samples per thread) gives the same bits for any thread count.
"""
import numpy as np

from .. import _parallel
from ._jit import entry, kernel


@kernel(fastmath={"reassoc", "contract"})
def _block_sums(x, part, lo, hi):
    C, S = x.shape[1], x.shape[2]
    for i in range(lo, hi):
        for c in range(C):
            s = 0.0
            for j in range(S):
                s += x[i, c, j]
            part[i, c] = s


@kernel(fastmath={"reassoc", "contract"})
def _centre(x, mean, xc, part, lo, hi):
    """xc = x - mean (per channel), and each block's sum of xc**2 (as rounded to xc's dtype, as NumPy squares it)."""
    C, S = x.shape[1], x.shape[2]
    for i in range(lo, hi):
        for c in range(C):
            m = mean[c]
            s = 0.0
            for j in range(S):
                v = x[i, c, j] - m
                xc[i, c, j] = v
                s += v * v
            part[i, c] = s


@kernel(fastmath={"contract"})
def _affine(xc, k, b, y, has_b, lo, hi):
    C, S = xc.shape[1], xc.shape[2]
    for i in range(lo, hi):
        for c in range(C):
            kc = k[c]
            if has_b:
                bc = b[c]
                for j in range(S):
                    y[i, c, j] = xc[i, c, j] * kc + bc
            else:
                for j in range(S):
                    y[i, c, j] = xc[i, c, j] * kc


@kernel(fastmath={"reassoc", "contract"})
def _grad_sums(g, xc, gsum, gxc, lo, hi):
    C, S = g.shape[1], g.shape[2]
    for i in range(lo, hi):
        for c in range(C):
            s = 0.0
            t = 0.0
            for j in range(S):
                v = g[i, c, j]
                s += v
                t += v * xc[i, c, j]
            gsum[i, c] = s
            gxc[i, c] = t


@kernel()
def _input_grad(g, xc, k, c1, c2, gx, lo, hi):
    """gx = (xc * c1 + c2) + g * k, each of k, c1, c2 constant per channel: the NumPy path's order and roundings
    (no FMA: the terms cancel where g is small next to the batch's spread)."""
    C, S = g.shape[1], g.shape[2]
    for i in range(lo, hi):
        for c in range(C):
            kc, a, b = k[c], c1[c], c2[c]
            for j in range(S):
                gx[i, c, j] = (xc[i, c, j] * a + b) + g[i, c, j] * kc


def _blocks(a):
    return a.reshape(a.shape[0], a.shape[1], -1)


def _over_samples(fn, x3):
    _parallel.split(fn, x3.shape[0], per=x3.shape[1] * x3.shape[2], piece_min=_parallel.ONE_PASS_PIECE)


def _reduced(part, n, dt):
    """The (N, C) table's sums over the samples, in order, divided by the count: float64, then the dtype."""
    return (np.add.reduce(part, axis=0) / n).astype(dt)


@entry
def forward(x, w, b, eps):
    """(y, xc, mean, var, rstd) of batch norm over all but axis 1: xc = x - mean; rstd = 1 / sqrt(var + eps)."""
    x3 = _blocks(x)
    N, C, S = x3.shape
    n = N * S
    dt = x.dtype
    part = np.empty((N, C), np.float64)
    _over_samples(lambda lo, hi: _block_sums(x3, part, lo, hi), x3)
    mean = _reduced(part, n, dt)
    xc = np.empty_like(x3)
    _over_samples(lambda lo, hi: _centre(x3, mean, xc, part, lo, hi), x3)
    var = _reduced(part, n, dt)
    rstd = 1.0 / np.sqrt(var + np.asarray(eps, dt))
    k = rstd if w is None else rstd * w.reshape(-1)
    y = np.empty_like(x3)
    b1 = k if b is None else b.reshape(-1)
    _over_samples(lambda lo, hi: _affine(xc, k, b1, y, b is not None, lo, hi), x3)
    return y.reshape(x.shape), xc.reshape(x.shape), mean, var, rstd


@entry
def grad_sums(g, xc):
    """Per channel, sum(g) and sum(g * xc), in g's dtype (the backward's one pass over both; xc = x - mean)."""
    g3, xc3 = _blocks(g), _blocks(xc)
    N, C = g3.shape[:2]
    gsum_p, gxc_p = np.empty((N, C), np.float64), np.empty((N, C), np.float64)
    _over_samples(lambda lo, hi: _grad_sums(g3, xc3, gsum_p, gxc_p, lo, hi), g3)
    return np.add.reduce(gsum_p, axis=0).astype(g.dtype), np.add.reduce(gxc_p, axis=0).astype(g.dtype)


@entry
def input_grad(g, xc, k, c1, c2):
    """dL/dx = (xc * c1 + c2) + g * k, from the backward's per-channel constants (normalization._channel_backward)."""
    g3, xc3 = _blocks(g), _blocks(xc)
    gx = np.empty_like(g3)
    _over_samples(lambda lo, hi: _input_grad(g3, xc3, k, c1, c2, gx, lo, hi), g3)
    return gx.reshape(g.shape)
