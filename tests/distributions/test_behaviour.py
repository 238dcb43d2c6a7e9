"""Distribution behaviour beyond the formulas: shapes, argument and sample validation with PyTorch's messages,
constraints, lazy probs/logits, expand, enumerate_support, set_default_validate_args, and the lazy import."""
import subprocess
import sys

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

D = npgrad.distributions
C = D.constraints
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")


def test_distributions_load_lazily():
    code = "import sys, npgrad; assert 'npgrad.distributions' not in sys.modules; " \
           "d = npgrad.distributions; assert 'npgrad.distributions' in sys.modules; print(d.Normal.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "Normal"


def _message(lib, make):
    with pytest.raises(ValueError) as info:
        make(lib)
    return str(info.value)


PARAM_ERRORS = {
    "normal_scale": lambda l: l.distributions.Normal(l.tensor([0.0, 1.0, 2.0]), l.tensor([1.0, -1.0, 1.0])),
    "normal_nan_loc": lambda l: l.distributions.Normal(l.tensor([0.0, float("nan")]), 1.0),
    "bernoulli_probs": lambda l: l.distributions.Bernoulli(probs=l.tensor([0.2, 1.5])),
    "bernoulli_both": lambda l: l.distributions.Bernoulli(probs=l.tensor(0.2), logits=l.tensor(0.1)),
    "categorical_simplex": lambda l: l.distributions.Categorical(probs=l.tensor([[0.2, -0.5, 0.3]])),
    "categorical_scalar": lambda l: l.distributions.Categorical(logits=l.tensor(1.0)),
    "uniform_order": lambda l: l.distributions.Uniform(l.tensor([0.0, 2.0]), l.tensor([1.0, 1.0])),
    "exponential_rate": lambda l: l.distributions.Exponential(l.tensor([0.0])),
    "laplace_scale": lambda l: l.distributions.Laplace(0.0, l.tensor([-1.0])),
    "lognormal_scale": lambda l: l.distributions.LogNormal(0.0, l.tensor([-1.0])),
    "normal_log_prob_shape": lambda l: l.distributions.Normal(l.zeros(3), 1.0).log_prob(l.zeros(2)),
    "bernoulli_support": lambda l: l.distributions.Bernoulli(probs=l.tensor(0.5)).log_prob(l.tensor(0.3)),
    "exponential_support": lambda l: l.distributions.Exponential(l.tensor([1.0])).log_prob(l.tensor([-1.0])),
    "categorical_support": lambda l: l.distributions.Categorical(logits=l.zeros(3)).log_prob(l.tensor(3)),
    "not_a_tensor": lambda l: l.distributions.Normal(0.0, 1.0).log_prob(0.5),
    "geometric_zero": lambda l: l.distributions.Geometric(probs=l.tensor([0.0, 0.5])),
    "pareto_support": lambda l: l.distributions.Pareto(l.tensor([2.0]), 1.0).log_prob(l.tensor([1.0])),
    "mixture_not_categorical": lambda l: l.distributions.MixtureSameFamily(l.distributions.Normal(0.0, 1.0),
                                                                           l.distributions.Normal(l.zeros(2), 1.0)),
    "mixture_components": lambda l: l.distributions.MixtureSameFamily(l.distributions.Categorical(logits=l.zeros(3)),
                                                                      l.distributions.Normal(l.zeros(2), 1.0)),
    "lowrank_factor_shape": lambda l: l.distributions.LowRankMultivariateNormal(l.zeros(3), l.ones(2, 1), l.ones(3)),
    "lowrank_diag_shape": lambda l: l.distributions.LowRankMultivariateNormal(l.zeros(3), l.ones(3, 1), l.ones(2)),
    "lowrank_batch": lambda l: l.distributions.LowRankMultivariateNormal(l.zeros(2, 3), l.ones(4, 3, 1), l.ones(3)),
    "continuous_bernoulli_probs": lambda l: l.distributions.ContinuousBernoulli(probs=l.tensor([1.5]),
                                                                                validate_args=True),
    "lkj_dim": lambda l: l.distributions.LKJCholesky(1, 1.0),
    "independent_ndims": lambda l: l.distributions.Independent(l.distributions.Normal(l.zeros(2), 1.0), 2),
}


@pytest.mark.parametrize("name", sorted(PARAM_ERRORS))
def test_errors_raise_value_error(name):
    msg = _message(npgrad, PARAM_ERRORS[name])
    assert msg
    if HAS_TORCH:
        assert msg == _message(torch, PARAM_ERRORS[name])


