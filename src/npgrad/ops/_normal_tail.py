"""Tail functions of the normal distribution in NumPy (float64): erfcx(x) = exp(x^2) erfc(x) and ndtri, the
inverse of the standard normal CDF.

erfcx: for 0 <= x < 2, exp(x^2) erfc(x) with exp(x^2) split as exp(h^2) exp((x - h)(x + h)), h = x
rounded to 1/64 (h^2 exact), so the rounding of x^2 stays out; from x >= 2 on, the Laplace continued
fraction erfcx(x) = (1/sqrt(pi)) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))), evaluated from a fixed
depth backwards (enough for 1e-17 at x = 2); below 0, erfcx(x) = 2 exp(x^2) - erfcx(-x).

ndtri: q = min(p, 1 - p) (exact for p >= 1/2) is inverted on the lower tail, where Phi(x) = erfc(-x /
sqrt 2) / 2 = exp(-x^2 / 2) erfcx(-x / sqrt 2) / 2 keeps full relative accuracy, by Halley steps from a first guess (the tail's asymptotic
form below q = 0.02, sqrt 2 erfinv(2q - 1) above); for 1/4 <= p <= 3/4 the result is sqrt 2 erfinv(2p - 1)
itself (2p - 1 is exact there).
"""
import math

import numpy as np

from ._erf import erfc_np

_SQRT_PI = math.sqrt(math.pi)
_INV_SQRT_PI = 1 / math.sqrt(math.pi)
_SQRT_PI_2 = math.sqrt(math.pi / 2)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_CF_DEPTH = 60


def _exp_sq(x):
    h = np.floor(x * 64) / 64
    return np.exp(h * h) * np.exp((x - h) * (x + h))


def _erfcx_cf(x):
    t = np.zeros_like(x)
    for k in range(_CF_DEPTH, 0, -1):
        t = (k / 2) / (x + t)
    return 1 / (_SQRT_PI * (x + t))


def _erfcx_nonneg(x):
    out = np.empty_like(x)
    small = x < 2
    out[small] = _exp_sq(x[small]) * erfc_np(x[small])
    big = ~small
    with np.errstate(all="ignore"):
        # beyond 5e7 the fraction is 1 / (sqrt(pi) x) to the last bit, formed as PyTorch forms it
        out[big] = np.where(np.isinf(x[big]), 0.0, np.where(x[big] > 5e7, _INV_SQRT_PI / x[big], _erfcx_cf(x[big])))
    return out


def erfcx(x):
    x = np.asarray(x, np.float64)
    out = np.full(x.shape, np.nan)
    pos = x >= 0
    out[pos] = _erfcx_nonneg(x[pos])
    neg = x < 0
    if neg.any():
        v = -x[neg]
        with np.errstate(over="ignore", invalid="ignore"):
            out[neg] = np.where(v > 26.7, np.inf, 2 * _exp_sq(v) - _erfcx_nonneg(v))
    return out


def ndtri(p):
    from .special import erfinv_np
    p = np.asarray(p, np.float64)
    with np.errstate(all="ignore"):
        upper = p > 0.5
        q = np.where(upper, 1 - p, p)
        ok = (q > 0) & (q <= 0.5)
        qs = np.where(ok, q, 0.25)
        # first guess: x ~ -sqrt(2 L - log(2 pi L)) with L = -log q, or the erfinv form near the middle
        L = -np.log(qs)
        tail = -np.sqrt(np.maximum(2 * L - np.log(2 * math.pi * np.maximum(2 * L, 1.0)), 0.0))
        mid = math.sqrt(2) * erfinv_np(2 * qs - 1)
        x = np.where(qs < 0.02, tail, mid)
        for _ in range(6):
            # Halley on f(x) = Phi(x) - q: f' = phi(x), f'' = -x phi(x)
            # u = (Phi(x) - q) / phi(x) in scaled form: Phi / phi = sqrt(pi / 2) erfcx(-x / sqrt 2), and q / phi
            # through logarithms, so nothing underflows down to the smallest subnormal q
            u = _SQRT_PI_2 * erfcx(-x / math.sqrt(2)) - np.exp(np.log(qs) + 0.5 * x * x + _LOG_SQRT_2PI)
            x = x - u / (1 + 0.5 * x * u)
        out = np.where(upper, -x, x)
        # the middle (|x| < 0.68) directly: 2p - 1 is exact there, and the Halley residual would cancel
        middle = (p >= 0.25) & (p <= 0.75)
        out = np.where(middle, math.sqrt(2) * erfinv_np(2 * p - 1), out)
        out = np.where(p == 0, -np.inf, out)
        out = np.where(p == 1, np.inf, out)
        out = np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, out)
    return out
