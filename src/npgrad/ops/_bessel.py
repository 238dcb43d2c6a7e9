"""Bessel and Airy function kernels in NumPy alone (float64 in, float64 out), behind ``special_bessel.py``.

Each function is split by |x| into ranges, each with the representation that converges fast and stays
accurate there:

* small arguments: the power series (ascending series in (x/2)^2; for K and Y the terms with log(x/2)
  and the digamma values psi(k + 1) = H_k - euler);
* middle arguments: integral representations evaluated by quadrature. K_nu(x) = int_0^inf
  exp(-x cosh t) cosh(nu t) dt with the trapezoidal rule, whose error falls like exp(-2 pi d / h) for an
  integrand analytic in a strip of half-width d; J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt, an even
  periodic integrand for which the trapezoidal rule is spectrally accurate; Y_n and J_(+-1/3) (the Airy
  function at negative x) through their Schlaefli integrals with Gauss-Legendre nodes;
* large arguments: Hankel's asymptotic expansions, whose terms (4 nu^2 - 1)(4 nu^2 - 9)...(4 nu^2 -
  (2k - 1)^2) / (k! (8x)^k) shrink to ~exp(-2x) before they diverge, below double precision here. The
  phase x - (nu/2 + 1/4) pi is formed from cos x and sin x (NumPy reduces those exactly), never by
  subtracting a rounded multiple of pi from x.
"""
import math

import numpy as np

_EULER = 0.57721566490153286061
_PI = math.pi
_SERIES_TERMS = 60      # of the ascending series; the last term is below 1e-17 of the sum for |x| <= 20
_ASYMPTOTIC_TERMS = 30
_BIG = 25.0             # Hankel's expansions from here on (their error ~exp(-2x) ~ 2e-22)

# The trapezoidal rule for K: step h, nodes t = 0, h, ..., 5 (exp(-x (cosh 5 - 1)) < 1e-30 for x >= 2); its
# error ~exp(x (1 - cos d) - 2 pi d / h) for the strip half-width d = 1 is below 1e-22 up to x = 25
_K_H = 0.1
_K_T = np.arange(0, 5.0 + _K_H / 2, _K_H)
_K_W = np.full(_K_T.shape, _K_H)
_K_W[0] = _K_H / 2
# The trapezoidal rule for J_n on [0, pi] (an even, 2 pi-periodic integrand: the full-period rule with 2N
# points, whose error is ~2 J_2N(x), < 1e-30 for x <= 25)
_J_N = 40
_J_T = np.linspace(0.0, _PI, _J_N + 1)
_J_W = np.full(_J_T.shape, _PI / _J_N)
_J_W[[0, -1]] /= 2
# Gauss-Legendre nodes for the non-periodic integrals (abs. error <= 1.1e-15 on [2, 25] against mpmath)
def _gauss_legendre(n):
    """The n-point Gauss-Legendre rule on [-1, 1]: Newton's method on P_n from Tricomi's first guesses of its
    roots; weight 2 / ((1 - x^2) P_n'(x)^2). (numpy.polynomial.legendre.leggauss would cost 13 ms of imports.)"""
    k = np.arange(1, n + 1)
    x = np.cos(np.pi * (k - 0.25) / (n + 0.5))
    for _ in range(100):
        p0, p1 = np.ones_like(x), x
        for j in range(2, n + 1):
            p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
        dp = n * (x * p1 - p0) / (x * x - 1)
        step = p1 / dp
        x = x - step
        if np.abs(step).max() < 1e-16:
            break
    return x, 2 / ((1 - x * x) * dp * dp)


_GL_X, _GL_W = _gauss_legendre(56)


def _gauss(a, b):
    """Nodes and weights on [a, b] (arrays of interval ends: one row of nodes per element)."""
    half = (b - a)[:, None] / 2
    return (a[:, None] + half * (_GL_X + 1)), half * _GL_W


_BLOCK = 8192  # elements per call: the quadratures hold (elements x ~100 nodes) arrays


