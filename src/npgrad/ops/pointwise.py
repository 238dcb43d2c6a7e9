"""Pointwise operators of several inputs or bounds: where, maximum/minimum/fmax/fmin, clamp/clip, and the
other binary or ternary elementwise math (atan2, lerp, addcmul/addcdiv, hypot, xlogy, nan_to_num).
One-input math is in ``unary.py``, arithmetic operators in ``arith.py``."""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _deprecated
from . import _poly as P
from ._registry import op
from .arith import promote, _apply2
from .broadcast import broadcast_error

def _where_method(self, condition, y):
    # Tensor.where(condition, y) is where(condition, self, y): the tensor is the "true" branch.
    return where(condition, self, y)


class Where(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        return np.where(cond, a, b)

    @staticmethod
    def backward(ctx, g):
        c = ctx.cond
        need_a, need_b = ctx.needs_input_grad[1:]
        return None, (P.where(c, g, 0.0) if need_a else None), (P.where(c, 0.0, g) if need_b else None)


@op(methods=())  # Tensor.where(condition, y) takes its arguments in another order: below
def where(condition, input=None, other=None):
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        condition = Tensor._wrap(np.asarray(condition))
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_dt.scalar_name(condition.dtype)}")
    if isinstance(input, Tensor):
        a, b = promote(input, other)
    elif isinstance(other, Tensor):
        b, a = promote(other, input)
    else:
        from .._convert import tensor
        a, b = promote(tensor(input), other)
    cd = condition._data
    try:
        return Where.apply(cd, a, b)
    except ValueError:
        err = broadcast_error(cd.shape, *[np.shape(x._data if isinstance(x, Tensor) else x) for x in (a, b)])
        if err is None:
            raise
        raise err from None


op(name="where", public=False)(_where_method)


class MaxMin(Op):
    """Elementwise max/min; ties split the gradient evenly between the two inputs, as in PyTorch.

    One subclass per function (its ufunc and which side wins) so each node is named as PyTorch's.
    """

    __slots__ = ()
    ufunc = None
    is_min = False

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        return cls.ufunc(a, b)

    @classmethod
    def backward(cls, ctx, g):
        a, b = ctx.saved_tensors
        ad, bd = P.data_of(a), P.data_of(b)
        dt = P.data_of(g).dtype
        if cls.ufunc is np.fmax or cls.ufunc is np.fmin:
            # The side fmax/fmin picked (ties and NaN in `other` go to `input`) takes the whole gradient.
            keep = ((ad <= bd) if cls.is_min else (ad >= bd)) | np.isnan(bd)
            wa, wb = keep.astype(dt), (~keep).astype(dt)
        else:
            # PyTorch's rule: a tie halves the gradient; only a strictly losing side gets zero (NaN loses nothing).
            a_loses, b_loses = ((ad > bd), (ad < bd)) if cls.is_min else ((ad < bd), (ad > bd))
            half = np.asarray(0.5, dt)
            tie = ad == bd
            wa = np.where(tie, half, (~a_loses).astype(dt))
            wb = np.where(tie, half, (~b_loses).astype(dt))
        need_a, need_b = ctx.needs_input_grad
        return (_select(g, wa) if need_a else None), (_select(g, wb) if need_b else None)


def _select(g, w):
    # Selected, not just multiplied: the losing side gets an exact 0 even where the upstream gradient is
    # NaN or inf (PyTorch's masked_fill), since it did not influence the result.
    zero = w == 0
    gw = g * w
    return P.where(zero, 0.0, gw) if zero.any() else gw


class Maximum(MaxMin):
    __slots__ = ()
    ufunc = staticmethod(np.maximum)


class Minimum(MaxMin):
    __slots__ = ()
    ufunc = staticmethod(np.minimum)
    is_min = True


class Fmax(MaxMin):
    __slots__ = ()
    ufunc = staticmethod(np.fmax)


class Fmin(MaxMin):
    __slots__ = ()
    ufunc = staticmethod(np.fmin)
    is_min = True


