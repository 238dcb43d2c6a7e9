"""Sampling grids: affine_grid (the sampling locations of an affine map) and grid_sample (an input read at
arbitrary locations, bilinear/trilinear, nearest or bicubic, with zeros, border or reflection padding).

grid_sample is a composition of differentiable operators: the interpolation weights are polynomials in
the fractional part of each location, and the values are gathers from the flattened input at the
integer corners (whose gradient, a scatter-add, differentiates again). Padding maps a location through a
piecewise-linear function; ``_Remap`` carries its value with PyTorch's slope (0 outside and on the
borders, +-1 inside), so the gradient with respect to the grid is PyTorch's to any order.
"""
import itertools
import warnings

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")
_A = -0.75  # the bicubic kernel's parameter (as in PyTorch)


# -- affine_grid ----------------------------------------------------------------------------------------------------

def _base_coords(n, align_corners, dtype):
    """The n sampling positions of one axis in [-1, 1] (pixel corners or pixel centres); 0 for n = 1."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype)
    r = np.linspace(-1, 1, n, dtype=dtype)
    return r if align_corners else r * np.asarray((n - 1) / n, dtype)


def affine_grid(theta, size, align_corners=None):
    """(N, H, W, 2) (or (N, D, H, W, 3)) sampling locations of theta (N, 2, 3) (or (N, 3, 4)) applied to the
    normalised output coordinates of ``size`` = (N, C, H, W) (or (N, C, D, H, W))."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if theta._data.dtype.kind != "f" and theta._data.dtype not in _dt.LOW_PRECISION_NP:
        raise ValueError(f"Expected theta to have floating point type, but got torch.{theta._data.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape!r}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape!r}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    N = size[0]
    if theta.shape[0] != N:
        k = theta.shape[-1]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{N}, {k}] but got: "
                           f"[{theta.shape[0]}, {k}].")
    dt = theta._data.dtype
    axes = [_base_coords(n, align_corners, dt) for n in spatial]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    # columns x, y(, z), 1: x runs along the last spatial axis
    base = np.stack([*mesh[::-1], np.ones_like(mesh[0])], axis=-1).reshape(-1, len(spatial) + 1)
    grid = Tensor._wrap(base) @ theta.transpose(1, 2)  # (N, P, dims)
    return grid.reshape(N, *spatial, len(spatial))


# -- grid_sample ----------------------------------------------------------------------------------------------------

class _Remap(Op):
    """A coordinate through a piecewise-linear map: ``value`` (computed on arrays) carried with slope
    ``slope``, a constant per element."""

    __slots__ = ()
    node_name = "GridSamplerCoordinatesBackward0"

    @staticmethod
    def forward(ctx, coord, value, slope):
        ctx.slope = slope
        return value

    @staticmethod
    def backward(ctx, g):
        return g * ctx.slope, None, None


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _clip(c, size):
    """PyTorch's clip to [0, size - 1]; the borders count as outside (slope 0)."""
    inside = (c > 0) & (c < size - 1)
    return np.clip(c, 0, size - 1), inside


def _reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return np.zeros_like(c), np.zeros(c.shape, bool)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    d = c - low
    sign = np.where(d < 0, -1, 1)
    a = np.abs(d)
    flips = np.floor(a / span)
    extra = np.fmod(a, span)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _padded(c, size, padding_mode, align_corners):
    """(value, slope) of a (float) coordinate array under the padding mode."""
    if padding_mode == "border":
        return _clip(c, size)
    if padding_mode == "reflection":
        if align_corners:
            r, s = _reflect(c, 0, 2 * (size - 1))
        else:
            r, s = _reflect(c, -1, 2 * size - 1)
        v, inside = _clip(r, size)
        return v, s * inside
    return c, None


def _apply_padding(coord, size, padding_mode, align_corners):
    data = coord._data
    value, slope = _padded(data, size, padding_mode, align_corners)
    if slope is None:
        return coord
    return _Remap.apply(coord, value.astype(data.dtype, copy=False), slope.astype(data.dtype))


class _Reader:
    """Values of a (N, C, *spatial) input at integer corners (N, *out) per axis: zero outside the input."""

    def __init__(self, input):
        self.N, self.C = input.shape[:2]
        self.spatial = tuple(input.shape[2:])  # (D,) H, W
        self.flat = input.reshape(self.N, self.C, -1)

    def at(self, corners):
        """``corners``: integer arrays per axis in the order x, y(, z); (values (N, C, *out), inside mask)."""
        sizes = self.spatial[::-1]  # W, H(, D)
        inside = np.ones(corners[0].shape, bool)
        flat = np.zeros(corners[0].shape, np.int64)
        stride = 1
        for c, n in zip(corners, sizes):
            inside &= (c >= 0) & (c < n)
            flat += np.clip(c, 0, n - 1) * stride
            stride *= n
        out_shape = corners[0].shape
        idx = np.broadcast_to(flat.reshape(self.N, 1, -1), (self.N, self.C, flat[0].size))
        vals = self.flat.gather(2, Tensor._wrap(np.ascontiguousarray(idx)))
        return vals.reshape(self.N, self.C, *out_shape[1:]), inside


