"""The kl_divergence pairs of PyTorch's registry beyond the same-family ones of _cases.py: values, dtypes and
gradients against torch.distributions.kl_divergence, gradients against finite differences, and values against
NumPy quadrature of E_p[log p - log q] (so the closed forms are checked without torch too)."""
import dataclasses
import math

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, check_against_torch, check_finite_differences, torch

TOL = {np.float32: dict(rtol=5e-5, atol=5e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}
KL = lambda l: l.distributions.kl_divergence  # noqa: E731
D = lambda l: l.distributions  # noqa: E731

real = In((3,), low=-1.0, high=1.0)
pos = In((3,), low=0.5, high=2.0)
conc = In((3,), low=0.7, high=3.0)
probs_cb = In((3,), values=lambda r: np.array([0.1, 0.3, 0.8]))
probs_half = In((3,), values=lambda r: np.array([0.4995, 0.2, 0.5004]))
alpha = In((3,), low=2.5, high=4.0)
u_low, u_high = In((3,), low=0.05, high=0.3), In((3,), low=0.6, high=0.95)
wide_low, wide_high = In((3,), low=-1.0, high=-0.2), In((3,), low=1.2, high=2.0)
big = In((3,), low=1.5, high=2.5)
small = In((3,), low=0.2, high=0.45)

# name -> (p builder, q builder, inputs); the builders take (lib, *their inputs) in order
PAIRS = {
    "Bernoulli.Poisson": (lambda l, a: D(l).Bernoulli(probs=a), lambda l, r: D(l).Poisson(r),
                          [In((3,), low=0.1, high=0.9), pos]),
    "Beta.ContinuousBernoulli": (lambda l, a, b: D(l).Beta(a, b), lambda l, c: D(l).ContinuousBernoulli(probs=c),
                                 [conc, conc, probs_cb]),
    "Beta.Exponential": (lambda l, a, b: D(l).Beta(a, b), lambda l, r: D(l).Exponential(r), [conc, conc, pos]),
    "Beta.Gamma": (lambda l, a, b: D(l).Beta(a, b), lambda l, c, r: D(l).Gamma(c, r), [conc, conc, conc, pos]),
    "Beta.Normal": (lambda l, a, b: D(l).Beta(a, b), lambda l, m, s: D(l).Normal(m, s), [conc, conc, real, pos]),
    "Beta.Uniform": (lambda l, a, b: D(l).Beta(a, b), lambda l, lo, hi: D(l).Uniform(lo, hi),
                     [conc, conc, wide_low, wide_high]),
    "ContinuousBernoulli.ContinuousBernoulli": (lambda l, a: D(l).ContinuousBernoulli(probs=a),
                                                lambda l, b: D(l).ContinuousBernoulli(probs=b), [probs_cb, probs_half]),
    "ContinuousBernoulli.near_half": (lambda l, a: D(l).ContinuousBernoulli(probs=a),
                                      lambda l, b: D(l).ContinuousBernoulli(logits=b), [probs_half, real]),
    "ContinuousBernoulli.Exponential": (lambda l, a: D(l).ContinuousBernoulli(probs=a),
                                        lambda l, r: D(l).Exponential(r), [probs_cb, pos]),
    "ContinuousBernoulli.Normal": (lambda l, a: D(l).ContinuousBernoulli(probs=a), lambda l, m, s: D(l).Normal(m, s),
                                   [probs_cb, real, pos]),
    "ContinuousBernoulli.Uniform": (lambda l, a: D(l).ContinuousBernoulli(probs=a),
                                    lambda l, lo, hi: D(l).Uniform(lo, hi), [probs_cb, wide_low, wide_high]),
    "Exponential.Gumbel": (lambda l, r: D(l).Exponential(r), lambda l, m, s: D(l).Gumbel(m, s), [pos, real, pos]),
    "Gamma.Exponential": (lambda l, a, b: D(l).Gamma(a, b), lambda l, r: D(l).Exponential(r), [conc, pos, pos]),
    "Gamma.Gumbel": (lambda l, a, b: D(l).Gamma(a, b), lambda l, m, s: D(l).Gumbel(m, s), [conc, pos, real, pos]),
    "Gamma.Normal": (lambda l, a, b: D(l).Gamma(a, b), lambda l, m, s: D(l).Normal(m, s), [conc, pos, real, pos]),
    "Geometric.Geometric": (lambda l, a: D(l).Geometric(probs=a), lambda l, b: D(l).Geometric(probs=b),
                            [In((3,), low=0.1, high=0.9), In((3,), low=0.1, high=0.9)]),
    "Gumbel.Normal": (lambda l, m, s: D(l).Gumbel(m, s), lambda l, a, b: D(l).Normal(a, b), [real, pos, real, pos]),
    "HalfNormal.HalfNormal": (lambda l, s: D(l).HalfNormal(s), lambda l, t: D(l).HalfNormal(t), [pos, pos]),
    "Laplace.Normal": (lambda l, m, s: D(l).Laplace(m, s), lambda l, a, b: D(l).Normal(a, b), [real, pos, real, pos]),
    "Normal.Gumbel": (lambda l, m, s: D(l).Normal(m, s), lambda l, a, b: D(l).Gumbel(a, b), [real, pos, real, pos]),
    "Pareto.Exponential": (lambda l, s, a: D(l).Pareto(s, a), lambda l, r: D(l).Exponential(r), [pos, alpha, pos]),
    "Pareto.Gamma": (lambda l, s, a: D(l).Pareto(s, a), lambda l, c, r: D(l).Gamma(c, r), [pos, alpha, conc, pos]),
    "Pareto.Normal": (lambda l, s, a: D(l).Pareto(s, a), lambda l, m, t: D(l).Normal(m, t), [pos, alpha, real, pos]),
    "Pareto.Pareto": (lambda l, s, a: D(l).Pareto(s, a), lambda l, t, b: D(l).Pareto(t, b), [big, alpha, small, alpha]),
    "Uniform.Beta": (lambda l, lo, hi: D(l).Uniform(lo, hi), lambda l, a, b: D(l).Beta(a, b),
                     [u_low, u_high, conc, conc]),
    "Uniform.ContinuousBernoulli": (lambda l, lo, hi: D(l).Uniform(lo, hi),
                                    lambda l, c: D(l).ContinuousBernoulli(probs=c), [u_low, u_high, probs_cb]),
    "Uniform.Exponential": (lambda l, lo, hi: D(l).Uniform(lo, hi), lambda l, r: D(l).Exponential(r),
                            [u_low, u_high, pos]),
    "Uniform.Gamma": (lambda l, lo, hi: D(l).Uniform(lo, hi), lambda l, c, r: D(l).Gamma(c, r),
                      [u_low, u_high, conc, pos]),
    "Uniform.Gumbel": (lambda l, lo, hi: D(l).Uniform(lo, hi), lambda l, m, s: D(l).Gumbel(m, s),
                       [wide_low, wide_high, real, pos]),
    "Uniform.Pareto": (lambda l, lo, hi: D(l).Uniform(lo, hi), lambda l, s, a: D(l).Pareto(s, a),
                       [big, In((3,), low=2.6, high=3.0), small, alpha]),
}
_NP = {"Bernoulli": 1, "Beta": 2, "ContinuousBernoulli": 1, "Exponential": 1, "Gamma": 2, "Geometric": 1,
       "Gumbel": 2, "HalfNormal": 1, "Laplace": 2, "Normal": 2, "Pareto": 2, "Uniform": 2}


def _case(name, p, q, inputs):
    k = _NP[name.split(".")[0]]

    def fn(l, *xs):
        return KL(l)(p(l, *xs[:k]), q(l, *xs[k:]))
    # digamma's derivative (trigamma) differs from PyTorch's by ~1e-9 relative in float64
    gtol = dict(rtol=1e-8, atol=1e-10) if "Beta" in name or "Gamma" in name else None
    return OpCase(f"kl.{name}", fn, inputs, grad_tol=gtol)


CASES = [_case(n, *spec) for n, spec in PAIRS.items()]


def _lowrank_cases():
    LR = lambda l: l.distributions.LowRankMultivariateNormal  # noqa: E731
    MVN = lambda l: l.distributions.MultivariateNormal  # noqa: E731
    loc, wf, dg = In((2, 3)), In((2, 3, 2), low=-1.0, high=1.0), In((2, 3), low=0.5, high=1.5)
    tril = In((2, 3, 3), values=lambda r: np.tril(r.uniform(-0.5, 0.5, (2, 3, 3))) + 1.5 * np.eye(3))
    return [
        OpCase("kl.LowRank.LowRank", lambda l, m1, w1, d1, m2, w2, d2: KL(l)(LR(l)(m1, w1, d1), LR(l)(m2, w2, d2)),
               [loc, wf, dg, In((3,)), In((3, 1)), In((3,), low=0.5, high=1.5)]),
        OpCase("kl.MVN.LowRank", lambda l, m1, a, m2, w2, d2: KL(l)(MVN(l)(m1, scale_tril=a.tril()),
                                                                     LR(l)(m2, w2, d2)), [loc, tril, loc, wf, dg]),
        OpCase("kl.LowRank.MVN", lambda l, m1, w1, d1, m2, a: KL(l)(LR(l)(m1, w1, d1),
                                                                     MVN(l)(m2, scale_tril=a.tril())),
               [loc, wf, dg, In((3,)), tril]),
        # the Bregman divergence of the exponential-family fallback, reached directly on a pair with a closed form
    ]


def _bregman_cases(p_grad):
    # PyTorch differentiates detached copies of p's natural parameters, so it has no gradient for p's
    # parameters: the torch comparison holds them constant, the finite differences check them too
    fixed = lambda spec: dataclasses.replace(spec, grad=p_grad)  # noqa: E731
    W = lambda l: l.distributions.Wishart  # noqa: E731
    mat = In((3, 3), values=lambda r: r.uniform(-0.5, 0.5, (3, 3)) + np.eye(3))
    spd = lambda l, a: a @ a.mT + 0.5 * l.eye(3, dtype=a.dtype)  # noqa: E731
    return [
        OpCase("kl.ExponentialFamily.Normal", lambda l, a, b, c, d: _bregman(l)(D(l).Normal(a, b), D(l).Normal(c, d)),
               [fixed(real), fixed(pos), real, pos]),
        OpCase("kl.ExponentialFamily.Gamma", lambda l, a, b, c, d: _bregman(l)(D(l).Gamma(a, b), D(l).Gamma(c, d)),
               [fixed(conc), fixed(pos), conc, pos], grad_tol=dict(rtol=1e-8, atol=1e-10)),
        OpCase("kl.Wishart.Wishart", lambda l, d1, a, d2, b: KL(l)(W(l)(d1, covariance_matrix=spd(l, a)),
                                                                   W(l)(d2, covariance_matrix=spd(l, b))),
               [fixed(In((2,), values=lambda r: np.array([4.5, 7.0]))), fixed(mat),
                In((2,), values=lambda r: np.array([5.0, 3.5])), In((3, 3), values=lambda r: np.eye(3) * 0.9)],
               grad_tol=dict(rtol=1e-8, atol=1e-10)),
    ]


def _bregman(l):
    from npgrad.distributions import ExponentialFamily as NpEF
    if l is npgrad:
        return npgrad.distributions.kl._KL_REGISTRY[NpEF, NpEF]
    return l.distributions.kl._KL_REGISTRY[l.distributions.ExponentialFamily, l.distributions.ExponentialFamily]


CASES += _lowrank_cases() + _bregman_cases(p_grad=False)
FD_CASES = [c for c in CASES if not c.name.startswith(("kl.ExponentialFamily", "kl.Wishart"))] \
    + _bregman_cases(p_grad=True)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case,dtype", [(c, d) for c in CASES for d in c.dtypes],
                         ids=[f"{c}-{np.dtype(d).name}" for c in CASES for d in c.dtypes])
