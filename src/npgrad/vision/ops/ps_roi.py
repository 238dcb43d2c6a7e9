"""Position-sensitive RoI pooling (Dai et al., R-FCN; Li et al., Light-Head R-CNN): the input has
C * PH * PW channels, and output bin (ph, pw) of output channel c reads only input channel
(c * PH + ph) * PW + pw.

Both are the separable poolings of roi_align.py (bilinear sample weights for ps_roi_align, the box
filter 1 / bin area over whole pixels for ps_roi_pool) over all input channels, followed by picking each
bin from its own channel group: a diagonal, so the gradient is roi_align's adjoint again.
"""
import numpy as np

from ... import nn
from ...ops import diagonal
from ._utils import _pair, check_input, compute_dtype, roi_array
from .roi_align import Geometry, RoIAlignOp, align_weights
from .roi_pool import bin_edges, round_half_away

__all__ = ["ps_roi_align", "PSRoIAlign", "ps_roi_pool", "PSRoIPool"]


def _box_filter(start, end, length):
    """(K, bins, length): 1 / (end - start) on each bin's pixels, 0 elsewhere (and for an empty bin)."""
    pos = np.arange(length)
    inside = (pos[None, None, :] >= start[:, :, None]) & (pos[None, None, :] < end[:, :, None])
    return inside / np.maximum(end - start, 1)[:, :, None]


def _position_sensitive(name, input, rois, out_hw, weights):
    c_in = input.shape[1]
    ph, pw = out_hw
    if c_in % (ph * pw) != 0:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling width")
    wy, wx = weights
    geo = Geometry(rois[:, 0].astype(np.int64), wy, wx, tuple(input.shape), compute_dtype(input._data.dtype))
    every = RoIAlignOp.apply(input, geo)  # (K, C_in, PH, PW): every channel pooled over every bin
    k = every.shape[0]
    groups = every.reshape(k, c_in // (ph * pw), ph * pw, ph * pw)
    return diagonal(groups, 0, 2, 3).reshape(k, c_in // (ph * pw), ph, pw)


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Position-sensitive roi_align: boxes as for roi_align, read with the half-pixel shift
    (``aligned=True``); returns (K, C / (PH * PW), PH, PW)."""
    rois = roi_array(boxes)
    check_input("ps_roi_align", input, rois)
    out_hw = _pair(output_size)
    weights = align_weights(rois, tuple(input.shape[-2:]), out_hw, float(spatial_scale), int(sampling_ratio), True)
    return _position_sensitive("ps_roi_align", input, rois, out_hw, weights)


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Position-sensitive average RoI pooling: box corners scaled and rounded to whole pixels, each bin
    the mean of its pixels (0 when empty); returns (K, C / (PH * PW), PH, PW)."""
    rois = roi_array(boxes)
    check_input("ps_roi_pool", input, rois)
    out_hw = _pair(output_size)
    h, w = input.shape[-2:]
    dt = compute_dtype(input._data.dtype)
    corners = round_half_away(rois[:, 1:] * float(spatial_scale))
    hs, he = bin_edges(corners[:, 1], corners[:, 3], out_hw[0], h, dt, inclusive=False)
    ws, we = bin_edges(corners[:, 0], corners[:, 2], out_hw[1], w, dt, inclusive=False)
    weights = _box_filter(hs, he, h), _box_filter(ws, we, w)
    return _position_sensitive("ps_roi_pool", input, rois, out_hw, weights)


class PSRoIAlign(nn.Module):
    """ps_roi_align as a layer."""

    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio

    def forward(self, input, rois):
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio})")


class PSRoIPool(nn.Module):
    """ps_roi_pool as a layer."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"
