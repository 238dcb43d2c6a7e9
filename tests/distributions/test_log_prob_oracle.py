"""The distributions' densities and moments against closed forms written here with the standard library
(math.lgamma, math.erf and a digamma below: no SciPy), at a few points per distribution including special
ones (the mode, the tails, df <= 2 for StudentT), and against PyTorch when installed; plus sample statistics.
A wrong constant or exponent in any log_prob, cdf, entropy, mean or variance fails here."""
import math

import numpy as np
import pytest

import npgrad
import npgrad.distributions as D
from oracle import HAS_TORCH, torch

EULER = 0.5772156649015329


def digamma(x):
    """psi(x) for x > 0: the recurrence up to x >= 6, then the asymptotic series (error < 1e-13 there)."""
    acc = 0.0
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    return acc + math.log(x) - 0.5 / x - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240)))


def lbeta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _t_log_prob(df, loc, scale, x):
    z = (x - loc) / scale
    return (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi) - math.log(scale)
            - (df + 1) / 2 * math.log1p(z * z / df))


def _t_variance(df, scale):
    return scale ** 2 * df / (df - 2) if df > 2 else math.inf if df > 1 else math.nan


def _gamma_log_prob(a, rate, x):
    return a * math.log(rate) + (a - 1) * math.log(x) - rate * x - math.lgamma(a)


