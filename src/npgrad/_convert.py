"""Python data to a Tensor: ``tensor(data)`` with PyTorch's dtype inference and its errors for ragged or
non-numeric data. Below the operators, which turn a Python operand into a tensor with it (``t + [1, 2]``,
``where(c, 1.0, 2.0)``); ``npgrad.tensor`` is re-exported by ``factories``."""
import warnings

import numpy as np

from . import dtypes as _dt
from ._fp_quiet import QUIET, call_with, quiet
from .tensor import Tensor, _check_device

_builtin_range = range


def _infer(data, exact=False):
    """The array for ``data`` with PyTorch's dtype inference (Python floats -> default float).

    ``exact``: a dtype was asked for, so Python numbers keep full precision until that final cast
    (``tensor([0.1], dtype=float64)`` must not pass through float32).
    """
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        _dt.from_numpy_dtype(data.dtype)  # raises for dtypes npgrad has no tensor for
        return data
    if isinstance(data, np.generic):
        return np.asarray(data)
    t = type(data)
    if t is float:
        return np.asarray(data, np.float64 if exact else _dt.get_default_dtype().np)
    if t is bool:
        return np.asarray(data, np.bool_)
    if t is int:
        return np.asarray(data, np.int64)
    if t is complex:
        return np.asarray(data, np.complex128 if exact else _dt.default_complex_dtype().np)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        parts = [_infer(x, exact) for x in data]
        arr = np.array(parts)
    elif not isinstance(data, (list, tuple, _builtin_range)):
        if t is str:
            raise TypeError("new(): invalid data type 'str'")
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    else:
        try:
            arr = np.array(data)
        except ValueError:
            raise _ragged_error(data) from None
    if arr.dtype.kind == "f" and not exact and not _contains_numpy_floats(data):
        return arr.astype(_dt.get_default_dtype().np)
    if arr.dtype.kind in "iu" and arr.dtype != np.int64 and not isinstance(data, np.ndarray) and \
            not _contains_numpy_scalars(data):
        return arr.astype(np.int64)
    if arr.dtype.kind in "OUS":
        raise _bad_leaf_error(data)
    if arr.dtype.kind == "c" and not exact and not _contains_numpy_scalars(data):
        return arr.astype(_dt.default_complex_dtype().np)  # Python complex numbers: the default complex type
    return arr


def _ragged_error(data):
    """PyTorch's error for nested sequences of unequal lengths (the first mismatch, depth first)."""
    shape = []
    x = data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def walk(x, dim):
        if dim == len(shape):
            return None if not isinstance(x, (list, tuple)) else \
                TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
        if not isinstance(x, (list, tuple)):
            return TypeError("not a sequence")
        if len(x) != shape[dim]:
            return ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})")
        for item in x:
            err = walk(item, dim + 1)
            if err is not None:
                return err
        return None

    return walk(data, 0) or ValueError(f"could not build a tensor from {type(data).__name__}")


def _bad_leaf_error(data):
    """The error for the first element that is not a number: a string, None, an object."""
    stack = [data]
    while stack:
        x = stack.pop(0)
        if isinstance(x, (list, tuple)):
            stack[:0] = list(x)
        elif isinstance(x, str):
            return TypeError("new(): invalid data type 'str'")
        elif not isinstance(x, (int, float, bool, complex, np.generic, Tensor)):
            return RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    return TypeError(f"new(): invalid data type '{type(data).__name__}'")


def _contains_numpy_floats(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return isinstance(data, (np.floating, np.ndarray)) and np.asarray(data).dtype.kind == "f"


def _contains_numpy_scalars(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return isinstance(data, (np.generic, np.ndarray))


# 1e300 in a float32 list is inf, silently, as PyTorch: quiet once per call, not per nested element.
_infer_array = quiet(_infer)

_REQUIRES_GRAD_MSG = "Only Tensors of floating point and complex dtype can require gradients"


def _finish(arr, dtype, requires_grad, copy):
    if dtype is not None:
        npd = _dt.note_dtype(_dt.to_dtype(dtype).np)
        if arr.dtype != npd:
            arr = call_with(QUIET, _dt.cast_array, arr, npd)  # a narrowing cast overflows to inf silently, as PyTorch
            copy = False
    if copy:
        arr = arr.copy()
    t = Tensor._wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc" and arr.dtype not in _dt.LOW_PRECISION_NP:
            raise RuntimeError(_REQUIRES_GRAD_MSG)
        t._requires_grad = True
    return t


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (scalars, nested lists, NumPy arrays, Tensors)."""
    _check_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    arr = _infer_array(data, exact=dtype is not None)
    # Memory that came from the caller (an array, a tensor) is copied; a list was converted already.
    return _finish(arr, dtype, requires_grad, copy=isinstance(data, (np.ndarray, np.generic, Tensor)))