def test_matches_torch(case, dtype):
    if dtype is np.float32 and case.grad_tol is not None:
        case = dataclasses.replace(case, grad_tol=None)
    check_against_torch(case, dtype, tol=TOL[dtype])


@pytest.mark.parametrize("case", FD_CASES, ids=str)
def test_finite_differences(case):
    check_finite_differences(case)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
def test_registry_has_every_pytorch_pair():
    ours = {(a.__name__, b.__name__) for a, b in npgrad.distributions.kl._KL_REGISTRY}
    theirs = {(a.__name__, b.__name__) for a, b in torch.distributions.kl._KL_REGISTRY}
    assert theirs <= ours, sorted(theirs - ours)


# -- the pairs that are infinite, everywhere or for some parameters ---------------------------------------------
def _pair(lib, pname, pargs, qname, qargs):
    t = (lambda a: lib.tensor(np.asarray(a, dtype=np.float64)))
    return KL(lib)(getattr(D(lib), pname)(*map(t, pargs)), getattr(D(lib), qname)(*map(t, qargs)))


INFINITE = [  # (p, its args, q, its args, which entries are inf)
    ("Beta", ([1.0, 2.0], [2.0, 3.0]), "Pareto", ([1.0, 1.0], [2.0, 2.0]), [1, 1]),
    ("ContinuousBernoulli", ([0.3, 0.6],), "Pareto", ([1.0, 1.0], [2.0, 2.0]), [1, 1]),
    ("Poisson", ([1.0, 2.0],), "Bernoulli", ([0.3, 0.4],), [1, 1]),
    ("Poisson", ([1.0, 2.0],), "Binomial", ([3.0, 3.0], [0.3, 0.4]), [1, 1]),
    ("Beta", ([2.0, 2.0], [3.0, 3.0]), "Uniform", ([-1.0, 0.1], [2.0, 2.0]), [0, 1]),
    ("ContinuousBernoulli", ([0.3, 0.3, 0.3],), "Uniform", ([-1.0, 0.0, -1.0], [2.0, 2.0, 1.0]), [0, 1, 1]),
    ("Uniform", ([0.2, -0.1, 0.2], [0.8, 0.8, 1.2]), "Beta", ([2.0] * 3, [3.0] * 3), [0, 1, 1]),
    ("Uniform", ([0.2, 0.0, 0.2], [0.8, 0.8, 1.0]), "ContinuousBernoulli", ([0.3] * 3,), [0, 1, 1]),
    ("Uniform", ([0.2, -0.1], [0.8, 0.8]), "Exponential", ([2.0, 2.0],), [0, 1]),
    ("Uniform", ([0.2, -0.1], [0.8, 0.8]), "Gamma", ([2.0, 2.0], [2.0, 2.0]), [0, 1]),
    ("Uniform", ([1.5, 0.5], [2.0, 2.0]), "Pareto", ([1.0, 1.0], [3.0, 3.0]), [0, 1]),
    ("Pareto", ([1.0, 1.0], [1.5, 0.8]), "Exponential", ([2.0, 2.0],), [0, 1]),
    ("Pareto", ([1.0, 1.0], [1.5, 1.0]), "Gamma", ([2.0, 2.0], [1.0, 1.0]), [0, 1]),
    ("Pareto", ([1.0, 1.0], [2.5, 2.0]), "Normal", ([0.0, 0.0], [1.0, 1.0]), [0, 1]),
    ("Pareto", ([2.0, 1.0], [3.0, 3.0]), "Pareto", ([1.0, 2.0], [3.0, 3.0]), [0, 1]),
] + [(p, args, q, qargs, [1, 1]) for p, args in (("Exponential", ([1.0, 2.0],)), ("Gamma", ([1.0, 2.0], [1.0, 1.0])))
     for q, qargs in (("Beta", ([2.0, 2.0], [3.0, 3.0])), ("ContinuousBernoulli", ([0.3, 0.4],)),
                      ("Pareto", ([1.0, 1.0], [2.0, 2.0])), ("Uniform", ([0.0, 0.0], [5.0, 5.0])))] \
  + [(p, ([0.0, 1.0], [1.0, 2.0]), q, qargs, [1, 1]) for p in ("Gumbel", "Laplace", "Normal")
     for q, qargs in (("Beta", ([2.0, 2.0], [3.0, 3.0])), ("ContinuousBernoulli", ([0.3, 0.4],)),
                      ("Exponential", ([1.0, 2.0],)), ("Gamma", ([1.0, 2.0], [1.0, 1.0])),
                      ("Pareto", ([1.0, 1.0], [2.0, 2.0])), ("Uniform", ([-5.0, -5.0], [5.0, 5.0])))] \
  + [("Pareto", ([1.0, 2.0], [3.0, 3.0]), q, qargs, [1, 1])
     for q, qargs in (("Beta", ([2.0, 2.0], [3.0, 3.0])), ("ContinuousBernoulli", ([0.3, 0.4],)),
                      ("Uniform", ([0.0, 0.0], [5.0, 5.0])))]


