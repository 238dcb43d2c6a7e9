"""The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x) in NumPy (float64).

Both share the factor D = x^a e^-x / Gamma(a + 1). Below x < a + 1, P is D times the series
sum_k x^k / ((a + 1)(a + 2)...(a + k)) (positive terms); from x >= a + 1 on, Q is x^a e^-x / Gamma(a) times
Legendre's continued fraction 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)), evaluated
by the modified Lentz method. The other function is 1 minus the one computed, which is then >= ~1/2;
except for a < 1/2 and x < 1.1, where Q, which tends to 0 with a, is computed directly (``_small_a_q``),
and for a > 1e7, where Temme's uniform asymptotic expansion takes over (``_temme``).

For large a, log D = a log x - x - lgamma(a + 1) is a difference of numbers ~a log a that nearly cancel;
it is rewritten with x = a (1 + t) as a log1pmx(t) - log(2 pi a) / 2 - S(a), with S Stirling's correction
to lgamma and log1pmx(t) = log(1 + t) - t from a series without cancellation.
"""
import math

import numpy as np

from ._zeta import zeta
from .special import lgamma_np

_EPS = 1e-17
_MAX_ITER = 100000
_LARGE_A = 20.0


def log1pmx(t):
    """log(1 + t) - t, accurate near t = 0: -t^2 / (2 + t) + 2 (u^3 / 3 + u^5 / 5 + ...), u = t / (2 + t)."""
    t = np.asarray(t, np.float64)
    with np.errstate(all="ignore"):
        direct = np.log1p(t) - t
        u = t / (2 + t)
        u2 = u * u
        term = u * u2
        s = np.zeros_like(t)
        for k in range(1, 30):
            s += term / (2 * k + 1)
            term = term * u2
        series = -t * t / (2 + t) + 2 * s
    return np.where(np.abs(t) <= 0.5, series, direct)


def _stirling_correction(a):
    """lgamma(a + 1) - (a log a - a + log(2 pi a) / 2) for a >= 20 (the Bernoulli series)."""
    r = 1 / (a * a)
    return (1 / 12 - r * (1 / 360 - r * (1 / 1260 - r * (1 / 1680 - r * (1 / 1188))))) / a


def log_prefactor(a, x):
    """log(x^a e^-x / Gamma(a + 1))."""
    with np.errstate(all="ignore"):
        plain = a * np.log(x) - x - lgamma_np(a + 1)
        big = a >= _LARGE_A
        if not big.any():
            return plain
        ab = np.where(big, a, _LARGE_A)
        careful = ab * log1pmx((x - ab) / ab) - 0.5 * np.log(2 * math.pi * ab) - _stirling_correction(ab)
    return np.where(big, careful, plain)


# zeta(k) for k = 2..60, for lgamma(1 + a) = -euler a + sum_k (-1)^k zeta(k) / k a^k (|a| < 1/2)
_ZETA = list(zeta(np.arange(2.0, 61.0), np.ones(59)))
_EULER = 0.57721566490153286061


def _lgamma1p(a):
    """lgamma(1 + a) for 0 <= a < 1/2, without the rounding of 1 + a (it keeps -euler a for tiny a)."""
    s = np.zeros_like(a)
    for k in range(len(_ZETA) + 1, 1, -1):
        s = s * -a + _ZETA[k - 2] / k
    return a * (-_EULER + a * s)


def _small_a_q(a, x):
    """Q(a, x) for a < 1/2 and x < 1.1, directly (1 - P would lose it all: Q ~ a E1(x) as a -> 0):
    Q = -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(1 + a) a sum_(k>=1) (-x)^k / (k! (a + k))."""
    e = a * np.log(x) - _lgamma1p(a)
    term = np.ones_like(x)
    s = np.zeros_like(x)
    for k in range(1, 40):
        term = term * -x / k
        s += term / (a + k)
    return -np.expm1(e) - np.exp(e) * a * s


_TEMME_FROM = 1e7


