"""torch.testing.make_tensor: a random tensor of a given shape and dtype, in PyTorch's default value ranges."""
import collections.abc
import math
import warnings

import numpy as np

import npgrad as torch

_INTEGERS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
_FLOATS = (torch.float16, torch.float32, torch.float64)
_COMPLEX = (torch.complex64, torch.complex128)


def _family(dtype):
    """(kind, lowest allowed, highest allowed (exclusive), default low, default high) for a dtype."""
    if dtype is torch.bool:
        return "integer", 0, 2, 0, 2
    if dtype in _INTEGERS:
        info = np.iinfo(dtype.np)
        # randint takes its bounds as int64, so it cannot draw int64's maximum; -9 is clamped to 0 for uint8.
        return "integer", int(info.min), int(info.max) + (dtype is not torch.int64), -9, 10
    if dtype in _FLOATS or dtype in _COMPLEX:
        info = np.finfo(dtype.np)
        return "real", float(info.min), float(info.max), -9, 9
    raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                    " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")


def _interval(dtype, kind, low, high, lowest, highest):
    """Check [low, high) against the dtype's range and clamp it there (integers: both ends rounded up, high
    being exclusive in randint)."""
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and kind == "real":
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
                      "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = (min(max(v, lowest), highest) for v in (low, high))
    return (math.ceil(low), math.ceil(high)) if kind == "integer" else (low, high)


def _fill_uniform(t, low, high):
    # uniform_ needs high - low to be finite in the dtype: draw half the range and double it.
    if high - low >= float(np.finfo(t.dtype.np).max):
        t.uniform_(low / 2, high / 2).mul_(2)
    else:
        t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    r"""A tensor of ``shape`` filled with values drawn uniformly from ``[low, high)``.

    Default ranges by dtype: bool ``[0, 2)``, unsigned integers ``[0, 10)``, signed integers ``[-9, 10)``,
    floating and complex ``[-9, 9)`` (each part). ``low``/``high`` outside the dtype's finite range are clamped
    to it. ``noncontiguous=True`` returns a strided view (for tensors of two or more elements), ``exclude_zero``
    replaces zeros with 1 (bool, integers) or the dtype's smallest normal number, and ``requires_grad`` is for
    floating and complex dtypes only.
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    integral = dtype is torch.bool or dtype in _INTEGERS
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    kind, lowest, highest, default_low, default_high = _family(dtype)
    low, high = _interval(dtype, kind, default_low if low is None else low, default_high if high is None else high,
                          lowest, highest)

    strided = noncontiguous and math.prod(shape) > 1
    # A strided view over twice the last dimension, offset by one: code ignoring strides or offsets is caught.
    drawn = (*shape[:-1], 2 * shape[-1]) if strided else shape
    if kind == "integer":
        result = torch.randint(low, high, drawn, device=device, dtype=dtype)
    else:
        result = torch.empty(drawn, device=device, dtype=dtype)
        _fill_uniform(torch.view_as_real(result) if dtype in _COMPLEX else result, low, high)
    if strided:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else float(np.finfo(dtype.np).tiny)
    if not integral:
        result.requires_grad = requires_grad
    return result
