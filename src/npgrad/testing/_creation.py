"""torch.testing.make_tensor: a random tensor of a given shape and dtype, in PyTorch's default value ranges."""
import collections.abc
import functools
import math
import warnings

import numpy as np

import npgrad as torch

_INTEGRAL_TYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
_FLOATING_TYPES = [torch.float16, torch.float32, torch.float64]
_COMPLEX_TYPES = [torch.complex64, torch.complex128]
_BOOLEAN_OR_INTEGRAL_TYPES = [torch.bool, *_INTEGRAL_TYPES]
_FLOATING_OR_COMPLEX_TYPES = [*_FLOATING_TYPES, *_COMPLEX_TYPES]


def _uniform_random_(t, low, high):
    # uniform_ needs high - low to be finite in the dtype: draw half the range and double it.
    if high - low >= float(np.finfo(t.dtype.np).max):
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    r"""A tensor of ``shape`` filled with values drawn uniformly from ``[low, high)``.

    Default ranges by dtype: bool ``[0, 2)``, unsigned integers ``[0, 10)``, signed integers ``[-9, 10)``,
    floating and complex ``[-9, 9)`` (each part). ``low``/``high`` outside the dtype's finite range are clamped
    to it. ``noncontiguous=True`` returns a strided view (for tensors of two or more elements), ``exclude_zero``
    replaces zeros with 1 (bool, integers) or the dtype's smallest normal number, and ``requires_grad`` is for
    floating and complex dtypes only.
    """
    def modify_low_high(low, high, *, lowest_inclusive, highest_exclusive, default_low, default_high):
        def clamp(a, lo, hi):
            return min(max(a, lo), hi)

        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if any(isinstance(value, float) and math.isnan(value) for value in [low, high]):
            raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
        elif low == high and dtype in _FLOATING_OR_COMPLEX_TYPES:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
                          "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                             f"but {dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
        low = clamp(low, lowest_inclusive, highest_exclusive)
        high = clamp(high, lowest_inclusive, highest_exclusive)
        if dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
            # Ceil low to stay inside the interval; ceil high too, randint's upper bound being exclusive.
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        # Twice the last dimension, so that the strided view below holds values that differ from their neighbours'.
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is torch.bool:
        low, high = modify_low_high(low, high, lowest_inclusive=0, highest_exclusive=2, default_low=0, default_high=2)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        info = np.iinfo(dtype.np)
        low, high = modify_low_high(
            low, high, lowest_inclusive=int(info.min),
            # randint takes its bounds as int64, so it cannot draw int64's maximum.
            highest_exclusive=int(info.max) + (1 if dtype is not torch.int64 else 0),
            # -9 is below uint8's range; the clamp to the dtype's minimum above turns it into 0.
            default_low=-9, default_high=10)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX_TYPES:
        info = np.finfo(dtype.np)
        low, high = modify_low_high(low, high, lowest_inclusive=float(info.min), highest_exclusive=float(info.max),
                                    default_low=-9, default_high=9)
        result = torch.empty(shape, device=device, dtype=dtype)
        _uniform_random_(torch.view_as_real(result) if dtype in _COMPLEX_TYPES else result, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        # Offset by one so that code that ignores a view's offset is caught as well as code that ignores strides.
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL_TYPES else float(np.finfo(dtype.np).tiny)
    if dtype in _FLOATING_OR_COMPLEX_TYPES:
        result.requires_grad = requires_grad
    return result
