"""RoI Align (He et al., Mask R-CNN): each box cut into output_size bins, each bin the average of the input
bilinearly sampled on a regular grid of points inside it.

Bilinear sampling on a rectangular grid is separable: a bin's average is A_y X A_x^T, where X is the
feature map and A_y (bins x rows), A_x (bins x columns) hold, for each bin, the bilinear weights of its
sample rows (columns) summed and divided by their count. Each box's two small matrices are built once
from the box geometry, restricted to the rows and columns the box reads, and the pooling is two batched
matrix products over that window. The map is linear in the input, so its gradient is the transposed
products scattered back into the window (and that gradient's gradient the forward again: an adjoint pair).
"""

import numpy as np

from ... import nn
from ...ops import _poly as P
from ...tensor import Tensor
from ._utils import _pair, check_input, compute_dtype, roi_array

__all__ = ["roi_align", "RoIAlign"]

_CHUNK_ELEMENTS = 1 << 22  # bound on a chunk of gathered windows (RoIs x channels x window)


def _axis_weights(start, extent, bins, grid, length):
    """(K, bins, length) float64: for box k and bin p, the weight of each input row (or column) in the
    average over the bin's ``grid[k]`` samples, with torchvision's border rules: a sample more than one
    pixel outside contributes nothing, one inside [-1, 0] reads the border, one past the last row reads it."""
    k = start.shape[0]
    g_max = max(int(grid.max(initial=1)), 1)
    step = extent / bins  # bin size
    i = np.arange(g_max)
    pos = (start[:, None, None] + np.arange(bins)[None, :, None] * step[:, None, None]
           + (i[None, None, :] + 0.5) * (step / np.maximum(grid, 1))[:, None, None])
    used = (i[None, None, :] < grid[:, None, None]) & (pos >= -1.0) & (pos <= length)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    at_end = low >= length - 1
    low = np.where(at_end, length - 1, low)
    high = np.where(at_end, length - 1, low + 1)
    frac = np.where(at_end, 0.0, pos - low)
    share = used / np.maximum(grid, 1)[:, None, None]
    base = (np.arange(k)[:, None, None] * bins + np.arange(bins)[None, :, None]) * length
    weights = np.bincount((base + low).ravel(), ((1.0 - frac) * share).ravel(), k * bins * length)
    weights += np.bincount((base + high).ravel(), (frac * share).ravel(), k * bins * length)
    return weights.reshape(k, bins, length)


def _reach(weights):
    """Per box, the first row (column) with a nonzero weight and how many rows from there it reads."""
    length = weights.shape[2]
    touched = (weights != 0).any(axis=1)  # (K, length)
    some = touched.any(1)
    first = np.where(some, np.argmax(touched, 1), 0)
    last = np.where(some, length - 1 - np.argmax(touched[:, ::-1], 1), 0)
    return first, last - first + 1


def _cut(weights, first, span):
    """The weights of rows first .. first + span - 1 (zero past the input's end): (K, bins, span)."""
    k, bins, length = weights.shape
    padded = np.concatenate([weights, np.zeros((k, bins, 1))], 2)
    idx = np.minimum(first[:, None] + np.arange(span)[None, :], length)
    return np.take_along_axis(padded, idx[:, None, :], axis=2)


def size_sorted_chunks(sizes, per_item, budget=_CHUNK_ELEMENTS):
    """Index arrays grouping boxes of similar window size (sorted by it), each group's padded work
    (count x largest size x per_item) near ``budget``, so one large box does not pad all the others."""
    order = np.argsort(sizes, kind="stable")
    chunks, start = [], 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop - start + 1) * sizes[order[stop]] * per_item <= budget:
            stop += 1
        chunks.append(order[start:stop])
        start = stop
    return chunks


def align_weights(rois, in_hw, out_hw, scale, sampling_ratio, aligned):
    """roi_align's two weight tensors (K, PH, H) and (K, PW, W) for boxes (K, 5)."""
    h, w = in_hw
    ph, pw = out_hw
    shift = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (rois[:, i] * scale - shift for i in range(1, 5))
    rw, rh = x2 - x1, y2 - y1
    if not aligned:  # boxes smaller than a pixel are read as one pixel (Detectron's convention)
        rw, rh = np.maximum(rw, 1.0), np.maximum(rh, 1.0)
    if sampling_ratio > 0:
        gh = gw = np.full(len(rois), sampling_ratio)
    else:  # about one sample per input pixel
        gh, gw = np.ceil(rh / ph).astype(np.int64), np.ceil(rw / pw).astype(np.int64)
    return _axis_weights(y1, rh, ph, gh, h), _axis_weights(x1, rw, pw, gw, w)


