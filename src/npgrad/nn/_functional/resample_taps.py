"""Resampling along one axis as K taps per output position: source indices (K, n_out) and weights (K, n_out).

interpolate's bicubic mode (PyTorch's cubic convolution, a = -0.75, border indices clamped), its antialiased
bilinear / bicubic / lanczos modes (PIL-style filters whose support widens by the downscaling factor, each
window cut at the borders and normalised), area mode along any axis, and the fixed-point arithmetic PyTorch
uses for uint8 images all reduce to this form. Applying it is K gathers and a weighted sum (``apply_taps``):
differentiable, and an inf or NaN reaches only the outputs it is a tap of.
"""

import numpy as np

from ...tensor import Tensor


def source_scale(n_in, n_out, align_corners, scale):
    """PyTorch's area_pixel_compute_scale."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return n_in / n_out


def _cubic1(x, a):  # |x| <= 1
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x, a):  # 1 < |x| < 2
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_taps(n_in, n_out, align_corners, scale, ftype=np.float32):
    """upsample_bicubic2d along one axis: four taps around floor(src), indices clamped to the border.
    Computed in the input's float type (``ftype``), as PyTorch does, so the same weights come out."""
    s = ftype(source_scale(n_in, n_out, align_corners, scale))
    dst = np.arange(n_out, dtype=ftype)
    src = dst * s if align_corners else s * (dst + ftype(0.5)) - ftype(0.5)
    i0 = np.floor(src)
    t = src - i0
    a = ftype(-0.75)
    one = ftype(1)
    w = np.stack([_cubic2(t + one, a), _cubic1(t, a), _cubic1(one - t, a), _cubic2(one - t + one, a)])
    base = i0.astype(np.int64) - 1
    idx = np.clip(base[None, :] + np.arange(4)[:, None], 0, n_in - 1)
    return idx, w


def _filter(kind, antialias):
    if kind == "bilinear":
        return 2, lambda x: np.maximum(0.0, 1.0 - np.abs(x))
    if kind == "bicubic":
        a = -0.5 if antialias else -0.75  # PIL's Keys kernel when antialiasing; the float path's otherwise

        def cubic(x):
            x = np.abs(x)
            return np.where(x < 1, _cubic1(x, a), np.where(x < 2, _cubic2(x, a), 0.0))
        return 4, cubic

    def lanczos(x):  # lanczos-3: sinc(x) sinc(x / 3) on |x| < 3
        return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)
    return 6, lanczos


def window_taps(kind, n_in, n_out, align_corners, scale, antialias, delta=0.0):
    """PyTorch's separable antialias weights (also its uint8 weights, with ``delta`` 0.5 for align_corners):
    for output i, the window [xmin, xmin + xsize) around center = scale * (i + 0.5 - delta), filter values
    normalised to sum 1. Windows shorter than the longest are padded with index xmin and weight 0."""
    interp, f = _filter(kind, antialias)
    s = source_scale(n_in, n_out, align_corners, scale)
    support = interp * 0.5 * s if (s >= 1.0 and antialias) else interp * 0.5
    invscale = 1.0 / s if (s >= 1.0 and antialias) else 1.0
    centers = s * (np.arange(n_out) + 0.5 - delta)
    xmin = np.maximum((centers - support + 0.5 + delta).astype(np.int64), 0)
    xmax = np.minimum((centers + support + 0.5 + delta).astype(np.int64), n_in)
    size = np.maximum(xmax - xmin, 0)
    k = max(1, int(size.max()) if n_out else 1)
    j = np.arange(k)[:, None]
    valid = j < size[None, :]
    w = np.where(valid, f((j + xmin[None, :] - centers[None, :] + 0.5 - delta) * invscale), 0.0)
    total = w.sum(0)
    w = np.where(total != 0, w / np.where(total != 0, total, 1.0), w)
    idx = np.where(valid, xmin[None, :] + j, np.minimum(xmin, n_in - 1)[None, :])
    return idx, w


def area_taps(n_in, n_out):
    """adaptive average pooling along one axis: output i averages [floor(i * n_in / n_out), ceil((i + 1) ...))."""
    i = np.arange(n_out)
    start = (i * n_in) // n_out
    end = -((-(i + 1) * n_in) // n_out)
    size = end - start
    k = int(size.max()) if n_out else 1
    j = np.arange(k)[:, None]
    valid = j < size[None, :]
    return np.where(valid, start[None, :] + j, start[None, :]), np.where(valid, 1.0 / size[None, :], 0.0)


def apply_taps(x, axis, idx, w):
    """sum_k x.index_select(axis, idx[k]) * w[k]; taps with weight 0 everywhere are skipped, and a zero
    weight masks its (padding) tap through a select, not a product, so inf stays where it was."""
    shape = [1] * x.dim()
    shape[axis] = -1
    dt = x._data.dtype
    out = None
    for k in range(idx.shape[0]):
        wk = w[k]
        if not wk.any():
            continue
        term = x.index_select(axis, Tensor._wrap(np.ascontiguousarray(idx[k])))
        pad = wk == 0
        if pad.any():
            term = term.masked_fill(Tensor._wrap(pad.reshape(shape)), 0.0)
        term = term * Tensor._wrap(wk.astype(dt).reshape(shape))
        out = term if out is None else out + term
    if out is None:
        out = x.index_select(axis, Tensor._wrap(np.ascontiguousarray(idx[0]))) * 0.0
    return out


def merge_duplicates(idx, w):
    """Clamped border taps name the same source index more than once; PyTorch's uint8 kernel sees one tap
    per index with the summed weight (which matters once weights are rounded to integers)."""
    cols = np.arange(idx.shape[1])
    merged = np.zeros_like(w)
    for k in range(idx.shape[0]):
        first = np.argmax(idx == idx[k][None, :], axis=0)  # indices are sorted along k: the first equal tap
        np.add.at(merged, (first, cols), w[k])
    return idx, merged


def uint8_pass(arr, axis, idx, w):
    """One separable pass in PyTorch's uint8 arithmetic: weights scaled to int16 with as many fraction bits
    as the largest weight allows (at most 22), an integer sum, rounding by adding half, a shift, a clamp."""
    wmax = float(np.abs(w).max()) if w.size else 0.0
    bits = 0
    while bits < 22 and int(0.5 + wmax * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    wi = w * (1 << bits)
    wi = np.where(wi < 0, wi - 0.5, wi + 0.5).astype(np.int16).astype(np.int64)
    a = np.moveaxis(arr.astype(np.int64), axis, -1)
    acc = np.zeros(a.shape[:-1] + (idx.shape[1],), np.int64)
    for k in range(idx.shape[0]):
        acc += a[..., idx[k]] * wi[k]
    if bits:
        acc = (acc + (1 << (bits - 1))) >> bits
    return np.moveaxis(np.clip(acc, 0, 255).astype(np.uint8), -1, axis)


