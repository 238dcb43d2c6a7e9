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
from ...autograd.grad_mode import is_grad_enabled
from ...ops import _poly as P
from ...tensor import Tensor
from ._utils import _pair, check_input, compute_dtype, roi_array
from .roi_align import _channels_last, size_sorted_chunks

__all__ = ["roi_pool", "RoIPool"]

_CHUNK_ELEMENTS = 1 << 22


def round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def bin_edges(lo, hi, bins, length, dt, inclusive=True):
    """Per box, the [start, end) pixel range of each bin, clamped to [0, length): (K, bins) each. The box
    spans hi - lo + 1 pixels (``inclusive``, roi_pool) or hi - lo (ps_roi_pool), at least one."""
    extent = np.maximum(hi - lo + (1 if inclusive else 0), 1).astype(dt)
    size = extent / dt.type(bins)
    p = np.arange(bins, dtype=dt)
    start = np.floor(p[None, :] * size[:, None]).astype(np.int64) + lo[:, None].astype(np.int64)
    end = np.ceil((p[None, :] + 1) * size[:, None]).astype(np.int64) + lo[:, None].astype(np.int64)
    return np.clip(start, 0, length), np.clip(end, 0, length)


def _max_pool_rois(x, rois, out_hw, scale, dt, track=True):
    """(values (K, C, PH, PW) in x's dtype, winners: flat h * W + w positions, -1 for empty bins; None
    unless ``track``). Untracked, the maxima are plain ``fmax`` reductions (NaN loses there too)."""
    n, c, h, w = x.shape
    ph, pw = out_hw
    k_all = len(rois)
    corners = round_half_away(rois[:, 1:] * scale)
    hs, he = bin_edges(corners[:, 1], corners[:, 3], ph, h, dt)
    ws, we = bin_edges(corners[:, 0], corners[:, 2], pw, w, dt)
    lowest = np.finfo(dt).min  # the kernel's starting "maximum": a bin of NaNs keeps it
    values = np.zeros((k_all, c, ph, pw), dt)
    winners = np.full((k_all, c, ph, pw), -1, np.int64) if track else None
    if k_all == 0:
        return values.astype(x.dtype), winners
    batch = rois[:, 0].astype(np.int64)
    first_row = hs[:, 0]
    spans = np.maximum(he[:, -1] - first_row, 1)
    bin_w = np.maximum(we - ws, 0).max(1)
    # one extra row reading `lowest`: a position outside a bin gathers it and never wins, so no masks
    rows_c = np.concatenate([_channels_last(x, dt), np.full((1, c), lowest, dt)])
    outside = rows_c.shape[0] - 1
    for idx in size_sorted_chunks(spans * pw, c):
        k = len(idx)
        span, bw, bh = int(spans[idx].max()), int(bin_w[idx].max()), int(max(0, (he[idx] - hs[idx]).max()))
        base = (batch[idx, None] * h + np.minimum(first_row[idx, None] + np.arange(span), h - 1)) * w  # (k, span)
        cs, ce = ws[idx], we[idx]
        # pass 1: for each window row, the maximum over each bin's columns and the offset of its column;
        # row `span` stays `lowest`, for pass 2's rows outside a bin
        col_max = np.full((k, span + 1, pw, c), lowest, dt)
        off_type = np.int8 if max(bw, bh) < 127 else np.int32  # offsets inside one bin
        col_off = np.full((k, span + 1, pw, c), -1, off_type) if track else None
        better = np.empty((k, span, pw, c), bool)
        for j in range(bw):
            col = cs + j  # (k, PW)
            flat = np.where((col < ce)[:, None, :], base[:, :, None] + np.minimum(col, w - 1)[:, None, :], outside)
            v = np.take(rows_c, flat.reshape(-1), axis=0).reshape(k, span, pw, c)
            if not track:
                np.fmax(col_max[:, :span], v, out=col_max[:, :span])
                continue
            np.greater(v, col_max[:, :span], out=better)
            np.copyto(col_max[:, :span], v, where=better)
            np.copyto(col_off[:, :span], j, where=better)
        # pass 2: over each bin's rows
        best = np.full((k, ph, pw, c), lowest, dt)
        row_off = np.full((k, ph, pw, c), -1, off_type) if track else None
        better = np.empty(best.shape, bool)
        kk = np.arange(k)[:, None]
        for j in range(bh):
            row = hs[idx] + j  # (k, PH)
            local = np.where(row < he[idx], row - first_row[idx, None], span)
            v = col_max[kk, local]  # (k, PH, PW, C)
            if not track:
                np.fmax(best, v, out=best)
                continue
            np.greater(v, best, out=better)
            np.copyto(best, v, where=better)
            np.copyto(row_off, j, where=better)
        empty = ((he[idx] <= hs[idx])[:, :, None] | (we[idx] <= ws[idx])[:, None, :])[..., None]
        values[idx] = np.where(empty, 0, best).transpose(0, 3, 1, 2)
        if not track:
            continue
        won = row_off >= 0
        local = (hs[idx] - first_row[idx, None])[:, :, None, None] + np.maximum(row_off, 0)
        col = np.take_along_axis(col_off, np.minimum(local, span), axis=1)
        pos = (hs[idx, :, None, None] + row_off) * w + ws[idx, None, :, None] + col
        winners[idx] = np.where(won & ~empty, pos, -1).transpose(0, 3, 1, 2)
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
    track = input.requires_grad and is_grad_enabled()  # the winners matter only to a backward
    values, winners = _max_pool_rois(data, rois, _pair(output_size), float(spatial_scale), compute_dtype(data.dtype),
                                     track)
    if not track:
        return Tensor._wrap(values)
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
