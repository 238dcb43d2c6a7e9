"""Comparisons, logical and bitwise operations: results are bool (or integer) tensors with no gradient."""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._registry import method, op
from .arith import promote
from .broadcast import broadcast_error

def _operands(a, b):
    """Arrays for ``a`` (a Tensor) and ``b`` after PyTorch's promotion."""
    a, b = promote(a, b)
    return a._data, (b._data if isinstance(b, Tensor) else b)


def _ordered_operands(a, b, name):
    """``_operands`` for <, <=, >, >=, which PyTorch refuses for complex numbers. The common cases (equal
    dtypes; a float tensor and a Python number) skip promote(), which has nothing to do for them, so the
    complex check costs nothing over the general path."""
    x = a._data
    if isinstance(b, Tensor):
        y = b._data
        if x.dtype is y.dtype and x.dtype.kind != "c":
            return x, y
    else:
        t = type(b)
        if (t is float or t is int) and x.dtype.kind == "f":
            return x, b
    x, y = _operands(a, b)
    if x.dtype.kind == "c":  # promotion made both complex if either was
        raise _dt.not_implemented(f"{name}_cpu", x.dtype)
    return x, y


def _broadcast_error(x, y):
    return broadcast_error(np.shape(x), np.shape(y)) or \
        RuntimeError(f"shapes {list(np.shape(x))} and {list(np.shape(y))} cannot be broadcast")


def _compare(ufunc, name, ordered=False):
    def compare(input, other):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
        if other is None or isinstance(other, str):
            if name in ("eq", "ne"):
                return name == "ne"
            raise TypeError(f"{name}(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
        x, y = _ordered_operands(input, other, name) if ordered else _operands(input, other)
        try:
            return Tensor._wrap(np.asarray(ufunc(x, y)))
        except ValueError:
            raise _broadcast_error(x, y) from None
    compare.__name__ = name
    return compare


eq = op(methods=("eq", "__eq__"))(_compare(np.equal, "eq"))
ne = op("not_equal", methods=("ne", "not_equal", "__ne__"))(_compare(np.not_equal, "ne"))
lt = op("less")(_compare(np.less, "lt", True))
le = op("less_equal")(_compare(np.less_equal, "le", True))
gt = op("greater")(_compare(np.greater, "gt", True))
ge = op("greater_equal")(_compare(np.greater_equal, "ge", True))

def _ordering(fn):
    # `tensor < "a"` answers NotImplemented, so Python raises its own "'<' not supported between ..." as PyTorch.
    def op(self, other):
        if other is None or isinstance(other, str):
            return NotImplemented
        return fn(self, other)
    return op


method("__lt__", _ordering(lt))
method("__le__", _ordering(le))
method("__gt__", _ordering(gt))
method("__ge__", _ordering(ge))
method("__hash__", lambda self: id(self))  # defining __eq__ removed the default hash


@op()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = _operands(input, other)
    return Tensor._wrap(np.asarray(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)))


@op()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@op()
def equal(input, other):
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def _unary_pred(fn, name, complex_error=None):
    def pred(input):
        if complex_error is not None and input._data.dtype.kind == "c":
            raise complex_error
        return Tensor._wrap(np.asarray(fn(input._data)))
    pred.__name__ = name
    return op()(pred)


isnan = _unary_pred(np.isnan, "isnan")
isinf = _unary_pred(np.isinf, "isinf")
isfinite = _unary_pred(np.isfinite, "isfinite")
isposinf = _unary_pred(np.isposinf, "isposinf", RuntimeError("isposinf does not support complex inputs."))
isneginf = _unary_pred(np.isneginf, "isneginf", RuntimeError("isneginf does not support complex inputs."))
signbit = _unary_pred(np.signbit, "signbit", NotImplementedError("signbit is not implemented for complex tensors."))
isreal = _unary_pred(lambda a: a.imag == 0 if a.dtype.kind == "c" else np.ones(a.shape, bool), "isreal")


def _logical(ufunc, name):
    def logical(input, other):
        y = other._data if isinstance(other, Tensor) else other
        try:
            return Tensor._wrap(np.asarray(ufunc(input._data, y)))
        except ValueError:
            raise _broadcast_error(input._data, y) from None
    logical.__name__ = name
    return op(inplace="generic")(logical)


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


@op(inplace="generic")
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

    def bitwise(input, other):
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
    bitwise.__name__ = name
    return bitwise


bitwise_and = op(methods=("bitwise_and", "__and__"), inplace="generic")(
    _bitwise(np.bitwise_and, "bitwise_and", "bitwise_and"))
bitwise_or = op(methods=("bitwise_or", "__or__"), inplace="generic")(
    _bitwise(np.bitwise_or, "bitwise_or", "bitwise_or"))
bitwise_xor = op(methods=("bitwise_xor", "__xor__"), inplace="generic")(
    _bitwise(np.bitwise_xor, "bitwise_xor", "bitwise_xor"))
bitwise_left_shift = op(methods=("bitwise_left_shift", "__lshift__"))(
    _bitwise(np.left_shift, "bitwise_left_shift", "lshift"))
bitwise_right_shift = op(methods=("bitwise_right_shift", "__rshift__"))(
    _bitwise(np.right_shift, "bitwise_right_shift", "rshift"))


@op(inplace="generic")
def bitwise_not(input):
    _check_bitwise(input._data, "bitwise_not")
    return Tensor._wrap(np.asarray(np.invert(input._data)))


method("__rand__", lambda self, other: bitwise_and(self, other))
method("__ror__", lambda self, other: bitwise_or(self, other))
method("__rxor__", lambda self, other: bitwise_xor(self, other))
def _invert(self):
    if self._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return Tensor._wrap(np.invert(self._data))


method("__invert__", _invert)
method("__rlshift__", lambda self, other: bitwise_left_shift(other, self))
method("__rrshift__", lambda self, other: bitwise_right_shift(other, self))
