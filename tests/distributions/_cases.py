"""Deterministic distribution quantities written once against PyTorch's API, for npgrad and torch alike.

Each case is an oracle.OpCase whose ``fn(lib, *params)`` builds ``lib.distributions.<Dist>`` and returns one
quantity (log_prob, entropy, cdf, icdf, mean, variance, ...), so the same case checks the value, its dtype,
the gradients with respect to the parameters and the value against PyTorch, and against finite differences.
"""
import numpy as np

from oracle import In, OpCase

POS = dict(low=0.5, high=2.0)
UNIT = dict(low=0.05, high=0.95)


def _simplex(shape):
    def values(rng):
        p = rng.uniform(0.1, 1.0, shape)
        return p / p.sum(-1, keepdims=True)
    return values


def _cases():
    cases = []

    def add(name, fn, *inputs, **kw):
        cases.append(OpCase(name, fn, list(inputs), **kw))

    D = lambda lib: lib.distributions  # noqa: E731
    real, pos, unit = In((3,)), In((3,), **POS), In((3,), **UNIT)
    unused = In((3,), grad=False)  # a parameter the quantity does not depend on (no gradient in torch either)

    # Normal
    add("Normal.log_prob", lambda l, m, s, x: D(l).Normal(m, s).log_prob(x), real, pos, real)
    add("Normal.log_prob_sample_shape", lambda l, m, s, x: D(l).Normal(m, s).log_prob(x), real, pos, In((2, 3)))
    add("Normal.cdf", lambda l, m, s, x: D(l).Normal(m, s).cdf(x), real, pos, real)
    add("Normal.icdf", lambda l, m, s, q: D(l).Normal(m, s).icdf(q), real, pos, unit)
    add("Normal.entropy", lambda l, m, s: D(l).Normal(m, s).entropy(), unused, pos)
    add("Normal.variance", lambda l, m, s: D(l).Normal(m, s).variance, unused, pos)
    add("Normal.stddev", lambda l, m, s: D(l).Normal(m, s).stddev * D(l).Normal(m, s).mean, real, pos)
    add("Normal.perplexity", lambda l, m, s: D(l).Normal(m, s).perplexity(), unused, pos)
    add("Normal.expand.log_prob", lambda l, m, s, x: D(l).Normal(m, s).expand((2, 3)).log_prob(x), real, pos,
        In((2, 3)))
    # Bernoulli
    add("Bernoulli.probs.log_prob", lambda l, p, x: D(l).Bernoulli(probs=p).log_prob(x), unit,
        In((3,), values=lambda r: (r.random(3) < 0.5).astype(np.float64), grad=False))
    add("Bernoulli.logits.log_prob", lambda l, z, x: D(l).Bernoulli(logits=z).log_prob(x), real,
        In((3,), values=lambda r: np.array([0.0, 1.0, 1.0]), grad=False))
    add("Bernoulli.probs.entropy", lambda l, p: D(l).Bernoulli(probs=p).entropy(), unit)
    add("Bernoulli.logits.entropy", lambda l, z: D(l).Bernoulli(logits=z).entropy(), real)
    add("Bernoulli.variance", lambda l, p: D(l).Bernoulli(probs=p).variance, unit)
    add("Bernoulli.logits_from_probs", lambda l, p: D(l).Bernoulli(probs=p).logits, unit)
    add("Bernoulli.probs_from_logits", lambda l, z: D(l).Bernoulli(logits=z).probs, real)
    # Categorical
    add("Categorical.probs.log_prob", lambda l, p, x: D(l).Categorical(probs=p).log_prob(x),
        In((2, 4), values=_simplex((2, 4))), In((3, 2), dtype=np.int64, low=0, high=4, grad=False))
    add("Categorical.logits.log_prob", lambda l, z, x: D(l).Categorical(logits=z).log_prob(x), In((2, 4)),
        In((2,), dtype=np.int64, low=0, high=4, grad=False))
    add("Categorical.probs.entropy", lambda l, p: D(l).Categorical(probs=p).entropy(), In((2, 4), **POS))
    add("Categorical.logits.entropy", lambda l, z: D(l).Categorical(logits=z).entropy(), In((2, 4)))
    add("Categorical.logits.probs", lambda l, z: D(l).Categorical(logits=z).probs, In((2, 4)))
    # Uniform
    lo, hi = In((3,), low=-2.0, high=-1.0), In((3,), low=1.0, high=2.0)
    add("Uniform.log_prob", lambda l, a, b, x: D(l).Uniform(a, b).log_prob(x), lo, hi,
        In((3,), low=-0.9, high=0.9, grad=False))
    add("Uniform.cdf", lambda l, a, b, x: D(l).Uniform(a, b).cdf(x), lo, hi, In((3,), low=-0.9, high=0.9))
    add("Uniform.icdf", lambda l, a, b, q: D(l).Uniform(a, b).icdf(q), lo, hi, unit)
    add("Uniform.entropy", lambda l, a, b: D(l).Uniform(a, b).entropy(), lo, hi)
    add("Uniform.mean_variance", lambda l, a, b: D(l).Uniform(a, b).mean * D(l).Uniform(a, b).variance, lo, hi)
    add("Uniform.stddev", lambda l, a, b: D(l).Uniform(a, b).stddev, lo, hi)
    # Exponential
    add("Exponential.log_prob", lambda l, r, x: D(l).Exponential(r).log_prob(x), pos, In((3,), **POS))
    add("Exponential.cdf", lambda l, r, x: D(l).Exponential(r).cdf(x), pos, In((3,), **POS))
    add("Exponential.icdf", lambda l, r, q: D(l).Exponential(r).icdf(q), pos, unit)
    add("Exponential.entropy", lambda l, r: D(l).Exponential(r).entropy(), pos)
    add("Exponential.mean_variance", lambda l, r: D(l).Exponential(r).mean + D(l).Exponential(r).variance, pos)
    # Laplace
    near = In((3,), low=-0.5, high=0.5)  # loc; the values below stay away from the kink at x == loc
    far = In((3,), values=lambda r: np.array([1.5, -1.5, 2.0]))
    add("Laplace.log_prob", lambda l, m, s, x: D(l).Laplace(m, s).log_prob(x), near, pos, far)
    add("Laplace.cdf", lambda l, m, s, x: D(l).Laplace(m, s).cdf(x), near, pos, far)
    add("Laplace.icdf", lambda l, m, s, q: D(l).Laplace(m, s).icdf(q), real, pos,
        In((3,), values=lambda r: np.array([0.1, 0.3, 0.8])))
    add("Laplace.entropy", lambda l, m, s: D(l).Laplace(m, s).entropy(), unused, pos)
    add("Laplace.variance_stddev", lambda l, m, s: D(l).Laplace(m, s).variance + D(l).Laplace(m, s).stddev, unused, pos)
    # Cauchy
    add("Cauchy.log_prob", lambda l, m, s, x: D(l).Cauchy(m, s).log_prob(x), real, pos, real)
    add("Cauchy.cdf", lambda l, m, s, x: D(l).Cauchy(m, s).cdf(x), real, pos, real)
    add("Cauchy.icdf", lambda l, m, s, q: D(l).Cauchy(m, s).icdf(q), real, pos, In((3,), low=0.1, high=0.9))
    add("Cauchy.entropy", lambda l, m, s: D(l).Cauchy(m, s).entropy(), unused, pos)
    # Gumbel
    add("Gumbel.log_prob", lambda l, m, s, x: D(l).Gumbel(m, s).log_prob(x), real, pos, real)
    add("Gumbel.cdf", lambda l, m, s, x: D(l).Gumbel(m, s).cdf(x), real, pos, real)
    add("Gumbel.icdf", lambda l, m, s, q: D(l).Gumbel(m, s).icdf(q), real, pos, unit)
    add("Gumbel.entropy", lambda l, m, s: D(l).Gumbel(m, s).entropy(), unused, pos)
    add("Gumbel.mean_variance", lambda l, m, s: D(l).Gumbel(m, s).mean + D(l).Gumbel(m, s).variance, real, pos)
    # LogNormal (a TransformedDistribution)
    add("LogNormal.log_prob", lambda l, m, s, x: D(l).LogNormal(m, s).log_prob(x), real, pos, In((3,), **POS))
    add("LogNormal.cdf", lambda l, m, s, x: D(l).LogNormal(m, s).cdf(x), real, pos, In((3,), **POS))
    add("LogNormal.icdf", lambda l, m, s, q: D(l).LogNormal(m, s).icdf(q), real, pos, unit)
    add("LogNormal.entropy", lambda l, m, s: D(l).LogNormal(m, s).entropy(), real, pos)
    add("LogNormal.moments", lambda l, m, s: D(l).LogNormal(m, s).mean + D(l).LogNormal(m, s).variance
        + D(l).LogNormal(m, s).mode, real, In((3,), low=0.3, high=1.0))
    # Independent
    add("Independent.log_prob", lambda l, m, s, x: D(l).Independent(D(l).Normal(m, s), 1).log_prob(x),
        In((2, 3)), In((2, 3), **POS), In((2, 3)))
    add("Independent.entropy", lambda l, m, s: D(l).Independent(D(l).Normal(m, s), 2).entropy(),
        In((2, 3), grad=False), In((2, 3), **POS))
    # Transforms and TransformedDistribution
    T = lambda lib: lib.distributions.transforms  # noqa: E731
    add("ExpTransform.log_abs_det_jacobian", lambda l, x: T(l).ExpTransform().log_abs_det_jacobian(x, x.exp()), real)
    add("SigmoidTransform.call_ladj", lambda l, x: T(l).SigmoidTransform()(x)
        + T(l).SigmoidTransform().log_abs_det_jacobian(x, x.sigmoid()), real)
    add("SigmoidTransform.inv", lambda l, y: T(l).SigmoidTransform().inv(y), unit)
    add("TanhTransform.call_ladj", lambda l, x: T(l).TanhTransform()(x)
        + T(l).TanhTransform().log_abs_det_jacobian(x, x.tanh()), real)
    add("TanhTransform.inv", lambda l, y: T(l).TanhTransform().inv(y), In((3,), low=-0.9, high=0.9))
    add("AffineTransform.call_ladj", lambda l, a, b, x: T(l).AffineTransform(a, b)(x)
        + T(l).AffineTransform(a, b).log_abs_det_jacobian(x, x), real, In((3,), nonzero=True), real)
    add("AffineTransform.event_dim", lambda l, a, b, x: T(l).AffineTransform(a, b, event_dim=1)
        .log_abs_det_jacobian(x, x), unused, In((3,), nonzero=True), In((2, 3), grad=False))
    add("SoftplusTransform.call_ladj_inv", lambda l, x: T(l).SoftplusTransform()(x)
        + T(l).SoftplusTransform().log_abs_det_jacobian(x, x) + T(l).SoftplusTransform().inv(x.exp()), real)
    add("PowerTransform.call_ladj", lambda l, e, x: T(l).PowerTransform(e)(x)
        + T(l).PowerTransform(e).log_abs_det_jacobian(x, x.pow(e)), pos, In((3,), **POS))
    add("ComposeTransform.ladj", lambda l, a, x: T(l).ComposeTransform(
        [T(l).AffineTransform(0.5, a), T(l).TanhTransform(), T(l).AffineTransform(1.0, 2.0)])
        .log_abs_det_jacobian(x, T(l).ComposeTransform([T(l).AffineTransform(0.5, a), T(l).TanhTransform(),
                                                        T(l).AffineTransform(1.0, 2.0)])(x)), pos, real)
    add("ComposeTransform.inv_ladj", lambda l, y: T(l).ComposeTransform([T(l).ExpTransform(),
        T(l).AffineTransform(1.0, 3.0)]).inv.log_abs_det_jacobian(y, y), In((3,), low=1.5, high=4.0))
    add("IndependentTransform.ladj", lambda l, x: T(l).IndependentTransform(T(l).ExpTransform(), 1)
        .log_abs_det_jacobian(x, x.exp()), In((2, 3)))
    add("TransformedDistribution.tanh_normal", lambda l, m, s, y: D(l).TransformedDistribution(
        D(l).Normal(m, s), [T(l).TanhTransform(), T(l).AffineTransform(0.0, 2.0)]).log_prob(y), real, pos,
        In((3,), low=-1.5, high=1.5))
    add("TransformedDistribution.sigmoid_cdf", lambda l, m, s, y: D(l).TransformedDistribution(
        D(l).Normal(m, s), [T(l).SigmoidTransform(), T(l).AffineTransform(0.0, -1.0)]).cdf(y), real, pos,
        In((3,), low=-0.9, high=-0.1))
    add("TransformedDistribution.event", lambda l, m, s, y: D(l).TransformedDistribution(
        D(l).Normal(m, s), [T(l).IndependentTransform(T(l).ExpTransform(), 1)]).log_prob(y), In((2, 3)),
        In((2, 3), **POS), In((2, 3), **POS))
    # Poisson, Binomial, Multinomial, OneHotCategorical
    counts = In((3,), values=lambda r: np.array([0.0, 2.0, 5.0]), grad=False)
    add("Poisson.log_prob", lambda l, r, x: D(l).Poisson(r).log_prob(x), pos, counts)
    add("Poisson.moments", lambda l, r: D(l).Poisson(r).mean * D(l).Poisson(r).variance, pos)
    # ExponentialFamily's Bregman-divergence entropy (what a subclass without a closed form falls back on)
    add("ExponentialFamily.entropy.Normal", lambda l, m, s: D(l).ExponentialFamily.entropy(D(l).Normal(m, s)),
        In((3,), grad=False), In((3,), grad=False, **POS), fd=False)
    add("ExponentialFamily.entropy.Exponential", lambda l, r: D(l).ExponentialFamily.entropy(D(l).Exponential(r)),
        In((3,), grad=False, **POS), fd=False)
    add("Binomial.probs.log_prob", lambda l, p, x: D(l).Binomial(5, probs=p).log_prob(x), unit, counts)
    add("Binomial.logits.log_prob", lambda l, z, x: D(l).Binomial(l.tensor([5.0, 6.0, 7.0], dtype=z.dtype),
                                                                    logits=z).log_prob(x), real, counts)
    add("Binomial.entropy", lambda l, p: D(l).Binomial(4, probs=p).entropy(), unit)
    add("Binomial.moments", lambda l, p: D(l).Binomial(4, probs=p).mean + D(l).Binomial(4, probs=p).variance, unit)
    add("Binomial.mode", lambda l, p: D(l).Binomial(4, probs=p).mode, unit, fd=False)
    mcounts = In((2, 3), values=lambda r: np.array([[0.0, 1.0, 3.0], [2.0, 2.0, 0.0]]), grad=False)
    add("Multinomial.probs.log_prob", lambda l, p, x: D(l).Multinomial(4, probs=p).log_prob(x),
        In((3,), values=_simplex((3,))), mcounts)
    add("Multinomial.logits.log_prob", lambda l, z, x: D(l).Multinomial(4, logits=z).log_prob(x), In((2, 3)),
        mcounts)
    add("Multinomial.entropy", lambda l, p: D(l).Multinomial(3, probs=p).entropy(), In((2, 3), **POS))
    add("Multinomial.moments", lambda l, z: D(l).Multinomial(3, logits=z).mean
        + D(l).Multinomial(3, logits=z).variance, In((2, 3)))
    onehot = In((2, 3), values=lambda r: np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), grad=False)
    add("OneHotCategorical.log_prob", lambda l, p, x: D(l).OneHotCategorical(probs=p).log_prob(x),
        In((2, 3), values=_simplex((2, 3))), onehot)
    add("OneHotCategorical.entropy", lambda l, z: D(l).OneHotCategorical(logits=z).entropy(), In((2, 3)))
    add("OneHotCategorical.moments", lambda l, z: D(l).OneHotCategorical(logits=z).mean
        + D(l).OneHotCategorical(logits=z).variance + D(l).OneHotCategorical(logits=z).mode, In((2, 3)))
    # MultivariateNormal: parameters built from an unconstrained matrix so finite differences stay valid
    tril = In((2, 3, 3), values=lambda r: np.tril(r.uniform(-0.5, 0.5, (2, 3, 3))) + 1.5 * np.eye(3))
    mat = In((3, 3), values=lambda r: r.uniform(-0.5, 0.5, (3, 3)) + np.eye(3))
    loc3, x3 = In((2, 3)), In((4, 2, 3))

    def cov(l, a):
        return a @ a.mT + 0.5 * l.eye(3, dtype=a.dtype)

    MVN = lambda l: l.distributions.MultivariateNormal  # noqa: E731
    add("MultivariateNormal.scale_tril.log_prob", lambda l, m, a, x: MVN(l)(m, scale_tril=a.tril()).log_prob(x),
        loc3, tril, x3)
    add("MultivariateNormal.covariance.log_prob", lambda l, m, a, x: MVN(l)(m, covariance_matrix=cov(l, a))
        .log_prob(x), loc3, mat, x3)
    add("MultivariateNormal.precision.log_prob", lambda l, m, a, x: MVN(l)(m, precision_matrix=cov(l, a))
        .log_prob(x), loc3, mat, x3)
    add("MultivariateNormal.entropy", lambda l, a: MVN(l)(l.zeros(3, dtype=a.dtype), covariance_matrix=cov(l, a))
        .entropy(), mat)
    add("MultivariateNormal.variance", lambda l, a: MVN(l)(l.zeros(2, 3, dtype=a.dtype), scale_tril=a.tril())
        .variance, tril)
    add("MultivariateNormal.covariance_from_precision", lambda l, a: MVN(l)(l.zeros(3, dtype=a.dtype),
        precision_matrix=cov(l, a)).covariance_matrix, mat)
    add("MultivariateNormal.precision_from_tril", lambda l, a: MVN(l)(l.zeros(3, dtype=a.dtype),
        scale_tril=a.tril()).precision_matrix, tril)
    add("MultivariateNormal.scale_tril_from_precision", lambda l, a: MVN(l)(l.zeros(3, dtype=a.dtype),
        precision_matrix=cov(l, a)).scale_tril, mat)
    # kl_divergence
    KL = lambda l: l.distributions.kl_divergence  # noqa: E731
    add("kl.Normal.Normal", lambda l, a, b, c, d: KL(l)(D(l).Normal(a, b), D(l).Normal(c, d)), real, pos, real, pos)
    add("kl.Bernoulli.Bernoulli", lambda l, p, q: KL(l)(D(l).Bernoulli(probs=p), D(l).Bernoulli(probs=q)),
        unit, unit)
    add("kl.Bernoulli.logits", lambda l, p, q: KL(l)(D(l).Bernoulli(logits=p), D(l).Bernoulli(logits=q)),
        real, real)
    add("kl.Categorical.Categorical", lambda l, p, q: KL(l)(D(l).Categorical(logits=p), D(l).Categorical(logits=q)),
        In((2, 4)), In((2, 4)))
    add("kl.OneHotCategorical", lambda l, p, q: KL(l)(D(l).OneHotCategorical(probs=p),
                                                      D(l).OneHotCategorical(probs=q)),
        In((2, 4), **POS), In((2, 4), **POS))
    add("kl.Uniform.Uniform", lambda l, a, b, c, d: KL(l)(D(l).Uniform(a, b), D(l).Uniform(c, d)),
        In((3,), low=-1.0, high=-0.5), In((3,), low=0.5, high=1.0), In((3,), low=-2.0, high=-1.5),
        In((3,), low=1.5, high=2.0))
    add("kl.Uniform.Uniform_inf", lambda l, a, b: KL(l)(D(l).Uniform(a, b), D(l).Uniform(a.detach() + 0.1, b)),
        In((3,), low=-1.0, high=-0.5), In((3,), low=0.5, high=1.0), fd=False)
    add("kl.Exponential.Exponential", lambda l, a, b: KL(l)(D(l).Exponential(a), D(l).Exponential(b)), pos, pos)
    add("kl.Laplace.Laplace", lambda l, a, b, c, d: KL(l)(D(l).Laplace(a, b), D(l).Laplace(c, d)),
        real, pos, real, pos)
    add("kl.Gumbel.Gumbel", lambda l, a, b, c, d: KL(l)(D(l).Gumbel(a, b), D(l).Gumbel(c, d)), real, pos, real, pos)
    add("kl.Cauchy.Cauchy", lambda l, a, b, c, d: KL(l)(D(l).Cauchy(a, b), D(l).Cauchy(c, d)), real, pos, real, pos)
    add("kl.Poisson.Poisson", lambda l, a, b: KL(l)(D(l).Poisson(a), D(l).Poisson(b)), pos, pos)
    add("kl.Binomial.Binomial", lambda l, a, b: KL(l)(D(l).Binomial(5, a), D(l).Binomial(5, b)), unit, unit)
    add("kl.Uniform.Normal", lambda l, a, b, c, d: KL(l)(D(l).Uniform(a, b), D(l).Normal(c, d)),
        In((3,), low=-1.0, high=-0.5), In((3,), low=0.5, high=1.0), real, pos)
    add("kl.Normal.Laplace", lambda l, a, b, c, d: KL(l)(D(l).Normal(a, b), D(l).Laplace(c, d)), real, pos, real, pos)
    add("kl.Exponential.Normal", lambda l, a, c, d: KL(l)(D(l).Exponential(a), D(l).Normal(c, d)), pos, real, pos)
    add("kl.MultivariateNormal", lambda l, m1, a, m2, b: KL(l)(MVN(l)(m1, scale_tril=a.tril()),
                                                               MVN(l)(m2, covariance_matrix=cov(l, b))),
        loc3, tril, In((3,)), mat)
    add("kl.Independent.Independent", lambda l, a, b, c, d: KL(l)(D(l).Independent(D(l).Normal(a, b), 1),
                                                                   D(l).Independent(D(l).Normal(c, d), 1)),
        In((2, 3)), In((2, 3), **POS), In((2, 3)), In((2, 3), **POS))
    add("kl.LogNormal.LogNormal", lambda l, a, b, c, d: KL(l)(D(l).LogNormal(a, b), D(l).LogNormal(c, d)),
        real, pos, real, pos)
    # Gamma, Chi2, Beta, Dirichlet
    conc = In((3,), low=0.5, high=3.0)
    add("Gamma.log_prob", lambda l, a, r, x: D(l).Gamma(a, r).log_prob(x), conc, pos, In((3,), **POS))
    add("Gamma.entropy", lambda l, a, r: D(l).Gamma(a, r).entropy(), conc, pos)
    add("Gamma.moments", lambda l, a, r: D(l).Gamma(a, r).mean + D(l).Gamma(a, r).variance
        + D(l).Gamma(a, r).mode, In((3,), low=1.5, high=3.0), pos)
    add("Gamma.cdf", lambda l, a, r, x: D(l).Gamma(a, r).cdf(x), In((3,), low=0.5, high=3.0, grad=False), pos,
        In((3,), **POS))  # torch has no gradient of gammainc w.r.t. its first argument
    add("Chi2.log_prob", lambda l, k, x: D(l).Chi2(k).log_prob(x), In((3,), low=1.0, high=5.0), In((3,), **POS))
    add("Chi2.entropy", lambda l, k: D(l).Chi2(k).entropy() + D(l).Chi2(k).df, In((3,), low=1.0, high=5.0))
    add("Beta.log_prob", lambda l, a, b, x: D(l).Beta(a, b).log_prob(x), conc, conc, unit)
    add("Beta.entropy", lambda l, a, b: D(l).Beta(a, b).entropy(), conc, conc)
    add("Beta.moments", lambda l, a, b: D(l).Beta(a, b).mean + D(l).Beta(a, b).variance
        + D(l).Beta(a, b).mode, In((3,), low=1.5, high=3.0), In((3,), low=1.5, high=3.0))
    add("Dirichlet.log_prob", lambda l, a, z: D(l).Dirichlet(a).log_prob(z.softmax(-1)),
        In((2, 3), low=0.5, high=3.0), In((2, 3)))  # the value on the simplex for any perturbation of z
    add("Dirichlet.entropy", lambda l, a: D(l).Dirichlet(a).entropy(), In((2, 3), low=0.5, high=3.0))
    add("Dirichlet.moments", lambda l, a: D(l).Dirichlet(a).mean + D(l).Dirichlet(a).variance
        + D(l).Dirichlet(a).mode, In((2, 3), low=1.5, high=3.0))
    add("Dirichlet.mode_below_one", lambda l, a: D(l).Dirichlet(a).mode,
        In((2, 3), values=lambda r: np.array([[0.5, 0.9, 0.3], [2.0, 0.5, 3.0]])), fd=False)
    add("kl.Gamma.Gamma", lambda l, a, b, c, d: KL(l)(D(l).Gamma(a, b), D(l).Gamma(c, d)), conc, pos, conc, pos)
    add("kl.Beta.Beta", lambda l, a, b, c, d: KL(l)(D(l).Beta(a, b), D(l).Beta(c, d)), conc, conc, conc, conc)
    add("kl.Dirichlet.Dirichlet", lambda l, a, b: KL(l)(D(l).Dirichlet(a), D(l).Dirichlet(b)),
        In((2, 3), low=0.5, high=3.0), In((2, 3), low=0.5, high=3.0))
    add("kl.Exponential.Gamma", lambda l, r, a, b: KL(l)(D(l).Exponential(r), D(l).Gamma(a, b)), pos, conc, pos)
    # HalfNormal, HalfCauchy, Pareto, Weibull, Geometric, StudentT
    add("HalfNormal.log_prob", lambda l, s, x: D(l).HalfNormal(s).log_prob(x), pos, In((3,), **POS))
    add("HalfNormal.cdf_icdf", lambda l, s, x, q: D(l).HalfNormal(s).cdf(x) + D(l).HalfNormal(s).icdf(q), pos,
        In((3,), **POS), unit)
    add("HalfNormal.entropy_moments", lambda l, s: D(l).HalfNormal(s).entropy() + D(l).HalfNormal(s).mean
        + D(l).HalfNormal(s).variance, pos)
    add("HalfCauchy.log_prob", lambda l, s, x: D(l).HalfCauchy(s).log_prob(x), pos, In((3,), **POS))
    add("HalfCauchy.cdf_icdf", lambda l, s, x, q: D(l).HalfCauchy(s).cdf(x) + D(l).HalfCauchy(s).icdf(q), pos,
        In((3,), **POS), unit)
    add("HalfCauchy.entropy", lambda l, s: D(l).HalfCauchy(s).entropy(), pos)
    add("Pareto.log_prob", lambda l, s, a, x: D(l).Pareto(s, a).log_prob(x), pos, In((3,), low=2.5, high=4.0),
        In((3,), low=2.1, high=3.0))
    add("Pareto.cdf_icdf", lambda l, s, a, x, q: D(l).Pareto(s, a).cdf(x) + D(l).Pareto(s, a).icdf(q), pos,
        pos, In((3,), low=2.1, high=3.0), unit)
    add("Pareto.entropy_moments", lambda l, s, a: D(l).Pareto(s, a).entropy() + D(l).Pareto(s, a).mean
        + D(l).Pareto(s, a).variance, pos, In((3,), low=2.5, high=4.0))
    add("Weibull.log_prob", lambda l, s, k, x: D(l).Weibull(s, k).log_prob(x), pos, pos, In((3,), **POS))
    add("Weibull.cdf_icdf", lambda l, s, k, x, q: D(l).Weibull(s, k).cdf(x) + D(l).Weibull(s, k).icdf(q), pos, pos,
        In((3,), **POS), unit)
    add("Weibull.entropy_moments", lambda l, s, k: D(l).Weibull(s, k).entropy() + D(l).Weibull(s, k).mean
        + D(l).Weibull(s, k).variance + D(l).Weibull(s, k).mode, pos, In((3,), low=1.5, high=3.0))
    add("Geometric.probs.log_prob", lambda l, p, x: D(l).Geometric(probs=p).log_prob(x), unit, counts)
    add("Geometric.logits.log_prob", lambda l, z, x: D(l).Geometric(logits=z).log_prob(x), real, counts)
    add("Geometric.entropy_moments", lambda l, p: D(l).Geometric(probs=p).entropy() + D(l).Geometric(probs=p).mean
        + D(l).Geometric(probs=p).variance, unit)
    add("StudentT.log_prob", lambda l, k, m, s, x: D(l).StudentT(k, m, s).log_prob(x), In((3,), low=1.0, high=5.0),
        real, pos, real)
    add("StudentT.entropy", lambda l, k, m, s: D(l).StudentT(k, m, s).entropy(), In((3,), low=1.0, high=5.0),
        In((3,), grad=False), pos)
    add("StudentT.moments", lambda l, k, m, s: D(l).StudentT(k, m, s).mean + D(l).StudentT(k, m, s).variance,
        In((3,), values=lambda r: np.array([0.5, 1.5, 4.0]), grad=False), real, pos, fd=False)
    # vector and matrix transforms
    add("StickBreakingTransform.call_ladj", lambda l, x: T(l).StickBreakingTransform()(x).sum(-1, keepdim=True)
        * T(l).StickBreakingTransform().log_abs_det_jacobian(x, T(l).StickBreakingTransform()(x)).unsqueeze(-1)
        + T(l).StickBreakingTransform()(x)[..., :3], In((2, 3)))
    add("StickBreakingTransform.inv", lambda l, z: T(l).StickBreakingTransform().inv(z.softmax(-1)), In((2, 4)))
    add("SoftmaxTransform.call_inv", lambda l, x: T(l).SoftmaxTransform()(x)
        + T(l).SoftmaxTransform().inv(x.softmax(-1)), In((2, 4)))
    add("LowerCholeskyTransform.call_inv", lambda l, x: T(l).LowerCholeskyTransform()(x)
        + T(l).LowerCholeskyTransform().inv(T(l).LowerCholeskyTransform()(x)), In((2, 3, 3)))
    add("PositiveDefiniteTransform.call_inv", lambda l, x: T(l).PositiveDefiniteTransform()(x)
        + T(l).PositiveDefiniteTransform().inv(T(l).PositiveDefiniteTransform()(x)), In((2, 3, 3)))
    add("CatTransform.call_ladj", lambda l, x: T(l).CatTransform([T(l).ExpTransform(), T(l).AffineTransform(1.0, 2.0)],
                                                                 1, [1, 2]).log_abs_det_jacobian(x, x)
        + T(l).CatTransform([T(l).ExpTransform(), T(l).AffineTransform(1.0, 2.0)], 1, [1, 2])(x), In((2, 3)))
    add("StackTransform.call_ladj", lambda l, x: T(l).StackTransform([T(l).TanhTransform(), T(l).ExpTransform()], 0)
        .log_abs_det_jacobian(x, T(l).StackTransform([T(l).TanhTransform(), T(l).ExpTransform()], 0)(x))
        + T(l).StackTransform([T(l).TanhTransform(), T(l).ExpTransform()], 0)(x), In((2, 3)))
    add("ReshapeTransform.call", lambda l, x: T(l).ReshapeTransform((2, 3), (3, 2))(x).exp(), In((4, 2, 3)))
    add("CumulativeDistributionTransform.call_ladj", lambda l, m, s, x: T(l).CumulativeDistributionTransform(
        D(l).Normal(m, s))(x) + T(l).CumulativeDistributionTransform(D(l).Normal(m, s)).log_abs_det_jacobian(x, x),
        real, pos, real)
    add("biject_to.interval", lambda l, x: D(l).biject_to(D(l).constraints.interval(-1.0, 3.0))(x)
        + D(l).biject_to(D(l).constraints.interval(-1.0, 3.0)).log_abs_det_jacobian(x, x), real)
    add("transform_to.greater_than", lambda l, x: D(l).transform_to(D(l).constraints.greater_than(2.0))(x), real)
    add("biject_to.simplex.ladj", lambda l, x: D(l).biject_to(D(l).constraints.simplex).log_abs_det_jacobian(
        x, D(l).biject_to(D(l).constraints.simplex)(x)), In((2, 3)))
    # InverseGamma, LogisticNormal, relaxed distributions
    add("InverseGamma.log_prob", lambda l, a, r, x: D(l).InverseGamma(a, r).log_prob(x), conc, pos, In((3,), **POS))
    add("InverseGamma.entropy", lambda l, a, r: D(l).InverseGamma(a, r).entropy(), conc, pos)
    add("InverseGamma.moments", lambda l, a, r: D(l).InverseGamma(a, r).mean + D(l).InverseGamma(a, r).variance
        + D(l).InverseGamma(a, r).mode, In((3,), values=lambda r: np.array([2.5, 3.0, 4.0])), pos)
    add("InverseGamma.moments_infinite", lambda l, a, r: D(l).InverseGamma(a, r).mean
        + D(l).InverseGamma(a, r).variance, In((3,), values=lambda r: np.array([0.5, 1.5, 4.0])), pos, fd=False)
    add("LogisticNormal.log_prob", lambda l, m, s, z: D(l).LogisticNormal(m, s).log_prob(z.softmax(-1)), In((2, 3)),
        In((2, 3), **POS), In((2, 4)))
    add("RelaxedBernoulli.log_prob", lambda l, t, p, x: D(l).RelaxedBernoulli(t, probs=p).log_prob(x),
        In((), low=0.3, high=2.0), unit, unit)
    add("RelaxedBernoulli.logits.log_prob", lambda l, t, z, x: D(l).RelaxedBernoulli(t, logits=z).log_prob(x),
        In((3,), low=0.3, high=2.0), real, unit)
    add("RelaxedOneHotCategorical.log_prob", lambda l, t, p, z: D(l).RelaxedOneHotCategorical(t, probs=p)
        .log_prob(z.softmax(-1)), In((), low=0.3, high=2.0), In((2, 3), values=_simplex((2, 3))), In((2, 3)))
    add("RelaxedOneHotCategorical.logits.log_prob", lambda l, t, q, z: D(l).RelaxedOneHotCategorical(t, logits=q)
        .log_prob(z.softmax(-1)), In((), low=0.3, high=2.0), In((2, 3)), In((2, 3)))
    # FisherSnedecor, NegativeBinomial, Kumaraswamy, MixtureSameFamily
    dfs = In((3,), low=5.0, high=9.0)
    add("FisherSnedecor.log_prob", lambda l, a, b, x: D(l).FisherSnedecor(a, b).log_prob(x), dfs, dfs, In((3,), **POS))
    add("FisherSnedecor.moments", lambda l, a, b: D(l).FisherSnedecor(a, b).mean + D(l).FisherSnedecor(a, b).variance
        + D(l).FisherSnedecor(a, b).mode, dfs, dfs)
    add("FisherSnedecor.moments_nan", lambda l, a, b: D(l).FisherSnedecor(a, b).mean
        + D(l).FisherSnedecor(a, b).variance + D(l).FisherSnedecor(a, b).mode,
        In((3,), values=lambda r: np.array([1.0, 3.0, 6.0])), In((3,), values=lambda r: np.array([1.5, 3.0, 6.0])),
        fd=False)
    add("NegativeBinomial.probs.log_prob", lambda l, n, p, x: D(l).NegativeBinomial(n, probs=p).log_prob(x),
        In((3,), low=0.5, high=4.0), unit, counts)
    add("NegativeBinomial.logits.log_prob", lambda l, n, z, x: D(l).NegativeBinomial(n, logits=z).log_prob(x),
        In((3,), low=0.5, high=4.0), real, counts)
    add("NegativeBinomial.moments", lambda l, n, p: D(l).NegativeBinomial(n, probs=p).mean
        + D(l).NegativeBinomial(n, probs=p).variance, In((3,), low=0.5, high=4.0), unit)
    add("Kumaraswamy.log_prob", lambda l, a, b, x: D(l).Kumaraswamy(a, b).log_prob(x), conc, conc, unit)
    add("Kumaraswamy.entropy_moments", lambda l, a, b: D(l).Kumaraswamy(a, b).entropy() + D(l).Kumaraswamy(a, b).mean
        + D(l).Kumaraswamy(a, b).variance + D(l).Kumaraswamy(a, b).mode, In((3,), low=1.5, high=3.0),
        In((3,), low=1.5, high=3.0))
    add("MixtureSameFamily.log_prob", lambda l, z, m, s, x: D(l).MixtureSameFamily(
        D(l).Categorical(logits=z), D(l).Normal(m, s)).log_prob(x), In((2, 3)), In((2, 3)), In((2, 3), **POS),
        In((4, 2)))
    add("MixtureSameFamily.moments_cdf", lambda l, z, m, s, x: D(l).MixtureSameFamily(
        D(l).Categorical(logits=z), D(l).Normal(m, s)).cdf(x) + D(l).MixtureSameFamily(
        D(l).Categorical(logits=z), D(l).Normal(m, s)).mean + D(l).MixtureSameFamily(
        D(l).Categorical(logits=z), D(l).Normal(m, s)).variance, In((2, 3)), In((2, 3)), In((2, 3), **POS), In((2,)))
    add("MixtureSameFamily.event", lambda l, z, m, s, x: D(l).MixtureSameFamily(D(l).Categorical(logits=z),
        D(l).Independent(D(l).Normal(m, s), 1)).log_prob(x), In((3,)), In((3, 2)), In((3, 2), **POS), In((4, 2)))
    # LowRankMultivariateNormal (and its KL terms through MultivariateNormal's formulas)
    LR = lambda l: l.distributions.LowRankMultivariateNormal  # noqa: E731
    wf, dg = In((2, 3, 2), low=-1.0, high=1.0), In((2, 3), low=0.5, high=1.5)
    add("LowRankMultivariateNormal.log_prob", lambda l, m, w, d, x: LR(l)(m, w, d).log_prob(x), loc3, wf, dg, x3)
    add("LowRankMultivariateNormal.entropy_variance", lambda l, w, d: LR(l)(l.zeros(3, dtype=w.dtype), w, d)
        .entropy().unsqueeze(-1) + LR(l)(l.zeros(3, dtype=w.dtype), w, d).variance, wf, dg)
    add("LowRankMultivariateNormal.matrices", lambda l, w, d: LR(l)(l.zeros(3, dtype=w.dtype), w, d).scale_tril
        + LR(l)(l.zeros(3, dtype=w.dtype), w, d).covariance_matrix
        + LR(l)(l.zeros(3, dtype=w.dtype), w, d).precision_matrix, wf, dg)
    # GeneralizedPareto: positive, zero and negative concentration
    xi = In((3,), values=lambda r: np.array([0.3, 0.05, -0.2]))
    xi0 = In((3,), values=lambda r: np.zeros(3), grad=False)  # the exponential limit (no xi-gradient, as torch)
    # torch 2.13 compares concentration with a float32 zero in log_prob and icdf, which raises for float64
    # ("Double did not match Float"): those rows are compared in float32 only (finite differences cover float64)
    gp_loc, gp_x = In((3,), low=-0.5, high=0.0), In((3,), values=lambda r: np.array([0.5, 1.0, 1.5]))
    add("GeneralizedPareto.log_prob", lambda l, m, s, c, x: D(l).GeneralizedPareto(m, s, c).log_prob(x),
        gp_loc, pos, xi, gp_x, dtypes=(np.float32,))
    add("GeneralizedPareto.cdf_icdf", lambda l, m, s, c, x, q: D(l).GeneralizedPareto(m, s, c).cdf(x)
        + D(l).GeneralizedPareto(m, s, c).icdf(q), gp_loc, pos, xi, gp_x, unit, dtypes=(np.float32,))
    add("GeneralizedPareto.zero_concentration", lambda l, m, s, c, x, q: D(l).GeneralizedPareto(m, s, c).log_prob(x)
        + D(l).GeneralizedPareto(m, s, c).cdf(x) + D(l).GeneralizedPareto(m, s, c).icdf(q), gp_loc, pos, xi0, gp_x,
        unit, dtypes=(np.float32,))
    add("GeneralizedPareto.moments", lambda l, m, s, c: D(l).GeneralizedPareto(m, s, c).entropy()
        + D(l).GeneralizedPareto(m, s, c).mean + D(l).GeneralizedPareto(m, s, c).variance, real, pos,
        In((3,), values=lambda r: np.array([0.3, 0.1, -0.2])))
    add("GeneralizedPareto.moments_nan", lambda l, m, s, c: D(l).GeneralizedPareto(m, s, c).mean
        + D(l).GeneralizedPareto(m, s, c).variance, real, pos, In((3,), values=lambda r: np.array([1.5, 0.7, 0.2])),
        fd=False)
    # VonMises
    add("VonMises.log_prob", lambda l, m, k, x: D(l).VonMises(m, k).log_prob(x), real, In((3,), low=0.2, high=5.0),
        real)
    add("VonMises.variance", lambda l, m, k: D(l).VonMises(m, k).variance + D(l).VonMises(m, k).mean, real,
        In((3,), low=0.2, high=5.0))
    # ContinuousBernoulli: probs away from 1/2 (closed forms) and inside the Taylor window around 1/2
    cbp = In((3,), values=lambda r: np.array([0.1, 0.3, 0.8]))
    cbh = In((3,), values=lambda r: np.array([0.4995, 0.5, 0.5008]))
    CB = lambda l: l.distributions.ContinuousBernoulli  # noqa: E731
    for tag, p in (("", cbp), ("_near_half", cbh)):
        add(f"ContinuousBernoulli.log_prob{tag}", lambda l, p, x: CB(l)(probs=p).log_prob(x), p, unit)
        add(f"ContinuousBernoulli.cdf_icdf{tag}", lambda l, p, x, q: CB(l)(probs=p).cdf(x) + CB(l)(probs=p).icdf(q),
            p, unit, unit)
        add(f"ContinuousBernoulli.moments{tag}", lambda l, p: CB(l)(probs=p).mean + CB(l)(probs=p).variance
            + CB(l)(probs=p).entropy(), p)
    add("ContinuousBernoulli.logits.log_prob", lambda l, z, x: CB(l)(logits=z).log_prob(x), real, unit)
    # CorrCholeskyTransform and LKJCholesky
    add("CorrCholeskyTransform.call_ladj", lambda l, x: T(l).CorrCholeskyTransform()(x)
        + T(l).CorrCholeskyTransform().log_abs_det_jacobian(x, T(l).CorrCholeskyTransform()(x))[..., None, None],
        In((2, 6)))
    # the round trip passes tanh values near +-1 through atanh, which loses float32 digits: float64 only
    add("CorrCholeskyTransform.inv", lambda l, x: T(l).CorrCholeskyTransform().inv(T(l).CorrCholeskyTransform()(x)),
        In((2, 6)), dtypes=(np.float64,))
    add("LKJCholesky.log_prob", lambda l, c, x: D(l).LKJCholesky(4, c).log_prob(T(l).CorrCholeskyTransform()(x)),
        In((2,), low=0.5, high=3.0), In((3, 2, 6)))
    add("utils.tril_vec_roundtrip", lambda l, x: l.distributions.utils.vec_to_tril_matrix(
        l.distributions.utils.tril_matrix_to_vec(x, -1), -1), In((2, 4, 4)))
    return cases


CASES = _cases()
