"""Arithmetic: + - * / // % ** and negation, with PyTorch's type promotion and broadcasting.

``_binary`` is the shared entry for every binary operator: it turns Python scalars and mixed dtypes
into what PyTorch would compute (an int tensor times 2.5 is a float32 tensor, not float64), then calls
the Op. Broadcasting needs nothing here: the engine sums each gradient back to its input's shape.
"""
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..autograd.record import _apply_op
from ..tensor import Tensor
from . import _deprecated
from . import _poly as P
from ._registry import method, op

# -- the Ops ---------------------------------------------------------------------------------------------

class Add(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, g


class Sub(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, g):
        return g, (-g if ctx.needs_input_grad[1] else None)


class Mul(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        if need:  # save only what backward reads: a later in-place change to the other is no error then
            ctx._saved = (a if need[1] else None, b if need[0] else None)  # save_for_backward, minus a frame
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g * b if need_a else None), (g * a if need_b else None)


class Div(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad
        if need:  # a's gradient needs only b; b's needs both
            ctx._saved = (a if need[1] else None, b)  # save_for_backward, minus a frame
        return a / b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = g / b if need_a else None
        # (a / b) / b, as PyTorch: b * b would underflow to 0 (or overflow) long before a / b / b does
        gb = -g * (a / b) / b if need_b else None
        return ga, gb


class Neg(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, g):
        return -g


class Pow(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        try:
            out = np.power(a, b)
        except ValueError:  # NumPy refuses integer ** negative integer; PyTorch truncates it to an integer
            out = _int_pow(a, b)
        if np.ndim(out) == 0 and out != out and isinstance(b, np.ndarray):
            # NumPy's 0-d path gives NaN for (-inf) ** tensor(0.5); its array path, C's pow and PyTorch give
            # inf (with a Python exponent PyTorch takes a square root: NaN, as NumPy)
            out = np.power(np.reshape(a, 1), np.reshape(b, 1)).reshape(()).astype(out.dtype)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = gb = None
        if need_a:
            if isinstance(b, (int, float)):
                ga = g * 0.0 if b == 0 else g * (b * a ** (b - 1))
            else:
                # 0 where the exponent is 0, so 0 ** 0 has gradient 0 rather than NaN (as PyTorch).
                ga = g * P.where(P.data_of(b) == 0, 0.0, b * a ** (b - 1))
        if need_b:
            base0 = (P.data_of(a) == 0) & (P.data_of(b) >= 0)
            log_a = _log_scalar(a) if isinstance(a, (int, float)) else P.log(a)
            gb = g * P.where(base0, 0.0, out * log_a) if base0.any() else g * (out * log_a)
        return ga, gb


def _log_scalar(v):
    # A Python float keeps a float32 gradient float32; np.log(2) would be a float64 scalar and upcast it.
    if v > 0:
        return math.log(v)
    return -math.inf if v == 0 else math.nan


def _int_pow(a, b):
    """``a ** b`` for integers with some negative exponents: 1/a**|b| truncated (so 0 unless |a| is 1)."""
    dt = np.result_type(a, b)  # before asarray: a Python scalar base takes the exponent tensor's type
    a, b = np.asarray(a), np.asarray(b)
    pos = np.power(a, np.maximum(b, 0)).astype(dt)
    neg = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0)).astype(dt)
    return np.where(b >= 0, pos, neg)


class FloorDivide(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        _check_int_division(a, b, "div_floor_cpu")
        return np.floor_divide(a, b)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class Remainder(Op):
    """Python's modulo (the result takes the divisor's sign), as torch.remainder."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        _check_int_division(a, b, "remainder_cpu")
        ctx.save_for_backward(a, b)
        return np.remainder(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        gb = None
        if ctx.needs_input_grad[1]:
            gb = -g * P.data_of(np.floor_divide(P.data_of(a), P.data_of(b)))
        return g, gb


class Fmod(Op):
    """C's fmod (the result takes the dividend's sign), as torch.fmod."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        _check_int_division(a, b, "fmod_cpu")
        ctx.save_for_backward(a, b)
        return np.fmod(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        gb = None
        if ctx.needs_input_grad[1]:
            gb = -g * np.trunc(P.data_of(a) / P.data_of(b))
        return g, gb


class ToCopy(Op):
    """Change dtype (PyTorch's ``_to_copy``); the engine casts the gradient back to the input's dtype."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, np_dtype):
        # complex -> real keeps the real part, with NumPy's ComplexWarning (PyTorch's message, word for word;
        # npgrad/__init__.py lets it through): no dtype check here on every cast
        return x.astype(np_dtype)

    @staticmethod
    def backward(ctx, g):
        return g, None


_Cast = ToCopy  # the name the rest of npgrad imports


def _check_int_division(a, b, kernel):
    ka, kb = np.asarray(a).dtype.kind, np.asarray(b).dtype.kind
    if ka in "iub" and kb in "iub":
        if ka == "b" and kb == "b":
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
        # PyTorch's kernel meets a zero divisor only if the (broadcast) result has elements
        if np.any(np.asarray(b) == 0) and np.broadcast(a, b).size:
            raise RuntimeError("ZeroDivisionError")
    elif ka == "c":  # promotion made both operands complex; PyTorch has no such kernel for them
        raise _dt.not_implemented(kernel, np.asarray(a).dtype)


# -- promotion ---------------------------------------------------------------------------------------------

def _scalar_value(x):
    """A Python number for a scalar operand, or None when ``x`` must become a tensor."""
    t = type(x)
    if t is float or t is int or t is bool:
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    return None


class _NotAnOperand(TypeError):
    """An operand that is neither a number, an array nor a tensor; Python operators turn it into
    ``NotImplemented`` so the TypeError reads as Python's own (``unsupported operand type(s) for +``)."""


def _to_tensor(x, like):
    from .._convert import tensor
    try:
        return tensor(x)
    except (TypeError, ValueError, RuntimeError):
        raise _NotAnOperand(f"unsupported operand type for a Tensor operation: '{type(x).__name__}'") from None


def _fits(value, np_dtype):
    info = np.iinfo(np_dtype)
    return info.min <= value <= info.max


def promote(a, b):
    """Return ``(a, b)`` ready for a NumPy ufunc so that the result has PyTorch's dtype.

    ``a`` is a Tensor; ``b`` a Tensor or anything a tensor can be built from. A Python scalar stays a
    Python scalar (NumPy then keeps the tensor's dtype), except where PyTorch's category rule needs a
    cast: an integer or bool tensor meeting a float scalar becomes the default float type.
    """
    if isinstance(b, Tensor):
        da, db = a._data.dtype, b._data.dtype
        if da is db or da == db:
            return a, b
        rt = _dt.result_np_dtype(a._data, b._data)
        if da != rt:
            a = a._cast(_dt.from_numpy_dtype(rt))
        if db != rt:
            b = b._cast(_dt.from_numpy_dtype(rt))
        return a, b
    v = _scalar_value(b)
    if v is None:
        return promote(a, _to_tensor(b, a))
    kind = a._data.dtype.kind
    tv = type(v)
    if tv is float:
        if kind != "f" and kind != "c" and a._data.dtype not in _dt.LOW_PRECISION_NP:
            a = a._cast(_dt.get_default_dtype())
    elif tv is int:
        if kind == "b":
            a = a._cast(_dt.int64)
        elif kind in "iu" and not _fits(v, a._data.dtype):
            # PyTorch wraps an out-of-range integer scalar into the tensor's type instead of failing.
            v = np.array(v).astype(a._data.dtype).item()
    return a, v


def _binary(cls, a, b):
    a, b = promote(a, b)
    try:
        return cls.apply(a, b)
    except ValueError as e:  # the only check on shapes: NumPy's failure is translated, never pre-empted
        _raise_shape_error(a, b, e)


def _rbinary(cls, a, b):
    """``scalar <op> tensor``: promote as if the scalar were on the right, then apply in order."""
    b, a = promote(b, a)
    try:
        return cls.apply(a, b)
    except ValueError as e:
        _raise_shape_error(a, b, e)


def _apply2(cls, a, b, *rest):
    """``cls.apply(a, b, ...)`` with PyTorch's error when ``a`` and ``b`` do not broadcast."""
    try:
        return cls.apply(a, b, *rest)
    except ValueError as e:
        _raise_shape_error(a, b, e)


def _raise_shape_error(a, b, exc):
    """Raise PyTorch's size-mismatch error if ``a`` and ``b`` do not broadcast, else ``exc`` itself."""
    from .broadcast import broadcast_error
    err = broadcast_error(np.shape(a._data if isinstance(a, Tensor) else a),
                          np.shape(b._data if isinstance(b, Tensor) else b))
    if err is None:
        raise exc
    raise err from None


_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")
_BOOL_SUB2 = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.")


_BOOL_DT = np.dtype(np.bool_)


def _is_bool(x):
    return x._data.dtype is _BOOL_DT if isinstance(x, Tensor) else type(x) is bool or isinstance(x, np.bool_)


def _sub(a, b):
    """``a - b`` (either may be the scalar); PyTorch refuses any bool operand."""
    if isinstance(a, Tensor):
        if a._data.dtype is _BOOL_DT or (b._data.dtype is _BOOL_DT if isinstance(b, Tensor) else _is_bool(b)):
            _bool_sub_error(a, b)
        return _binary(Sub, a, b)
    if _is_bool(a) or _is_bool(b):
        _bool_sub_error(a, b)
    return _rbinary(Sub, a, b)


def _bool_sub_error(a, b):
    raise RuntimeError(_BOOL_SUB2 if _is_bool(a) and _is_bool(b) else _BOOL_SUB)


def _float_if_integral(a, b):
    # True division of integers gives the default float type, as in PyTorch.
    if a._data.dtype.kind in "iub" and (not isinstance(b, Tensor) or b._data.dtype.kind in "iub"):
        f = _dt.get_default_dtype()
        a = a._cast(f)
        if isinstance(b, Tensor):
            b = b._cast(f)
    return a, b


# -- public functions and Tensor methods -------------------------------------------------------------------

def _with_alpha(input, other, alpha):
    if type(alpha) is int and alpha == 1:
        return other
    # PyTorch checks alpha against the result type: no float alpha for integers, bool only for bool.
    rt = _dt.result_type(input, other)
    if type(alpha) is bool or isinstance(alpha, np.bool_):
        if rt is not _dt.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if rt is _dt.bool:  # a bool result takes alpha as a bool
        return other if alpha else other & False
    if isinstance(alpha, (float, np.floating)) and not rt.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return other * alpha


@op(inplace="ufunc")
def add(input, other, *deprecated, alpha=1):
    if deprecated:  # add(input, alpha, other), still accepted by PyTorch
        other, alpha = _deprecated.alpha_first("add", other, deprecated, alpha)
    other = _with_alpha(input, other, alpha)
    return _binary(Add, input, other) if isinstance(input, Tensor) else _rbinary(Add, input, other)


@op("subtract", inplace="ufunc")
def sub(input, other, *deprecated, alpha=1):
    if deprecated:
        other, alpha = _deprecated.alpha_first("sub", other, deprecated, alpha)
    return _sub(input, _with_alpha(input, other, alpha))




@op(methods=())
def rsub(input, other, *, alpha=1):
    return _sub(other, _with_alpha(other, input, alpha))


@op("multiply", inplace="ufunc")
def mul(input, other):
    return _binary(Mul, input, other) if isinstance(input, Tensor) else _rbinary(Mul, input, other)




@op("divide", "true_divide", inplace="ufunc")
def div(input, other, *, rounding_mode=None):
    if not isinstance(input, Tensor):
        return _rdiv(other, input, rounding_mode)
    if rounding_mode is None:
        # Integers go to float before promotion, so an integer scalar is divided by, never wrapped
        # into the tensor's type (uint8 / -3 is -0.33, as in PyTorch).
        a, b = promote(*_float_if_integral(input, other))
        return _apply2(Div, a, b)
    a, b = promote(input, other)
    return _rounded_div(a, b, rounding_mode)




def _rdiv(tensor, scalar, rounding_mode=None):
    if rounding_mode is None:
        b, a = promote(*_float_if_integral(tensor, scalar))
        return _apply2(Div, a, b)
    b, a = promote(tensor, scalar)
    return _rounded_div(a, b, rounding_mode)


def _rounded_div(a, b, mode):
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{mode}'")
    return _apply2(RoundedDiv, a, b, mode)


class RoundedDiv(Op):
    """``div(rounding_mode='trunc'|'floor')``: piecewise constant, so both gradients are zero (as PyTorch)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b, mode):
        if mode == "floor":
            _check_int_division(a, b, "div_floor_cpu")
            return np.floor_divide(a, b)
        _check_int_division(a, b, "div_trunc_cpu")
        if np.asarray(a).dtype.kind in "iub" and np.asarray(b).dtype.kind in "iub":
            # a - fmod(a, b) is an exact multiple of b, so flooring it is exact (no |INT_MIN| overflow)
            return np.floor_divide(a - np.fmod(a, b), b)
        return np.trunc(a / b)

    @staticmethod
    def backward(ctx, g):
        return P.zeros_like(g), P.zeros_like(g), None

    node_name = "DivBackward2"


@op(inplace="generic")
def floor_divide(input, other):
    if not isinstance(input, Tensor):
        return _rbinary(FloorDivide, input, other)
    return _binary(FloorDivide, input, other)


@op(inplace="generic")
def remainder(input, other):
    if not isinstance(input, Tensor):
        return _rbinary(Remainder, input, other)
    return _binary(Remainder, input, other)


@op(inplace="generic")
def fmod(input, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"fmod(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return _binary(Fmod, input, other)


@op(inplace="generic")
def pow(input, exponent):
    if not isinstance(input, Tensor):
        return _rbinary(Pow, input, exponent)
    e = _scalar_value(exponent)
    if input._data.dtype == np.float16 and type(e) in (int, float) and math.isfinite(e) and abs(e) > 65504:
        # the exponent is converted to the tensor's type with a check, as for integers below
        raise RuntimeError("value cannot be converted to type c10::Half without overflow")
    if isinstance(exponent, Tensor) or isinstance(exponent, float) or input._data.dtype.kind in "fc":
        a, b = promote(input, exponent)
    else:
        # checked before promotion, which wraps an out-of-range scalar into the tensor's type
        e = _scalar_value(exponent)
        if type(e) is int and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if type(e) is int and input._data.dtype.kind in "iu" and not _fits(e, input._data.dtype):
            # pow converts its exponent to the tensor's type with a check (add and mul wrap instead)
            raise RuntimeError(f"value cannot be converted to type {_C_INT_NAMES[input._data.dtype.name]} "
                               "without overflow")
        a, b = promote(input, exponent)
    if isinstance(b, Tensor) and a._data.dtype.kind == "b" and b._data.dtype.kind == "b":
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if a._data.dtype.kind == "b" and _is_bool(b):  # PyTorch: bool ** bool scalar stays bool (x ** False is True)
        return Tensor._wrap(np.array(a._data) if b else np.ones_like(a._data))
    return _apply2(Pow, a, b)


_C_INT_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def _is_complex(v):
    return v._data.dtype.kind == "c" if isinstance(v, Tensor) else isinstance(v, complex)


@op()  # its in-place form has its own dtype rule: float_power_ below
def float_power(input, exponent):
    # float64, or complex128 when either side is complex (PyTorch's rule)
    wide = _dt.complex128 if any(_is_complex(v) for v in (input, exponent)) else _dt.float64
    input = input._cast(wide) if isinstance(input, Tensor) else input
    exponent = exponent._cast(wide) if isinstance(exponent, Tensor) else (
        complex(exponent) if wide is _dt.complex128 else float(exponent))
    return pow(input, exponent)


def _float_power_(self, exponent):
    # in place, the result (always float64) must fit the tensor: PyTorch refuses any other dtype
    wide = np.complex128 if _is_complex(self) or _is_complex(exponent) else np.float64
    if self._data.dtype != wide:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dt.scalar_name(self._data.dtype)} but "
                           f"the operation's result requires dtype {_dt.scalar_name(np.dtype(wide))}")
    from .inplace import inplace
    return inplace(self, float_power, exponent)


method("float_power_", _float_power_)


@op("negative", methods=("neg", "negative", "__neg__"), inplace="generic")
def neg(input):
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return Neg.apply(input)




@op(methods=("positive", "__pos__"))
def positive(input):
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _rpow(base, t):
    """``base ** t`` for a scalar base; PyTorch has no kernel for a bool scalar to a bool tensor's power."""
    if _is_bool(base) and t._data.dtype.kind == "b":
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    return _rbinary(Pow, base, t)


# -- operators ---------------------------------------------------------------------------------------------

def _forward(cls):
    def op(self, other):
        try:
            return _binary(cls, self, other)
        except _NotAnOperand:
            return NotImplemented
    return op


def _reflected(cls):
    def op(self, other):
        try:
            return _rbinary(cls, other, self)
        except _NotAnOperand:
            return NotImplemented
    return op


def _through(fn, reflected=False):
    """An operator computed by ``fn(self, other)`` (or ``fn(other, self)``)."""
    if reflected:
        def op(self, other):
            try:
                return fn(other, self)
            except _NotAnOperand:
                return NotImplemented
    else:
        def op(self, other):
            try:
                return fn(self, other)
            except _NotAnOperand:
                return NotImplemented
    return op


def _fast(cls, general):
    """The operator with a shortcut for the common case, a float tensor with a tensor of the same
    dtype or with a Python number: no promotion is needed, so the Op is applied directly."""
    def op(self, other):
        d = self._data.dtype
        if d.kind == "f" and ((isinstance(other, Tensor) and other._data.dtype is d) or
                              type(other) is float or type(other) is int):
            try:
                return _apply_op(cls, (self, other))
            except ValueError as e:
                _raise_shape_error(self, other, e)
        return general(self, other)
    op.__name__ = general.__name__
    return op


method("__add__", _fast(Add, _forward(Add)))
method("__radd__", _reflected(Add))
method("__sub__", _fast(Sub, _through(_sub)))
method("__rsub__", _through(_sub, reflected=True))
method("__mul__", _fast(Mul, _forward(Mul)))
method("__rmul__", _reflected(Mul))
method("__truediv__", _fast(Div, _through(div)))
method("__rtruediv__", _through(lambda self, other: mul(self.reciprocal(), other)))  # PyTorch's scalar / tensor:
# reciprocal(tensor) * scalar, so the rounding is PyTorch's and backward saves only the reciprocal's output
method("__floordiv__", _forward(FloorDivide))
method("__rfloordiv__", _reflected(FloorDivide))
method("__mod__", _forward(Remainder))
method("__rmod__", _reflected(Remainder))
method("__pow__", _through(pow))
method("__rpow__", _through(lambda base, t: _rpow(base, t), reflected=True))