def _temme(a, x, lower):
    """P or Q for a > 1e7 by Temme's uniform expansion: with lambda = x / a and
    eta = sign(lambda - 1) sqrt(2 (lambda - 1 - log lambda)),
        Q = erfc(eta sqrt(a / 2)) / 2 + R,  P = erfc(-eta sqrt(a / 2)) / 2 - R,
        R = exp(-a eta^2 / 2) / sqrt(2 pi a) (c0(eta) + c1(eta) / a + O(a^-2)),
    c0 = 1 / (lambda - 1) - 1 / eta, c1 = 1 / eta^3 - 1 / (lambda - 1)^3 - 1 / (lambda - 1)^2 - 1 / (12 (lambda - 1)),
    by their Taylor series in eta below |eta| = 0.01, where those differences cancel. (The series and the
    continued fraction would need ~sqrt(a) terms here.)"""
    from ._erf import erfc_np
    mu = (x - a) / a
    eta = np.sign(mu) * np.sqrt(-2 * log1pmx(mu))
    with np.errstate(all="ignore"):
        c0 = 1 / mu - 1 / eta
        c1 = 1 / eta ** 3 - 1 / mu ** 3 - 1 / mu ** 2 - 1 / (12 * mu)
    small = np.abs(eta) < 0.01
    c0 = np.where(small, -1 / 3 + eta * (1 / 12 + eta * (-2 / 135 + eta / 864)), c0)
    c1 = np.where(small, -1 / 540 + eta * (-1 / 288 + eta / 378), c1)
    r = np.exp(-0.5 * a * eta * eta) / np.sqrt(2 * math.pi * a) * (c0 + c1 / a)
    z = eta * np.sqrt(a / 2)
    return 0.5 * erfc_np(-z) - r if lower else 0.5 * erfc_np(z) + r


def _series_p(a, x):
    """P(a, x) by its power series (x < a + 1)."""
    term = np.ones_like(x)
    s = np.ones_like(x)
    active = np.ones(x.shape, bool)
    ap = a.copy()
    for k in range(_MAX_ITER):
        ap += 1
        term = term * x / ap
        s += term
        if k % 8 == 7:
            active &= term > s * _EPS
            if not active.any():
                break
    return np.exp(log_prefactor(a, x)) * s


def _cf_q(a, x):
    """Q(a, x) by Legendre's continued fraction (x >= a + 1), modified Lentz."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    # converged: delta within a few ulps of 1 on 4 successive steps (one such step alone can be a
    # coincidence; after convergence the deltas dither by an ulp or two around 1)
    calm = np.zeros(x.shape, np.int64)
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        # an element stops once converged (or NaN): multiplying on by deltas of 1 +- 1 ulp would
        # random-walk its h away while slower elements of the batch still need steps
        h = np.where(calm >= 4, h, h * delta)
        calm = np.where(calm >= 4, calm, np.where((np.abs(delta - 1) <= 1e-15) | np.isnan(delta), calm + 1, 0))
        if calm.min() >= 4:
            break
    # x^a e^-x / Gamma(a) = D a / x... written through log D + log(a) to keep it one exponential
    return np.exp(log_prefactor(a, x) + np.log(a)) * h


def _edges(a, x, lower):
    """PyTorch's results at the domain's edges (NaN where neither is defined); NaN in ``fill`` marks the
    elements to compute."""
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    out = np.full(np.broadcast(a, x).shape, np.nan)
    with np.errstate(invalid="ignore"):
        out = np.where(a == 0, np.where(x > 0, one, np.nan), out)
        out = np.where((a != 0) & (x == 0), zero, out)
        out = np.where((a != 0) & (x != 0) & np.isinf(a), np.where(np.isinf(x), np.nan, zero), out)
        out = np.where((a != 0) & (x != 0) & ~np.isinf(a) & np.isinf(x), one, out)
        out = np.where((x < 0) | (a < 0), np.nan, out)
        compute = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    return out, compute


def igamma(a, x, lower=True):
    """P(a, x) (``lower``) or Q(a, x), with PyTorch's values at a = 0, x = 0, infinities and negatives."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out, compute = _edges(a, x, lower)
    use_small = compute & (a < 0.5) & (x < 1.1)
    use_temme = compute & (a > _TEMME_FROM)
    use_series = compute & (x < a + 1) & ~use_small & ~use_temme
    use_cf = compute & ~use_series & ~use_small & ~use_temme
    if use_temme.any():
        out[use_temme] = _temme(a[use_temme], x[use_temme], lower)
    if use_small.any():
        q = _small_a_q(a[use_small], x[use_small])
        out[use_small] = 1 - q if lower else q
    if use_series.any():
        p = _series_p(a[use_series], x[use_series])
        out[use_series] = p if lower else 1 - p
    if use_cf.any():
        q = _cf_q(a[use_cf], x[use_cf])
        out[use_cf] = 1 - q if lower else q
    return out


def igamma_dx(a, x):
    """d P(a, x) / dx = x^(a - 1) e^-x / Gamma(a), as PyTorch forms it."""
    with np.errstate(all="ignore"):
        return np.exp((a - 1) * np.log(x) - x - lgamma_np(a))