def test_error_message_text():
    msg = _message(npgrad, PARAM_ERRORS["normal_scale"])
    assert msg.startswith("Expected parameter scale (Tensor of shape (3,)) of distribution Normal(loc: "
                          "torch.Size([3]), scale: torch.Size([3])) to satisfy the constraint "
                          "GreaterThan(lower_bound=0.0), but found invalid values:\n")


def test_validate_args_false_and_default_switch():
    D.Normal(npgrad.tensor([0.0]), npgrad.tensor([-1.0]), validate_args=False)  # no error
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(npgrad.tensor([0.0]), npgrad.tensor([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(npgrad.tensor([0.0]), npgrad.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


SHAPES = {
    "Normal": lambda l: l.distributions.Normal(l.zeros(2, 3), 1.0),
    "Bernoulli": lambda l: l.distributions.Bernoulli(logits=l.zeros(4)),
    "Categorical": lambda l: l.distributions.Categorical(probs=l.ones(2, 5)),
    "Uniform": lambda l: l.distributions.Uniform(0.0, l.ones(3)),
    "Exponential": lambda l: l.distributions.Exponential(l.ones(3)),
    "Laplace": lambda l: l.distributions.Laplace(0.0, 1.0),
    "Cauchy": lambda l: l.distributions.Cauchy(l.zeros(2), 1.0),
    "Gumbel": lambda l: l.distributions.Gumbel(l.zeros(2), 2.0),
    "LogNormal": lambda l: l.distributions.LogNormal(l.zeros(2), 1.0),
    "Independent": lambda l: l.distributions.Independent(l.distributions.Normal(l.zeros(2, 3), 1.0), 1),
    "Gamma": lambda l: l.distributions.Gamma(l.ones(3), 2.0),
    "Chi2": lambda l: l.distributions.Chi2(l.ones(2)),
    "Beta": lambda l: l.distributions.Beta(l.ones(3), l.ones(3)),
    "Dirichlet": lambda l: l.distributions.Dirichlet(l.ones(2, 3)),
    "HalfNormal": lambda l: l.distributions.HalfNormal(l.ones(3)),
    "HalfCauchy": lambda l: l.distributions.HalfCauchy(l.ones(3)),
    "Pareto": lambda l: l.distributions.Pareto(l.ones(3), 2.0),
    "Weibull": lambda l: l.distributions.Weibull(l.ones(3), 2.0),
    "Geometric": lambda l: l.distributions.Geometric(probs=l.full((3,), 0.3)),
    "StudentT": lambda l: l.distributions.StudentT(l.full((3,), 4.0)),
    "InverseGamma": lambda l: l.distributions.InverseGamma(l.ones(3), 2.0),
    "LogisticNormal": lambda l: l.distributions.LogisticNormal(l.zeros(2, 3), 1.0),
    "RelaxedBernoulli": lambda l: l.distributions.RelaxedBernoulli(l.tensor(0.5), probs=l.full((3,), 0.3)),
    "RelaxedOneHotCategorical": lambda l: l.distributions.RelaxedOneHotCategorical(l.tensor(0.5), logits=l.zeros(2, 4)),
    "OneHotCategoricalStraightThrough": lambda l: l.distributions.OneHotCategoricalStraightThrough(logits=l.zeros(4)),
    "FisherSnedecor": lambda l: l.distributions.FisherSnedecor(l.full((3,), 5.0), 7.0),
    "NegativeBinomial": lambda l: l.distributions.NegativeBinomial(l.full((3,), 2.0), probs=l.full((3,), 0.4)),
    "Kumaraswamy": lambda l: l.distributions.Kumaraswamy(l.ones(3), 2.0),
    "MixtureSameFamily": lambda l: l.distributions.MixtureSameFamily(
        l.distributions.Categorical(logits=l.zeros(2, 3)),
        l.distributions.Independent(l.distributions.Normal(l.zeros(2, 3, 4), 1.0), 1)),
    "LowRankMultivariateNormal": lambda l: l.distributions.LowRankMultivariateNormal(l.zeros(2, 3), l.ones(3, 1),
                                                                                    l.ones(3)),
    "GeneralizedPareto": lambda l: l.distributions.GeneralizedPareto(l.zeros(3), 1.0, l.tensor([0.2, 0.0, -0.3])),
    "VonMises": lambda l: l.distributions.VonMises(l.zeros(3), 2.0),
    "ContinuousBernoulli": lambda l: l.distributions.ContinuousBernoulli(probs=l.full((3,), 0.3)),
    "LKJCholesky": lambda l: l.distributions.LKJCholesky(3, l.full((2,), 1.5)),
    "Poisson": lambda l: l.distributions.Poisson(l.ones(3)),
    "Binomial": lambda l: l.distributions.Binomial(5, probs=l.full((2,), 0.3)),
    "Multinomial": lambda l: l.distributions.Multinomial(4, probs=l.ones(2, 3)),
    "OneHotCategorical": lambda l: l.distributions.OneHotCategorical(logits=l.zeros(2, 4)),
    "MultivariateNormal": lambda l: l.distributions.MultivariateNormal(l.zeros(2, 3), covariance_matrix=l.eye(3)),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes_and_flags(name):
    if HAS_TORCH:
        assert repr(SHAPES[name](torch)).replace("tensor", "T") == repr(SHAPES[name](npgrad)).replace("tensor", "T")
    d = SHAPES[name](npgrad)
    x = d.sample((7, 2))
    assert tuple(x.shape) == (7, 2) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert tuple(d.log_prob(x).shape) == (7, 2) + tuple(d.batch_shape)
    e = d.expand((4,) + tuple(d.batch_shape))
    assert tuple(e.batch_shape) == (4,) + tuple(d.batch_shape) and e.event_shape == d.event_shape
    assert tuple(e.sample().shape) == (4,) + tuple(d.batch_shape) + tuple(d.event_shape)
    if HAS_TORCH:
        t = SHAPES[name](torch)
        assert tuple(t.batch_shape) == tuple(d.batch_shape) and tuple(t.event_shape) == tuple(d.event_shape)
        assert t.has_rsample == d.has_rsample and t.has_enumerate_support == d.has_enumerate_support
        assert repr(t.support) == repr(d.support)
        assert sorted(t.arg_constraints) == sorted(d.arg_constraints)
        assert [repr(c) for c in t.arg_constraints.values()] == [repr(c) for c in d.arg_constraints.values()]
    if d.has_rsample:
        assert tuple(d.rsample((3,)).shape) == (3,) + tuple(d.batch_shape) + tuple(d.event_shape)


def test_lazy_probs_logits_and_enumerate_support():
    b = D.Bernoulli(logits=npgrad.tensor([0.0, 2.0]))
    assert "probs" not in vars(b)
    np.testing.assert_allclose(b.probs.numpy(), 1 / (1 + np.exp(-np.array([0.0, 2.0]))), rtol=1e-6)
    assert b.enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert b.enumerate_support(expand=False).shape == (2, 1)
    c = D.Categorical(probs=npgrad.tensor([[1.0, 1.0, 2.0]]))
    np.testing.assert_allclose(c.probs.numpy(), [[0.25, 0.25, 0.5]])
    assert c.enumerate_support().tolist() == [[0], [1], [2]]
    assert c.mode.tolist() == [2] and np.isnan(c.mean.numpy()).all()
    assert repr(c.support) == "IntegerInterval(lower_bound=0, upper_bound=2)"
    assert np.isnan(D.Bernoulli(probs=npgrad.tensor([0.5, 0.7])).mode.numpy()[0])
    assert D.Bernoulli(probs=npgrad.tensor([0.5, 0.7])).mode.numpy()[1] == 1.0


CHECKS = [
    ("real", lambda c, l: c.real.check(l.tensor([0.0, float("nan"), float("inf")]))),
    ("positive", lambda c, l: c.positive.check(l.tensor([0.0, 1.0, -1.0]))),
    ("nonnegative", lambda c, l: c.nonnegative.check(l.tensor([0.0, 1.0, -1.0]))),
    ("unit_interval", lambda c, l: c.unit_interval.check(l.tensor([0.0, 1.0, 1.5]))),
    ("interval", lambda c, l: c.interval(-1, 2).check(l.tensor([-1.0, 2.0, 2.5]))),
    ("half_open_interval", lambda c, l: c.half_open_interval(-1, 2).check(l.tensor([-1.0, 2.0, 0.0]))),
    ("greater_than", lambda c, l: c.greater_than(1.0).check(l.tensor([1.0, 2.0]))),
    ("greater_than_eq", lambda c, l: c.greater_than_eq(1.0).check(l.tensor([1.0, 0.5]))),
    ("less_than", lambda c, l: c.less_than(1.0).check(l.tensor([1.0, 0.5]))),
    ("boolean", lambda c, l: c.boolean.check(l.tensor([0.0, 1.0, 0.5]))),
    ("nonnegative_integer", lambda c, l: c.nonnegative_integer.check(l.tensor([0.0, 1.5, 3.0, -1.0]))),
    ("positive_integer", lambda c, l: c.positive_integer.check(l.tensor([0.0, 1.0, 3.0]))),
    ("integer_interval", lambda c, l: c.integer_interval(0, 3).check(l.tensor([0.0, 3.0, 4.0, 1.5]))),
    ("simplex", lambda c, l: c.simplex.check(l.tensor([[0.5, 0.5], [0.7, 0.7], [1.2, -0.2]]))),
    ("one_hot", lambda c, l: c.one_hot.check(l.tensor([[0.0, 1.0], [1.0, 1.0]]))),
    ("real_vector", lambda c, l: c.real_vector.check(l.tensor([[0.0, 1.0], [float("nan"), 1.0]]))),
    ("independent", lambda c, l: c.independent(c.positive, 1).check(l.tensor([[1.0, 1.0], [1.0, -1.0]]))),
    ("lower_triangular", lambda c, l: c.lower_triangular.check(l.tensor([[[1.0, 0.0], [1.0, 1.0]],
                                                                        [[1.0, 1.0], [0.0, 1.0]]]))),
    ("lower_cholesky", lambda c, l: c.lower_cholesky.check(l.tensor([[[1.0, 0.0], [1.0, 1.0]],
                                                                    [[-1.0, 0.0], [0.0, 1.0]]]))),
    ("positive_definite", lambda c, l: c.positive_definite.check(l.tensor([[[2.0, 1.0], [1.0, 2.0]],
                                                                          [[1.0, 2.0], [2.0, 1.0]]]))),
    ("positive_semidefinite", lambda c, l: c.positive_semidefinite.check(l.tensor([[[1.0, 1.0], [1.0, 1.0]],
                                                                                  [[1.0, 2.0], [2.0, 1.0]]]))),
    ("symmetric", lambda c, l: c.symmetric.check(l.tensor([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]]))),
    ("square", lambda c, l: c.square.check(l.zeros(2, 3, 3))),
    ("multinomial", lambda c, l: c.multinomial(3).check(l.tensor([[1.0, 2.0], [2.0, 2.0]]))),
    ("cat", lambda c, l: c.cat([c.positive, c.real], 0, [1, 2]).check(l.tensor([1.0, -1.0, -2.0]))),
    ("stack", lambda c, l: c.stack([c.positive, c.real], 1).check(l.tensor([[-1.0, -1.0], [1.0, 1.0]]))),
]
EXPECTED = {"real": [True, False, True], "positive": [False, True, False], "boolean": [True, True, False],
            "simplex": [True, False, False], "lower_cholesky": [True, False], "positive_definite": [True, False]}


@pytest.mark.parametrize("name,check", CHECKS, ids=[n for n, _ in CHECKS])
def test_constraint_check(name, check):
    got = check(C, npgrad)
    assert str(got.dtype).endswith(".bool")
    if name in EXPECTED:
        assert got.tolist() == EXPECTED[name]
    if HAS_TORCH:
        assert got.tolist() == check(torch.distributions.constraints, torch).tolist()


@needs_torch
def test_constraint_reprs_and_flags():
    tc = torch.distributions.constraints
    for name in C.__all__:
        ours, theirs = getattr(C, name), getattr(tc, name)
        if isinstance(theirs, tc.Constraint) and not isinstance(theirs, type):
            assert repr(ours) == repr(theirs), name
            if not tc.is_dependent(theirs):
                assert ours.is_discrete == theirs.is_discrete and ours.event_dim == theirs.event_dim, name
    assert repr(C.interval(0, 1)) == repr(tc.interval(0, 1))
    assert repr(C.independent(C.real, 2)) == repr(tc.independent(tc.real, 2))
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)


MVN_ERRORS = {
    "two_params": lambda l: l.distributions.MultivariateNormal(l.zeros(2), l.eye(2), scale_tril=l.eye(2)),
    "scalar_loc": lambda l: l.distributions.MultivariateNormal(l.tensor(0.0), l.eye(2)),
    "not_pd": lambda l: l.distributions.MultivariateNormal(l.zeros(2), l.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "not_tril": lambda l: l.distributions.MultivariateNormal(l.zeros(2), scale_tril=l.ones(2, 2)),
    "vector_tril": lambda l: l.distributions.MultivariateNormal(l.zeros(2), scale_tril=l.ones(2)),
}


@pytest.mark.parametrize("name", sorted(MVN_ERRORS))
def test_multivariate_normal_errors(name):
    with pytest.raises(ValueError) as info:
        MVN_ERRORS[name](npgrad)
    if HAS_TORCH and name not in ("not_pd",):  # torch's cholesky_ex text comes first there
        with pytest.raises(ValueError) as tinfo:
            MVN_ERRORS[name](torch)
        assert str(info.value) == str(tinfo.value)


def test_kl_registry_dispatch_and_errors():
    class MyNormal(D.Normal):
        pass

    p, q = D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)
    expected = D.kl_divergence(p, q).item()
    assert abs(D.kl_divergence(MyNormal(0.0, 1.0), q).item() - expected) < 1e-7  # inherits Normal-Normal

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return npgrad.tensor(-1.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), q).item() == -1.0  # the more specific registration wins
    assert abs(D.kl_divergence(p, q).item() - expected) < 1e-7
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q "
                                                  "type Cauchy"):
        D.kl_divergence(p, D.Cauchy(0.0, 1.0))
    # two exponential families with no pair of their own reach the Bregman fallback, which refuses mixed families
    with pytest.raises(NotImplementedError, match="The cross KL-divergence between different exponential families"):
        D.kl_divergence(p, D.Bernoulli(probs=npgrad.tensor(0.5)))
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)

    class A(D.Normal):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: npgrad.tensor(1.0))
    D.register_kl(D.Normal, A)(lambda p, q: npgrad.tensor(2.0))
    with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
        D.kl_divergence(A(0.0, 1.0), A(0.0, 1.0))


