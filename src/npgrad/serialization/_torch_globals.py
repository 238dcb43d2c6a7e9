"""What the globals a PyTorch checkpoint may name stand for in npgrad: the allow list of ``_torch_format``.

The list is what ``torch.load(..., weights_only=True)`` accepts for tensors and plain containers. Each
entry is npgrad's own function or a marker, never something imported from the name in the file; the
rebuild functions check their arguments (types, non-negative sizes, a view inside its storage) before
making anything.
"""
import contextvars
from collections import Counter, OrderedDict

import numpy as np

from .. import dtypes as _dt
from ..tensor import Device, Size, Tensor
from ._errors import fail
from ._npy import shape_fits

_NP = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8,
       "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "bool": np.bool_,
       "complex64": np.complex64, "complex128": np.complex128,
       "bfloat16": _dt.bfloat16.np}
# PyTorch's storage classes ("Float" -> torch.FloatStorage) and the dtype each holds: the one table both
# the reader (GLOBALS) and the writer (STORAGE_OF: dtype name -> class name) use.
_STORAGES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16",
             "Byte": "uint8", "Char": "int8", "Short": "int16", "Int": "int32", "Long": "int64", "Bool": "bool",
             "ComplexFloat": "complex64", "ComplexDouble": "complex128", "ComplexHalf": "complex32", "QInt8": "qint8",
             "QUInt8": "quint8",
             "QInt32": "qint32", "QUInt4x2": "quint4x2", "QUInt2x4": "quint2x4"}
STORAGE_OF = {}
for _k, _v in _STORAGES.items():
    STORAGE_OF.setdefault(_v, f"{_k}Storage")
_TORCH_DTYPES = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
                 "uint16", "uint32", "uint64", "complex32", "complex64", "complex128", "float8_e4m3fn",
                 "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "qint8", "quint8", "qint32")
_context = contextvars.ContextVar("npgrad_torch_load")
# An expanded tensor (a stride 0) loads as a copy, which may be this large, or 100 times its storage: a
# file's few bytes cannot declare gigabytes.
MAX_EXPANDED_BYTES = 1 << 28


class StorageType:
    """Stands for ``torch.FloatStorage`` & co. (dtype given) or ``torch.storage.UntypedStorage`` (None)."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"<storage of {self.dtype or 'bytes'}>"


class TorchDtype:
    """A torch dtype npgrad has no tensor type for (bfloat16 tensors are widened to float32)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


_deferred = contextvars.ContextVar("npgrad_torch_load_deferred", default=None)


def set_context(name, typed, deferred=None):
    return _context.set((name, typed)), _deferred.set(deferred)


def reset_context(tokens):
    _context.reset(tokens[0])
    _deferred.reset(tokens[1])


def np_dtype_of(dtype, name):
    np_dt = _NP.get(dtype)
    if np_dt is None:
        fail(name, f"holds {dtype} tensors, a dtype npgrad does not support")
    return np.dtype(np_dt)


def _ints(value, what, name):
    if type(value) not in (tuple, Size) or not all(type(v) is int for v in value):
        fail(name, f"is corrupted: a tensor's {what} is {value!r:.80}, not a tuple of ints")
    return tuple(value)


def _non_overlapping(size, stride):
    dims = sorted((st, s) for s, st in zip(size, stride) if s > 1)
    span = 1
    for st, s in dims:
        if st < span:
            return False
        span = st * s
    return True


def _tensor(storage, offset, size, stride, requires_grad, dtype):
    name, typed = _context.get()
    from ._torch_format import _Storage
    if not isinstance(storage, _Storage):
        fail(name, f"is corrupted: a tensor is rebuilt from a {type(storage).__name__}, not a storage")
    size, stride = _ints(size, "size", name), _ints(stride, "stride", name)
    if type(offset) is not int or offset < 0 or len(size) != len(stride) or len(size) > 64 \
            or any(s < 0 for s in size) or any(s < 0 for s in stride):
        fail(name, f"is corrupted: a tensor has offset {offset!r:.40}, size {size} and stride {stride}")
    arr = typed(storage, dtype)
    if not shape_fits(size, arr.itemsize):
        fail(name, f"is corrupted: a tensor has a size {size} too large for any array")
    overlapping = False
    if 0 in size:
        data = np.empty(size, arr.dtype)
    else:
        last = offset + sum((s - 1) * st for s, st in zip(size, stride))
        if last >= arr.size:
            fail(name, f"is corrupted: a tensor of size {size}, stride {stride} and offset {offset} reaches "
                       f"element {last} of a storage of {arr.size}")
        item = arr.itemsize
        data = np.lib.stride_tricks.as_strided(arr[offset:], size, tuple(st * item for st in stride))
        overlapping = not _non_overlapping(size, stride)
        if overlapping and data.nbytes > max(MAX_EXPANDED_BYTES, 100 * arr.nbytes):
            fail(name, f"is refused: an expanded tensor of size {size} (stride {stride}) would take {data.nbytes} "
                       f"bytes as a copy of its {arr.nbytes}-byte storage")
        deferred = _deferred.get()
        if overlapping and deferred is None:
            data = data.copy()  # an expanded tensor: a writable view would write one element many times
    t = Tensor._wrap(data)
    if overlapping and deferred is not None:
        deferred.append(t)
    if type(requires_grad) is not bool:
        fail(name, f"is corrupted: a tensor's requires_grad is {requires_grad!r:.40}")
    if requires_grad:
        _check_grad_dtype(data.dtype, name)
        t.requires_grad = True
    return t


