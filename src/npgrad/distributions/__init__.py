"""torch.distributions: parameterised probability distributions, their KL divergences and transforms.

Loaded on first access of ``npgrad.distributions``; samples come from npgrad's generator.
"""
from . import constraints, transforms  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exponential import Exponential
from .gumbel import Gumbel
from .independent import Independent
from .laplace import Laplace
from .log_normal import LogNormal
from .normal import Normal
from .uniform import Uniform
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transforms_all

__all__ = ["Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "Gumbel", "Independent", "Laplace", "LogNormal", "Normal", "Uniform",
           "TransformedDistribution"] + list(_transforms_all)