def test_kl_infinite_where_supports_do_not_nest():
    p = D.Uniform(npgrad.tensor([0.0, 0.0]), npgrad.tensor([1.0, 1.0]))
    q = D.Uniform(npgrad.tensor([-1.0, 0.5]), npgrad.tensor([2.0, 2.0]))
    kl = D.kl_divergence(p, q).numpy()
    assert np.isfinite(kl[0]) and abs(kl[0] - np.log(3.0)) < 1e-6 and np.isinf(kl[1])
    c = D.kl_divergence(D.Categorical(probs=npgrad.tensor([0.5, 0.5])), D.Categorical(probs=npgrad.tensor([1.0, 0.0])))
    assert np.isinf(c.item())


def test_transform_caching_inverse_and_domains():
    T = D.transforms
    t = T.ExpTransform(cache_size=1)
    x = npgrad.tensor([0.5, -1.0])
    y = t(x)
    assert t.inv(y) is x and t.inv.inv is t
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
    c = T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()])
    np.testing.assert_allclose(c.inv(c(x)).numpy(), x.numpy(), rtol=1e-6)
    assert repr(T.TanhTransform().codomain) == "Interval(lower_bound=-1.0, upper_bound=1.0)"
    assert T.identity_transform(x) is x
    with pytest.raises(ValueError):
        T.ExpTransform(cache_size=2)
    if HAS_TORCH:
        tt = torch.distributions.transforms
        assert repr(c) == repr(tt.ComposeTransform([tt.AffineTransform(1.0, 2.0), tt.ExpTransform()]))
        assert repr(T.ExpTransform().inv) == repr(tt.ExpTransform().inv)
        td = torch.distributions.TransformedDistribution(torch.distributions.Normal(torch.zeros(2, 3), 1.0),
                                                         [tt.IndependentTransform(tt.ExpTransform(), 1)])
        nd = D.TransformedDistribution(D.Normal(npgrad.zeros(2, 3), 1.0), [T.IndependentTransform(T.ExpTransform(), 1)])
        assert tuple(td.batch_shape) == tuple(nd.batch_shape) and tuple(td.event_shape) == tuple(nd.event_shape)
        assert repr(td.support) == repr(nd.support)


