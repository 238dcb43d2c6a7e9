"""torch.distributions: parameterised probability distributions, their KL divergences and transforms.

Loaded on first access of ``npgrad.distributions``; samples come from npgrad's generator.
"""
from . import constraints, transforms  # noqa: F401
from ._discrete import Bernoulli
from ._continuous import Beta
from ._discrete import Binomial
from ._discrete import Categorical
from ._continuous import Cauchy
from ._continuous import Chi2
from .constraint_registry import biject_to, transform_to
from ._discrete import ContinuousBernoulli
from ._continuous import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from ._continuous import Exponential
from ._continuous import FisherSnedecor
from ._continuous import Gamma
from ._continuous import GeneralizedPareto
from ._discrete import Geometric
from ._pushforward import Gumbel
from ._pushforward import HalfCauchy
from ._pushforward import HalfNormal
from .independent import Independent
from ._pushforward import InverseGamma
from ._pushforward import Kumaraswamy
from .lkj_cholesky import LKJCholesky
from .kl import kl_divergence, register_kl
from ._continuous import Laplace
from ._pushforward import LogNormal
from ._pushforward import LogisticNormal
from ._gaussian import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from ._discrete import Multinomial
from ._gaussian import MultivariateNormal
from ._discrete import NegativeBinomial
from ._continuous import Normal
from ._discrete import OneHotCategorical, OneHotCategoricalStraightThrough
from ._pushforward import Pareto
from ._continuous import Poisson
from ._pushforward import RelaxedBernoulli
from ._pushforward import RelaxedOneHotCategorical
from ._continuous import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transforms_all
from ._continuous import Uniform
from ._continuous import VonMises
from ._pushforward import Weibull
from .wishart import Wishart

# the KL pairs beyond kl.py's register themselves on import
from . import _kl_cross_family, _kl_same_family  # noqa: E402,F401

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "StudentT", "TransformedDistribution", "Uniform", "VonMises", "Weibull",
           "Wishart",
           "biject_to", "kl_divergence", "register_kl", "transform_to"] + list(_transforms_all)
