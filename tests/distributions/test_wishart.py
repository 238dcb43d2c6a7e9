"""Wishart: log_prob, entropy and moments against PyTorch and finite differences, the Bartlett sampler's
moments and pathwise gradients, the singular-sample retries, and PyTorch's argument errors."""
import dataclasses
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, check_against_torch, check_finite_differences

W = lambda l: l.distributions.Wishart  # noqa: E731
TOL = {np.float32: dict(rtol=5e-5, atol=5e-5), np.float64: dict(rtol=1e-10, atol=1e-10)}

df2 = In((2,), values=lambda r: np.array([4.5, 7.0]))
tril = In((2, 3, 3), values=lambda r: np.tril(r.uniform(-0.5, 0.5, (2, 3, 3))) + 1.5 * np.eye(3))
mat = In((3, 3), values=lambda r: r.uniform(-0.5, 0.5, (3, 3)) + np.eye(3))
val = In((4, 1, 3, 3), values=lambda r: r.uniform(-0.5, 0.5, (4, 1, 3, 3)))


def spd(l, a):
    return a @ a.mT + 0.5 * l.eye(3, dtype=a.dtype)


CASES = [
    OpCase("log_prob.scale_tril", lambda l, df, L, v: W(l)(df, scale_tril=L.tril()).log_prob(spd(l, v)),
           [df2, tril, val]),
    OpCase("log_prob.covariance", lambda l, df, a, v: W(l)(df, covariance_matrix=spd(l, a)).log_prob(spd(l, v)),
           [df2, mat, val]),
    OpCase("log_prob.precision", lambda l, df, a, v: W(l)(df, precision_matrix=spd(l, a)).log_prob(spd(l, v)),
           [df2, mat, val]),
    OpCase("log_prob.float_df", lambda l, a, v: W(l)(3.5, covariance_matrix=spd(l, a)).log_prob(spd(l, v)),
           [mat, val]),
    OpCase("entropy", lambda l, df, L: W(l)(df, scale_tril=L.tril()).entropy(), [df2, tril]),
    OpCase("mean", lambda l, df, L: W(l)(df, scale_tril=L.tril()).mean, [df2, tril]),
    OpCase("mode", lambda l, df, L: W(l)(df, scale_tril=L.tril()).mode, [df2, tril]),
    OpCase("variance", lambda l, df, a: W(l)(df, covariance_matrix=spd(l, a)).variance, [df2, mat]),
    OpCase("precision_from_tril", lambda l, L: W(l)(5.0, scale_tril=L.tril()).precision_matrix, [tril]),
    OpCase("tril_from_precision", lambda l, a: W(l)(5.0, precision_matrix=spd(l, a)).scale_tril, [mat]),
    OpCase("expand.log_prob", lambda l, df, a, v: W(l)(df, covariance_matrix=spd(l, a)).expand((4, 2))
           .log_prob(spd(l, v)), [df2, mat, val]),
]


# their gradients go through trigamma, where npgrad's series and PyTorch's differ by ~1e-9 relative (float64)
TRIGAMMA = {"entropy"}


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case,dtype", [(c, d) for c in CASES for d in c.dtypes],
                         ids=[f"{c}-{np.dtype(d).name}" for c in CASES for d in c.dtypes])
def test_matches_torch(case, dtype):
    if case.name in TRIGAMMA and dtype is np.float64:
        case = dataclasses.replace(case, grad_tol=dict(rtol=1e-8, atol=1e-10))
    check_against_torch(case, dtype, tol=TOL[dtype])


@pytest.mark.parametrize("case", CASES, ids=str)
def test_finite_differences(case):
    check_finite_differences(case)


# kl_divergence(Wishart, Wishart) (the exponential-family Bregman divergence) is in test_kl_pairs.py


def test_log_prob_against_the_density_formula():
    # p = 2, df = 3.3: |X|^((df-3)/2) exp(-tr(S^-1 X)/2) / (2^(df) |S|^(df/2) Gamma_2(df/2)), with
    # Gamma_2(a) = sqrt(pi) Gamma(a) Gamma(a - 1/2)
    from math import lgamma, log, pi
    S = np.array([[2.0, 0.3], [0.3, 1.0]])
    X = np.array([[1.5, -0.2], [-0.2, 0.8]])
    df = 3.3
    expected = ((df - 3) / 2 * np.log(np.linalg.det(X)) - np.trace(np.linalg.solve(S, X)) / 2 - df * log(2)
                - df / 2 * np.log(np.linalg.det(S)) - (0.5 * log(pi) + lgamma(df / 2) + lgamma(df / 2 - 0.5)))
    got = npgrad.distributions.Wishart(df, covariance_matrix=npgrad.tensor(S)).log_prob(npgrad.tensor(X))
    np.testing.assert_allclose(got.item(), expected, rtol=1e-12)


