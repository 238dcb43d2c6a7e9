"""Resampling of (..., H, W) float arrays the way PyTorch's ``interpolate`` computes them.

Each axis is resampled on its own (width first, then height) by a table of source indices and weights per
output pixel; the sums run tap by tap in the array's precision, which is what keeps uint8 results (rounded
afterwards) on the same side of every .5 as PyTorch's kernels.
"""
import math

import numpy as np


def _cubic(a):
    def k(x):
        x = np.abs(x)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1, near, np.where(x < 2, far, 0.0))
    return k


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _taps_plain(n_in, n_out, mode, ft):
    """Indices (n_out, taps) and weights for the non-antialiased modes."""
    scale = ft(n_in) / ft(n_out)
    dst = np.arange(n_out, dtype=ft)
    if mode in ("nearest", "nearest-exact"):
        pos = dst * scale if mode == "nearest" else (dst + ft(0.5)) * scale
        idx = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
        return idx[:, None], np.ones((n_out, 1), ft)
    src = (dst + ft(0.5)) * scale - ft(0.5)
    if mode == "bilinear":
        src = np.maximum(src, ft(0))
        i0 = np.floor(src).astype(np.int64)
        i1 = np.where(i0 < n_in - 1, i0 + 1, i0)
        frac = (src - i0.astype(ft)).astype(ft)
        return np.stack([i0, i1], 1), np.stack([ft(1) - frac, frac], 1).astype(ft)
    # bicubic, PyTorch's a = -0.75, border pixels repeated
    base = np.floor(src).astype(np.int64)
    t = (src - base.astype(ft)).astype(ft)
    a = ft(-0.75)
    one = ft(1)

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + one

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    w = np.stack([far(t + one), near(t), near(one - t), far(ft(2) - t)], 1).astype(ft)
    idx = np.clip(base[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1)
    return idx, w


def _taps_antialias(n_in, n_out, mode, ft):
    """PIL-style filter taps stretched by the downscale factor (PyTorch's antialias=True path)."""
    scale = ft(n_in) / ft(n_out)
    half = 1.0 if mode == "bilinear" else 2.0
    kernel = _triangle if mode == "bilinear" else _cubic(-0.5)
    wide = scale >= 1
    support = ft(half) * scale if wide else ft(half)
    inv = ft(1) / scale if wide else ft(1)
    centers = scale * (np.arange(n_out, dtype=ft) + ft(0.5))
    lo = np.maximum((centers - support + ft(0.5)).astype(np.int64), 0)
    hi = np.minimum((centers + support + ft(0.5)).astype(np.int64), n_in)
    taps = int((hi - lo).max()) if n_out else 1
    j = np.arange(taps)
    idx = lo[:, None] + j[None, :]
    x = ((idx.astype(ft) - centers[:, None] + ft(0.5)) * inv).astype(ft)
    w = kernel(x).astype(ft)
    w[idx >= hi[:, None]] = 0
    total = w.sum(1, keepdims=True, dtype=ft)
    w = np.where(total != 0, w / np.where(total == 0, 1, total), 0).astype(ft)
    return np.minimum(idx, n_in - 1), w


def _along(arr, axis, idx, w):
    taps = idx.shape[1]
    out = None
    for k in range(taps):
        term = np.take(arr, idx[:, k], axis=axis)
        shape = [1] * arr.ndim
        shape[axis] = -1
        term = term * w[:, k].reshape(shape)
        out = term if out is None else out + term
    return out


def resample(arr, size, mode, antialias=False):
    """Resample the last two axes of float ``arr`` to ``size`` = (h, w)."""
    ft = arr.dtype.type
    oh, ow = size
    h, w = arr.shape[-2:]
    aa = antialias and mode in ("bilinear", "bicubic")
    taps = _taps_antialias if aa else _taps_plain
    if aa:
        # PyTorch skips an axis whose size does not change
        out = arr
        if ow != w:
            out = _along(out, arr.ndim - 1, *taps(w, ow, mode, ft))
        if oh != h:
            out = _along(out, arr.ndim - 2, *taps(h, oh, mode, ft))
        return out
    if mode in ("nearest", "nearest-exact"):
        iy = taps(h, oh, mode, ft)[0][:, 0]
        ix = taps(w, ow, mode, ft)[0][:, 0]
        return arr[..., iy[:, None], ix[None, :]]
    out = _along(arr, arr.ndim - 1, *taps(w, ow, mode, ft))
    return _along(out, arr.ndim - 2, *taps(h, oh, mode, ft))


def weight_matrix(n_in, n_out, mode, antialias, dtype):
    """The dense (n_out, n_in) matrix of one axis' resampling (for the differentiable matmul route)."""
    ft = np.dtype(dtype).type
    if n_in == n_out and antialias and mode in ("bilinear", "bicubic"):
        return np.eye(n_in, dtype=ft)
    taps = _taps_antialias if antialias and mode in ("bilinear", "bicubic") else _taps_plain
    idx, w = taps(n_in, n_out, mode, ft)
    dense = np.zeros((n_out, n_in), ft)
    np.add.at(dense, (np.repeat(np.arange(n_out), idx.shape[1]), idx.ravel()), w.ravel())
    return dense
