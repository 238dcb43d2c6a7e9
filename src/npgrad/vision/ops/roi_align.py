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


def _window(weights):
    """The first row each box reads and the widest span over boxes, and the weights cut to that span
    (zero past the input's end): (first (K,), span, (K, bins, span))."""
    k, _bins, length = weights.shape
    touched = (weights != 0).any(axis=1)  # (K, length)
    first = np.where(touched.any(1), np.argmax(touched, 1), 0)
    last = np.where(touched.any(1), length - 1 - np.argmax(touched[:, ::-1], 1), 0)
    span = int((last - first).max(initial=0)) + 1
    idx = first[:, None] + np.arange(span)[None, :]
    padded = np.concatenate([weights, np.zeros((k, weights.shape[1], 1))], 2)
    cut = np.take_along_axis(padded, np.minimum(idx, length)[:, None, :], axis=2)
    return first, span, cut


class _Geometry:
    """Everything of one roi_align call but the values: per chunk of boxes, the batch index, the window's
    rows and columns and the two weight matrices cut to it."""

    def __init__(self, rois, in_shape, out_hw, scale, sampling_ratio, aligned, dtype):
        n, c, h, w = in_shape
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
        fy, sy, ay = _window(_axis_weights(y1, rh, ph, gh, h))
        fx, sx, ax = _window(_axis_weights(x1, rw, pw, gw, w))
        self.in_shape, self.out_shape = in_shape, (len(rois), c, ph, pw)
        self.dtype = dtype
        batch = rois[:, 0].astype(np.int64)
        step = max(1, _CHUNK_ELEMENTS // max(1, c * sy * sx))
        self.chunks = []
        for s in range(0, len(rois), step):
            sl = slice(s, s + step)
            rows = np.minimum(fy[sl, None] + np.arange(sy), h - 1)
            cols = np.minimum(fx[sl, None] + np.arange(sx), w - 1)
            self.chunks.append((sl, batch[sl], rows, cols, ay[sl].astype(dtype), ax[sl].astype(dtype)))


def _pool(x, geo):
    out = np.empty(geo.out_shape, geo.dtype)
    k_all, c, ph, pw = geo.out_shape
    xc = x.astype(geo.dtype, copy=False)
    for sl, batch, rows, cols, ay, ax in geo.chunks:
        k, sy, sx = len(batch), rows.shape[1], cols.shape[1]
        win = xc[batch[:, None, None], :, rows[:, :, None], cols[:, None, :]]  # (k, sy, sx, C)
        t = np.matmul(ay, win.reshape(k, sy, sx * c)).reshape(k, ph, sx, c)
        out[sl] = np.matmul(ax[:, None], t).transpose(0, 3, 1, 2)
    return out.astype(x.dtype, copy=False)


def _unpool(g, geo):
    n, c, h, w = geo.in_shape
    grad = np.zeros((n * h * w, c), geo.dtype)
    gc = g.astype(geo.dtype, copy=False)
    for sl, batch, rows, cols, ay, ax in geo.chunks:
        k, sy, sx = len(batch), rows.shape[1], cols.shape[1]
        u = np.matmul(ax.transpose(0, 2, 1)[:, None], gc[sl].transpose(0, 2, 3, 1))  # (k, PH, sx, C)
        v = np.matmul(ay.transpose(0, 2, 1), u.reshape(k, u.shape[1], sx * c))  # (k, sy, sx * C)
        flat = (batch[:, None, None] * h + rows[:, :, None]) * w + cols[:, None, :]
        np.add.at(grad, flat.ravel(), v.reshape(-1, c))
    return np.ascontiguousarray(grad.reshape(n, h, w, c).transpose(0, 3, 1, 2)).astype(g.dtype, copy=False)


_RoIAlign, _RoIAlignBackward = P.adjoint_pair("RoIAlign", _pool, _unpool, "RoIAlignAdjoint")


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """(K, C, output_size) features of ``input`` (N, C, H, W) in each box: a Tensor[K, 5] of rows
    (batch index, x1, y1, x2, y2) or a list of per-image Tensor[L, 4]. ``spatial_scale`` maps box
    coordinates to the input's; ``sampling_ratio`` samples per bin side (<= 0: ceil(box size / bins));
    ``aligned=True`` shifts boxes by half a pixel so that pixel centres sit at integer + 0.5.
    Differentiable in ``input`` (not in the boxes)."""
    rois = roi_array(boxes)
    check_input("roi_align", input, rois)
    out_hw = _pair(output_size)
    geo = _Geometry(rois, tuple(input.shape), out_hw, float(spatial_scale), int(sampling_ratio), bool(aligned),
                    compute_dtype(input._data.dtype))
    return _RoIAlign.apply(input, geo)


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