def _mask(inside, dtype):
    return Tensor._wrap(inside[:, None].astype(dtype))


def _linear(reader, coords, dtype):
    """Bilinear (trilinear) interpolation at unnormalised, padded coordinates."""
    floors = [np.floor(c._data) for c in coords]
    fracs = [c - Tensor._wrap(f) for c, f in zip(coords, floors)]
    out = None
    for offsets in itertools.product((0, 1), repeat=len(coords)):
        w = None
        for o, t in zip(offsets, fracs):
            f = t if o else 1 - t
            w = f if w is None else w * f
        vals, inside = reader.at([(f + o).astype(np.int64) for f, o in zip(floors, offsets)])
        term = vals * (w.unsqueeze(1) * _mask(inside, dtype))
        out = term if out is None else out + term
    return out


def _nearest(reader, coords, dtype):
    vals, inside = reader.at([np.rint(c._data).astype(np.int64) for c in coords])  # halves to even, as nearbyint
    # the grid gets PyTorch's zero gradient: a factor of one, carried with slope 0
    one = _Remap.apply(coords[0], np.ones_like(coords[0]._data), np.zeros_like(coords[0]._data))
    return vals * (one.unsqueeze(1) * _mask(inside, dtype))


def _cubic_weights(t):
    """The four bicubic tap weights (taps at floor - 1 .. floor + 2) of a fractional offset ``t``."""
    def near(x):  # |x| <= 1
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic(reader, ix, iy, padding_mode, align_corners, dtype):
    W, H = reader.spatial[::-1]
    x0, y0 = np.floor(ix._data), np.floor(iy._data)
    wx = _cubic_weights(ix - Tensor._wrap(x0))
    wy = _cubic_weights(iy - Tensor._wrap(y0))
    out = None
    for j in range(4):
        ty = _padded(y0 - 1 + j, H, padding_mode, align_corners)[0].astype(np.int64)
        for i in range(4):
            tx = _padded(x0 - 1 + i, W, padding_mode, align_corners)[0].astype(np.int64)
            vals, inside = reader.at([tx, ty])
            term = vals * ((wx[i] * wy[j]).unsqueeze(1) * _mask(inside, dtype))
            out = term if out is None else out + term
    return out


def _check_grid_sample(input, grid, mode):
    ishape, gshape = list(input.shape), list(grid.shape)
    if input.dim() and grid.dim() and ishape[0] != gshape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {ishape} and grid with sizes {gshape}")
    if gshape and gshape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {gshape}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {ishape} and grid with sizes {gshape}")
    for d in range(2, input.dim()):
        if ishape[d] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {ishape} with dimension {d} being empty")
    if input._data.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if input.dim() == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dt.scalar_name(input.dtype)}\'')
    if grid._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_dt.scalar_name(input.dtype)} but found "
                           f"{_dt.scalar_name(grid.dtype)}")
    if mode == "bicubic" and input.dim() == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` (N, C, H_in, W_in) read at ``grid`` (N, H_out, W_out, 2) locations in [-1, 1] (x then y), giving
    (N, C, H_out, W_out); the 5-D form reads (N, C, D, H, W) at (N, D_out, H_out, W_out, 3) locations."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sample(input, grid, mode)
    N, C = input.shape[:2]
    out_spatial = tuple(grid.shape[1:-1])
    dt = input._data.dtype
    if N == 0 or 0 in out_spatial or C == 0:
        return Tensor._wrap(np.zeros((N, C) + out_spatial, dt)) + (input.sum() + grid.sum()) * 0
    reader = _Reader(input)
    sizes = reader.spatial[::-1]  # W, H(, D): grid[..., 0] indexes the last axis
    coords = [_unnormalize(grid[..., k], n, align_corners) for k, n in enumerate(sizes)]
    if mode == "bicubic":
        return _bicubic(reader, coords[0], coords[1], padding_mode, align_corners, dt)
    coords = [_apply_padding(c, n, padding_mode, align_corners) for c, n in zip(coords, sizes)]
    if mode == "nearest":
        return _nearest(reader, coords, dt)
    return _linear(reader, coords, dt)