# name -> (build(lib), points, log_prob(x), cdf(x) or None, entropy, mean, variance); each closed form written
# from the textbook density, independent of the code under test
CASES = {
    "normal": (lambda L: L.distributions.Normal(L.tensor(1.5), L.tensor(0.7)), [-1.0, 1.5, 2.2, 6.0],
               lambda x: -((x - 1.5) ** 2) / (2 * 0.49) - math.log(0.7) - 0.5 * math.log(2 * math.pi),
               lambda x: 0.5 * (1 + math.erf((x - 1.5) / (0.7 * math.sqrt(2)))),
               0.5 + 0.5 * math.log(2 * math.pi * 0.49), 1.5, 0.49),
    "studentt_df5": (lambda L: L.distributions.StudentT(L.tensor(5.0), L.tensor(-0.5), L.tensor(2.0)), [-9.0, -0.5, 0.3, 4.0],
                     lambda x: _t_log_prob(5.0, -0.5, 2.0, x), None,
                     3.0 * (digamma(3.0) - digamma(2.5)) + 0.5 * math.log(5.0) + lbeta(2.5, 0.5) + math.log(2.0),
                     -0.5, _t_variance(5.0, 2.0)),
    "studentt_df1.5": (lambda L: L.distributions.StudentT(L.tensor(1.5)), [-30.0, 0.0, 0.8],
                       lambda x: _t_log_prob(1.5, 0.0, 1.0, x), None,
                       1.25 * (digamma(1.25) - digamma(0.75)) + 0.5 * math.log(1.5) + lbeta(0.75, 0.5),
                       0.0, math.inf),
    "studentt_df1": (lambda L: L.distributions.StudentT(L.tensor(1.0), L.tensor(0.0), L.tensor(3.0)), [-5.0, 0.0, 2.0],
                     # one degree of freedom: the Cauchy density
                     lambda x: -math.log(math.pi * 3.0 * (1 + (x / 3.0) ** 2)), None,
                     math.log(4 * math.pi * 3.0), math.nan, math.nan),
    "gamma": (lambda L: L.distributions.Gamma(L.tensor(2.5), L.tensor(1.5)), [0.05, 1.0, 4.0],
              lambda x: _gamma_log_prob(2.5, 1.5, x), None,
              2.5 - math.log(1.5) + math.lgamma(2.5) + (1 - 2.5) * digamma(2.5), 2.5 / 1.5, 2.5 / 1.5 ** 2),
    "chi2": (lambda L: L.distributions.Chi2(L.tensor(3.0)), [0.2, 1.0, 7.0],
             lambda x: _gamma_log_prob(1.5, 0.5, x), None,
             1.5 - math.log(0.5) + math.lgamma(1.5) + (1 - 1.5) * digamma(1.5), 3.0, 6.0),
    "beta": (lambda L: L.distributions.Beta(L.tensor(2.0), L.tensor(3.5)), [0.01, 0.3, 0.5, 0.97],
             lambda x: math.log(x) + 2.5 * math.log1p(-x) - lbeta(2.0, 3.5), None,
             lbeta(2.0, 3.5) - 1.0 * digamma(2.0) - 2.5 * digamma(3.5) + 3.5 * digamma(5.5),
             2.0 / 5.5, 2.0 * 3.5 / (5.5 ** 2 * 6.5)),
    "exponential": (lambda L: L.distributions.Exponential(L.tensor(0.8)), [0.0, 0.5, 9.0],
                    lambda x: math.log(0.8) - 0.8 * x, lambda x: -math.expm1(-0.8 * x),
                    1 - math.log(0.8), 1 / 0.8, 1 / 0.64),
    "laplace": (lambda L: L.distributions.Laplace(L.tensor(-1.0), L.tensor(0.5)), [-3.0, -1.0, 0.4],
                lambda x: -math.log(1.0) - abs(x + 1.0) / 0.5,
                lambda x: 0.5 * math.exp((x + 1) / 0.5) if x < -1 else 1 - 0.5 * math.exp(-(x + 1) / 0.5),
                1 + math.log(1.0), -1.0, 2 * 0.25),
    "cauchy": (lambda L: L.distributions.Cauchy(L.tensor(0.5), L.tensor(2.0)), [-40.0, 0.5, 3.0],
               lambda x: -math.log(math.pi * 2.0 * (1 + ((x - 0.5) / 2.0) ** 2)),
               lambda x: 0.5 + math.atan((x - 0.5) / 2.0) / math.pi, math.log(4 * math.pi * 2.0),
               math.nan, math.inf),
    "uniform": (lambda L: L.distributions.Uniform(L.tensor(-1.0), L.tensor(3.0)), [-1.0, 0.0, 2.9],
                lambda x: -math.log(4.0), lambda x: (x + 1.0) / 4.0, math.log(4.0), 1.0, 16 / 12),
    "gumbel": (lambda L: L.distributions.Gumbel(L.tensor(1.0), L.tensor(2.0)), [-4.0, 1.0, 9.0],
               lambda x: -((x - 1) / 2 + math.exp(-(x - 1) / 2)) - math.log(2.0),
               lambda x: math.exp(-math.exp(-(x - 1) / 2)), math.log(2.0) + EULER + 1, 1 + 2 * EULER,
               math.pi ** 2 * 4 / 6),
    "lognormal": (lambda L: L.distributions.LogNormal(L.tensor(0.2), L.tensor(0.5)), [0.1, 1.0, 5.0],
                  lambda x: (-((math.log(x) - 0.2) ** 2) / (2 * 0.25) - math.log(0.5) - 0.5 * math.log(2 * math.pi)
                             - math.log(x)),
                  lambda x: 0.5 * (1 + math.erf((math.log(x) - 0.2) / (0.5 * math.sqrt(2)))),
                  0.2 + 0.5 + 0.5 * math.log(2 * math.pi * 0.25), math.exp(0.2 + 0.125),
                  math.expm1(0.25) * math.exp(0.4 + 0.25)),
    "halfnormal": (lambda L: L.distributions.HalfNormal(L.tensor(1.3)), [0.0, 0.5, 4.0],
                   lambda x: 0.5 * math.log(2 / math.pi) - math.log(1.3) - x * x / (2 * 1.69),
                   lambda x: math.erf(x / (1.3 * math.sqrt(2))), 0.5 * math.log(math.pi * 1.69 / 2) + 0.5,
                   1.3 * math.sqrt(2 / math.pi), 1.69 * (1 - 2 / math.pi)),
    "poisson": (lambda L: L.distributions.Poisson(L.tensor(3.5)), [0.0, 3.0, 12.0],
                lambda k: k * math.log(3.5) - 3.5 - math.lgamma(k + 1), None, None, 3.5, 3.5),
    "bernoulli": (lambda L: L.distributions.Bernoulli(L.tensor(0.3)), [0.0, 1.0],
                  lambda k: k * math.log(0.3) + (1 - k) * math.log(0.7), None,
                  -(0.3 * math.log(0.3) + 0.7 * math.log(0.7)), 0.3, 0.21),
}


def _value(t):
    return float(t.detach().numpy()) if hasattr(t, "detach") else float(t)


