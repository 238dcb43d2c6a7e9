"""LKJCholesky(dim, concentration): Cholesky factors of LKJ-distributed correlation matrices, sampled by the
onion method (each row's squared length ~ Beta, its direction uniform on the sphere)."""
import math

import numpy as np

from . import _torch as torch
from . import constraints
from ._continuous import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([torch.zeros(1, dtype=offset.dtype), offset])
        # row k (k = 1..dim-1) of the factor is sqrt(y_k) times a uniform direction in R^k with
        # y_k ~ Beta(k / 2, marginal - (k - 1) / 2) (Lewandowski, Kurowicka & Joe 2009, the onion method); row 0 is
        # e_1 and its Beta draw is unused. (torch 2.13 draws Beta((k - 1) + 1/2, ...) here, whose off-diagonal
        # correlations beyond the second row are over-dispersed relative to the LKJ density its log_prob uses.)
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, torch.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = torch.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = torch.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            u = u / u.norm(dim=-1, keepdim=True)
            u[..., 0, :] = 0.0  # the first row is e_1 (its norm above was 0/0)
            w = torch.sqrt(y) * u
            tiny = float(np.finfo(np.dtype(str(w.dtype).split(".")[-1])).tiny)
            diag = torch.clamp(1 - torch.sum(w ** 2, dim=-1), min=tiny).sqrt()
            return w + torch.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = torch.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize = 0.5 * dm1 * math.log(math.pi) + torch.mvlgamma(alpha - 0.5, dm1) - torch.lgamma(alpha) * dm1
        return unnormalized - normalize
