"""class Tensor: a NumPy array plus the autograd state that links it into the graph.

This module holds the tensor's state and its non-operator API (properties, conversions, autograd entry
points). Operators (``+``, ``exp``, ``sum``, ``reshape``, indexing ...) are defined next to their
gradients in ``npgrad.ops`` and attached to the class there, one family per module.
"""
import threading
import warnings
import weakref

import numpy as np

from . import dtypes as _dt
from .dtypes import LOW_PRECISION_NP as _LOWP
from ._layout import strided as _strided
from ._tensortype import CUDA_INIT_ERROR as _CUDA_INIT_ERROR, tensortype as _tensortype, tp_name as _tp_name
from .autograd import engine as _engine
from .autograd import _protocol
from .autograd.views import refresh_view as _refresh_view

__all__ = ["Tensor", "Size"]


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([2, 3])`` and counts its elements."""

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    """An n-dimensional array that can record the operations applied to it for differentiation."""

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_out_idx", "_vc", "_view_of",
                 "_retains_grad", "__weakref__", "__dict__")

    # NumPy defers to Tensor for `ndarray <op> Tensor`, so the result is a differentiable Tensor.
    __array_priority__ = 1000

    def __init__(self, *args, dtype=None, device=None, requires_grad=False):
        # The legacy constructor: Tensor(data) or Tensor(*sizes), always of the default float type.
        if args and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            data = np.empty(tuple(int(a) for a in args), _dt.get_default_dtype().np)
        elif len(args) == 1 and isinstance(args[0], Size):
            data = np.empty(tuple(args[0]), _dt.get_default_dtype().np)  # a Size is a shape, a tuple is data
        elif len(args) == 1 and isinstance(args[0], Tensor):
            data = args[0]._data  # as PyTorch: the same values and dtype, sharing memory
        elif len(args) == 1:
            data = args[0]
            if isinstance(data, (int, float, bool, np.generic)):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            data = np.array(data, dtype=_dt.get_default_dtype().np if dtype is None else _dt.to_dtype(dtype).np)
        elif not args:
            data = np.empty((0,), _dt.get_default_dtype().np)
        else:
            raise TypeError(f"Tensor(): invalid arguments {args!r}")
        _init(self, data)
        if requires_grad:
            self.requires_grad = True

    # -- construction helpers used throughout npgrad ----------------------------------------------
    @staticmethod
    def _wrap(data, grad_fn=None, out_idx=0):
        """Wrap an array without copying; with ``grad_fn`` the result is a non-leaf of that node."""
        t = object.__new__(Tensor)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._grad = None
        t._out_idx = out_idx
        t._vc = None
        t._view_of = None
        return t

    def _alias(self):
        """A new Tensor object over the same array and graph position."""
        t = Tensor._wrap(self._data, self._grad_fn, self._out_idx)
        t._requires_grad = self._requires_grad
        t._vc = self._version_counter()
        return t

    def _version_counter(self):
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    _accum = None  # a leaf's AccumulateGrad node, made on first use

    def _grad_accumulator(self):
        acc = self._accum
        if acc is None:
            acc = self._accum = _engine.new_accumulator(self)
        return acc

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if not self._data.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_canon_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    @property
    def device(self):
        return _CPU

    is_cuda = False
    is_cpu = True
    is_mps = False
    is_xpu = False
    is_sparse = False
    is_sparse_csr = False
    is_quantized = False
    is_meta = False
    layout = _strided

    @property
    def is_floating_point_(self):  # pragma: no cover - kept out of the public API
        return self._data.dtype.kind == "f" or self._data.dtype in _LOWP

    def is_floating_point(self):
        return self._data.dtype.kind == "f" or self._data.dtype in _LOWP

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_signed(self):
        return _dt.from_numpy_dtype(self._data.dtype).is_signed

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_canon_dim(dim, self._data.ndim)]

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def storage_offset(self):
        return 0

    @property
    def _version(self):
        return 0 if self._vc is None else self._vc[0]

    # -- autograd state ---------------------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        value = bool(value)
        if self._grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
        if value and self._data.dtype.kind not in "fc" and self._data.dtype not in _LOWP:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        if self._view_of is not None:
            _refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def output_nr(self):
        return self._out_idx

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not getattr(self, "_retains_grad", False):
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
                "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor "
                                   f"of size '{list(self._data.shape)}'. Please ensure that the gradient and the "
                                   "tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_C_TYPE_NAMES.get(value._data.dtype.name)}' to a "
                    f"tensor with grad_dtype '{_SCALAR_NAMES.get(self._data.dtype.name)}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                    "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume "
                    "they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def data(self):
        # A tensor over the same memory, outside the graph: changes through it are not tracked.
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    def detach(self):
        """The same data, cut from the graph (shares memory and the in-place version counter)."""
        t = Tensor._wrap(self._data)
        t._vc = self._version_counter()
        return t

    def detach_(self):
        if self._view_of is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        self._out_idx = 0
        return self

    def retain_grad(self):
        """Keep this non-leaf's gradient in ``.grad`` after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or getattr(self, "_retains_grad", False):
            return
        self._retains_grad = True
        self._grad_fn._add_pre_hook(self._out_idx, _RetainGrad(self))

    @property
    def retains_grad(self):
        return self._grad_fn is not None and getattr(self, "_retains_grad", False)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            return self._grad_accumulator()._add_pre_hook(0, hook)
        return self._grad_fn._add_pre_hook(self._out_idx, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a leaf's ``.grad`` has been accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")

        def post(grad_inputs, grad_outputs, _ref=weakref.ref(self)):
            t = _ref()
            if t is not None:
                hook(t)
        _engine.post_accumulate_hooks += 1
        return self._grad_accumulator().register_hook(post)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor with respect to graph leaves into their ``.grad``."""
        _engine.backward(self, gradient, retain_graph, create_graph, inputs)

    # -- conversion to Python and NumPy -------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        v = self._data.item() if self._data.ndim == 0 else self._data.reshape(()).item()
        return float(v) if self._data.dtype in _LOWP else v  # (ml_dtypes' item() is its own scalar type)

    def tolist(self):
        if self._data.dtype in _LOWP:
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    def numpy(self, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        d = self.__dict__
        if d and not force and (d.get("_is_conj") or d.get("_is_neg")):
            bit, fix = ("conjugate", "resolve_conj") if d.get("_is_conj") else ("negative", "resolve_neg")
            raise RuntimeError(f"Can't call numpy() on Tensor that has {bit} bit set. Use tensor.{fix}().numpy() "
                               "instead.")
        if self._data.dtype in _LOWP:  # NumPy has no such type: PyTorch refuses (convert with .float() first)
            raise TypeError(f"Got unsupported ScalarType {_dt.scalar_name(self._data.dtype)}")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._data.dtype in _LOWP:
            raise TypeError(f"Got unsupported ScalarType {_dt.scalar_name(self._data.dtype)}")
        if dtype is not None and dtype != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # `ndarray * tensor` reaches here through NumPy: answer with the differentiable operator.
        ops = _UFUNC_OPS.get(ufunc.__name__) if method == "__call__" and not kwargs else None
        if ops is not None and len(inputs) == 2:
            a, b = inputs
            if isinstance(a, Tensor):  # np.subtract(tensor, x): the tensor's own operator
                return getattr(a, ops[0])(b)
            return getattr(b, ops[1])(a)  # x - tensor: the tensor's reflected operator computes x - tensor
        arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
        return getattr(ufunc, method)(*arrays, **kwargs)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        n = self._data.size
        if n != 1:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if n == 0 else
                               "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def _python_scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self._data.reshape(()).item()
        return float(v) if self._data.dtype in _LOWP else v

    def __float__(self):
        return float(self._real_scalar("double"))

    def __int__(self):
        return int(self._real_scalar("int64_t"))

    def _real_scalar(self, c_type):
        v = self._python_scalar()
        if type(v) is complex:  # PyTorch converts a complex value only when its imaginary part is 0
            if v.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
            return v.real
        return v

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self._python_scalar())

    def __hash__(self):
        return id(self)

    def __repr__(self):
        from ._tensor_str import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if not spec else format(self._data, spec)

    def __reduce_ex__(self, protocol):
        # Pickling (e.g. copy.deepcopy of a module) keeps values and requires_grad, never the graph.
        return (_rebuild, (self._data.copy(), self._requires_grad, type(self)))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.")
        new = _rebuild(self._data.copy(), self._requires_grad, type(self))
        if self._grad is not None:
            new._grad = Tensor._wrap(self._grad._data.copy())
        if getattr(self, "__dict__", None):
            import copy
            for k, v in self.__dict__.items():
                if k not in ("_accum", "_retains_grad"):
                    setattr(new, k, copy.deepcopy(v, memo))
        memo[id(self)] = new
        return new

    # -- dtype and device conversions -----------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``; CPU is the only device."""
        dtype = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, Device)) or a is None:
                device = a
            else:
                dtype = a
        _check_device(device)
        if dtype is None:
            return self.clone() if copy else self
        return self._cast(_dt.to_dtype(dtype), copy)

    def _cast(self, dtype, copy=False):
        if dtype.np == self._data.dtype and not copy:
            return self
        return _protocol.cast(self, _dt.note_dtype(dtype.np))  # ops' ToCopy, registered with autograd

    def type(self, dtype=None, non_blocking=False):
        """The legacy type's name ("torch.FloatTensor"); or a cast to a dtype, a legacy type or its name."""
        if dtype is None:
            return _LEGACY_TYPE_NAMES.get(self._data.dtype.name, "torch.Tensor")
        if isinstance(dtype, _dt.dtype):
            return self._cast(dtype)
        if isinstance(dtype, _tensortype):
            if dtype.is_cuda:
                raise RuntimeError(_CUDA_INIT_ERROR)
            return self._cast(dtype.dtype)
        if isinstance(dtype, type):
            if dtype is Tensor:
                return self._cast(_dt.get_default_dtype())
            raise ValueError(f"invalid type: '{_tp_name(dtype)}'")
        if not isinstance(dtype, str):
            raise TypeError("dtype must be a type, str, or dtype object")
        if dtype == "torch.Tensor":
            return self._cast(_dt.get_default_dtype())
        if dtype.startswith("torch.cuda.") and "torch." + dtype[11:] in _LEGACY_TYPE_NAMES.values():
            raise RuntimeError(_CUDA_INIT_ERROR)
        for name, legacy in _LEGACY_TYPE_NAMES.items():
            if legacy == dtype and hasattr(_dt, name):
                return self._cast(getattr(_dt, name))
        raise ValueError(f"invalid type: '{dtype}'")

    def type_as(self, other):
        return self._cast(other.dtype)

    def float(self):
        return self._cast(_dt.float32)

    def double(self):
        return self._cast(_dt.float64)

    def half(self):
        return self._cast(_dt.float16)

    def bfloat16(self):
        return self._cast(_dt.bfloat16)

    def long(self):
        return self._cast(_dt.int64)

    def int(self):
        return self._cast(_dt.int32)

    def short(self):
        return self._cast(_dt.int16)

    def char(self):
        return self._cast(_dt.int8)

    def byte(self):
        return self._cast(_dt.uint8)

    def bool(self):
        return self._cast(_dt.bool)

    def cfloat(self):
        return self._cast(_dt.complex64)

    def cdouble(self):
        return self._cast(_dt.complex128)

    def cpu(self):
        return self

    # -- memory placement, as a CPU-only PyTorch has it: nothing is pinned (pinning is for an accelerator);
    # share_memory_ moves the data into a MAP_SHARED mapping, which processes forked afterwards write in place.
    def is_pinned(self, device=None):
        if device is not None:
            warnings.warn("The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass this "
                           "argument.", DeprecationWarning, stacklevel=2)
        return False

    def pin_memory(self, device=None):
        if device is not None:
            warnings.warn("The argument 'device' of Tensor.pin_memory() is deprecated. Please do not pass this "
                           "argument.", DeprecationWarning, stacklevel=2)
            kind = Device(device).type
            if kind != "cuda":
                raise RuntimeError(f"{kind.upper()} device type not an accelerator.")
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def is_shared(self):
        import mmap
        base = self._data
        while isinstance(base, np.ndarray):
            base = base.base
        return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)

    def share_memory_(self):
        if self.is_shared():
            return self
        import mmap
        import sys
        # A view, or an array another tensor or a saved graph also holds, would keep the old memory: refused
        # rather than silently split in two (PyTorch moves the whole storage, which npgrad does not track).
        base = self._data.base  # (counted: the attribute or .base holding it, `base`, getrefcount's argument)
        if sys.getrefcount(self._data) > 2 or (base is not None and sys.getrefcount(base) > 3):
            raise RuntimeError("share_memory_: npgrad moves a tensor's data into shared memory only while no other "
                               "tensor (a view, a detached alias) or autograd graph refers to it; call it first, "
                               "e.g. model.share_memory() right after building the model")
        data = self._data
        shared = np.frombuffer(mmap.mmap(-1, max(data.nbytes, 1)), data.dtype, data.size).reshape(data.shape)
        shared[...] = data
        self._data = shared
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        _check_device(Device("cuda") if device is None else Device(device) if not isinstance(device, int)
                      else device)
        raise AssertionError("Torch not compiled with CUDA enabled")  # (unreachable: cuda is never available)


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class Device:
    """``torch.device``: any of PyTorch's device types can be named (a script may build ``device("cuda")``
    and only use it when ``cuda.is_available()``), but tensors live on the CPU only: placing one on another
    device raises the error a PyTorch build without that backend raises (see ``_check_device``)."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002 - PyTorch's parameter name
        if isinstance(type, Device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_type_name(type)})")
        else:
            name, _, idx = type.partition(":")
            if name not in _DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                                   f"{type}")
            if idx:
                if not idx.isdigit() or index is not None:
                    raise RuntimeError(f"Invalid device string: '{type}'")
                index = int(idx)
            type = name
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    # ``with torch.device("cpu"):``: the default device of the factories (and so of modules) inside, in this
    # thread; nests, and restores the one before on exit. Another device raises on entry the error a build
    # without it gives its first tensor.
    def __enter__(self):
        return _enter_device(self)

    def __exit__(self, exc_type, exc_value, traceback):
        _exit_device()


def _type_name(x):
    return type(x).__name__


_CPU = Device()

# What a PyTorch build without the backend raises when a tensor is placed on its device.
_NO_BACKEND = {"cuda": lambda: AssertionError("Torch not compiled with CUDA enabled"),
               "xpu": lambda: AssertionError("Torch not compiled with XPU enabled")}


def _check_device(device):
    """Refuse, with PyTorch's error, any device but the CPU for a tensor."""
    if device is None:
        return
    d = device if isinstance(device, Device) else Device(device)
    if d.type != "cpu":
        err = _NO_BACKEND.get(d.type)
        raise err() if err else RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


