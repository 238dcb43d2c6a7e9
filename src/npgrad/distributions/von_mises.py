"""VonMises(loc, concentration): the circular analogue of the Normal, on [-pi, pi)."""
import math

import numpy as np

from . import _torch as torch
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property
from ..random import rng

__all__ = ["VonMises"]


def _log_i0(k):
    # log I0(k) = log(i0e(k)) + k: the exponentially scaled Bessel function stays finite for large k
    return torch.special.i0e(k).log() + k


def _best_fisher(loc, kappa, shape):
    """Best & Fisher's (1979) rejection sampler on a wrapped Cauchy envelope, in float64 NumPy."""
    g = rng()
    kappa = np.broadcast_to(kappa, shape)
    tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
    with np.errstate(all="ignore"):
        rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
        r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
    x = np.zeros(shape)
    done = np.zeros(shape, dtype=bool)
    while not done.all():
        u1, u2, u3 = g.random((3,) + tuple(shape))
        z = np.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        with np.errstate(all="ignore"):
            accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
        accept &= ~done
        x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(np.clip(f, -1, 1)), x)
        done |= accept
    return (x + math.pi + np.broadcast_to(loc, shape)) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torch.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * torch.cos(value - self.loc) - math.log(2 * math.pi) - _log_i0(self.concentration)

    def sample(self, sample_shape=torch.Size()):
        shape = tuple(self._extended_shape(sample_shape))
        loc = self.loc.detach().numpy().astype(np.float64)
        kappa = self.concentration.detach().numpy().astype(np.float64)
        x = _best_fisher(loc, kappa, shape)
        return torch.tensor(x.astype(self.loc.detach().numpy().dtype))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = torch.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, torch.Size(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        # the circular variance 1 - I1(k) / I0(k)
        k = self.concentration
        return 1 - torch.special.i1e(k) / torch.special.i0e(k)
