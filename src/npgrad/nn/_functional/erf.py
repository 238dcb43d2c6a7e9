"""The error function in NumPy alone (no SciPy), and erf/erfc as differentiable ops.

``erf_np`` evaluates W. J. Cody's rational Chebyshev approximations (Math. Comp. 23, 1969), the
scheme of his CALERF routine: three ranges of |x|, each with its own rational function, accurate to
about 1e-16 relative in float64. For |x| > 0.46875 the result goes through erfc = exp(-x^2) R(x),
with exp(-x^2) split as exp(-a^2) exp(-(x-a)(x+a)) for a = x rounded down to 1/16, which keeps the
exponent's rounding error out of the result. float32 inputs are evaluated in float32.
"""
import math

import numpy as np

from ...autograd.function import Op
from ...ops import _poly as P
from ...tensor import Tensor

# |x| <= 0.46875: erf(x) = x * A(x^2) / B(x^2)
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
      1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
# 0.46875 < |x| <= 4: erfc(x) = exp(-x^2) * C(x) / D(x)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
      8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
      2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
      3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
# |x| > 4: erfc(x) = exp(-x^2) / x * (1/sqrt(pi) + 1/x^2 * R(1/x^2))
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)
_INV_SQRT_PI = 5.6418958354775628695e-1
_XBIG = 27.3  # erfc(x) is below the smallest subnormal double beyond this


def _small(y):
    ysq = y * y
    num = _A[4] * ysq
    den = ysq
    for i in range(3):
        num = (num + _A[i]) * ysq
        den = (den + _B[i]) * ysq
    return y * (num + _A[3]) / (den + _B[3])


def _exp_neg_sq(y):
    a = np.trunc(y * 16) / 16
    return np.exp(-a * a) * np.exp(-(y - a) * (y + a))


def _erfc_mid(y):
    num = _C[8] * y
    den = y
    for i in range(7):
        num = (num + _C[i]) * y
        den = (den + _D[i]) * y
    return _exp_neg_sq(y) * ((num + _C[7]) / (den + _D[7]))


def _erfc_large(y):
    big = y >= _XBIG
    y = np.where(big, 4.0, y).astype(y.dtype, copy=False)  # any finite stand-in; masked to 0 below
    ysq = 1.0 / (y * y)
    num = _P[5] * ysq
    den = ysq
    for i in range(4):
        num = (num + _P[i]) * ysq
        den = (den + _Q[i]) * ysq
    r = ysq * (num + _P[4]) / (den + _Q[4])
    out = _exp_neg_sq(y) * ((_INV_SQRT_PI - r) / y)
    out[big] = 0
    return out


def _eval(x, want_erfc):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    dt = x.dtype
    y = np.abs(x)
    out = np.empty_like(x)
    small = y <= 0.46875
    mid = (y > 0.46875) & (y <= 4.0)
    large = y > 4.0
    neg = x < 0
    if small.any():
        e = _small(y[small])
        out[small] = (1.0 - np.where(neg[small], -e, e)) if want_erfc else np.where(neg[small], -e, e)
    for mask, fn in ((mid, _erfc_mid), (large, _erfc_large)):
        if mask.any():
            c = fn(y[mask])  # erfc(|x|)
            n = neg[mask]
            if want_erfc:
                out[mask] = np.where(n, 2.0 - c, c)
            else:
                e = (0.5 - c) + 0.5
                out[mask] = np.where(n, -e, e)
    nan = np.isnan(x)
    if nan.any():
        out[nan] = np.nan
    return out.astype(dt, copy=False)


def erf_np(x):
    """erf(x) elementwise, for float32 or float64 arrays."""
    return _eval(x, False)


def erfc_np(x):
    """erfc(x) = 1 - erf(x), accurate where erf(x) is close to 1."""
    return _eval(x, True)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erf(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return erf_np(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (_TWO_OVER_SQRT_PI * P.exp(-(x * x)))


class Erfc(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return erfc_np(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (-_TWO_OVER_SQRT_PI * P.exp(-(x * x)))


def _float_input(input):
    if input._data.dtype.kind != "f":
        from ... import dtypes as _dt
        return input._cast(_dt.get_default_dtype())
    return input


def erf(input):
    """Differentiable erf (to any order)."""
    return Erf.apply(_float_input(input))


def erfc(input):
    return Erfc.apply(_float_input(input))


def erf_poly(x):
    """erf for backward formulas: an array in a plain backward, a differentiable Tensor under create_graph."""
    return Erf.apply(x) if isinstance(x, Tensor) else erf_np(x)
