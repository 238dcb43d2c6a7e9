"""Special functions: erfinv, lgamma, digamma, polygamma, mvlgamma, logit, xlog1py, sinc, entr, ndtr
and erf/erfc (their kernels and Ops are in ``_erf.py``, npgrad's one error-function implementation).

NumPy has none of these, so the kernels are written here and evaluated in float64 (float32 inputs are
rounded back): lgamma by Lanczos' approximation with the reflection formula below 1/2, digamma and the
polygamma functions by upward recurrence to x >= 10 followed by their asymptotic (Bernoulli) series,
erfinv by Halley iterations on erf/erfc from a closed-form first guess. Every derivative is again one of
these functions (lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n + 1)), so
gradients of any order are available.
"""
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._erf import Erf, Erfc, erf_np, erfc_np
from ._registry import op

_PI = math.pi
_LOG_PI = math.log(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_PI_2 = math.sqrt(math.pi) / 2
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _f64(x):
    return np.asarray(x, np.float64)


def _back(y, like):
    """A float64 result in the input's dtype (NumPy's float32 kernels would lose the extra precision)."""
    return y.astype(like.dtype, copy=False)


def _sin_pi(x):
    """sin(pi x) with the argument reduced exactly first (pi x itself loses accuracy for large x)."""
    r = x - np.round(x)
    return np.sin(_PI * r) * np.where(np.round(x) % 2 == 0, 1.0, -1.0)


def _tan_pi(x):
    return np.tan(_PI * (x - np.round(x)))


# -- lgamma ------------------------------------------------------------------------------------------------------------

# Lanczos approximation, g = 7 with nine terms: relative error about 1e-15 for x >= 1/2.
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)


def _lgamma_pos(x):
    """log Gamma(x) for x >= 1/2."""
    z = x - 1.0
    a = np.full_like(z, _LANCZOS[0])
    for i in range(1, 9):
        a += _LANCZOS[i] / (z + i)
    t = z + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(a)


def lgamma_np(x):
    x = _f64(x)
    with np.errstate(all="ignore"):
        small = x < 0.5
        xr = np.where(small, 1.0 - x, x)
        out = _lgamma_pos(np.where(np.isfinite(xr), xr, 1.0))
        # Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
        refl = _LOG_PI - np.log(np.abs(_sin_pi(x))) - out
        out = np.where(small, refl, out)
        out = np.where(np.isinf(x), np.inf, out)
        out = np.where((x <= 0) & (x == np.floor(x)), np.inf, out)  # poles
        out = np.where(np.isnan(x), np.nan, out)
    return out


# -- digamma / polygamma ---------------------------------------------------------------------------------------------

# Bernoulli numbers B_2k, k = 1..8
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_ASYMPTOTIC_FROM = 10.0


def _shift_up(x, fn):
    """Apply the recurrence until x >= 10: returns (x shifted, sum of fn(x + k) over the shifts)."""
    acc = np.zeros_like(x)
    x = x.copy()
    while True:
        m = x < _ASYMPTOTIC_FROM
        if not m.any():
            return x, acc
        acc += np.where(m, fn(np.where(m, x, 1.0)), 0.0)
        x += m


def digamma_np(x):
    x = _f64(x)
    with np.errstate(all="ignore"):
        neg = x < 0.5
        xr = np.where(neg, 1.0 - x, x)
        xr = np.where(np.isfinite(xr), xr, _ASYMPTOTIC_FROM)
        y, acc = _shift_up(xr, lambda v: 1.0 / v)   # psi(x) = psi(x + 1) - 1/x
        iy2 = 1.0 / (y * y)
        series = 0.0
        for k in range(len(_BERNOULLI), 0, -1):
            series = series * iy2 + _BERNOULLI[k - 1] / (2 * k)
        out = np.log(y) - 0.5 / y - series * iy2 - acc
        out = np.where(neg, out - _PI / _tan_pi(x), out)  # psi(1 - x) - psi(x) = pi cot(pi x)
        out = np.where(x == np.inf, np.inf, out)
        out = np.where(x == -np.inf, np.nan, out)
        out = np.where((x < 0) & (x == np.floor(x)), np.nan, out)
        out = np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), out)  # as PyTorch: -inf at +0
        out = np.where(np.isnan(x), np.nan, out)
    return out


def _hurwitz_zeta(s, x):
    """zeta(s, x) = sum_k (x + k)^-s for integer s >= 2 and x > 0 (Euler-Maclaurin after the shift)."""
    y, acc = _shift_up(x, lambda v: v ** -s)
    tail = y ** (1 - s) / (s - 1) + 0.5 * y ** -s
    # sum_k B_2k / (2k)! * s (s+1) ... (s+2k-2) * y^(-s-2k+1)
    term = s * y ** (-s - 1)  # k = 1: s * y^-(s+1)
    fact = 2.0
    for k in range(1, len(_BERNOULLI) + 1):
        tail = tail + _BERNOULLI[k - 1] / fact * term
        term = term * (s + 2 * k - 1) * (s + 2 * k) / (y * y)
        fact *= (2 * k + 1) * (2 * k + 2)
    return acc + tail


