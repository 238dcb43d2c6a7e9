"""Comparisons, logical and bitwise operations: results are bool (or integer) tensors with no gradient."""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._registry import tensor_method
from .arith import promote
from .broadcast import broadcast_error

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
           "isclose", "allclose", "equal", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "signbit"]


def _operands(a, b):
    """Arrays for ``a`` (a Tensor) and ``b`` after PyTorch's promotion."""
    a, b = promote(a, b)
    return a._data, (b._data if isinstance(b, Tensor) else b)


def _broadcast_error(x, y):
    return broadcast_error(np.shape(x), np.shape(y)) or \
        RuntimeError(f"shapes {list(np.shape(x))} and {list(np.shape(y))} cannot be broadcast")


def _compare(ufunc, name):
    def op(input, other):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
        if other is None or isinstance(other, str):
            if name in ("eq", "ne"):
                return name == "ne"
            raise TypeError(f"{name}(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
        x, y = _operands(input, other)
        try:
            return Tensor._wrap(np.asarray(ufunc(x, y)))
        except ValueError:
            raise _broadcast_error(x, y) from None
    op.__name__ = name
    return op


eq = tensor_method("eq")(_compare(np.equal, "eq"))
ne = tensor_method("ne", "not_equal")(_compare(np.not_equal, "ne"))
lt = tensor_method("lt", "less")(_compare(np.less, "lt"))
le = tensor_method("le", "less_equal")(_compare(np.less_equal, "le"))
gt = tensor_method("gt", "greater")(_compare(np.greater, "gt"))
ge = tensor_method("ge", "greater_equal")(_compare(np.greater_equal, "ge"))
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge

def _ordering(fn):
    # `tensor < "a"` answers NotImplemented, so Python raises its own "'<' not supported between ..." as PyTorch.
    def op(self, other):
        if other is None or isinstance(other, str):
            return NotImplemented
        return fn(self, other)
    return op


Tensor.__eq__ = eq
Tensor.__ne__ = ne
Tensor.__lt__ = _ordering(lt)
Tensor.__le__ = _ordering(le)
Tensor.__gt__ = _ordering(gt)
Tensor.__ge__ = _ordering(ge)
Tensor.__hash__ = lambda self: id(self)


@tensor_method()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = _operands(input, other)
    return Tensor._wrap(np.asarray(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)))


@tensor_method()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@tensor_method()
def equal(input, other):
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def _unary_pred(fn, name):
    def op(input):
        return Tensor._wrap(np.asarray(fn(input._data)))
    op.__name__ = name
    return tensor_method(name)(op)


isnan = _unary_pred(np.isnan, "isnan")
isinf = _unary_pred(np.isinf, "isinf")
isfinite = _unary_pred(np.isfinite, "isfinite")
isposinf = _unary_pred(np.isposinf, "isposinf")
isneginf = _unary_pred(np.isneginf, "isneginf")
signbit = _unary_pred(np.signbit, "signbit")
isreal = _unary_pred(lambda a: np.ones(a.shape, bool), "isreal")


def _logical(ufunc, name):
    def op(input, other):
        y = other._data if isinstance(other, Tensor) else other
        try:
            return Tensor._wrap(np.asarray(ufunc(input._data, y)))
        except ValueError:
            raise _broadcast_error(input._data, y) from None
    op.__name__ = name
    return tensor_method(name)(op)


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


@tensor_method()
def logical_not(input):
    return Tensor._wrap(np.asarray(np.logical_not(input._data)))


def _check_bitwise(x, kernel, allow_bool=True):
    """PyTorch's error for an operand (array or Python scalar, after promotion) with no bitwise kernel."""
    kind = x.dtype.kind if isinstance(x, np.ndarray) else ("f" if isinstance(x, float) else "i")
    if kind not in ("biu" if allow_bool else "iu"):
        name = _dt.scalar_name(x.dtype) if isinstance(x, np.ndarray) else "Float"
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{name}\'')


def _bitwise(ufunc, name, kernel):
    shift = kernel.endswith("shift")  # shifts have no bool kernel: bool << bool is refused

    def op(input, other):
        if isinstance(input, Tensor):
            x, y = _operands(input, other)
        else:  # scalar <op> tensor: promote as PyTorch does, keep the order for the shifts
            b, a = promote(other, input)
            x, y = (a._data if isinstance(a, Tensor) else a), b._data
        try:
            _check_bitwise(x, kernel, not shift)
            _check_bitwise(y, kernel, not shift)
        except NotImplementedError:
            # PyTorch checks shapes before it looks for a kernel: a size mismatch is reported first.
            err = broadcast_error(np.shape(x), np.shape(y))
            if err is not None:
                raise err from None
            raise
        try:
            return Tensor._wrap(np.asarray(ufunc(x, y)))
        except ValueError:
            raise _broadcast_error(x, y) from None
    op.__name__ = name
    return tensor_method(name)(op)


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "bitwise_xor")
bitwise_left_shift = _bitwise(np.left_shift, "bitwise_left_shift", "lshift")
bitwise_right_shift = _bitwise(np.right_shift, "bitwise_right_shift", "rshift")


@tensor_method()
def bitwise_not(input):
    _check_bitwise(input._data, "bitwise_not")
    return Tensor._wrap(np.asarray(np.invert(input._data)))


Tensor.__and__ = bitwise_and
Tensor.__or__ = bitwise_or
Tensor.__xor__ = bitwise_xor
Tensor.__rand__ = lambda self, other: bitwise_and(self, other)
Tensor.__ror__ = lambda self, other: bitwise_or(self, other)
Tensor.__rxor__ = lambda self, other: bitwise_xor(self, other)
def _invert(self):
    if self._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return Tensor._wrap(np.invert(self._data))


Tensor.__invert__ = _invert
Tensor.__lshift__ = bitwise_left_shift
Tensor.__rshift__ = bitwise_right_shift
Tensor.__rlshift__ = lambda self, other: bitwise_left_shift(other, self)
Tensor.__rrshift__ = lambda self, other: bitwise_right_shift(other, self)