@pytest.mark.parametrize("p,pargs,q,qargs,inf", INFINITE, ids=[f"{c[0]}.{c[2]}-{i}" for i, c in enumerate(INFINITE)])
def test_infinite_where_p_leaves_the_support_of_q(p, pargs, q, qargs, inf):
    got = _pair(npgrad, p, pargs, q, qargs).numpy()
    np.testing.assert_array_equal(np.isposinf(got), np.array(inf, bool))
    assert np.isfinite(got[~np.array(inf, bool)]).all()
    if HAS_TORCH:
        np.testing.assert_allclose(got, _pair(torch, p, pargs, q, qargs).numpy(), rtol=1e-10)


# -- NumPy quadrature of E_p[log p(X) - log q(X)], using log_prob (checked against torch elsewhere) -----------
QUAD = {  # name -> (p args, q args, integration grid over p's support)
    "Beta.ContinuousBernoulli": (([1.5], [2.5]), ([0.3],), np.linspace(0, 1, 400_001)),
    "Beta.Exponential": (([1.5], [2.5]), ([1.7],), np.linspace(0, 1, 400_001)),
    "Beta.Gamma": (([1.5], [2.5]), ([2.0], [1.3]), np.linspace(0, 1, 400_001)),
    "Beta.Normal": (([1.5], [2.5]), ([0.2], [0.7]), np.linspace(0, 1, 400_001)),
    "Beta.Uniform": (([1.5], [2.5]), ([-0.5], [1.5]), np.linspace(0, 1, 400_001)),
    "ContinuousBernoulli.ContinuousBernoulli": (([0.2],), ([0.7],), np.linspace(0, 1, 400_001)),
    "ContinuousBernoulli.Exponential": (([0.2],), ([0.7],), np.linspace(0, 1, 400_001)),
    "ContinuousBernoulli.Normal": (([0.8],), ([0.1], [0.6]), np.linspace(0, 1, 400_001)),
    "ContinuousBernoulli.Uniform": (([0.8],), ([-0.1], [1.6]), np.linspace(0, 1, 400_001)),
    "Exponential.Gumbel": (([1.3],), ([0.4], [1.2]), np.linspace(0, 40, 400_001)),
    "Gamma.Exponential": (([2.5], [1.5]), ([0.7],), np.linspace(0, 40, 400_001)),
    "Gamma.Gumbel": (([2.5], [1.5]), ([0.4], [1.2]), np.linspace(0, 40, 400_001)),
    "Gamma.Normal": (([2.5], [1.5]), ([1.0], [2.0]), np.linspace(0, 40, 400_001)),
    "Gumbel.Normal": (([0.3], [0.8]), ([0.1], [1.5]), np.linspace(-8, 40, 400_001)),
    "HalfNormal.HalfNormal": (([0.8],), ([1.5],), np.linspace(0, 12, 400_001)),
    "Laplace.Normal": (([0.3], [0.8]), ([0.1], [1.5]), np.linspace(-40, 40, 800_001)),
    "Normal.Gumbel": (([0.3], [0.8]), ([0.1], [1.5]), np.linspace(-12, 12, 400_001)),
    "Pareto.Exponential": (([1.0], [3.5]), ([0.7],), np.geomspace(1.0, 1e5, 800_001)),
    "Pareto.Gamma": (([1.0], [3.5]), ([2.0], [0.7]), np.geomspace(1.0, 1e5, 800_001)),
    "Pareto.Normal": (([1.0], [3.5]), ([1.2], [1.5]), np.geomspace(1.0, 1e5, 800_001)),
    "Pareto.Pareto": (([1.5], [3.5]), ([1.0], [2.0]), np.geomspace(1.5, 1e5, 800_001)),
    "Uniform.Beta": (([0.1], [0.7]), ([1.5], [2.5]), np.linspace(0.1, 0.7, 400_001)),
    "Uniform.ContinuousBernoulli": (([0.1], [0.7]), ([0.3],), np.linspace(0.1, 0.7, 400_001)),
    "Uniform.Exponential": (([0.1], [0.7]), ([1.3],), np.linspace(0.1, 0.7, 400_001)),
    "Uniform.Gamma": (([0.1], [0.7]), ([2.0], [1.3]), np.linspace(0.1, 0.7, 400_001)),
    "Uniform.Gumbel": (([-1.0], [2.0]), ([0.3], [0.8]), np.linspace(-1.0, 2.0, 400_001)),
    "Uniform.Pareto": (([1.5], [2.5]), ([1.0], [3.0]), np.linspace(1.5, 2.5, 400_001)),
}