def _close(got, want, what):
    if math.isnan(want):
        assert math.isnan(got), f"{what}: {got} (want nan)"
    elif math.isinf(want):
        assert got == want, f"{what}: {got} (want {want})"
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("name", CASES)
def test_closed_forms(name):
    build, points, log_prob, cdf, entropy, mean, variance = CASES[name]
    d = build(npgrad)
    x = npgrad.tensor(np.array(points, np.float32))
    lp = d.log_prob(x).numpy()
    for k, p in enumerate(points):
        _close(float(lp[k]), log_prob(p), f"{name} log_prob({p})")
    if cdf is not None:
        c = d.cdf(x).numpy()
        for k, p in enumerate(points):
            _close(float(c[k]), cdf(p), f"{name} cdf({p})")
    if entropy is not None:
        _close(_value(d.entropy()), entropy, f"{name} entropy")
    _close(_value(d.mean), mean, f"{name} mean")
    _close(_value(d.variance), variance, f"{name} variance")


@pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch (the closed forms above run without it)")
@pytest.mark.parametrize("name", CASES)
def test_against_torch(name):
    build, points = CASES[name][:2]
    ours, theirs = build(npgrad), build(torch)
    x = np.array(points, np.float32)
    pairs = [(ours.log_prob(npgrad.tensor(x)), theirs.log_prob(torch.tensor(x)), "log_prob"),
             (ours.mean, theirs.mean, "mean"), (ours.variance, theirs.variance, "variance")]
    if CASES[name][3] is not None:
        pairs.append((ours.cdf(npgrad.tensor(x)), theirs.cdf(torch.tensor(x)), "cdf"))
    if CASES[name][4] is not None:
        pairs.append((ours.entropy(), theirs.entropy(), "entropy"))
    for a, b, what in pairs:
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} {what}")


def test_studentt_log_prob_gradients():
    """d/dx, d/dloc, d/dscale and d/ddf of the closed form (df's through digamma)."""
    df, loc, scale, x = 4.0, 0.5, 1.5, 2.0
    tdf, tloc, tscale = (npgrad.tensor(v, requires_grad=True) for v in (df, loc, scale))
    tx = npgrad.tensor(x, requires_grad=True)
    D.StudentT(tdf, tloc, tscale).log_prob(tx).backward()
    z = (x - loc) / scale
    u = 1 + z * z / df
    dx = -(df + 1) * z / (df * scale * u)
    ddf = (0.5 * digamma((df + 1) / 2) - 0.5 * digamma(df / 2) - 0.5 / df - 0.5 * math.log(u)
           + (df + 1) / 2 * z * z / (df * df * u))
    np.testing.assert_allclose(tx.grad.item(), dx, rtol=1e-5)
    np.testing.assert_allclose(tloc.grad.item(), -dx, rtol=1e-5)
    np.testing.assert_allclose(tscale.grad.item(), -1 / scale - dx * z, rtol=1e-5)
    np.testing.assert_allclose(tdf.grad.item(), ddf, rtol=1e-5)


def test_studentt_tends_to_the_normal():
    """For large df, log t(x) = log phi(x) + (x^4 - 2 x^2 - 1) / (4 df) + O(1 / df^2)."""
    df, a = 1e4, np.linspace(-3, 3, 7)
    t = D.StudentT(npgrad.tensor(df, dtype=npgrad.float64)).log_prob(npgrad.tensor(a)).numpy()
    n = D.Normal(npgrad.tensor(0.0, dtype=npgrad.float64), npgrad.tensor(1.0, dtype=npgrad.float64))
    np.testing.assert_allclose(t, n.log_prob(npgrad.tensor(a)).numpy() + (a ** 4 - 2 * a * a - 1) / (4 * df),
                               atol=1e-6)


@pytest.mark.parametrize("name", ["normal", "studentt_df5", "gamma", "beta", "laplace", "gumbel", "poisson"])
def test_sample_statistics(name):
    """The sample mean and variance of 40,000 draws lie within 5 standard errors of mean and variance."""
    build, mean, variance = CASES[name][0], CASES[name][5], CASES[name][6]
    npgrad.manual_seed(0)
    s = build(npgrad).sample((40_000,)).numpy().astype(np.float64)
    n = s.size
    assert abs(s.mean() - mean) < 5 * math.sqrt(variance / n), f"{name}: sample mean {s.mean()} vs {mean}"
    m4 = np.mean((s - s.mean()) ** 4)  # the sample variance's standard error, from the fourth central moment
    assert abs(s.var() - variance) < 5 * math.sqrt((m4 - variance ** 2) / n), \
        f"{name}: sample variance {s.var()} vs {variance}"