def _check_grad_dtype(np_dtype, name):
    if np_dtype.kind not in "fc":  # PyTorch refuses such a file too (its loader fails setting requires_grad)
        fail(name, f"is corrupted: it holds a {np_dtype} tensor marked requires_grad (only Tensors of floating "
                   "point and complex dtype can require gradients)")


def _check_hooks(hooks, name):
    if hooks is not None and (not isinstance(hooks, dict) or hooks):
        fail(name, "holds a tensor with backward hooks, which a checkpoint cannot restore")


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    name, _ = _context.get()
    _check_hooks(backward_hooks, name)
    dtype = getattr(storage, "dtype", None)
    if type(dtype) is not str:
        fail(name, "is corrupted: a tensor is rebuilt from an untyped storage without a dtype")
    return _tensor(storage, storage_offset, size, stride, requires_grad, dtype)


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    name, _ = _context.get()
    _check_hooks(backward_hooks, name)
    if isinstance(dtype, _dt.dtype):
        dtype = dtype.name
    elif isinstance(dtype, TorchDtype):
        dtype = dtype.name
    else:
        fail(name, f"is corrupted: a tensor's dtype is {dtype!r:.40}")
    return _tensor(storage, storage_offset, size, stride, requires_grad, dtype)


def rebuild_parameter(data, requires_grad, backward_hooks):
    name, _ = _context.get()
    _check_hooks(backward_hooks, name)
    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        fail(name, "is corrupted: a Parameter is rebuilt from something other than a tensor")
    if requires_grad:
        _check_grad_dtype(data._data.dtype, name)
    from ..nn import Parameter
    return Parameter(data, requires_grad=requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    name, _ = _context.get()
    if state:
        fail(name, "holds a Parameter with extra Python attributes, which npgrad.load does not restore")
    return rebuild_parameter(data, requires_grad, backward_hooks)


def _size(values=()):
    name, _ = _context.get()
    return Size(_ints(tuple(values) if type(values) is list else values, "torch.Size", name))


def _device(kind, index=None):
    name, _ = _context.get()
    if type(kind) is not str or not (index is None or type(index) is int):
        fail(name, f"is corrupted: it holds a device {kind!r:.40}")
    return Device(kind, index)


def _container(cls):
    def make(*args):
        if len(args) > 1 or args and type(args[0]) not in (list, tuple, dict):
            raise TypeError(f"{cls.__name__} takes one list or dict")
        return cls(*args)
    make.__name__ = cls.__name__
    return make


def _encode(text, encoding="latin1"):
    """``_codecs.encode``: how protocol 2 pickles ``bytes`` (as latin-1 text)."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise TypeError("_codecs.encode takes a str and 'latin1'")
    return text.encode("latin1")


def _bytearray(data=b""):
    if type(data) not in (bytes, list):
        raise TypeError("bytearray takes bytes")
    return bytearray(data)


def _complex(real=0.0, imag=0.0):
    if not all(type(v) in (int, float) for v in (real, imag)):
        raise TypeError("complex takes two numbers")
    return complex(real, imag)


_ordered_dict, _counter, _set = _container(OrderedDict), _container(Counter), _container(set)
CONTAINERS = (_ordered_dict, _counter, _set)
REBUILDERS = (rebuild_tensor_v2, rebuild_tensor_v3, rebuild_parameter, rebuild_parameter_with_state, _size, _device,
              _encode, _bytearray, _complex) + CONTAINERS
GLOBALS = {"torch._utils._rebuild_tensor_v2": rebuild_tensor_v2, "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
           "torch._utils._rebuild_parameter": rebuild_parameter,
           "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
           "torch.Size": _size, "torch.device": _device, "collections.OrderedDict": _ordered_dict,
           "collections.Counter": _counter, "builtins.set": _set, "_codecs.encode": _encode,
           "builtins.bytearray": _bytearray, "builtins.complex": _complex,
           "torch.storage.UntypedStorage": StorageType(None)}
GLOBALS.update({f"torch.{k}Storage": StorageType(v) for k, v in _STORAGES.items()})
GLOBALS.update({f"torch.{n}": getattr(_dt, n) if n in _NP else TorchDtype(n)
                for n in _TORCH_DTYPES})
