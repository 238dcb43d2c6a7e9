"""Deformable convolution (Dai et al., 2017; v2 with a modulation mask, Zhu et al., 2019): each kernel
tap reads the input at its regular position plus a learned (dy, dx), by bilinear interpolation with zeros
outside the map, optionally scaled by a mask value, and the taps are combined by the weights as in a
convolution.

It is written with npgrad operators (the sampling positions' integer corners are constants, their
fractional parts and the gathered values carry the graph), so the gradients with respect to the input,
the offsets, the mask, the weight and the bias all come from autograd.
"""
import math

import numpy as np

from ... import nn
from ... import ops as _ops
from ...factories import zeros
from ...tensor import Tensor

__all__ = ["deform_conv2d", "DeformConv2d"]


def _pair(v):
    return (int(v[0]), int(v[1])) if isinstance(v, (tuple, list)) else (int(v), int(v))


def _sample(input, y, x, groups):
    """input (N, C, H, W) read at (y, x) (N, G, K, OH, OW) for each of G channel groups:
    (N, G, C / G, K, OH, OW), zero-padded bilinear."""
    n, c, h, w = input.shape
    flat = input.reshape(n, groups, c // groups, h * w)
    y0 = np.floor(y.detach().numpy())
    x0 = np.floor(x.detach().numpy())
    fy, fx = y - Tensor._wrap(y0.astype(y0.dtype)), x - Tensor._wrap(x0.astype(x0.dtype))
    out = None
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yc, xc = y0 + dy, x0 + dx
        inside = ((yc >= 0) & (yc < h) & (xc >= 0) & (xc < w)).astype(y0.dtype)
        wgt = (fy if dy else 1 - fy) * (fx if dx else 1 - fx) * Tensor._wrap(inside)
        idx = (np.clip(yc, 0, h - 1) * w + np.clip(xc, 0, w - 1)).astype(np.int64)  # (N, G, K, OH, OW)
        taps = idx.shape[2:]
        idx = np.broadcast_to(idx.reshape(n, groups, 1, -1), (n, groups, c // groups, idx[0, 0].size))
        vals = _ops.gather(flat, 3, Tensor._wrap(np.ascontiguousarray(idx))).reshape(n, groups, c // groups, *taps)
        term = wgt[:, :, None] * vals
        out = term if out is None else out + term
    return out


def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=None):
    """Deformable 2-D convolution. ``offset`` (N, 2 * G * kh * kw, OH, OW) holds (dy, dx) per offset
    group G and kernel tap; ``mask`` (N, G * kh * kw, OH, OW), when given, scales each sampled value.
    The convolution groups are in_channels / weight.shape[1]."""
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    n, c, h, w = input.shape
    c_out, c_per_group, kh, kw = weight.shape
    k = kh * kw
    off_groups = offset.shape[1] // (2 * k)
    if off_groups == 0:
        raise RuntimeError("the shape of the offset tensor at dimension 1 is not valid. It should be a multiple "
                           f"of 2 * weight.size[2] * weight.size[3].\nGot offset.shape[1]={offset.shape[1]}, while "
                           f"2 * weight.size[2] * weight.size[3]={2 * k}")
    groups = c // c_per_group
    oh = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if tuple(offset.shape) != (n, 2 * off_groups * k, oh, ow):
        raise RuntimeError(f"offset must have shape ({n}, {2 * off_groups * k}, {oh}, {ow}), got "
                           f"{tuple(offset.shape)}")
    if c % off_groups != 0:
        raise RuntimeError(f"in_channels ({c}) must be divisible by the offset groups ({off_groups})")
    if mask is not None and tuple(mask.shape) != (n, off_groups * k, oh, ow):
        raise RuntimeError(f"mask must have shape ({n}, {off_groups * k}, {oh}, {ow}), got {tuple(mask.shape)}")
    dt = input._data.dtype
    tap_y = np.repeat(np.arange(kh) * dh, kw)  # (K,) row offset of each tap
    tap_x = np.tile(np.arange(kw) * dw, kh)
    base_y = (np.arange(oh) * sh - ph)[None, :, None] + tap_y[:, None, None]  # (K, OH, 1)
    base_x = (np.arange(ow) * sw - pw)[None, None, :] + tap_x[:, None, None]  # (K, 1, OW)
    off = offset.reshape(n, off_groups, k, 2, oh, ow)
    y = off[:, :, :, 0] + Tensor._wrap(base_y.astype(dt))
    x = off[:, :, :, 1] + Tensor._wrap(base_x.astype(dt))
    vals = _sample(input, y, x, off_groups)  # (N, G, C / G, K, OH, OW)
    if mask is not None:
        vals = vals * mask.reshape(n, off_groups, 1, k, oh, ow)
    cols = vals.reshape(n, groups, c_per_group * k, oh * ow)
    out = weight.reshape(groups, c_out // groups, c_per_group * k) @ cols  # (N, groups, O / groups, OH * OW)
    out = out.reshape(n, c_out, oh, ow)
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    return out


class DeformConv2d(nn.Module):
    """deform_conv2d as a layer: ``forward(input, offset, mask=None)``; weights initialised as Conv2d's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(zeros(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(zeros(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.kernel_size[0] * self.kernel_size[1]
            bound = 1 / math.sqrt(fan_in)
            nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, input, offset, mask=None):
        return deform_conv2d(input, offset, self.weight, self.bias, stride=self.stride, padding=self.padding,
                             dilation=self.dilation, mask=mask)

    def __repr__(self):
        extra = "" if self.padding == (0, 0) else f", padding={self.padding}"
        extra += "" if self.dilation == (1, 1) else f", dilation={self.dilation}"
        extra += "" if self.groups == 1 else f", groups={self.groups}"
        extra += "" if self.bias is not None else ", bias=False"
        return (f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}{extra})")
