"""interpolate / upsample (nearest, nearest-exact, linear, bilinear, trilinear, bicubic, area; antialiased
bilinear, bicubic and lanczos), pixel_shuffle.

Resizing is separable: nearest modes gather source indices along each spatial axis; the linear modes
take PyTorch's two-tap lerp along each axis (two gathers and a weighted sum). Both are compositions of
differentiable operators (index_select, mul, add).
"""
import math
import warnings

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from . import resample_taps as _taps
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


_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2, "lanczos": 2}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_int(v):
    return isinstance(v, (int, np.integer)) or isinstance(v, Tensor) and not v.dtype.is_floating_point


def _check_mode(mode, nd, align_corners, antialias):
    """PyTorch's mode / dimension checks, in its order."""
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and nd == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    need = _DIMS.get(mode)
    if mode == "lanczos" and nd == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if nd not in (3, 4, 5) or mode not in _DIMS and mode not in ("nearest", "area", "nearest-exact"):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the "
                                  f"modes: {_ALL_MODES} (got {mode})")
    if need is not None and need + 2 != nd:
        if mode in ("bicubic", "lanczos"):
            raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the "
                                      f"modes: {_ALL_MODES} (got {mode})")
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {need + 2}D input")


_TYPE_NAMES = {"int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool"}


def _integer_input(input, mode, antialias, align_corners, spatial, sizes, scales):
    """Integer images. PyTorch resizes uint8 only: nearest modes gather as for floats (None: go on), and
    bilinear / bicubic / lanczos are computed in its fixed-point arithmetic (resample_taps.uint8_pass)."""
    nd = input.dim()
    name = _TYPE_NAMES.get(str(input.dtype).split(".")[-1], str(input.dtype))
    uint8 = name == "Byte"
    if mode in ("nearest", "nearest-exact"):
        if uint8:
            return None
        kernel = "upsample_nearest2d_channels_last" if nd == 4 else "compute_indices_weights_nearest"
    elif mode == "area":
        kernel = "adaptive_avg_pool3d_cpu" if nd == 5 else "adaptive_avg_pool2d"
    elif mode in ("linear", "trilinear"):
        kernel = "compute_indices_weights_linear"
    elif uint8:
        arr = input._data
        delta = 0.5 if (align_corners and not antialias) else 0.0
        for k in (1, 0):  # width first, then height, as PyTorch's separable kernel
            if spatial[k] == sizes[k] and scales[k] in (None, 1, 1.0):
                continue
            if mode == "bicubic" and not antialias:
                idx, w = _taps.merge_duplicates(*_taps.cubic_taps(spatial[k], sizes[k], align_corners, scales[k]))
            else:
                idx, w = _taps.window_taps(mode, spatial[k], sizes[k], align_corners, scales[k], antialias, delta)
            arr = _taps.uint8_pass(arr, 2 + k, idx, w.astype(np.float64))
        return Tensor._wrap(np.ascontiguousarray(arr))
    else:
        kernel = {"bilinear": "upsample_bilinear2d_channels_last", "bicubic": "compute_indices_weights_cubic"}.get(
            mode, "upsample_lanczos2d_aa")
    raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


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
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(spatial)} and output size of {size}. Please "
                                 f"provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            if not all(_is_int(v) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(v) for v in size]}")
            sizes = [int(v) for v in size]
        else:
            sizes = [int(size)] * dim
        scales = [None] * dim
    elif scale_factor is not None:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * dim
        if len(scales) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        sizes = [int(math.floor(float(n) * float(s))) for n, s in zip(spatial, scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or (mode == "area" and size is None):
        scales = [None] * dim  # the kernels see only the output size (area always does)
    _check_mode(mode, input.dim(), align_corners, antialias)
    if not input.dtype.is_floating_point:
        out = _integer_input(input, mode, antialias, align_corners, spatial, sizes, scales)
        if out is not None:
            return out
    if input.dtype == _dt.float16 and mode not in ("nearest", "nearest-exact"):
        if antialias:
            raise NotImplementedError("\"compute_index_ranges_weights\" not implemented for 'Half'")
        # PyTorch resamples half-precision images in float32 arithmetic; so does npgrad, rounding once at the end.
        # Values and gradients agree to one half ulp of their scale (PyTorch's half kernels
        # round their weights to half first, seen for linear and bicubic; not copied kernel by kernel).
        return _resample(input.float(), mode, spatial, sizes, scales, align_corners, antialias).half()
    return _resample(input, mode, spatial, sizes, scales, align_corners, antialias)


def _resample(input, mode, spatial, sizes, scales, align_corners, antialias):
    dim = len(spatial)
    if mode == "area":
        if dim == 1:
            return adaptive_avg_pool1d(input, sizes)
        if dim == 2:
            return adaptive_avg_pool2d(input, sizes)
    out = input
    dt = input._data.dtype
    order = (1, 0) if antialias else range(dim)  # PyTorch's antialias kernel resizes the width first
    for k in order:
        axis = 2 + k
        n_in, n_out = spatial[k], sizes[k]
        if mode in ("nearest", "nearest-exact"):
            if n_in == n_out and scales[k] in (None, 1, 1.0):
                continue
            idx = _nearest_index(n_in, n_out, scales[k], mode == "nearest-exact")
            out = out.index_select(axis, Tensor._wrap(idx))
        elif antialias:
            if n_in == n_out and scales[k] in (None, 1, 1.0):
                continue
            out = _taps.apply_taps(out, axis, *_taps.window_taps(mode, n_in, n_out, align_corners, scales[k], True))
        elif mode == "bicubic":
            ftype = np.float64 if dt == np.float64 else np.float32
            out = _taps.apply_taps(out, axis, *_taps.cubic_taps(n_in, n_out, align_corners, scales[k], ftype))
        elif mode == "area":
            out = _taps.apply_taps(out, axis, *_taps.area_taps(n_in, n_out))
        else:
            out = _along(out, axis, _linear_taps(n_in, n_out, align_corners, scales[k], dt))
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