class Geometry:
    """Everything of one separable RoI pooling but the values: per chunk of boxes, the batch index, the
    window's first row and column, its extent inside the input, and the two weight matrices
    (K, PH, H) and (K, PW, W) cut to it."""

    def __init__(self, batch, wy, wx, in_shape, dtype):
        n, c, h, w = in_shape
        (fy, sy), (fx, sx) = _reach(wy), _reach(wx)
        self.in_shape, self.out_shape = in_shape, (len(batch), c, wy.shape[1], wx.shape[1])
        self.dtype = dtype
        self.chunks = []
        for idx in size_sorted_chunks(sy * sx, c):
            span_y, span_x = int(sy[idx].max()), int(sx[idx].max())
            rows = np.minimum(fy[idx, None] + np.arange(span_y), h - 1)
            cols = np.minimum(fx[idx, None] + np.arange(span_x), w - 1)
            flat = (batch[idx, None, None] * h + rows[:, :, None]) * w + cols[:, None, :]
            ay = _cut(wy[idx], fy[idx], span_y).astype(dtype)
            ax = _cut(wx[idx], fx[idx], span_x).astype(dtype)
            self.chunks.append((idx, flat, ay, ax, batch[idx], fy[idx], fx[idx], sy[idx], sx[idx]))


def _channels_last(a, dtype):
    """(N, C, H, W) as contiguous (N * H * W, C) rows: a window gather then reads whole rows."""
    n, c = a.shape[:2]
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1), dtype=dtype).reshape(-1, c)


def _pool(x, geo):
    k_all, c, ph, pw = geo.out_shape
    out = np.empty((k_all, ph, pw, c), geo.dtype)
    rows_c = _channels_last(x, geo.dtype)
    for idx, flat, ay, ax, *_ in geo.chunks:
        k, sy, sx = flat.shape
        win = np.take(rows_c, flat.reshape(-1), axis=0).reshape(k, sy, sx * c)
        t = np.matmul(ay, win).reshape(k, ph, sx, c)
        out[idx] = np.matmul(ax[:, None], t)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2)).astype(x.dtype, copy=False)


def _unpool(g, geo):
    n, c, h, w = geo.in_shape
    grad = np.zeros((n, h, w, c), geo.dtype)
    g_last = np.ascontiguousarray(g.transpose(0, 2, 3, 1), dtype=geo.dtype)  # (K, PH, PW, C)
    for idx, flat, ay, ax, batch, fy, fx, sy, sx in geo.chunks:
        k, span_y, span_x = flat.shape
        u = np.matmul(ax.transpose(0, 2, 1)[:, None], g_last[idx])  # (k, PH, span_x, C)
        v = np.matmul(ay.transpose(0, 2, 1), u.reshape(k, u.shape[1], span_x * c)).reshape(k, span_y, span_x, c)
        # windows of different boxes overlap: accumulate box by box (one slice each), not element by element
        for j in range(k):
            b, r, q, hr, wr = batch[j], fy[j], fx[j], sy[j], sx[j]
            grad[b, r:r + hr, q:q + wr] += v[j, :hr, :wr]
    return np.ascontiguousarray(grad.transpose(0, 3, 1, 2)).astype(g.dtype, copy=False)


RoIAlignOp, _RoIAlignBackward = P.adjoint_pair("RoIAlign", _pool, _unpool, "RoIAlignAdjoint")


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """(K, C, output_size) features of ``input`` (N, C, H, W) in each box: a Tensor[K, 5] of rows
    (batch index, x1, y1, x2, y2) or a list of per-image Tensor[L, 4]. ``spatial_scale`` maps box
    coordinates to the input's; ``sampling_ratio`` samples per bin side (<= 0: ceil(box size / bins));
    ``aligned=True`` shifts boxes by half a pixel so that pixel centres sit at integer + 0.5.
    Differentiable in ``input`` (not in the boxes)."""
    rois = roi_array(boxes)
    check_input("roi_align", input, rois)
    out_hw = _pair(output_size)
    wy, wx = align_weights(rois, tuple(input.shape[-2:]), out_hw, float(spatial_scale), int(sampling_ratio),
                           bool(aligned))
    geo = Geometry(rois[:, 0].astype(np.int64), wy, wx, tuple(input.shape), compute_dtype(input._data.dtype))
    return RoIAlignOp.apply(input, geo)


class RoIAlign(nn.Module):
    """roi_align as a layer."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})")
