"""Less common elementwise math, loaded on first use: copysign, logaddexp/logaddexp2, gcd/lcm, ldexp, frexp,
heaviside, nextafter, rad2deg/deg2rad, fix, sgn, isin and renorm."""
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._registry import method, op
from .arith import promote, _apply2
from .pointwise import _check_shapes


def _require_tensor(fname, argname, pos, x):
    # PyTorch's argument parser: these operators take no Python scalar for the argument named
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _not_implemented(kernel, dt):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_dt.scalar_name(dt)}'")


def _float_operands(input, other):
    """Both operands promoted together, then to the default float type when that is integral or bool."""
    a, b = promote(input, other)
    if a._data.dtype.kind not in "f":
        if a._data.dtype.kind == "c":  # (copysign's, the one caller PyTorch refuses complex for)
            raise _not_implemented("copysign_cpu", a._data.dtype)
        fl = _dt.get_default_dtype()
        a = a._cast(fl)
        if isinstance(b, Tensor):
            b = b._cast(fl)
    return a, b


def _data(x):
    return x._data if isinstance(x, Tensor) else x


class Copysign(Op):
    """|a| with b's sign; d/da is +-1 (0 at a == 0, as PyTorch), b gets a zero gradient."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        ctx.factor = np.where(a == 0, 0, np.copysign(1, a) * np.copysign(1, b)).astype(np.result_type(a, b))
        ctx.b_shape = np.shape(b)
        return np.copysign(a, b)

    @staticmethod
    def backward(ctx, g):
        ga = g * ctx.factor if ctx.needs_input_grad[0] else None
        gb = P.zeros_like(g) if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1] else None
        return ga, gb


@op(inplace="generic")
def copysign(input, other):
    a, b = _float_operands(input, other)
    return _apply2(Copysign, a, b)


class LogAddExp(Op):
    """log(e^a + e^b) and its base-2 form: each input's gradient is its share of the sum."""

    __slots__ = ()
    node_name = "LogaddexpBackward0"
    ufunc = staticmethod(np.logaddexp)
    scale = 1.0

    @classmethod
    def forward(cls, ctx, a, b):
        if a.dtype.kind == "c":  # NumPy has no complex logaddexp: shift by the operand of larger real part
            m = np.where(a.real >= b.real, a, b)
            with np.errstate(all="ignore"):
                out = m + np.log(np.exp(a - m) + np.exp(b - m))
        else:
            out = cls.ufunc(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @classmethod
    def backward(cls, ctx, g):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = g * P.exp((a - out) * cls.scale) if need_a else None
        gb = g * P.exp((b - out) * cls.scale) if need_b else None
        return ga, gb


class LogAddExp2(LogAddExp):
    __slots__ = ()
    node_name = "Logaddexp2Backward0"
    ufunc = staticmethod(np.logaddexp2)
    scale = math.log(2.0)


def _logaddexp(cls, name, input, other):
    _require_tensor(name, "other", 2, other)
    rt = _dt.result_type(input, other)
    if not (rt.is_floating_point or (rt.is_complex and cls is LogAddExp)):  # PyTorch: complex logaddexp only
        raise _not_implemented(name + "_cpu", rt)
    a, b = promote(input, other)
    return _apply2(cls, a, b)


@op()
def logaddexp(input, other):
    return _logaddexp(LogAddExp, "logaddexp", input, other)


@op()
def logaddexp2(input, other):
    return _logaddexp(LogAddExp2, "logaddexp2", input, other)


def _integer_binary(ufunc, name, input, other):
    _require_tensor(name, "other", 2, other)
    rt = _dt.result_type(input, other)
    if rt.np.kind not in "iu":
        raise _not_implemented(name + "_cpu", rt)
    a, b = promote(input, other)
    _check_shapes(a, b)
    return Tensor._wrap(np.asarray(ufunc(a._data, b._data), rt.np))


@op()
def gcd(input, other):
    return _integer_binary(np.gcd, "gcd", input, other)


@op()
def lcm(input, other):
    return _integer_binary(np.lcm, "lcm", input, other)


def _integer_inplace(fn):
    def integer_(self, other):
        from .inplace import inplace
        if isinstance(other, Tensor):  # PyTorch checks the cast before the kernel's dtype
            rt = _dt.result_type(self, other)
            if not _dt.can_cast(rt, _dt.from_numpy_dtype(self._data.dtype)):
                raise RuntimeError(f"result type {_dt.scalar_name(rt)} can't be cast to the desired output type "
                                   f"{_dt.scalar_name(self._data.dtype)}")
        return inplace(self, fn, other)
    integer_.__name__ = fn.__name__ + "_"
    return integer_


method("gcd_", _integer_inplace(gcd))
method("lcm_", _integer_inplace(lcm))


@op()
def ldexp(input, other):
    _require_tensor("ldexp", "other", 2, other)
    rt = _dt.result_type(input, other)
    if not (rt.is_floating_point or rt.is_complex):
        rt = _dt.get_default_dtype()
    _check_shapes(input, other)
    # input * 2**other: exact for integral exponents, and differentiable in both
    return input._cast(rt) * other._cast(rt).exp2()


def _ldexp_(self, other):
    from .inplace import inplace
    if self._data.dtype.kind != "f" and self._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_dt.scalar_name(self._data.dtype)}")
    return inplace(self, ldexp, other)