def _families(name):
    p, q = name.split(".")
    return p, q if q != "near_half" else "ContinuousBernoulli"


@pytest.mark.parametrize("name", sorted(QUAD))
def test_closed_form_matches_quadrature(name):
    pname, qname = _families(name)
    pargs, qargs, x = QUAD[name]
    t = lambda a: npgrad.tensor(np.asarray(a, dtype=np.float64))  # noqa: E731
    p, q = getattr(D(npgrad), pname)(*map(t, pargs)), getattr(D(npgrad), qname)(*map(t, qargs))
    mid, width = (x[1:] + x[:-1]) / 2, np.diff(x)  # midpoint rule: no density evaluated on a support's edge
    xs = npgrad.tensor(mid[:, None])
    lp, lq = p.log_prob(xs).numpy()[:, 0], q.log_prob(xs).numpy()[:, 0]
    expected = np.sum(np.exp(lp) * (lp - lq) * width)
    np.testing.assert_allclose(npgrad.distributions.kl_divergence(p, q).numpy(), [expected], rtol=1e-5, atol=1e-7)


def test_discrete_pairs_match_sums():
    k = np.arange(0, 400, dtype=np.float64)
    f64 = lambda v: npgrad.tensor([v], dtype=npgrad.float64)  # noqa: E731
    p, q = D(npgrad).Geometric(probs=f64(0.3)), D(npgrad).Geometric(probs=f64(0.6))
    lp, lq = (d.log_prob(npgrad.tensor(k[:, None])).numpy()[:, 0] for d in (p, q))
    np.testing.assert_allclose(KL(npgrad)(p, q).numpy(), [np.sum(np.exp(lp) * (lp - lq))], rtol=1e-12)
    b, r = 0.35, 1.7
    expected = (1 - b) * (math.log(1 - b) - (-r)) + b * (math.log(b) - (math.log(r) - r))
    got = KL(npgrad)(D(npgrad).Bernoulli(probs=npgrad.tensor([b], dtype=npgrad.float64)),
                     D(npgrad).Poisson(npgrad.tensor([r], dtype=npgrad.float64)))
    np.testing.assert_allclose(got.numpy(), [expected], rtol=1e-12)


