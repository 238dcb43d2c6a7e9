"""The shared machinery the families are built on (_family.py, the probs|logits base, the transformed
families' base, the matrix-parameter base): expand keeps the type, shapes, parameters and validation
setting; a subclass with its own __init__ must bring its own expand; lazily derived parameters stay out
of repr until used; parameter validation names the parameter and the constraint."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

D = npgrad.distributions

BUILDERS = {
    "Normal": lambda l: l.distributions.Normal(l.tensor([0.0, 1.0]), 2.0),
    "StudentT": lambda l: l.distributions.StudentT(l.tensor([3.0, 4.0])),
    "Beta": lambda l: l.distributions.Beta(l.tensor([1.0, 2.0]), l.tensor([2.0])),
    "Binomial": lambda l: l.distributions.Binomial(5, logits=l.tensor([0.1, -0.2])),
    "Categorical": lambda l: l.distributions.Categorical(logits=l.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0]])),
    "Weibull": lambda l: l.distributions.Weibull(l.tensor([1.0, 2.0]), l.tensor([1.5])),
    "Gumbel": lambda l: l.distributions.Gumbel(l.tensor([0.0, 1.0]), l.tensor([1.0])),
    "MultivariateNormal": lambda l: l.distributions.MultivariateNormal(
        l.zeros(2, 2), precision_matrix=l.tensor([[2.0, 0.5], [0.5, 1.0]])),
    "LowRankMultivariateNormal": lambda l: l.distributions.LowRankMultivariateNormal(
        l.zeros(2), l.tensor([[1.0], [0.5]]), l.tensor([0.5, 1.0])),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_expand_keeps_type_shapes_and_values(name):
    d = BUILDERS[name](npgrad)
    d._validate_args = False
    e = d.expand((3,) + tuple(d.batch_shape))
    assert type(e) is type(d) and e._validate_args is False
    assert tuple(e.batch_shape) == (3,) + tuple(d.batch_shape) and e.event_shape == d.event_shape
    x = d.sample()
    np.testing.assert_allclose(e.log_prob(x).numpy(), np.broadcast_to(d.log_prob(x).numpy(), e.batch_shape),
                               rtol=1e-6)
    np.testing.assert_allclose(e.mean.numpy(), np.broadcast_to(d.mean.numpy(), e.mean.shape), rtol=1e-6)
    assert tuple(e.sample((2,)).shape) == (2, 3) + tuple(d.batch_shape) + tuple(d.event_shape)


@pytest.mark.parametrize("name", ["Normal", "Binomial", "Weibull", "MultivariateNormal"])
def test_subclass_with_own_init_must_define_expand(name):
    parent = type(BUILDERS[name](npgrad))

    class Custom(parent):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    d = BUILDERS[name](npgrad)
    d.__class__ = Custom
    with pytest.raises(NotImplementedError, match=f"Subclass Custom of {parent.__name__} that defines a custom "
                                                  "__init__ method must also define a custom .expand"):
        d.expand((3,) + tuple(d.batch_shape))


def test_derived_parameters_stay_out_of_repr_until_used():
    b = D.Bernoulli(logits=npgrad.tensor([0.0, 1.0]))
    assert repr(b) == "Bernoulli(logits: torch.Size([2]))"
    b.variance  # uses probs only: derives it
    assert repr(b) == "Bernoulli(probs: torch.Size([2]), logits: torch.Size([2]))"
    c = D.Categorical(probs=npgrad.tensor([0.5, 0.5]))
    c.mode  # reads probs only
    assert "logits" not in repr(c)


def test_expanded_multinomial_keeps_an_entropy():
    # torch 2.13 drops the helper Binomial on expand (its expanded entropy raises AttributeError)
    m = D.Multinomial(4, logits=npgrad.tensor([0.0, 1.0, -1.0]))
    e = m.expand((2,))
    np.testing.assert_allclose(e.entropy().numpy(), [m.entropy().item()] * 2, rtol=1e-6)


@pytest.mark.parametrize("make, param, constraint", [
    (lambda l: l.distributions.Gamma(l.tensor([1.0]), l.tensor([-1.0])), "rate", "GreaterThan(lower_bound=0.0)"),
    (lambda l: l.distributions.Dirichlet(l.tensor([1.0, 0.0])), "concentration",
     "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"),
    (lambda l: l.distributions.Binomial(l.tensor([2.5]), probs=l.tensor([0.5])), "total_count",
     "IntegerGreaterThan(lower_bound=0)"),
    # a transformed family's base is built (and checks its own parameters) first: Pareto's alpha is its rate
    (lambda l: l.distributions.Pareto(l.tensor([1.0]), l.tensor([-2.0])), "rate", "GreaterThan(lower_bound=0.0)"),
])
def test_parameter_validation_names_parameter_and_constraint(make, param, constraint):
    with pytest.raises(ValueError) as ours:
        make(npgrad)
    assert f"Expected parameter {param} " in str(ours.value) and f"the constraint {constraint}," in str(ours.value)
    if HAS_TORCH:
        with pytest.raises(ValueError) as theirs:
            make(torch)
        assert str(ours.value) == str(theirs.value)
