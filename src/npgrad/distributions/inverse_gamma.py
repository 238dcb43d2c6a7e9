"""InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate)."""
import math

from . import _torch as torch
from . import constraints
from ._continuous import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = -torch.ones((), dtype=base_dist.rate.dtype)
        super().__init__(base_dist, PowerTransform(minus_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        a = self.concentration
        return torch.where(a > 1, self.rate / (a - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return torch.where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