def test_lowrank_pairs_match_the_dense_formula():
    rng = np.random.default_rng(0)
    m1, m2 = rng.normal(size=3), rng.normal(size=3)
    W, d = rng.normal(size=(3, 2)), rng.uniform(0.5, 1.5, 3)
    S1 = W @ W.T + np.diag(d)
    A = rng.normal(size=(3, 3))
    S2 = A @ A.T + np.eye(3)
    t = npgrad.tensor
    got = KL(npgrad)(D(npgrad).LowRankMultivariateNormal(t(m1), t(W), t(d)),
                     D(npgrad).MultivariateNormal(t(m2), covariance_matrix=t(S2))).item()
    S2i = np.linalg.inv(S2)
    expected = 0.5 * (np.trace(S2i @ S1) + (m2 - m1) @ S2i @ (m2 - m1) - 3
                      + np.linalg.slogdet(S2)[1] - np.linalg.slogdet(S1)[1])
    assert got == pytest.approx(expected, rel=1e-12)


def test_bregman_equals_the_closed_forms_and_works_without_grad():
    t = lambda v: npgrad.tensor(v, dtype=npgrad.float64)  # noqa: E731
    pairs = [(D(npgrad).Normal(t([0.3, -1.0]), t([0.8, 2.0])), D(npgrad).Normal(t([0.1, 0.5]), t([1.5, 1.0]))),
             (D(npgrad).Gamma(t([2.5, 0.7]), t([1.5, 3.0])), D(npgrad).Gamma(t([2.0, 1.0]), t([0.7, 2.0])))]
    breg = _bregman(npgrad)
    for p, q in pairs:
        np.testing.assert_allclose(breg(p, q).detach().numpy(), KL(npgrad)(p, q).numpy(), rtol=1e-12)
        with npgrad.no_grad():
            out = breg(p, q)
            assert not out.requires_grad
            np.testing.assert_allclose(out.numpy(), KL(npgrad)(p, q).numpy(), rtol=1e-12)


def test_errors_match_pytorch():
    t = npgrad.tensor
    lr = D(npgrad).LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [0.5]]), t([1.0, 1.0]))
    lr3 = D(npgrad).LowRankMultivariateNormal(t([0.0, 0.0, 0.0]), t([[1.0], [0.5], [0.1]]), t([1.0, 1.0, 1.0]))
    mvn3 = D(npgrad).MultivariateNormal(t([0.0, 0.0, 0.0]), covariance_matrix=npgrad.eye(3))
    with pytest.raises(ValueError, match="KL-divergence between two Low Rank Multivariate Normals with"):
        KL(npgrad)(lr, lr3)
    with pytest.raises(ValueError, match=r"KL-divergence between two \(Low Rank\) Multivariate Normals with"):
        KL(npgrad)(lr, mvn3)
    with pytest.raises(NotImplementedError, match="The cross KL-divergence between different exponential families"):
        KL(npgrad)(D(npgrad).Bernoulli(probs=t([0.3])), D(npgrad).Normal(t([0.0]), t([1.0])))
