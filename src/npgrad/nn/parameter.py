"""Parameter (a Tensor that a Module registers as learnable) and Buffer (a Tensor it registers as state)."""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _init, _rebuild

__all__ = ["Parameter", "Buffer"]


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
