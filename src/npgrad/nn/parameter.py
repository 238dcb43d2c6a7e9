"""Parameter (a Tensor that a Module registers as learnable), Buffer (a Tensor it registers as state), and their
uninitialized forms (UninitializedParameter, UninitializedBuffer) that lazy modules shape at their first forward."""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _check_device, _init, _rebuild

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


def _array_of(data, what):
    if data is None:
        return np.empty((0,), _dt.get_default_dtype().np)
    if isinstance(data, Tensor):
        return data._data
    raise TypeError(f"{what}(): argument 'data' must be Tensor, not {type(data).__name__}")


class Parameter(Tensor):
    """A Tensor that requires grad by default and that ``Module.__setattr__`` registers as a parameter.

    It shares memory with the tensor it is made from, as PyTorch's does. Operations on a Parameter
    return plain Tensors.
    """

    def __new__(cls, data=None, requires_grad=True):
        self = object.__new__(cls)
        _init(self, _array_of(data, "Parameter"))
        if requires_grad:
            self.requires_grad = True  # the setter refuses integer tensors with PyTorch's message
        return self

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__ (Tensor.__init__ would copy the data)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data.copy(), self._requires_grad, type(self)))


class _BufferMeta(type):
    # nn.Buffer(t) returns a plain Tensor flagged as a buffer; isinstance(x, Buffer) reads the flag.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """``self.x = nn.Buffer(t)`` registers ``t`` as a buffer (``persistent=False`` keeps it out of state_dict).

    As in PyTorch, the result is a plain Tensor sharing ``t``'s memory, marked as a buffer.
    """

    def __new__(cls, data=None, *, persistent=True):
        t = Tensor._wrap(_array_of(data, "Buffer"))
        t._is_buffer = True
        t.persistent = persistent
        return t


class UninitializedTensorMixin:
    """A placeholder with no shape yet: ``materialize(shape)`` gives it storage and turns it, in place (the same
    object, so optimizers and hooks holding it keep working), into its ``cls_to_become``."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        _check_device(device)
        dt = self._data.dtype if dtype is None else _dt.to_dtype(dtype).np
        self._data = np.empty(tuple(shape), dt)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                           "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
                           "one. Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = self._like(self._data.dtype)
        return memo[id(self)]

    # Conversions (module.double(), .to(dtype)) keep the placeholder a placeholder, in the new dtype.
    def _converted(self, name, *args, **kwargs):
        out = getattr(Tensor, name)(self, *args, **kwargs)
        return self if out._data is self._data else self._like(out._data.dtype)

    def to(self, *args, **kwargs):
        return self._converted("to", *args, **kwargs)

    def float(self):
        return self._converted("float")

    def double(self):
        return self._converted("double")

    def half(self):
        return self._converted("half")


def is_lazy(param):
    """Whether ``param`` is an uninitialized placeholder (not yet given a shape)."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        _check_device(device)
        dt = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
        return Parameter.__new__(cls, Tensor._wrap(np.empty((0,), dt.np)), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def _like(self, dtype):
        return UninitializedParameter(self.requires_grad, dtype=_dt.to_dtype(np.dtype(dtype)))


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        _check_device(device)
        dt = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
        self = object.__new__(cls)
        _init(self, np.empty((0,), dt.np))
        if requires_grad:
            self.requires_grad = True
        self.persistent = persistent
        self._is_buffer = True
        return self

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def _like(self, dtype):
        return UninitializedBuffer(self.requires_grad, dtype=_dt.to_dtype(np.dtype(dtype)), persistent=self.persistent)
