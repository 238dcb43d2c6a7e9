"""RoI max pooling (Girshick, Fast R-CNN): each box rounded to the input's pixel grid, cut into
output_size bins of whole pixels, each bin's maximum taken.

The maximum over a rectangle is a maximum over its columns, then over its rows. Both passes run over all
boxes at once, one step per pixel of the widest bin, with a strict ``>`` so that the first maximum in
row-major order wins (and NaN never does), as in torchvision's kernel. The winners' flat positions are kept:
the gradient goes to them (a scatter-add) and that scatter's adjoint is a gather.
"""
import numpy as np

from ... import nn
from ...autograd.function import Op
from ...ops import _poly as P
from ._utils import _pair, check_input, compute_dtype, roi_array

__all__ = ["roi_pool", "RoIPool"]

_CHUNK_ELEMENTS = 1 << 22


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _bin_edges(lo, hi, bins, length, dt):
    """Per box, the [start, end) pixel range of each bin, clamped to [0, length): (K, bins) each."""
    extent = np.maximum(hi - lo + 1, 1).astype(dt)
    size = extent / dt.type(bins)
    p = np.arange(bins, dtype=dt)
    start = np.floor(p[None, :] * size[:, None]).astype(np.int64) + lo[:, None].astype(np.int64)
    end = np.ceil((p[None, :] + 1) * size[:, None]).astype(np.int64) + lo[:, None].astype(np.int64)
    return np.clip(start, 0, length), np.clip(end, 0, length)


def _max_pool_rois(x, rois, out_hw, scale, dt):
    """(values (K, C, PH, PW) in x's dtype, winners: flat h * W + w positions, -1 for empty bins)."""
    n, c, h, w = x.shape
    ph, pw = out_hw
    k_all = len(rois)
    corners = _round_half_away(rois[:, 1:] * scale)
    hs, he = _bin_edges(corners[:, 1], corners[:, 3], ph, h, dt)
    ws, we = _bin_edges(corners[:, 0], corners[:, 2], pw, w, dt)
    lowest = np.finfo(dt).min  # the kernel's starting "maximum": a bin of NaNs keeps it
    values = np.zeros((k_all, c, ph, pw), dt)
    winners = np.full((k_all, c, ph, pw), -1, np.int64)
    if k_all == 0:
        return values.astype(x.dtype), winners
    batch = rois[:, 0].astype(np.int64)
    first_row = hs[:, 0]
    span = int(max(1, (he[:, -1] - first_row).max()))
    bw = int(max(0, (we - ws).max()))
    bh = int(max(0, (he - hs).max()))
    step = max(1, _CHUNK_ELEMENTS // max(1, span * pw * c))
    xc = x.astype(dt, copy=False)
    for s in range(0, k_all, step):
        sl = slice(s, s + step)
        k = len(batch[sl])
        rows = np.minimum(first_row[sl, None] + np.arange(span), h - 1)  # (k, span)
        # pass 1: for each window row, the maximum over each bin's columns
        col_max = np.full((k, span, pw, c), lowest, dt)
        col_arg = np.full((k, span, pw, c), -1, np.int64)
        for j in range(bw):
            col = ws[sl] + j  # (k, PW)
            inside = col < we[sl]
            v = xc[batch[sl, None, None], :, rows[:, :, None], np.minimum(col, w - 1)[:, None, :]]  # (k, span, PW, C)
            better = (v > col_max) & inside[:, None, :, None]
            col_max = np.where(better, v, col_max)
            col_arg = np.where(better, col[:, None, :, None], col_arg)
        # pass 2: over each bin's rows
        best = np.full((k, ph, pw, c), lowest, dt)
        arg = np.full((k, ph, pw, c), -1, np.int64)
        kk = np.arange(k)[:, None]
        for j in range(bh):
            row = hs[sl] + j  # (k, PH)
            inside = row < he[sl]
            local = np.clip(row - first_row[sl, None], 0, span - 1)
            v = col_max[kk, local]  # (k, PH, PW, C)
            a = col_arg[kk, local]
            better = (v > best) & inside[:, :, None, None]
            best = np.where(better, v, best)
            arg = np.where(better, row[:, :, None, None] * w + a, arg)
        empty = ((he[sl] <= hs[sl])[:, :, None] | (we[sl] <= ws[sl])[:, None, :])[..., None]
        values[sl] = np.where(empty, 0, best).transpose(0, 3, 1, 2)
        winners[sl] = np.where(empty, -1, arg).transpose(0, 3, 1, 2)
    return values.astype(x.dtype, copy=False), winners


class _Winners:
    """Where each pooled value came from: flat input positions (batch, channel, h * W + w) or -1."""

    def __init__(self, rois, winners, in_shape):
        n, c, h, w = in_shape
        batch = rois[:, 0].astype(np.int64)
        self.in_shape = in_shape
        self.hit = winners >= 0
        self.flat = ((batch[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * (h * w)
                     + np.where(self.hit, winners, 0))


def _scatter(g, wins):
    out = np.zeros(int(np.prod(wins.in_shape)), g.dtype)
    np.add.at(out, wins.flat[wins.hit], g[wins.hit])
    return out.reshape(wins.in_shape)


def _gather(gx, wins):
    return np.where(wins.hit, gx.reshape(-1)[wins.flat], 0).astype(gx.dtype, copy=False)


_RoIPoolScatter, _RoIPoolGather = P.adjoint_pair("RoIPoolScatter", _scatter, _gather, "RoIPoolGather")


class _RoIPoolOp(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, wins, out):
        ctx.wins = wins  # the pooling ran before apply: the winners are needed either way
        return out

    @staticmethod
    def backward(ctx, g):
        return P.kernel_call(_RoIPoolScatter, g, ctx.wins), None, None


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """(K, C, output_size) maxima of ``input`` (N, C, H, W) over each box's bins; ``boxes`` as for
    roi_align. Box corners are scaled by ``spatial_scale`` and rounded to whole pixels; an empty bin
    gives 0. Differentiable in ``input``: each value's gradient goes to the pixel it came from."""
    rois = roi_array(boxes)
    check_input("roi_pool", input, rois)
    data = input._data
    values, winners = _max_pool_rois(data, rois, _pair(output_size), float(spatial_scale), compute_dtype(data.dtype))
    return _RoIPoolOp.apply(input, _Winners(rois, winners, tuple(input.shape)), values)


class RoIPool(nn.Module):
    """roi_pool as a layer."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"
