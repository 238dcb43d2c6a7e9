"""Elementwise choices between tensors: where, maximum/minimum, clamp/clip, and the other binary or
ternary elementwise math (atan2, lerp, addcmul/addcdiv, hypot, xlogy, nan_to_num)."""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._registry import tensor_method
from .arith import promote

__all__ = ["where", "maximum", "minimum", "fmax", "fmin", "clamp", "clip", "clamp_min", "clamp_max", "atan2",
           "arctan2", "lerp", "addcmul", "addcdiv", "hypot", "xlogy", "nan_to_num"]


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


@tensor_method()
def where(condition, input=None, other=None):
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        condition = Tensor._wrap(np.asarray(condition))
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype.name.capitalize()}")
    if isinstance(input, Tensor):
        a, b = promote(input, other)
    elif isinstance(other, Tensor):
        b, a = promote(other, input)
    else:
        from ..factories import tensor
        a, b = promote(tensor(input), other)
    cd = condition._data
    shapes = [cd.shape] + [x._data.shape for x in (a, b) if isinstance(x, Tensor)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuntimeError("The size of tensors must match at non-singleton dimensions: "
                           + ", ".join(str(list(s)) for s in shapes)) from None
    return Where.apply(cd, a, b)


class MaxMin(Op):
    """maximum/minimum: ties split the gradient evenly between the two inputs, as in PyTorch."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b, is_min, ignore_nan):
        if ignore_nan:
            out = np.fmin(a, b) if is_min else np.fmax(a, b)
        else:
            out = np.minimum(a, b) if is_min else np.maximum(a, b)
        ctx.save_for_backward(a, b)
        ctx.is_min = is_min
        return out

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ad, bd = P.data_of(a), P.data_of(b)
        win_a = (ad < bd) if ctx.is_min else (ad > bd)
        tie = ad == bd
        wa = np.where(tie, 0.5, win_a.astype(g.dtype if not isinstance(g, Tensor) else g._data.dtype))
        wa = np.asarray(wa, P.data_of(g).dtype)
        need_a, need_b = ctx.needs_input_grad[:2]
        return (g * wa if need_a else None), (g * (1.0 - wa) if need_b else None), None, None


def _maxmin(input, other, is_min, ignore_nan=False):
    if not isinstance(input, Tensor):
        other, input = promote(other, input)
    else:
        input, other = promote(input, other)
    if not isinstance(other, Tensor):
        other = Tensor._wrap(np.asarray(other, input._data.dtype))
    return MaxMin.apply(input, other, is_min, ignore_nan)


@tensor_method()
def maximum(input, other):
    return _maxmin(input, other, False)


@tensor_method()
def minimum(input, other):
    return _maxmin(input, other, True)


@tensor_method()
def fmax(input, other):
    return _maxmin(input, other, False, True)


@tensor_method()
def fmin(input, other):
    return _maxmin(input, other, True, True)


class Clamp(Op):
    """Scalar bounds: gradient passes where lo <= x <= hi (boundaries included, as in PyTorch)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        out = x
        if lo is not None:
            out = np.maximum(out, np.asarray(lo, x.dtype))
        if hi is not None:
            out = np.minimum(out, np.asarray(hi, x.dtype))
        return out if out is not x else x.copy()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        mask = np.ones(xd.shape, bool)
        if ctx.lo is not None:
            mask &= xd >= ctx.lo
        if ctx.hi is not None:
            mask &= xd <= ctx.hi
        mask |= xd != xd  # NaN passes through clamp and keeps its gradient
        return P.where(mask, g, 0.0), None, None


@tensor_method("clamp", "clip")
def clamp(input, min=None, max=None):  # noqa: A002 - PyTorch's argument names
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    if input._data.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
        input = input._cast(_dt.get_default_dtype())
    return Clamp.apply(input, min, max)


clip = clamp


@tensor_method()
def clamp_min(input, min):  # noqa: A002
    return clamp(input, min=min)


@tensor_method()
def clamp_max(input, max):  # noqa: A002
    return clamp(input, max=max)


@tensor_method("atan2", "arctan2")
def atan2(input, other):
    a, b = promote(input, other)
    if a._data.dtype.kind != "f":
        a, b = a._cast(_dt.get_default_dtype()), b._cast(_dt.get_default_dtype())
    return _Atan2.apply(a, b)


arctan2 = atan2


class _Atan2(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.arctan2(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        denom = a * a + b * b
        return g * b / denom, -g * a / denom


@tensor_method()
def lerp(input, end, weight):
    return input + weight * (end - input)


@tensor_method()
def addcmul(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 * tensor2


@tensor_method()
def addcdiv(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 / tensor2


@tensor_method()
def hypot(input, other):
    return (input * input + other * other).sqrt()


@tensor_method()
def xlogy(input, other):
    if not isinstance(other, Tensor):
        other = Tensor._wrap(np.asarray(other, input._data.dtype))
    zero = input._data == 0
    safe = where(Tensor._wrap(zero & (other._data == other._data)), 1.0, other)
    return where(Tensor._wrap(zero & (other._data == other._data)), 0.0, input * safe.log())


class NanToNum(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.mask = np.isfinite(x)
        return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, g):
        return P.where(ctx.mask, g, 0.0), None, None, None


@tensor_method()
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if input._data.dtype.kind != "f":
        return input.clone()
    return NanToNum.apply(input, nan, posinf, neginf)