def _regions(x, *fns_and_masks, out=None):
    """out[mask] = fn(x[mask]) for each (mask, fn), evaluating each representation on its elements only,
    in blocks of _BLOCK elements."""
    out = np.full(x.shape, np.nan) if out is None else out
    for mask, fn in fns_and_masks:
        idx = np.flatnonzero(mask)
        for start in range(0, idx.size, _BLOCK):
            part = idx[start:start + _BLOCK]
            out.flat[part] = fn(x.flat[part])
    return out


def _hankel_pq(nu, x):
    """Hankel's P and Q series of order nu at x (P ~ 1, Q ~ (4 nu^2 - 1) / (8x))."""
    mu = 4.0 * nu * nu
    p = np.ones_like(x)
    q = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 2 * _ASYMPTOTIC_TERMS):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            q += term if (k // 2) % 2 == 0 else -term
        else:
            p += -term if (k // 2) % 2 else term
    return p, q


def _asymptotic_exp_scaled(nu, x, sign):
    """sum_k sign^k a_k(nu) / x^k, the series of sqrt(2 pi x) exp(-x) I_nu (sign -1) and
    sqrt(2x / pi) exp(x) K_nu (sign +1)."""
    mu = 4.0 * nu * nu
    s = np.ones_like(x)
    term = np.ones_like(x)
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x) * sign
        s += term
    return s


# -- modified Bessel functions of the first kind ----------------------------------------------------------------------

def _i_series(n, x):
    """I_n(x) for n = 0, 1 by the ascending series (all terms positive: no cancellation)."""
    t = x * x / 4
    term = np.ones_like(x) if n == 0 else x / 2
    s = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * t / (k * (k + n))
        s += term
    return s


def i_scaled(n, x):
    """exp(-|x|) I_n(x), n = 0 or 1."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = _regions(ax, (ax <= 20, lambda v: _i_series(n, v) * np.exp(-v)),
                   (ax > 20, lambda v: _asymptotic_exp_scaled(n, v, -1.0) / np.sqrt(2 * _PI * v)))
    out[np.isinf(ax)] = 0.0
    return np.copysign(out, x) if n == 1 else out


def i_plain(n, x):
    """I_n(x), n = 0 or 1: inf from where exp(|x|) overflows (|x| > 709.78, though I_n itself would fit up
    to ~713) and NaN at +-inf, as PyTorch's, which forms exp(|x|) first."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _regions(ax, (ax <= 20, lambda v: _i_series(n, v)),
                       (ax > 20, lambda v: np.exp(v) * _asymptotic_exp_scaled(n, v, -1.0) / np.sqrt(2 * _PI * v)))
    out[np.isinf(ax)] = np.nan
    return np.copysign(out, x) if n == 1 else out


# -- modified Bessel functions of the second kind ---------------------------------------------------------------------

def _k_series(n, x):
    """K_n(x), n = 0 or 1, for 0 < x <= 2 (the series with log(x/2) I_n and the digamma sums)."""
    t = x * x / 4
    lg = np.log(x / 2)
    if n == 0:
        term = np.ones_like(x)
        s = -_EULER * term  # psi(1) (x^2/4)^0 / 0!^2
        h = 0.0
        for k in range(1, 30):
            h += 1.0 / k
            term = term * t / (k * k)
            s += (h - _EULER) * term
        return s - lg * _i_series(0, x)
    # psi(k + 1) + psi(k + 2) = 2 H_k + 1/(k + 1) - 2 euler
    term = np.ones_like(x)
    h = 0.0
    s = (1.0 - 2 * _EULER) * term
    for k in range(1, 30):
        h += 1.0 / k
        term = term * t / (k * (k + 1))
        s += (2 * h + 1.0 / (k + 1) - 2 * _EULER) * term
    return 1.0 / x + lg * _i_series(1, x) - x / 4 * s


def _k_scaled_integral(nu, x):
    """exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, trapezoidal rule (2 <= x <= 25)."""
    f = np.exp(-x[:, None] * (np.cosh(_K_T) - 1.0)) * np.cosh(nu * _K_T)
    return f @ _K_W


def _k_scaled_asymptotic(nu, x):
    return _asymptotic_exp_scaled(nu, x, 1.0) * np.sqrt(_PI / (2 * x))


