"""Special functions of ``torch.special`` around the gamma function and the normal distribution:
the regularized incomplete gamma functions (``torch.igamma``/``igammac``, ``torch.special.gammainc``/
``gammaincc``), the Hurwitz zeta function, erfcx and ndtri. Kernels: ``_igamma.py``, ``_zeta.py``,
``_normal_tail.py`` (float64; float32 and float16 results are rounded back).

Derivatives as PyTorch defines them: erfcx' = 2x erfcx(x) - 2/sqrt(pi); ndtri' = sqrt(2 pi) exp(ndtri^2 / 2);
d igamma(a, x)/dx = x^(a-1) e^-x / Gamma(a) (igammac: its negative), and with respect to a PyTorch has
none: asking for it raises its NotImplementedError; d zeta(s, q)/dq = -s zeta(s + 1, q), none for s.
"""
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _igamma, _normal_tail, _zeta
from . import _poly as P
from ._registry import op
from .special_poly import float_pair

__all__ = ["erfcx", "ndtri", "igamma", "igammac", "zeta"]

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _eval(fn, *xs):
    """fn (a float64 kernel) of the arrays xs (broadcast, flattened for the kernel), in the first one's dtype."""
    xs64 = np.broadcast_arrays(*(x.astype(np.float64) for x in xs))
    out = fn(*(x.reshape(-1) for x in xs64))
    return out.reshape(xs64[0].shape).astype(xs[0].dtype, copy=False)


def _float_in(input, kernel):
    dt = input._data.dtype
    if dt.kind == "c":  # a real kernel: PyTorch refuses complex input
        raise _dt.not_implemented(f"{kernel}_cpu", dt)
    if dt.kind != "f":
        return input._cast(_dt.get_default_dtype())
    if dt == np.float16:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Half'")
    return input


class Erfcx(Op):
    __slots__ = ()
    node_name = "SpecialErfcxBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _eval(_normal_tail.erfcx, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        fx = Erfcx.apply(x) if isinstance(x, Tensor) else _eval(_normal_tail.erfcx, x)
        return g * (2 * x * fx - _TWO_OVER_SQRT_PI)


class Ndtri(Op):
    __slots__ = ()
    node_name = "SpecialNdtriBackward0"

    @staticmethod
    def forward(ctx, p):
        out = _eval(_normal_tail.ndtri, p)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (_SQRT_2PI * P.exp(y * y * 0.5))


@op(methods=())
def erfcx(input):
    """The scaled complementary error function exp(x^2) erfc(x), differentiable."""
    return Erfcx.apply(_float_in(input, "erfcx"))


@op(methods=())
def ndtri(input):
    """The inverse of the standard normal CDF (ndtr), differentiable."""
    return Ndtri.apply(_float_in(input, "ndtri"))


# -- incomplete gamma -------------------------------------------------------------------------------------------------

class _IgammaBase(Op):
    __slots__ = ()
    lower = True
    sign = 1.0

    @classmethod
    def forward(cls, ctx, a, x):
        ctx.save_for_backward(a, x)
        return _eval(lambda u, v: _igamma.igamma(u, v, cls.lower), a, x)

    @classmethod
    def backward(cls, ctx, g):
        a, x = ctx.saved_tensors
        need_a, need_x = ctx.needs_input_grad
        if need_a:
            raise NotImplementedError(f"the derivative for '{cls.kernel}: input' is not implemented.")
        ad = P.data_of(a).astype(np.float64)
        lg = _igamma.lgamma_np(ad).astype(P.data_of(x).dtype)
        # x^(a-1) e^-x / Gamma(a), formed as PyTorch does (through log x), differentiable in x
        return None, g * (cls.sign * P.exp((ad.astype(lg.dtype) - 1) * P.log(x) - x - lg))


class Igamma(_IgammaBase):
    __slots__ = ()
    kernel = "igamma"


class Igammac(_IgammaBase):
    __slots__ = ()
    kernel = "igammac"
    lower = False
    sign = -1.0


def _igamma_args(name, kernel, input, other):
    """(a, x) promoted, for ``name`` (the function PyTorch's argument errors name) on ``kernel``."""
    for pos, (arg, label) in enumerate(((input, "input"), (other, "other")), 1):
        if not isinstance(arg, Tensor):
            raise TypeError(f"{name}(): argument '{label}' (position {pos}) must be Tensor, not {type(arg).__name__}")
    from .arith import promote
    from .broadcast import broadcast_error
    a, x = promote(input, other)
    if a._data.dtype.kind != "f" and a._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{_dt.scalar_name(a._data.dtype)}'")
    err = broadcast_error(a._data.shape, x._data.shape)
    if err is not None:
        raise err
    return a, x


@op(inplace="generic")
def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other) (torch.special.gammainc)."""
    return Igamma.apply(*_igamma_args("igamma", "igamma", input, other))


@op(inplace="generic")
def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P (torch.special.gammaincc)."""
    return Igammac.apply(*_igamma_args("igammac", "igammac", input, other))


def gammainc(input, other):
    """``torch.special.gammainc``: igamma under its SciPy name (and its own argument errors)."""
    return Igamma.apply(*_igamma_args("special_gammainc", "igamma", input, other))


def gammaincc(input, other):
    return Igammac.apply(*_igamma_args("special_gammaincc", "igammac", input, other))


# -- Hurwitz zeta -----------------------------------------------------------------------------------------------------

class Zeta(Op):
    __slots__ = ()
    # PyTorch's node: 0 for two tensors, 1 for a number s, 2 for a number q
    node_name = staticmethod(lambda node: f"SpecialZetaBackward{node.form}")

    @staticmethod
    def forward(ctx, s, q, form):
        ctx.save_for_backward(s, q)
        ctx.form = form
        return _eval(_zeta.zeta, s, q)

    @staticmethod
    def backward(ctx, g):
        s, q = ctx.saved_tensors
        need_s, need_q = ctx.needs_input_grad[:2]
        if need_s:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        sd = P.data_of(s)
        if isinstance(q, Tensor):
            z = Zeta.apply(Tensor._wrap(sd + 1), q, ctx.form)
        else:
            z = _eval(_zeta.zeta, sd + 1, q)
        return None, g * (-sd * z), None


@op(methods=())
def zeta(input, other):
    """The Hurwitz zeta function sum_k (other + k)^-input; differentiable in ``other`` (as PyTorch)."""
    form = 0 if isinstance(input, Tensor) and isinstance(other, Tensor) else 1 if isinstance(other, Tensor) else 2
    s, q = float_pair("zeta", input, other)
    return Zeta.apply(s, q, form)