def polygamma_np(n, x):
    if n == 0:
        return digamma_np(x)
    x = _f64(x)
    sign = 1.0 if n % 2 else -1.0  # (-1)^(n+1)
    scale = sign * math.factorial(n)
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == np.floor(x)) & np.isfinite(x)
        if n == 1:
            # trigamma(x) + trigamma(1 - x) = pi^2 / sin^2(pi x) below 1/2, as PyTorch.
            neg = x < 0.5
            xr = np.where(neg, 1.0 - x, x)
            z = _hurwitz_zeta(2, np.where(np.isfinite(xr), xr, _ASYMPTOTIC_FROM))
            out = np.where(neg, _PI * _PI / _sin_pi(x) ** 2 - z, z)
        else:
            ok = (x > 0) & np.isfinite(x)
            base = np.where(ok, x, 1.0)
            # negative non-integers: the series' first terms are summed directly (shift to positive x)
            lead = np.zeros_like(x)
            if (~ok & np.isfinite(x) & ~pole).any():
                k = np.where(ok | ~np.isfinite(x) | pole, 0.0, np.ceil(-x) + 1)
                for j in range(int(k.max())):
                    m = j < k
                    lead += np.where(m, np.where(m, x + j, 1.0) ** -(n + 1), 0.0)
                base = np.where(k > 0, x + k, base)
            out = scale * (lead + _hurwitz_zeta(n + 1, base))
            out = np.where(np.isinf(x) | np.isnan(x), np.nan, out)  # PyTorch's zeta gives NaN at +-inf
            return np.where(pole, sign * np.inf, out)
        out = np.where(x == np.inf, 0.0, out)
        out = np.where((x == -np.inf) | np.isnan(x), np.nan, out)
        return np.where(pole, np.inf, out)


# -- erfinv ------------------------------------------------------------------------------------------------------------

def erfinv_np(y):
    y = _f64(y)
    a = np.abs(y)
    with np.errstate(all="ignore"):
        # First guess (Winitzki's closed form, ~2e-3 relative), then Halley steps on erf(x) = a; above 1/2
        # the residual is formed with erfc, which keeps its accuracy where erf(x) is close to 1.
        ln = np.log1p(-a) + np.log1p(a)  # log(1 - a^2)
        c = 2 / (_PI * 0.147) + 0.5 * ln
        x = np.sqrt(np.maximum(np.sqrt(c * c - ln / 0.147) - c, 0.0))
        x = np.where(np.isfinite(x), x, 0.0)
        tail = a > 0.5
        for _ in range(3):
            r = np.where(tail, (1.0 - a) - erfc_np(x), erf_np(x) - a)
            u = r / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
            x = x - u / (1.0 + x * u)
        x = np.where(a == 1, np.inf, x)
        x = np.where(a > 1, np.nan, x)
    return np.copysign(x, y)


# -- the Ops -----------------------------------------------------------------------------------------------------------

def _digamma_poly(x):
    return Digamma.apply(x) if isinstance(x, Tensor) else _back(digamma_np(x), x)


def _polygamma_poly(n, x):
    return Polygamma.apply(x, n) if isinstance(x, Tensor) else _back(polygamma_np(n, x), x)