def _maxmin(cls, input, other):
    for t in (input, other):
        if isinstance(t, Tensor) and t._data.dtype.kind == "c":
            raise RuntimeError(f"{cls.__name__.lower()} not implemented for complex tensors.")
    if not isinstance(input, Tensor):
        other, input = promote(other, input)
    else:
        input, other = promote(input, other)
    if not isinstance(other, Tensor):
        other = Tensor._wrap(np.asarray(other, input._data.dtype))
    return _apply2(cls, input, other)


@op()
def maximum(input, other):
    return _maxmin(Maximum, input, other)


@op()
def minimum(input, other):
    return _maxmin(Minimum, input, other)


@op()
def fmax(input, other):
    return _maxmin(Fmax, input, other)


@op()
def fmin(input, other):
    return _maxmin(Fmin, input, other)


def _bound(v, dtype):
    # As PyTorch, a bound is converted to the tensor's type first (an integer bound wraps: -1 -> 255 for uint8).
    # A Python number next to a float array already keeps the array's type (NumPy 2), so it needs nothing.
    if dtype.kind == "f" and isinstance(v, (int, float)):
        return v
    return np.array(v).astype(dtype)


class Clamp(Op):
    """Number bounds: the gradient passes where lo <= x <= hi (bounds included, NaN blocked, as PyTorch)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        out = x
        if lo is not None:
            out = np.maximum(out, _bound(lo, x.dtype))
        if hi is not None:
            out = np.minimum(out, _bound(hi, x.dtype))
        return out if out is not x else x.copy()

    node_name = "ClampBackward1"  # PyTorch's name for clamp with Number bounds

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd, lo, hi = P.data_of(x), ctx.lo, ctx.hi
        if lo is not None and hi is not None:
            mask = (xd >= lo) & (xd <= hi)
        elif lo is not None:
            mask = xd >= lo
        else:
            mask = xd <= hi
        return P.where(mask, g, 0.0), None, None


class ClampMin(Clamp):
    __slots__ = ()

    node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    __slots__ = ()

    node_name = "ClampMaxBackward0"


class ClampTensor(Op):
    """Tensor bounds (either may be None). As PyTorch: ``x`` keeps the gradient where it is inside the
    bounds (ties included); a bound takes it where it is the active one; if min > max only max is."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x, lo, hi)
        out = x
        if lo is not None:
            out = np.maximum(out, lo)
        if hi is not None:
            out = np.minimum(out, hi)
        return out

    node_name = "ClampBackward0"

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.saved_tensors
        xd = P.data_of(x)
        need_x, need_lo, need_hi = ctx.needs_input_grad
        gx = glo = ghi = None
        if lo is not None and hi is not None:
            ld, hd = P.data_of(lo), P.data_of(hi)
            if need_x:
                gx = P.where((xd >= ld) & (xd <= hd), g, 0.0)
            if need_lo:
                glo = P.where((xd < ld) & (ld < hd), g, 0.0)
            if need_hi:
                ghi = P.where((xd > hd) | (hd < ld), g, 0.0)
        elif lo is not None:
            ld = P.data_of(lo)
            gx = P.where(xd >= ld, g, 0.0) if need_x else None
            glo = P.where(xd < ld, g, 0.0) if need_lo else None
        else:
            hd = P.data_of(hi)
            gx = P.where(xd <= hd, g, 0.0) if need_x else None
            ghi = P.where(xd > hd, g, 0.0) if need_hi else None
        return gx, glo, ghi


class ClampMinTensor(ClampTensor):
    __slots__ = ()

    node_name = "ClampMinBackward1"


class ClampMaxTensor(ClampTensor):
    __slots__ = ()

    node_name = "ClampMaxBackward1"


@op("clip", inplace="generic")
def clamp(input, min=None, max=None):  # noqa: A002 - PyTorch's argument names
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input._data.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensors(ClampTensor, input, min, max)
    return _clamp_scalar(Clamp, input, min, max)


def _clamp_scalar(cls, input, lo, hi):
    if input._data.dtype.kind != "f":
        # Bounds take part in type promotion: int tensor with a float bound is float, bool with int is int64.
        rt = _dt.result_type(input, *[b for b in (lo, hi) if b is not None])
        if rt.np != input._data.dtype:
            input = input._cast(rt)
    return cls.apply(input, lo, hi)