def k_scaled(n, x):
    """exp(x) K_n(x), n = 0 or 1 (NaN below 0, inf at 0, as PyTorch's)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = _regions(x, ((x > 0) & (x <= 2), lambda v: _k_series(n, v) * np.exp(v)),
                       ((x > 2) & (x <= _BIG), lambda v: _k_scaled_integral(n, v)),
                       ((x > _BIG) & np.isfinite(x), lambda v: _k_scaled_asymptotic(n, v)))
    out[x == 0] = np.inf
    out[x == np.inf] = 0.0
    return out


def k_plain(n, x):
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = _regions(x, ((x > 0) & (x <= 2), lambda v: _k_series(n, v)),
                       ((x > 2) & (x <= _BIG), lambda v: _k_scaled_integral(n, v) * np.exp(-v)),
                       ((x > _BIG) & np.isfinite(x), lambda v: _k_scaled_asymptotic(n, v) * np.exp(-v)))
    out[x == 0] = np.inf
    out[x == np.inf] = 0.0
    return out


# -- Bessel functions of the first and second kind --------------------------------------------------------------------

def _j_series(n, x):
    t = -x * x / 4
    term = np.ones_like(x) if n == 0 else x / 2
    s = term.copy()
    for k in range(1, 30):
        term = term * t / (k * (k + n))
        s += term
    return s


def _j_integral(n, x):
    return np.cos(n * _J_T - x[:, None] * np.sin(_J_T)) @ _J_W / _PI


def _hankel_phase(n, x):
    """(cos chi, sin chi) for chi = x - (n/2 + 1/4) pi, from cos x and sin x."""
    c, s = np.cos(x) / math.sqrt(2), np.sin(x) / math.sqrt(2)
    return (c + s, s - c) if n == 0 else (s - c, -s - c)


def _j_asymptotic(n, x):
    p, q = _hankel_pq(n, x)
    cc, sc = _hankel_phase(n, x)
    return np.sqrt(2 / (_PI * x)) * (p * cc - q * sc)


def j(n, x):
    """J_n(x), n = 0 or 1 (NaN at +-inf, as PyTorch's)."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = _regions(ax, (ax <= 2, lambda v: _j_series(n, v)), ((ax > 2) & (ax <= _BIG), lambda v: _j_integral(n, v)),
                   ((ax > _BIG) & np.isfinite(ax), lambda v: _j_asymptotic(n, v)))
    return np.where(x < 0, -out, out) if n == 1 else out


def _y_series(n, x):
    t = x * x / 4
    lg = np.log(x / 2)
    if n == 0:
        term = np.ones_like(x)
        s = np.zeros_like(x)
        h = 0.0
        for k in range(1, 30):
            h += 1.0 / k
            term = term * -t / (k * k)
            s -= h * term
        return (2 / _PI) * ((lg + _EULER) * _j_series(0, x) + s)
    term = np.ones_like(x)
    h = 0.0
    s = (1.0 - 2 * _EULER) * term
    for k in range(1, 30):
        h += 1.0 / k
        term = term * -t / (k * (k + 1))
        s += (2 * h + 1.0 / (k + 1) - 2 * _EULER) * term
    return -2 / (_PI * x) + (2 / _PI) * lg * _j_series(1, x) - x / (2 * _PI) * s


def _y_integral(n, x):
    """Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^(nt) + (-1)^n e^(-nt)) e^(-x sinh t) dt."""
    zero = np.zeros_like(x)
    t, w = _gauss(zero, zero + _PI)
    first = np.sum(w * np.sin(x[:, None] * np.sin(t) - n * t), axis=1)
    t, w = _gauss(zero, np.arcsinh(45.0 / x))
    weight = 2.0 if n == 0 else 2 * np.sinh(t)
    second = np.sum(w * weight * np.exp(-x[:, None] * np.sinh(t)), axis=1)
    return (first - second) / _PI


def _y_asymptotic(n, x):
    p, q = _hankel_pq(n, x)
    cc, sc = _hankel_phase(n, x)
    return np.sqrt(2 / (_PI * x)) * (p * sc + q * cc)


