"""Python data to a Tensor: ``tensor(data)`` with PyTorch's dtype inference and its errors for ragged or
non-numeric data. Below the operators, which turn a Python operand into a tensor with it (``t + [1, 2]``,
``where(c, 1.0, 2.0)``); ``npgrad.tensor`` is re-exported by ``factories``."""
import warnings

import numpy as np

from . import _runtime
from . import dtypes as _dt
from ._fp_quiet import QUIET, call_with, quiet
from ._tensortype import tp_name as _tp_name
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
        if -_INT64_END <= data < _INT64_END:
            return np.asarray(data, np.int64)
        if exact:
            return np.asarray(float(data))
        raise ValueError(_INT_OVERFLOW)
    if t is complex:
        return np.asarray(data, np.complex128 if exact else _dt.default_complex_dtype().np)
    if not isinstance(data, (list, tuple, _builtin_range)):
        if t is str or t is bytes:
            raise TypeError(f"new(): invalid data type '{t.__name__}'")
        if not hasattr(t, "__getitem__") or isinstance(data, dict):
            raise RuntimeError(f"Could not infer dtype of {_tp_name(t)}")
        data = list(data)  # any other sequence PyTorch takes: deque, array.array, memoryview, ...
    first = data[0] if data else None
    if isinstance(first, np.ndarray) and first.ndim == 0:
        raise TypeError("len() of unsized object")  # PyTorch takes a 0-d array in a list, but not first
    has_tensor = has_numpy = False
    for x in data:
        if isinstance(x, Tensor):
            has_tensor = True
        elif isinstance(x, np.generic):
            has_numpy = True
        elif isinstance(x, np.ndarray) or isinstance(first, (list, tuple)) and _first_is_array(x):
            if not has_numpy:
                _runtime.warn_once("list of ndarrays", _LIST_OF_ARRAYS)
            has_numpy = True
    if has_tensor:
        return _from_tensor_items(data, exact)
    try:
        arr = np.array(data)
    except ValueError:
        raise _ragged_error(data) from None
    except OverflowError:
        raise ValueError(_INT_OVERFLOW) from None
    kind = arr.dtype.kind
    if has_numpy and kind in "fc" and not exact:
        # NumPy numbers beside Python ones: each counts with its dtype, a Python float as the default dtype
        promoted = None
        for x in data:
            d = _scalar_dtype(x)
            if d is not None:
                promoted = d if promoted is None else _dt.promote_types(promoted, d)
        if promoted is not None and promoted.np.kind == kind:
            return arr.astype(promoted.np, copy=False)
    if kind == "f" and not exact and not _contains_numpy_floats(data):
        return arr.astype(_dt.get_default_dtype().np)
    if kind in "iu" and arr.dtype != np.int64 and not _contains_numpy_scalars(data):
        if arr.dtype == np.uint64:  # a Python int of 2**63 or more
            if exact:
                return arr
            raise ValueError(_INT_OVERFLOW)
        return arr.astype(np.int64)
    if kind in "OUS":
        if kind == "O" and _all_python_ints(data):  # beyond int64
            if not exact:
                raise ValueError(_INT_OVERFLOW)
            return np.array(data, dtype=np.float64)
        raise _bad_leaf_error(data)
    if kind == "c" and not exact and not _contains_numpy_scalars(data):
        return arr.astype(_dt.default_complex_dtype().np)  # Python complex numbers: the default complex type
    return arr


_INT64_END = 2 ** 63
_INT_OVERFLOW = "Overflow when unpacking long long"
_LIST_OF_ARRAYS = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                   "the list to a single numpy.ndarray with numpy.array() before converting to a tensor.")
_GRAD_SCALAR = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                "Consider using tensor.detach() first.")


def _first_is_array(x):
    while isinstance(x, (list, tuple)) and x:
        x = x[0]
    return isinstance(x, np.ndarray)


def _all_python_ints(data):
    return all(_all_python_ints(x) if isinstance(x, (list, tuple)) else type(x) is int for x in data)


def _scalar_dtype(x):
    """PyTorch's dtype for one element of a list: a tensor's own, a Python number's default one."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (np.generic, np.ndarray)):
        return _dt.from_numpy_dtype(x.dtype)
    t = type(x)
    if t is bool:
        return _dt.bool
    if t is int:
        return _dt.int64
    if t is float:
        return _dt.get_default_dtype()
    if t is complex:
        return _dt.default_complex_dtype()
    return None


def _from_tensor_items(data, exact):
    """A list holding tensors: each must be a single element (it becomes a number, as in PyTorch, whatever
    its shape), and the dtype is every element's dtype promoted together."""
    values, dtype = [], None
    for x in data:
        if isinstance(x, Tensor):
            if x._data.size != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            if x._requires_grad:
                warnings.warn(_GRAD_SCALAR, UserWarning, stacklevel=4)
            values.append(x._data.reshape(()))
        else:
            arr = _infer(x, exact)
            if arr.ndim:
                raise ValueError("only one element tensors can be converted to Python scalars")
            values.append(arr)
        d = _scalar_dtype(x)
        if d is None:
            raise _bad_leaf_error(x)
        dtype = d if dtype is None else _dt.promote_types(dtype, d)
    return np.array(values, dtype=dtype.np)


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
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if isinstance(first, str) and first is not data:
        return ValueError(f"too many dimensions '{type(first).__name__}'")  # PyTorch reads a str as a sequence
    stack = [data]
    while stack:
        x = stack.pop(0)
        if isinstance(x, (list, tuple)):
            stack[:0] = list(x)
        elif isinstance(x, (str, bytes)):
            return TypeError(f"new(): invalid data type '{type(x).__name__}'")
        elif not isinstance(x, (int, float, bool, complex, np.generic, Tensor)):
            return RuntimeError(f"Could not infer dtype of {_tp_name(type(x))}")
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
    from_caller = isinstance(data, (np.ndarray, np.generic, Tensor))
    if dtype is not None and not from_caller:
        check_python_cast(arr, _dt.to_dtype(dtype).np)
    # Memory that came from the caller (an array, a tensor) is copied; a list was converted already.
    return _finish(arr, dtype, requires_grad, copy=from_caller)


def check_python_cast(arr, npd):
    """PyTorch's refusals when Python numbers are stored in a narrower type: an integer type that cannot hold
    the value (300 in uint8, 1e10 or NaN in int32), and complex numbers in a real type. (An array's values
    are cast as NumPy casts them, as PyTorch does.)"""
    kind, to = arr.dtype.kind, npd.kind
    if to in "iu":
        if kind == "c":
            raise TypeError("'complex' object cannot be interpreted as an integer")
        if kind in "iuf" and arr.size:
            info = np.iinfo(npd)
            with np.errstate(invalid="ignore"):
                lo, hi = arr.min(), arr.max()
            ok = (info.min <= lo and hi <= info.max) if kind in "iu" else \
                (np.isfinite(lo) and np.isfinite(hi) and info.min - 1 < lo and hi < info.max + 1)
            if not ok:
                raise RuntimeError(f"value cannot be converted to type {npd.name} without overflow")
    elif to == "f" and kind == "c":
        raise TypeError("must be real number, not complex")
