"""The legacy typed-tensor classes: ``torch.FloatTensor``, ``torch.LongTensor`` and their kin.

``torch.LongTensor(3, 4)`` is an uninitialised 3x4 int64 tensor, ``torch.FloatTensor([[1, 2]])`` or
``torch.FloatTensor(list_of_arrays)`` converts data to float32, ``torch.FloatTensor(t)`` is ``t`` again
(a new tensor over the same memory) when ``t`` is float32 and an error otherwise, and
``isinstance(t, torch.FloatTensor)`` is true for a float32 tensor. What they build is a plain Tensor, as
in PyTorch. ``set_default_tensor_type`` takes these classes as well as their names.
"""
import numpy as np

from . import _runtime
from . import dtypes as _dt
from ._tensortype import make, tensortype, tp_name
from .tensor import Device, Size, Tensor

# (class name, dtype name): BFloat16Tensor only where npgrad has a bfloat16 dtype.
_TYPES = [("DoubleTensor", "float64"), ("FloatTensor", "float32"), ("HalfTensor", "float16"),
          ("BFloat16Tensor", "bfloat16"), ("LongTensor", "int64"), ("IntTensor", "int32"),
          ("ShortTensor", "int16"), ("CharTensor", "int8"), ("ByteTensor", "uint8"), ("BoolTensor", "bool")]

_SIGNATURES = ("\n * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")

# How PyTorch's TensorOptions message names a dtype.
_OPTION_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                 "complex128": "c10::complex<double>"}


def _options(dtype):
    return (f"TensorOptions(dtype={_OPTION_NAMES.get(str(dtype).split('.')[-1], dtype)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _arg_name(a):
    if isinstance(a, Tensor):
        return "Tensor"
    if isinstance(a, Size):
        return "torch.Size"
    if isinstance(a, _dt.dtype):
        return "torch.dtype"
    return tp_name(type(a))


def _invalid(args, kwargs):
    # PyTorch's spelling: keywords sorted, and a trailing ", " when there are keywords only
    named = [f"{k}={_arg_name(kwargs[k])}" for k in sorted(kwargs)]
    got = ", ".join([_arg_name(a) for a in args] + named) if args else "".join(n + ", " for n in named)
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:"
                     + _SIGNATURES)


def _is_size(a):
    """An element of a size: an int, a NumPy integer, or a 0-d integer array or tensor (PyTorch's __index__)."""
    if isinstance(a, (int, np.integer)):
        return not isinstance(a, bool)
    arr = a._data if isinstance(a, Tensor) else a if isinstance(a, np.ndarray) else None
    return arr is not None and arr.ndim == 0 and arr.dtype.kind in "iu"


def _uninitialised(shape, dtype):
    from .factories import empty
    return empty(tuple(int(s) for s in shape), dtype=dtype)


def _from_data(data, dtype):
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, np.ndarray):
        if data.dtype == dtype.np:
            from .factories import from_numpy
            return from_numpy(data)  # PyTorch shares the array's memory when no conversion is needed
    elif not hasattr(type(data), "__getitem__") or isinstance(data, (dict, np.generic)):
        raise TypeError(f"new(): data must be a sequence (got {tp_name(type(data))})")
    from .factories import tensor
    return tensor(data, dtype=dtype)


def _construct(dtype, args, kwargs):
    device = kwargs.get("device")
    extra = {k: v for k, v in kwargs.items() if k != "device"}
    if extra:
        key = next(iter(extra))
        if args or len(extra) != 1 or key not in ("data", "other", "size") or \
                key == "size" and not isinstance(extra[key], (tuple, list)):
            raise _invalid(args, kwargs)
        args = (Size(extra[key]),) if key == "size" else (extra[key],)  # FloatTensor(size=(2, 3)), (data=[...])
    if device is not None:
        d = device if isinstance(device, Device) else Device(device)
        if d.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {d.type} was passed")
    if not args:
        return _uninitialised((0,), dtype)
    first = args[0]
    if len(args) == 1:
        if isinstance(first, Tensor):
            if device is not None:
                raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not "
                                   "supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.")
            if first.dtype is not dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(first.dtype)})")
            return first[...]  # a new tensor over the same memory (a view: gradients flow back to it)
        if isinstance(first, Size):
            return _uninitialised(first, dtype)
        if _is_size(first):
            return _uninitialised((first,), dtype)
        return _from_data(first, dtype)
    if all(_is_size(a) for a in args):
        return _uninitialised(args, dtype)
    if _is_size(first):
        pos, bad = next((i, a) for i, a in enumerate(args) if not _is_size(a))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos + 1} with error \"type "
                        f"must be tuple of ints,but got {tp_name(type(bad))}\"")
    raise _invalid(args, kwargs)


def _make_type(name, dtype):
    def construct(*args, **kwargs):
        return _construct(dtype, args, kwargs)

    def holds(obj):
        return isinstance(obj, Tensor) and obj.dtype is dtype

    construct.__name__ = name
    return make(name, dtype, "npgrad", False, construct, holds, Tensor)


LEGACY_TYPES = {name: _make_type(name, getattr(_dt, dt)) for name, dt in _TYPES if hasattr(_dt, dt)}
globals().update(LEGACY_TYPES)
__all__ = [*LEGACY_TYPES, "set_default_tensor_type"]


def set_default_tensor_type(t, /):
    """Deprecated in PyTorch: ``set_default_dtype`` by a legacy type (``torch.DoubleTensor``) or its name."""
    if isinstance(t, tensortype):
        if t.is_cuda:
            raise TypeError(f"type {t.legacy_name} not available. Torch not compiled with CUDA enabled.")
        if not t.dtype.is_floating_point:
            raise TypeError("only floating-point types are supported as the default type")
        t = t.legacy_name
    if isinstance(t, str) and t.startswith("torch.") and t[6:] in LEGACY_TYPES and \
            LEGACY_TYPES[t[6:]].dtype.is_floating_point:
        _runtime.warn_once("set_default_tensor_type", "torch.set_default_tensor_type() is deprecated as of PyTorch "
                           "2.1, please use torch.set_default_dtype() and torch.set_default_device() as alternatives.")
        _dt.set_default_dtype(LEGACY_TYPES[t[6:]].dtype)
        return
    _runtime.set_default_tensor_type(t)  # the other names, and PyTorch's errors for them