def y(n, x):
    """Y_n(x), n = 0 or 1 (-inf at 0, NaN below 0 and at +-inf, as PyTorch's)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = _regions(x, ((x > 0) & (x <= 2), lambda v: _y_series(n, v)),
                       ((x > 2) & (x <= _BIG), lambda v: _y_integral(n, v)),
                       ((x > _BIG) & np.isfinite(x), lambda v: _y_asymptotic(n, v)))
    out[x == 0] = -np.inf
    return out


def spherical_j0(x):
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = np.sin(x) / x
    out[x == 0] = 1.0
    out[np.isinf(x)] = 0.0
    return out


# -- the Airy function Ai ---------------------------------------------------------------------------------------------

_AI0 = 1 / (3 ** (2 / 3) * math.gamma(2 / 3))   # Ai(0)
_AI0P = 1 / (3 ** (1 / 3) * math.gamma(1 / 3))  # -Ai'(0)
_AIRY_ZERO_FROM = 103.892  # Ai(x) < 1e-307 beyond: 0, as PyTorch's


def _airy_series(x):
    """Ai(x) = Ai(0) f(x) - |Ai'(0)| g(x) with Maclaurin series f = sum 3^k (1/3)_k x^3k / (3k)! and
    g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)! (for |x| <= 2)."""
    c = x ** 3
    f = np.ones_like(x)
    g = x.copy()
    tf, tg = f.copy(), g.copy()
    for k in range(1, 40):
        tf = tf * c / ((3 * k - 1) * (3 * k))
        tg = tg * c / ((3 * k) * (3 * k + 1))
        f += tf
        g += tg
    return _AI0 * f - _AI0P * g


def _airy_positive(x):
    """Ai(x) = sqrt(x / 3) K_(1/3)(zeta) / pi, zeta = 2/3 x^(3/2) (x > 2)."""
    z = 2 / 3 * x * np.sqrt(x)
    ks = _regions(z, (z <= _BIG, lambda v: _k_scaled_integral(1 / 3, v)),
                  (z > _BIG, lambda v: _k_scaled_asymptotic(1 / 3, v)))
    return np.sqrt(x / 3) / _PI * ks * np.exp(-z)


def _airy_negative(x):
    """Ai(-x) = sqrt(x) / 3 (J_(1/3)(zeta) + J_(-1/3)(zeta)) for x > 2 (x here is |x|)."""
    z = 2 / 3 * x * np.sqrt(x)

    def integral(v):
        # J_(1/3) + J_(-1/3) = (2/pi) int_0^pi cos(t/3) cos(v sin t) dt + (sqrt 3 / pi) int_0^inf e^(-v sinh t) sinh(t/3) dt
        zero = np.zeros_like(v)
        t, w = _gauss(zero, zero + _PI)
        first = np.sum(w * np.cos(t / 3) * np.cos(v[:, None] * np.sin(t)), axis=1)
        t, w = _gauss(zero, np.arcsinh(45.0 / v))
        second = np.sum(w * np.sinh(t / 3) * np.exp(-v[:, None] * np.sinh(t)), axis=1)
        return 2 / _PI * first + math.sqrt(3) / _PI * second

    def asymptotic(v):
        # Hankel's P, Q depend on nu^2 only: the two orders share them, and the phases sum to sqrt(3) times
        # those of x - pi/4
        p, q = _hankel_pq(1 / 3, v)
        cc, sc = _hankel_phase(0, v)
        return np.sqrt(2 / (_PI * v)) * math.sqrt(3) * (p * cc - q * sc)

    s = _regions(z, (z <= _BIG, integral), (z > _BIG, asymptotic))
    return np.sqrt(x) / 3 * s


def airy_ai(x):
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = _regions(x, (np.abs(x) <= 2, _airy_series), ((x > 2) & (x <= _AIRY_ZERO_FROM), _airy_positive),
                       ((x < -2) & np.isfinite(x), lambda v: _airy_negative(-v)))
    out[x > _AIRY_ZERO_FROM] = 0.0
    out[np.isinf(x)] = np.nan
    return out