def test_sample_moments():
    # E[X] = df S, Var[X_ij] = df (S_ij^2 + S_ii S_jj); tolerance: 5 standard errors from the samples themselves
    npgrad.manual_seed(0)
    S = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    df = np.array([3.5, 8.0])
    d = npgrad.distributions.Wishart(npgrad.tensor(df), covariance_matrix=npgrad.tensor(S))
    n = 100_000
    x = d.sample((n,)).numpy()
    assert x.shape == (n, 2, 3, 3)
    np.testing.assert_allclose(x, x.transpose(0, 1, 3, 2), atol=1e-12)
    assert (np.linalg.eigvalsh(x) > 0).all()
    mean = df[:, None, None] * S
    var = df[:, None, None] * (S ** 2 + np.outer(np.diag(S), np.diag(S)))
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-12)
    m, v = x.mean(0), x.var(0)
    assert np.all(np.abs(m - mean) <= 5 * np.sqrt(var / n))
    se_v = np.sqrt((((x - m) ** 4).mean(0) - v ** 2) / n)
    assert np.all(np.abs(v - var) <= 5 * se_v)


def test_rsample_pathwise_gradients():
    # d/dS_tril and d/ddf of E[sum(G * X)] = df sum(G * L L^T), estimated by the mean pathwise gradient
    npgrad.manual_seed(1)
    L0 = np.array([[1.2, 0.0], [0.4, 0.8]])
    G = np.array([[1.0, 0.5], [0.5, 2.0]])
    df = npgrad.tensor(3.0, dtype=npgrad.float64, requires_grad=True)
    L = npgrad.tensor(L0, requires_grad=True)
    n = 100_000
    x = npgrad.distributions.Wishart(df, scale_tril=L).rsample((n,))
    (x * npgrad.tensor(G)).sum().div(n).backward()
    exact_df = np.sum(G * (L0 @ L0.T))
    exact_L = np.tril(3.0 * (G + G.T) @ L0)
    assert abs(df.grad.item() - exact_df) < 0.03 * exact_df
    np.testing.assert_allclose(np.tril(L.grad.numpy()), exact_L, rtol=0.03, atol=0.03)


def _force_singular_first(monkeypatch, d, bad_index):
    real = type(d)._bartlett_sampling
    calls = []

    def patched(self, sample_shape=()):
        s = real(self, sample_shape)
        if not calls:
            s = s.detach().clone()
            s[bad_index] = 0.0  # a zero matrix: singular
        calls.append(tuple(sample_shape))
        return s

    monkeypatch.setattr(type(d), "_bartlett_sampling", patched)
    return calls


def test_singular_samples_are_drawn_again(monkeypatch):
    d = npgrad.distributions.Wishart(npgrad.tensor([4.0, 5.0]), covariance_matrix=npgrad.eye(2))
    calls = _force_singular_first(monkeypatch, d, (1, 0))
    with pytest.warns(UserWarning, match="Singular sample detected."):
        x = d.rsample((3,))
    # the whole batch of sample 1 is redrawn once; the result is positive definite everywhere
    assert calls == [(3,), (1,)]
    assert (np.linalg.eigvalsh(x.numpy()) > 0).all()


def test_max_try_correction_zero_keeps_the_singular_sample(monkeypatch):
    d = npgrad.distributions.Wishart(4.0, covariance_matrix=npgrad.eye(2))
    calls = _force_singular_first(monkeypatch, d, (2,))
    with pytest.warns(UserWarning, match="Singular sample detected."):
        x = d.rsample((4,), max_try_correction=0)
    assert calls == [(4,)] and (x[2].numpy() == 0).all()


def test_no_warning_for_regular_samples():
    # PyTorch 2.13's check is inverted (it flags the positive-definite samples, so every call warns and redraws);
    # npgrad redraws only samples that are singular
    d = npgrad.distributions.Wishart(6.0, covariance_matrix=npgrad.eye(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d.rsample((5,)).shape == (5, 3, 3)


def test_errors_and_shapes():
    D = npgrad.distributions
    eye = npgrad.eye(3)
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.Wishart(4.0, covariance_matrix=eye, scale_tril=eye)
    with pytest.raises(ValueError, match="scale_tril must be at least two-dimensional"):
        D.Wishart(4.0, covariance_matrix=npgrad.ones(3))
    with pytest.raises(ValueError, match=r"Value of df=2.0 expected to be greater than ndim - 1 = 2."):
        D.Wishart(2.0, covariance_matrix=eye)
    with pytest.warns(UserWarning, match="Low df values detected"):
        D.Wishart(2.5, covariance_matrix=eye)
    d = D.Wishart(npgrad.tensor([4.0, 5.0]), covariance_matrix=eye)
    assert d.batch_shape == (2,) and d.event_shape == (3, 3)
    assert d.expand((3, 2)).sample((4,)).shape == (4, 3, 2, 3, 3)
    assert np.isnan(D.Wishart(3.5, covariance_matrix=eye).mode.numpy()).all()
    assert d.support is D.constraints.positive_definite and d.has_rsample
    with pytest.raises(ValueError):
        D.Wishart(4.0, covariance_matrix=eye, validate_args=True).log_prob(-eye)
    with pytest.raises(ValueError):
        D.Wishart(4.0, covariance_matrix=-eye, validate_args=True)