def _clamp_tensors(cls, input, lo, hi):
    rt = _dt.result_type(*[v for v in (input, lo, hi) if v is not None])

    def conv(v):
        if v is None:
            return None
        if isinstance(v, Tensor):
            return v._cast(rt)
        return Tensor._wrap(np.asarray(v, rt.np))

    args = (conv(input), conv(lo), conv(hi))
    try:
        return cls.apply(*args)
    except ValueError:
        err = broadcast_error(*[a._data.shape for a in args if a is not None])
        if err is None:
            raise
        raise err from None


def _clamp_complex(input, bound, kernel):
    if input._data.dtype.kind == "c" or (isinstance(bound, Tensor) and bound._data.dtype.kind == "c"):
        if isinstance(bound, Tensor):
            raise _dt.not_implemented(kernel, input._data.dtype if input._data.dtype.kind == "c" else bound._data.dtype)
        raise NotImplementedError("clamp is not supported for complex types")


@op(inplace="generic")
def clamp_min(input, min):  # noqa: A002
    _clamp_complex(input, min, "maximum_cpu")
    if isinstance(min, Tensor):
        return _clamp_tensors(ClampMinTensor, input, min, None)
    return _clamp_scalar(ClampMin, input, min, None)


@op(inplace="generic")
def clamp_max(input, max):  # noqa: A002
    _clamp_complex(input, max, "minimum_cpu")
    if isinstance(max, Tensor):
        return _clamp_tensors(ClampMaxTensor, input, None, max)
    return _clamp_scalar(ClampMax, input, None, max)


@op("arctan2", inplace="generic")
def atan2(input, other):
    a, b = _float_operands(input, other, "atan2_cpu")
    return _apply2(Atan2, a, b)


def _float_operands(input, other, kernel):
    """Operands of an operator whose integer inputs compute in the default float type: each is cast
    straight to the float result type (never through the promoted integer type, where uint8 with an
    int8 -1 would wrap to 255 first). Python scalars become 0-d arrays of that type."""
    rt = _dt.result_type(input, other)
    if not rt.is_floating_point:
        if rt.is_complex:
            raise _dt.not_implemented(kernel, rt)
        rt = _dt.get_default_dtype()
    return [x._cast(rt) if isinstance(x, Tensor) else Tensor._wrap(np.asarray(x, rt.np)) for x in (input, other)]


class Atan2(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.arctan2(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        denom = a * a + b * b
        zero = P.data_of(denom) == 0
        # At the origin (or where a*a + b*b underflows) PyTorch's gradient is 0, not 0/0.
        recip = P.where(zero, 0.0, 1 / P.where(zero, 1.0, denom)) if zero.any() else 1 / denom
        return g * b * recip, g * -a * recip


_C_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _check_shapes(*xs):
    """PyTorch's size-mismatch error for composite functions, raised before any partial result exists."""
    err = broadcast_error(*[x._data.shape for x in xs if isinstance(x, Tensor)])
    if err is not None:
        raise err


@op(inplace="generic")
def lerp(input, end, weight):
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {_C_NAMES[input._data.dtype.name]} for `{name}` but got dtype "
                               f"{_C_NAMES[t._data.dtype.name]}")
    if input._data.dtype.kind not in "fc" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dt.scalar_name(input.dtype)}'")
    _check_shapes(input, end, weight)
    if not isinstance(end, Tensor):
        return input + weight * (end - input)
    return (LerpTensorWeight if isinstance(weight, Tensor) else Lerp).apply(input, end, weight)


