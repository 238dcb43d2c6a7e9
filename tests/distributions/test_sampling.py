"""Samplers checked statistically (npgrad's generator has no value parity with torch's): moments of 10^5
samples against the closed forms, and rsample's gradients against the gradient of the closed-form
expectation."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

D = npgrad.distributions
N = 100_000

# name -> (distribution, exact mean, exact variance); tolerance: 5 standard errors of each moment estimate
MOMENTS = {
    "Normal": (lambda: D.Normal(npgrad.tensor([0.5, -1.0]), npgrad.tensor([1.0, 2.0])), [0.5, -1.0], [1.0, 4.0]),
    "Bernoulli": (lambda: D.Bernoulli(probs=npgrad.tensor([0.2, 0.7])), [0.2, 0.7], [0.16, 0.21]),
    "Bernoulli_logits": (lambda: D.Bernoulli(logits=npgrad.tensor([0.0])), [0.5], [0.25]),
    "Categorical": (lambda: D.Categorical(probs=npgrad.tensor([0.2, 0.3, 0.5])), [1.3], [0.61]),
    "Uniform": (lambda: D.Uniform(npgrad.tensor([-1.0]), npgrad.tensor([3.0])), [1.0], [16 / 12]),
    "Exponential": (lambda: D.Exponential(npgrad.tensor([2.0])), [0.5], [0.25]),
    "Laplace": (lambda: D.Laplace(npgrad.tensor([1.0]), npgrad.tensor([0.5])), [1.0], [0.5]),
    "Gumbel": (lambda: D.Gumbel(npgrad.tensor([1.0]), npgrad.tensor([2.0])),
               [1.0 + 2.0 * 0.5772156649], [np.pi ** 2 / 6 * 4.0]),
    "LogNormal": (lambda: D.LogNormal(npgrad.tensor([0.0]), npgrad.tensor([0.5])),
                  [np.exp(0.125)], [(np.exp(0.25) - 1) * np.exp(0.25)]),
    "Poisson": (lambda: D.Poisson(npgrad.tensor([0.5, 4.0])), [0.5, 4.0], [0.5, 4.0]),
    "Binomial": (lambda: D.Binomial(npgrad.tensor([10.0, 3.0]), probs=npgrad.tensor([0.3, 0.8])), [3.0, 2.4],
                 [2.1, 0.48]),
    "Multinomial": (lambda: D.Multinomial(5, probs=npgrad.tensor([0.2, 0.8])), [1.0, 4.0], [0.8, 0.8]),
    "OneHotCategorical": (lambda: D.OneHotCategorical(probs=npgrad.tensor([0.2, 0.3, 0.5])), [0.2, 0.3, 0.5],
                          [0.16, 0.21, 0.25]),
    "Gamma": (lambda: D.Gamma(npgrad.tensor([0.3, 4.0]), npgrad.tensor([1.0, 2.0])), [0.3, 2.0], [0.3, 1.0]),
    "Chi2": (lambda: D.Chi2(npgrad.tensor([3.0])), [3.0], [6.0]),
    "Beta": (lambda: D.Beta(npgrad.tensor([0.5, 2.0]), npgrad.tensor([0.5, 5.0])), [0.5, 2 / 7],
             [0.125, 10 / (49 * 8)]),
    "Dirichlet": (lambda: D.Dirichlet(npgrad.tensor([1.0, 2.0, 0.5])), [1 / 3.5, 2 / 3.5, 0.5 / 3.5],
                  [1 * 2.5 / (3.5 ** 2 * 4.5), 2 * 1.5 / (3.5 ** 2 * 4.5), 0.5 * 3.0 / (3.5 ** 2 * 4.5)]),
    "HalfNormal": (lambda: D.HalfNormal(npgrad.tensor([1.5])), [1.5 * np.sqrt(2 / np.pi)],
                   [2.25 * (1 - 2 / np.pi)]),
    "Pareto": (lambda: D.Pareto(npgrad.tensor([1.0]), npgrad.tensor([6.0])), [1.2], [6 / (25 * 4)]),
    "Weibull": (lambda: D.Weibull(npgrad.tensor([1.0]), npgrad.tensor([2.0])), [np.sqrt(np.pi) / 2],
                [1 - np.pi / 4]),
    "Geometric": (lambda: D.Geometric(probs=npgrad.tensor([0.3])), [7 / 3], [(7 / 3) / 0.3]),
    "StudentT": (lambda: D.StudentT(npgrad.tensor([10.0]), 1.0, 2.0), [1.0], [4 * 10 / 8]),
    "InverseGamma": (lambda: D.InverseGamma(npgrad.tensor([6.0]), npgrad.tensor([2.0])), [0.4], [4 / (25 * 4)]),
    "FisherSnedecor": (lambda: D.FisherSnedecor(npgrad.tensor([6.0]), npgrad.tensor([12.0])), [1.2],
                       [2 * 144 * 16 / (6 * 100 * 8)]),
    "NegativeBinomial": (lambda: D.NegativeBinomial(npgrad.tensor([3.0]), probs=npgrad.tensor([0.4])), [2.0],
                         [2.0 / 0.6]),
    "Kumaraswamy": (lambda: D.Kumaraswamy(npgrad.tensor([2.0]), npgrad.tensor([3.0])), [16 / 35],
                    [0.25 - (16 / 35) ** 2]),  # E[X^n] = b B(1 + n / a, b): 16/35 and 1/4
    "MixtureSameFamily": (lambda: D.MixtureSameFamily(D.Categorical(probs=npgrad.tensor([0.3, 0.7])),
                                                      D.Normal(npgrad.tensor([-1.0, 2.0]), npgrad.tensor([0.5, 1.0]))),
                          [1.1], [0.3 * 0.25 + 0.7 + 0.3 * 2.1 ** 2 + 0.7 * 0.9 ** 2]),
    "LowRankMultivariateNormal": (lambda: D.LowRankMultivariateNormal(npgrad.tensor([1.0, -1.0]),
                                                                      npgrad.tensor([[1.0], [0.5]]),
                                                                      npgrad.tensor([0.5, 1.25])),
                                  [1.0, -1.0], [1.5, 1.5]),
    "GeneralizedPareto": (lambda: D.GeneralizedPareto(npgrad.tensor([1.0, 0.0, 0.0]), npgrad.tensor([2.0, 1.0, 1.0]),
                                                      npgrad.tensor([0.0, 0.1, -0.5])),
                          [3.0, 1 / 0.9, 1 / 1.5], [4.0, 1 / (0.81 * 0.8), 1 / (2.25 * 2.0)]),
    "ContinuousBernoulli": (lambda: D.ContinuousBernoulli(probs=npgrad.tensor([0.2, 0.5])), [None, 0.5],
                            [None, 1 / 12]),
    "MultivariateNormal": (lambda: D.MultivariateNormal(npgrad.tensor([1.0, -1.0]), npgrad.tensor([[2.0, 0.6],
                                                                                                [0.6, 1.0]])),
                           [1.0, -1.0], [2.0, 1.0]),
}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_sample_moments(name):
    npgrad.manual_seed(0)
    make, mean, var = MOMENTS[name]
    if name == "ContinuousBernoulli":  # closed forms at p = 0.2 (integrals of x C(p) p^x (1-p)^(1-x) over [0, 1])
        p = 0.2
        mean = [p / (2 * p - 1) + 1 / np.log((1 - p) / p), 0.5]
        var = [p * (p - 1) / (1 - 2 * p) ** 2 + 1 / np.log((1 - p) / p) ** 2, 1 / 12]
    x = make().sample((N,)).numpy().astype(np.float64)
    mean, var = np.array(mean), np.array(var)
    assert np.all(np.abs(x.mean(0) - mean) <= 5 * np.sqrt(var / N)), (x.mean(0), mean)
    # the variance estimate's standard error needs the fourth moment; 5% covers these light-tailed laws at N=1e5
    np.testing.assert_allclose(x.var(0), var, rtol=0.05)
    d = make()
    if name == "MultivariateNormal":
        np.testing.assert_allclose(np.cov(x.T), [[2.0, 0.6], [0.6, 1.0]], atol=0.05)
    if name == "LowRankMultivariateNormal":
        np.testing.assert_allclose(np.cov(x.T), [[1.5, 0.5], [0.5, 1.5]], atol=0.05)
    if name != "Categorical":
        np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-6)
        np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-6)


def test_cauchy_quartiles():
    npgrad.manual_seed(0)
    x = D.Cauchy(npgrad.tensor([1.0]), npgrad.tensor([2.0])).sample((N,)).numpy()[:, 0]
    q1, q2, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    assert abs(q2 - 1.0) < 0.05 and abs(q1 - (1.0 - 2.0)) < 0.06 and abs(q3 - (1.0 + 2.0)) < 0.06


def test_categorical_frequencies():
    npgrad.manual_seed(0)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    x = D.Categorical(logits=npgrad.tensor(np.log(p))).sample((N,)).numpy()
    assert x.dtype == np.int64
    assert np.all(np.abs(np.bincount(x, minlength=4) / N - p) <= 5 * np.sqrt(0.25 / N))


# rsample gradients: d/dtheta E[f(X)] estimated by the mean of the pathwise gradients, against the closed form.
RSAMPLE = {
    # E[X^2] = mu^2 + sigma^2
    "Normal": (lambda a, b: D.Normal(a, b), (0.5, 1.5), lambda x: x ** 2, lambda a, b: (2 * a, 2 * b)),
    # E[X^2] = (a^2 + ab + b^2) / 3
    "Uniform": (lambda a, b: D.Uniform(a, b), (-1.0, 2.0), lambda x: x ** 2,
                lambda a, b: ((2 * a + b) / 3, (a + 2 * b) / 3)),
    # E[X^2] = 2 / rate^2
    "Exponential": (lambda r: D.Exponential(r), (1.5,), lambda x: x ** 2, lambda r: (-4 / r ** 3,)),
    # E[X^2] = mu^2 + 2 b^2
    "Laplace": (lambda m, s: D.Laplace(m, s), (0.5, 0.8), lambda x: x ** 2, lambda m, s: (2 * m, 4 * s)),
    # E[X] = mu + gamma * beta
    "Gumbel": (lambda m, s: D.Gumbel(m, s), (0.5, 0.8), lambda x: x, lambda m, s: (1.0, 0.5772156649)),
    # E[X] = exp(mu + sigma^2 / 2)
    "LogNormal": (lambda m, s: D.LogNormal(m, s), (0.2, 0.4), lambda x: x,
                  lambda m, s: (np.exp(m + s * s / 2), s * np.exp(m + s * s / 2))),
    # E[X^2] = a (a + 1) / r^2 (implicit reparameterisation through the Gamma draw)
    "Gamma": (lambda a, r: D.Gamma(a, r), (0.7, 1.5), lambda x: x ** 2,
              lambda a, r: ((2 * a + 1) / r ** 2, -2 * a * (a + 1) / r ** 3)),
    "Gamma_large": (lambda a, r: D.Gamma(a, r), (6.0, 1.0), lambda x: x ** 2,
                    lambda a, r: ((2 * a + 1) / r ** 2, -2 * a * (a + 1) / r ** 3)),
    # E[X] = df
    "Chi2": (lambda k: D.Chi2(k), (3.0,), lambda x: x, lambda k: (1.0,)),
    # E[X] = a / (a + b)
    "Beta": (lambda a, b: D.Beta(a, b), (0.8, 2.0), lambda x: x,
             lambda a, b: (b / (a + b) ** 2, -a / (a + b) ** 2)),
    # E[X^2] = scale^2 df / (df - 2), through the Chi2 draw's implicit gradient
    "StudentT": (lambda k, s: D.StudentT(k, 0.0, s), (8.0, 1.5), lambda x: x ** 2,
                 lambda k, s: (-2 * s * s / (k - 2) ** 2, 2 * s * k / (k - 2))),
    # E[atan(X)] for a Cauchy(mu, s) is atan(mu / (1 + s))
    "Cauchy": (lambda m, s: D.Cauchy(m, s), (0.5, 0.8), lambda x: x.atan(),
               lambda m, s: ((1 + s) / ((1 + s) ** 2 + m ** 2), -m / ((1 + s) ** 2 + m ** 2))),
}


@pytest.mark.parametrize("name", sorted(RSAMPLE))
def test_rsample_gradient_matches_closed_form(name):
    npgrad.manual_seed(1)
    make, values, f, grad = RSAMPLE[name]
    params = [npgrad.tensor(v, dtype=npgrad.float64, requires_grad=True) for v in values]
    d = make(*params)
    assert d.has_rsample
    x = d.rsample((N,))
    assert x.requires_grad and x.dtype == npgrad.float64
    f(x).mean().backward()
    for p, expected in zip(params, grad(*values)):
        assert abs(p.grad.item() - expected) < 0.03 * max(1.0, abs(expected)), (name, p.grad.item(), expected)


def test_sample_has_no_graph_and_rsample_keeps_dtype():
    loc = npgrad.tensor([0.0, 1.0], requires_grad=True)
    d = D.Normal(loc, 1.0)
    assert not d.sample().requires_grad
    assert d.rsample().requires_grad
    assert D.Normal(npgrad.zeros(2, dtype=npgrad.float64), 1.0).sample().dtype == npgrad.float64


def test_multivariate_normal_rsample_gradient():
    # E[x^T x] = |mu|^2 + tr(L L^T): d/dmu = 2 mu, d/dL = 2 L (lower triangle)
    npgrad.manual_seed(2)
    mu = npgrad.tensor([0.5, -1.0], dtype=npgrad.float64, requires_grad=True)
    L0 = np.array([[1.0, 0.0], [0.4, 0.7]])
    L = npgrad.tensor(L0, requires_grad=True)
    x = D.MultivariateNormal(mu, scale_tril=L).rsample((N,))
    x.pow(2).sum(-1).mean().backward()
    np.testing.assert_allclose(mu.grad.numpy(), 2 * mu.detach().numpy(), atol=0.03)
    np.testing.assert_allclose(L.grad.numpy(), 2 * L0, atol=0.05)


def test_dirichlet_rsample_gradient():
    # E[x_0^2] = a0 (a0 + 1) / (s (s + 1)), s = sum(a)
    npgrad.manual_seed(3)
    a0 = np.array([0.8, 2.0, 1.5])
    a = npgrad.tensor(a0, requires_grad=True)
    x = D.Dirichlet(a).rsample((N,))
    np.testing.assert_allclose(x.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    x[:, 0].pow(2).mean().backward()
    s = a0.sum()
    f = lambda v: v[0] * (v[0] + 1) / (v.sum() * (v.sum() + 1))  # noqa: E731
    h = 1e-6
    expected = [(f(a0 + h * np.eye(3)[i]) - f(a0 - h * np.eye(3)[i])) / (2 * h) for i in range(3)]
    assert s > 0
    np.testing.assert_allclose(a.grad.numpy(), expected, atol=0.01)


def test_standard_gamma_gradient_is_the_implicit_derivative():
    from npgrad.distributions._gamma_sampling import standard_gamma_grad_np
    from npgrad.ops._igamma import igamma
    # dx/da = -(dP/da) / (dP/dx): check by moving a and solving P(a + da, x + dx) == P(a, x) to first order
    a = np.array([0.05, 0.5, 1.0, 3.0, 30.0, 500.0])
    x = np.array([1e-6, 0.2, 1.3, 2.0, 33.0, 480.0])
    g = standard_gamma_grad_np(a, x)
    da = 1e-6 * a
    p0 = igamma(a, x)
    p1 = igamma(a + da, x + g * da)
    np.testing.assert_allclose(p1, p0, rtol=1e-9, atol=1e-14)
    if HAS_TORCH:  # torch's own approximation is good to ~1e-4 relative
        t = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
        np.testing.assert_allclose(g, t, rtol=1e-3)


def test_relaxed_samplers_concentrate_at_low_temperature():
    npgrad.manual_seed(4)
    probs = npgrad.tensor([0.2, 0.3, 0.5])
    x = D.RelaxedOneHotCategorical(npgrad.tensor(0.05), probs=probs).rsample((N,)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    assert np.all(np.abs(np.bincount(x.argmax(-1), minlength=3) / N - probs.numpy()) < 0.01)
    b = D.RelaxedBernoulli(npgrad.tensor(0.05), probs=npgrad.tensor([0.3])).rsample((N,)).numpy()
    assert abs((b > 0.5).mean() - 0.3) < 0.01 and ((b < 0.01) | (b > 0.99)).mean() > 0.9


def test_straight_through_gradient_is_the_probs_gradient():
    probs = npgrad.tensor([0.2, 0.3, 0.5], requires_grad=True)
    x = D.OneHotCategoricalStraightThrough(probs=probs).rsample((7,))
    assert set(x.detach().numpy().ravel().tolist()) <= {0.0, 1.0}
    (x * npgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    # d/dp of sum_k c_k (p_k / sum(p)) with sum(p) == 1: c - sum(c * p), times 7 samples
    c = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(probs.grad.numpy(), 7 * (c - (c * probs.detach().numpy()).sum()), rtol=1e-5)


def test_von_mises_circular_moments():
    npgrad.manual_seed(5)
    d = D.VonMises(npgrad.tensor([0.5, -2.0, 3.0], dtype=npgrad.float64), npgrad.tensor([2.0, 0.3, 1e-6],
                                                                                        dtype=npgrad.float64))
    x = d.sample((N,)).numpy()
    assert x.dtype == np.float64 and np.all((x >= -np.pi) & (x < np.pi))
    resultant = np.exp(1j * x).mean(0)
    # E[exp(i x)] = exp(i loc) I1(k) / I0(k) = exp(i loc) (1 - circular variance)
    np.testing.assert_allclose(np.abs(resultant), 1 - d.variance.numpy(), atol=5 / np.sqrt(N))
    assert abs(np.angle(resultant[0]) - 0.5) < 0.01 and abs(np.angle(resultant[1]) + 2.0) < 0.05


def test_lkj_cholesky_correlations():
    # an LKJ(eta) correlation's off-diagonal entry is 2 B - 1 with B ~ Beta(a, a), a = eta - 1 + d / 2:
    # mean 0 and variance 1 / (2 a + 1)
    npgrad.manual_seed(6)
    L = D.LKJCholesky(4, npgrad.tensor(2.0, dtype=npgrad.float64)).sample((N // 4,))
    assert bool(D.constraints.corr_cholesky.check(L).all())
    C = (L @ L.mT).numpy()
    np.testing.assert_allclose(np.diagonal(C, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    r = C[:, [1, 2, 2, 3, 3, 3], [0, 0, 1, 0, 1, 2]]
    a = 2.0 - 1 + 2.0
    assert np.all(np.abs(r.mean(0)) < 5 * np.sqrt(1 / (2 * a + 1) / (N // 4)))
    np.testing.assert_allclose(r.var(0), 1 / (2 * a + 1), rtol=0.05)


def test_lkj_cholesky_correlation_marginals():
    # every off-diagonal correlation of LKJ(eta) in d dims is 2 Beta(b, b) - 1 with b = eta - 1 + d / 2:
    # mean 0, variance 1 / (2 eta + d - 1); the rows past the second are where a wrong onion step shows
    npgrad.manual_seed(0)
    d, eta, n = 4, 1.5, 40_000
    L = D.LKJCholesky(d, eta).sample((n,)).numpy().astype(np.float64)
    corr = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, atol=1e-5)
    rows, cols = np.tril_indices(d, -1)
    r = corr[:, rows, cols]
    var = 1 / (2 * eta + d - 1)
    assert np.all(np.abs(r.mean(0)) <= 5 * np.sqrt(var / n))
    np.testing.assert_allclose(r.var(0), var, rtol=0.05)