method("ldexp_", _ldexp_)


class Frexp(Op):
    """The mantissa of x = mantissa * 2**exponent; its derivative is 2**-exponent (the exponent is constant)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        m, e = np.frexp(x)
        ctx.exponent = e
        return m

    @staticmethod
    def backward(ctx, g):
        return g / np.ldexp(np.ones((), P.data_of(g).dtype), ctx.exponent)


@op()
def frexp(input):
    from .. import return_types
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa = Frexp.apply(input)
    e = mantissa._grad_fn.exponent if mantissa._grad_fn is not None else np.frexp(input._data)[1]
    return return_types.frexp(mantissa, Tensor._wrap(np.asarray(e, np.int32)))


class Heaviside(Op):
    """A step function: PyTorch defines no derivative and fails when one is asked for."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, values):
        return np.where(x == 0, values, x > 0).astype(np.result_type(x, values))

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


@op(inplace="generic")
def heaviside(input, values):
    _require_tensor("heaviside", "values", 2, values)
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    return _apply2(Heaviside, input, values)


class Nextafter(Op):
    """The next float after a towards b: d/da is 1 where a moves (a != b), 0 where it stays; b gets 0."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        ctx.moves = np.asarray(a != b)
        return np.nextafter(a, b)

    @staticmethod
    def backward(ctx, g):
        need_a, need_b = ctx.needs_input_grad
        ga = P.where(ctx.moves, g, 0.0) if need_a else None
        return ga, (P.zeros_like(g) if need_b else None)


@op(inplace="generic")
def nextafter(input, other):
    _require_tensor("nextafter", "other", 2, other)
    rt = _dt.result_type(input, other)
    if not rt.is_floating_point:
        raise _not_implemented("nextafter_cpu", rt)
    a, b = promote(input, other)
    return _apply2(Nextafter, a, b)


def _scaled(x, factor):
    if x._data.dtype.kind != "f":
        return x._cast(_dt.get_default_dtype()) * factor
    if x._data.dtype.itemsize == 2:  # PyTorch scales float16 in float32 and rounds once
        return (x._cast(_dt.float32) * factor)._cast(_dt.float16)
    return x * factor


@op(inplace="generic")
def rad2deg(input):
    _refuse_complex("rad2deg", input)
    return _scaled(input, 180.0 / math.pi)


@op(inplace="generic")
def deg2rad(input):
    _refuse_complex("deg2rad", input)
    return _scaled(input, math.pi / 180.0)


def _refuse_complex(name, x):
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{name} is not supported for complex tensors.")


@op(inplace="generic")
def fix(input):
    return input.trunc()


@op(inplace="generic")
def sgn(input):
    # the sign of a real tensor (PyTorch's sgn differs from sign only for complex numbers: z / |z|)
    if input._data.dtype.kind == "c":
        from .complex_math import complex_sgn
        return complex_sgn(input)
    return input.sign()


@op(methods=())
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (elements, test_elements) "
                        "that are both scalars, but expected at least one Tensor")
    for x in (elements, test_elements):
        if isinstance(x, Tensor) and x._data.dtype.kind in "bc":
            raise RuntimeError(f"Unsupported input type encountered for isin(): {_dt.scalar_name(x._data.dtype)}")
    e, t = np.asarray(_data(elements)), np.asarray(_data(test_elements))
    return Tensor._wrap(np.isin(e, t.ravel(), assume_unique=assume_unique, invert=invert).reshape(e.shape))


@op(inplace="generic")
def renorm(input, p, dim, maxnorm):
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    from ._dims import canon_dim
    d = canon_dim(dim, nd)
    norms = input.norm(p, dim=tuple(i for i in range(nd) if i != d), keepdim=True)
    # each slice along dim whose p-norm exceeds maxnorm is scaled down to it (PyTorch's 1e-7 guard included)
    factor = (maxnorm / (norms + 1e-7)).where(norms > maxnorm, Tensor._wrap(np.ones((), norms._data.dtype)))
    return input * factor