class Lerp(Op):
    """PyTorch's lerp: its two formulas (exact at both ends) and its gradients, g * (1 - w) and g * w, which
    keep an infinite upstream gradient infinite (the composite a + w * (b - a) turned it into inf - inf)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.save_for_backward(a, b, w)
        d = b - a
        if isinstance(w, np.ndarray):
            return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w))
        return a + w * d if abs(w) < 0.5 else b - d * (1 - w)

    @staticmethod
    def backward(ctx, g):
        a, b, w = ctx.saved_tensors
        need_a, need_b, need_w = ctx.needs_input_grad
        return (g * (1 - w) if need_a else None), (g * w if need_b else None), (g * (b - a) if need_w else None)


class LerpTensorWeight(Lerp):
    __slots__ = ()
    node_name = "LerpBackward1"  # PyTorch's name when the weight is a tensor


@op(inplace="generic")
def addcmul(input, tensor1, tensor2, *deprecated, value=1):
    if deprecated:  # addcmul(input, value, tensor1, tensor2), still accepted by PyTorch
        tensor1, tensor2, value = _deprecated.value_first("addcmul", tensor1, tensor2, deprecated, value)
    if _dt.result_type(input, tensor1, tensor2) is _dt.bool:
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    _check_shapes(input, tensor1, tensor2)
    input, tensor1, tensor2 = _to_result_type(input, tensor1, tensor2)
    return input + value * tensor1 * tensor2


def _to_result_type(*xs):
    # A composite computes every step in the result type, as PyTorch's fused kernel does: a float32
    # product added to a float64 input would otherwise be rounded to float32 first.
    rt = _dt.result_type(*xs)
    return [x._cast(rt) if isinstance(x, Tensor) and x._data.dtype != rt.np else x for x in xs]


@op(inplace="generic")
def addcdiv(input, tensor1, tensor2, *deprecated, value=1):
    if deprecated:
        tensor1, tensor2, value = _deprecated.value_first("addcdiv", tensor1, tensor2, deprecated, value)
    _check_shapes(input, tensor1, tensor2)
    if (tensor1._data.dtype.kind not in "fc" and tensor2._data.dtype.kind not in "fc"
            and tensor1._data.dtype not in _dt.LOW_PRECISION_NP and tensor2._data.dtype not in _dt.LOW_PRECISION_NP):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    input, tensor1, tensor2 = _to_result_type(input, tensor1, tensor2)
    return input + value * tensor1 / tensor2


@op(inplace="generic")
def hypot(input, other):
    _check_shapes(input, other)
    rt = _dt.result_type(input, other)
    if not rt.is_floating_point:
        raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{_dt.scalar_name(rt)}'")
    a, b = promote(input, other)
    return _apply2(Hypot, a, b)


class Hypot(Op):
    """sqrt(a^2 + b^2) without overflow or underflow of the squares (np.hypot), and C's rule that an
    infinite operand gives inf even when the other is NaN."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        out = np.hypot(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        return g * a / out, g * b / out


@op(inplace="generic")
def xlogy(input, other):
    _check_shapes(input, other)
    a, b = _float_operands(input, other, "xlogy_cpu")
    return _apply2(Xlogy, a, b)


def _xlogy_np(x, y):
    with np.errstate(all="ignore"):
        out = x * np.log(y)
    return np.where((x == 0) & ~np.isnan(y), 0, out)


class Xlogy(Op):
    """x * log(y), defined as 0 where x == 0 (unless y is NaN)."""

    __slots__ = ()
    kernel = staticmethod(lambda x, y: _xlogy_np(x, y))

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return _xlogy_np(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        gx = gy = None
        if need_x:
            # PyTorch's formula: xlogy(grad, y), zero where x == 0 and y <= 0 (log y undefined there)
            glog = P.kernel_call(Xlogy, g, y)
            undefined = (P.data_of(x) == 0) & (P.data_of(y) <= 0)
            gx = P.where(undefined, 0.0, glog) if undefined.any() else glog
        if need_y:
            gy = g * x / y
        return gx, gy


class NanToNum(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.mask = np.isfinite(x)
        return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, g):
        return P.where(ctx.mask, g, 0.0), None, None, None


@op(inplace="generic")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if input._data.dtype.kind != "f":
        if input._data.dtype.kind == "c":  # PyTorch replaces in the real and imaginary parts separately
            from ..autograd.grad_mode import state
            if input._requires_grad and state.enabled:  # and defines no derivative for it
                raise RuntimeError("nan_to_num does not support automatic differentiation for outputs with complex "
                                   "dtype.")
            out = np.empty_like(input._data)
            out.real = nan_to_num(input.real, nan, posinf, neginf)._data
            out.imag = nan_to_num(input.imag, nan, posinf, neginf)._data
            return Tensor._wrap(out)
        return input.clone()
    return NanToNum.apply(input, nan, posinf, neginf)
