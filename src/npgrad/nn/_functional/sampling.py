"""interpolate / upsample (nearest, nearest-exact, linear, bilinear, area), pixel_shuffle.

Resizing is separable: nearest modes gather source indices along each spatial axis; the linear modes
take PyTorch's two-tap lerp along each axis (two gathers and a weighted sum). Both are compositions of
differentiable operators (index_select, mul, add).
"""
import math
import warnings

import numpy as np

from ...tensor import Tensor
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d


def _source_scale(n_in, n_out, align_corners, scale):
    """PyTorch's area_pixel_compute_scale."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return n_in / n_out


def _nearest_index(n_in, n_out, scale, exact):
    # PyTorch computes nearest source indices in float32 arithmetic; so do we, to pick the same pixels.
    s = np.float32(_source_scale(n_in, n_out, False, scale))
    dst = np.arange(n_out, dtype=np.float32)
    src = np.floor((dst + np.float32(0.5)) * s) if exact else np.floor(dst * s)
    return np.minimum(src.astype(np.int64), n_in - 1)


def _linear_taps(n_in, n_out, align_corners, scale, dtype):
    """PyTorch's two taps per output position: source indices i0, i1 and weights 1 - lam, lam."""
    s = _source_scale(n_in, n_out, align_corners, scale)
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = dst * s
    else:
        src = np.maximum((dst + 0.5) * s - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    return i0, i1, (1.0 - lam).astype(dtype), lam.astype(dtype)


def _along(x, axis, taps):
    """Two-tap linear interpolation along ``axis``: each output reads its two source elements only, so
    an inf or NaN reaches only the outputs it is a tap of (a dense interpolation matrix would spread
    it through 0 * inf to every output)."""
    i0, i1, w0, w1 = taps
    shape = [1] * x.dim()
    shape[axis] = -1
    w0, w1 = Tensor._wrap(w0.reshape(shape)), Tensor._wrap(w1.reshape(shape))
    return x.index_select(axis, Tensor._wrap(i0)) * w0 + x.index_select(axis, Tensor._wrap(i1)) * w1


_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if dim < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: "
                         f"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    if size is not None:
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dim
        if len(sizes) != dim:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(spatial)} and output size of {size}. Please provide input "
                             f"tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        sizes = [int(s) for s in sizes]
        scales = [None] * dim
    elif scale_factor is not None:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * dim
        if len(scales) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        sizes = [int(math.floor(float(n) * float(s))) for n, s in zip(spatial, scales)]
        if recompute_scale_factor:
            scales = [None] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode in _DIMS and _DIMS[mode] != dim:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_DIMS[mode] + 2}D input")
    if mode == "area":
        if dim == 1:
            return adaptive_avg_pool1d(input, sizes)
        if dim == 2:
            return adaptive_avg_pool2d(input, sizes)
        raise NotImplementedError("area interpolation is implemented for 3D and 4D inputs")
    out = input
    dt = input._data.dtype
    for k in range(dim):
        axis = 2 + k
        n_in, n_out = spatial[k], sizes[k]
        if mode in ("nearest", "nearest-exact"):
            if n_in == n_out and scales[k] in (None, 1, 1.0):
                continue
            idx = _nearest_index(n_in, n_out, scales[k], mode == "nearest-exact")
            out = out.index_select(axis, Tensor._wrap(idx))
        elif mode in ("linear", "bilinear", "trilinear"):
            out = _along(out, axis, _linear_taps(n_in, n_out, align_corners, scales[k], dt))
        else:
            raise NotImplementedError(f"Input Error: interpolation mode '{mode}' is not supported by npgrad")
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    oc = c // (r * r)
    x = input.reshape(tuple(lead) + (oc, r, r, h, w))
    n = len(lead)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(tuple(lead) + (oc, h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but got "
                           f"height={h} and width={w}")
    if input.numel() == 0:  # PyTorch returns an empty input as it is, whatever its shape
        return input.clone()
    x = input.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    n = len(lead)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(tuple(lead) + (c * r * r, h // r, w // r))