REGISTRY_CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "real_vector",
                        "lower_cholesky", "positive_definite", "positive_semidefinite", "boolean",
                        "corr_cholesky"]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", REGISTRY_CONSTRAINTS)
def test_constraint_registry(registry, name):
    constraint = getattr(C, name)
    try:
        ours = getattr(D, registry)(constraint)
    except NotImplementedError as e:
        ours = e
    if isinstance(ours, Exception):
        assert str(ours).startswith("Cannot transform ")
    else:  # the transform lands in the constraint's set
        x = npgrad.randn(2, 3, 3) if constraint.event_dim == 2 else npgrad.randn(2, 3)
        y = ours(x)
        assert bool(constraint.check(y).all()), (name, y)
    if HAS_TORCH:
        tc = getattr(torch.distributions.constraints, name)
        try:
            theirs = repr(getattr(torch.distributions, registry)(tc))
        except NotImplementedError as e:
            theirs = e
        if isinstance(theirs, Exception):
            assert str(theirs) == str(ours)
        else:
            assert repr(ours) == theirs


def test_constraint_registry_registers_new_classes():
    reg = D.constraint_registry.ConstraintRegistry()
    with pytest.raises(TypeError):
        reg.register(int, lambda c: None)
    reg.register(C.boolean, lambda c: D.transforms.SigmoidTransform())
    assert isinstance(reg(C.boolean), D.transforms.SigmoidTransform)