class _DefaultDevice(threading.local):
    """set_default_device's choice (None: the CPU) and the devices ``with device(...)`` replaced, per thread
    as in PyTorch."""
    device = None

    def __init__(self):
        self.entered = []


_default_device = _DefaultDevice()


def set_default_device(device):
    """The device factories use when given none. Only the CPU holds npgrad tensors: another device raises
    here the error a PyTorch build without it raises when its first tensor is made there."""
    if device is None:
        _default_device.device = None
        return
    d = device if isinstance(device, Device) else Device(device)
    _check_device(d)
    _default_device.device = d


def get_default_device():
    return _default_device.device or _CPU


def _enter_device(d):
    _check_device(d)
    state = _default_device
    state.entered.append(state.device)
    state.device = d
    return d


def _exit_device():
    state = _default_device
    if not state.entered:
        raise RuntimeError("trying to pop from empty mode stack")
    state.device = state.entered.pop()


_LEGACY_TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
                      "float16": "torch.HalfTensor", "int64": "torch.LongTensor", "int32": "torch.IntTensor",
                      "int16": "torch.ShortTensor", "int8": "torch.CharTensor", "uint8": "torch.ByteTensor",
                      "bool": "torch.BoolTensor", "complex64": "torch.ComplexFloatTensor",
                      "complex128": "torch.ComplexDoubleTensor", "bfloat16": "torch.BFloat16Tensor",
                      "float8_e4m3fn": "torch.Float8_e4m3fnTensor", "float8_e5m2": "torch.Float8_e5m2Tensor",
                      "float8_e4m3fnuz": "torch.Float8_e4m3fnuzTensor",
                      "float8_e5m2fnuz": "torch.Float8_e5m2fnuzTensor",
                      "float8_e8m0fnu": "torch.Float8_e8m0fnuTensor"}