class Lgamma(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _back(lgamma_np(x), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _digamma_poly(x)


class Digamma(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _back(digamma_np(x), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _polygamma_poly(1, x)


class Polygamma(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return _back(polygamma_np(n, x), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _polygamma_poly(ctx.n + 1, x), None


class Erfinv(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        out = _back(erfinv_np(x), x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (_SQRT_PI_2 * P.exp(y * y))


class Logit(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        return np.log(x / (1 - x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        eps = ctx.eps
        # Outside the clamp range the gradient is 0; without eps, outside [0, 1] it is NaN (PyTorch).
        out = P.where((xd < eps) | (xd > 1 - eps) if eps is not None else np.zeros(xd.shape, bool), 0.0,
                      g / (x * (1 - x)))
        if eps is None and ((xd < 0) | (xd > 1)).any():
            out = P.where((xd < 0) | (xd > 1), np.nan, out)
        return out, None


class Sinc(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(invalid="ignore"):  # sin(inf) is NaN, as PyTorch's, which does not warn
            return np.sinc(x)  # sin(pi x) / (pi x), 1 at 0

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        zero = P.data_of(x) == 0
        px = P.where(zero, 1.0, x) * _PI
        d = (px * P.cos(px) - P.sin(px)) / (px * P.where(zero, 1.0, x))
        return g * P.where(zero, 0.0, d)


class Xlog1py(Op):
    __slots__ = ()
    node_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        with np.errstate(all="ignore"):
            out = x * np.log1p(y)
        return np.where((x == 0) & ~np.isnan(y), 0.0, out).astype(out.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        gx = gy = None
        if need_x:
            # PyTorch: g * log1p(y), zeroed where x == 0 and y <= -1
            gx = g * _log1p(y)
            kill = (P.data_of(x) == 0) & (P.data_of(y) <= -1)
            if kill.any():
                gx = P.where(kill, 0.0, gx)
        if need_y:
            gy = g * x / (y + 1)
        return gx, gy


def _log1p(v):
    return v.log1p() if isinstance(v, Tensor) else np.log1p(v)


class Entr(Op):
    __slots__ = ()
    node_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):
            out = -x * np.log(x)
        out = np.where(x == 0, 0.0, out)
        return np.where(x < 0, -np.inf, out).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -(1 + P.log(x))


# -- the functions -----------------------------------------------------------------------------------------------------

def _float_in(input, kernel=None):
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        if input._data.dtype.kind == "c":  # PyTorch has no complex kernel for these (npgrad's are real)
            raise _dt.not_implemented(kernel or "special function", input._data.dtype)
        return input._cast(_dt.get_default_dtype())
    return input


_COMPLEX_KERNELS = {"digamma": "digamma"}
_COMPLEX_OK = frozenset({"sinc"})  # holomorphic, and NumPy computes it: the engine conjugates the formula


def _unary(cls, name):
    kernel = _COMPLEX_KERNELS.get(name, name + "_vml_cpu")

    complex_ok = name in _COMPLEX_OK

    def fn(input):
        if complex_ok and input._data.dtype.kind == "c":
            return cls.apply(input)
        return cls.apply(_float_in(input, kernel))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name}, differentiable."
    return op(inplace="generic")(fn)


erfinv = _unary(Erfinv, "erfinv")
lgamma = _unary(Lgamma, "lgamma")
digamma = _unary(Digamma, "digamma")
sinc = _unary(Sinc, "sinc")


@op(methods=())
def entr(input):
    return Entr.apply(_float_in(input, "entr_cpu"))


@op(inplace="generic")
def erf(input):
    return Erf.apply(_float_in(input, "erf_vml_cpu"))


@op(inplace="generic")
def erfc(input):
    return Erfc.apply(_float_in(input, "erfc_vml_cpu"))


@op(methods=())  # Tensor.polygamma(n) takes n after the tensor: below
def polygamma(n, input):
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    input = _float_in(input, "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma")
    return Digamma.apply(input) if n == 0 else Polygamma.apply(input, n)


op(name="polygamma", public=False, inplace="generic")(lambda self, n: polygamma(n, self))


@op(inplace="generic")
def mvlgamma(input, p):
    """log of the multivariate gamma function of dimension p (sum of lgammas, differentiable)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _float_in(input)  # no domain check: below (p-1)/2 the result is inf/NaN, as in PyTorch
    shifts = np.arange(p, dtype=x._data.dtype) * x._data.dtype.type(-0.5)
    return lgamma(x.unsqueeze(-1) + Tensor._wrap(shifts)).sum(-1) + (p * (p - 1) / 4 * _LOG_PI)


@op(inplace="generic")
def logit(input, eps=None):
    return Logit.apply(_float_in(input, "logit_cpu"), None if eps is None else float(eps))


@op(methods=())
def xlog1py(input, other):
    from .arith import promote
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlog1py(): expected at least one Tensor argument")
    if isinstance(input, Tensor):
        a, b = promote(input, other)
    else:
        b, a = promote(other, input)
    a = a if isinstance(a, Tensor) else Tensor._wrap(np.asarray(a, b._data.dtype))
    b = b if isinstance(b, Tensor) else Tensor._wrap(np.asarray(b, a._data.dtype))
    if a._data.dtype.kind == "c":
        raise _dt.not_implemented("xlog1py_cpu", a._data.dtype)
    if a._data.dtype.kind != "f":
        a, b = a._cast(_dt.get_default_dtype()), b._cast(_dt.get_default_dtype())
    from .broadcast import broadcast_error
    err = broadcast_error(a._data.shape, b._data.shape)
    if err is not None:
        raise err
    return Xlog1py.apply(a, b)


@op(methods=())
def ndtr(input):
    """The standard normal CDF, 0.5 erfc(-x / sqrt(2)): accurate in the lower tail."""
    return erfc(_float_in(input, "erf_vml_cpu") * -math.sqrt(0.5)) * 0.5