# How PyTorch's messages name dtypes: the C type, and the scalar type.
_C_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int", "int32": "int",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
                 "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
_SCALAR_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "int64": "Long", "int32": "Int",
                 "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}

# The ufuncs NumPy calls when an ndarray or NumPy scalar is on the left of an operator (or a ufunc is
# called on tensors), with the Tensor method computing `a <op> b` from a (forward) and from b (reflected).
_UFUNC_OPS = {"add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
              "multiply": ("__mul__", "__rmul__"), "true_divide": ("__truediv__", "__rtruediv__"),
              "divide": ("__truediv__", "__rtruediv__"), "floor_divide": ("__floordiv__", "__rfloordiv__"),
              "remainder": ("__mod__", "__rmod__"), "power": ("__pow__", "__rpow__"),
              "matmul": ("__matmul__", "__rmatmul__"), "equal": ("__eq__", "__eq__"),
              "not_equal": ("__ne__", "__ne__"), "less": ("__lt__", "__gt__"), "less_equal": ("__le__", "__ge__"),
              "greater": ("__gt__", "__lt__"), "greater_equal": ("__ge__", "__le__"),
              "bitwise_and": ("__and__", "__rand__"), "bitwise_or": ("__or__", "__ror__"),
              "bitwise_xor": ("__xor__", "__rxor__"), "left_shift": ("__lshift__", "__rlshift__"),
              "right_shift": ("__rshift__", "__rrshift__")}


class _RetainGrad:
    """The hook behind retain_grad(): stores (and accumulates) a non-leaf's gradient in its ``.grad``."""

    _retains_grad = True

    def __init__(self, tensor):
        self.ref = weakref.ref(tensor)

    def __call__(self, grad):
        t = self.ref()
        if t is None:
            return None
        if t._grad is None:
            t._grad = grad if grad._grad_fn is not None else Tensor._wrap(np.array(grad._data, copy=True))
        else:
            t._grad = t._grad + grad
        return None


def _init(t, data):
    t._data = data if type(data) is np.ndarray else np.asarray(data)
    t._grad_fn = None
    t._requires_grad = False
    t._grad = None
    t._out_idx = 0
    t._vc = None
    t._view_of = None


def _rebuild(data, requires_grad, cls=Tensor):
    t = object.__new__(cls)
    _init(t, data)
    t._requires_grad = requires_grad
    return t


def _canon_dim(dim, ndim):
    """A dim as a non-negative index, with PyTorch's IndexError when it is out of range."""
    n = ndim if ndim else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


_protocol.register_tensor_type(Tensor)
