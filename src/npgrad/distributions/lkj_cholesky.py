"""LKJCholesky(dim, concentration): Cholesky factors of LKJ-distributed correlation matrices, sampled by the
onion method (each row's squared length ~ Beta, its direction uniform on the sphere)."""
import math

from . import _torch as torch
from . import constraints as C
from ._continuous import Beta
from ._family import Family
from .distribution import Distribution
from .utils import _tiny, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Family):
    _params = (("concentration", 0),)
    _carry = ("dim",)
    arg_constraints = {"concentration": C.positive}
    support = C.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (eta,) = broadcast_all(concentration)
        self.concentration = eta
        # row k (k = 1..dim-1) of the factor is sqrt(y_k) times a uniform direction in R^k with
        # y_k ~ Beta(k / 2, eta + (dim - 2) / 2 - (k - 1) / 2) (Lewandowski, Kurowicka & Joe 2009, the onion
        # method); row 0 is e_1 and its Beta draw is unused. (torch 2.13 draws Beta((k - 1) + 1/2, ...) here,
        # whose off-diagonal correlations beyond the second row are over-dispersed relative to the LKJ density
        # its log_prob uses.)
        k = torch.cat([torch.zeros(1, dtype=eta.dtype), torch.arange(dim - 1, dtype=eta.dtype)])
        self._beta = Beta(0.5 * k + 0.5, (eta + 0.5 * (dim - 2)).unsqueeze(-1) - 0.5 * k)
        Distribution.__init__(self, eta.shape, torch.Size((dim, dim)), validate_args)

    def _expanded(self, new, batch_shape):
        new._beta = self._beta.expand(batch_shape + (self.dim,))

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            radius2 = self._beta.sample(sample_shape).unsqueeze(-1)
            direction = torch.randn(self._extended_shape(sample_shape), dtype=radius2.dtype).tril(-1)
            direction = direction / direction.norm(dim=-1, keepdim=True)
            direction[..., 0, :] = 0.0  # the first row is e_1 (its norm above was 0/0)
            below = torch.sqrt(radius2) * direction
            diagonal = torch.clamp(1 - (below ** 2).sum(-1), min=_tiny(below.dtype)).sqrt()
            return below + torch.diag_embed(diagonal)

    def log_prob(self, value):
        # density prod_{i>=1} L_ii^(dim - i - 1 + 2 (eta - 1)), normalised by the multivariate Beta constant
        if self._validate_args:
            self._validate_sample(value)
        n, eta = self.dim, self.concentration
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        powers = 2 * (eta - 1).unsqueeze(-1) + n - torch.arange(2, n + 1)
        a = eta + 0.5 * (n - 1)
        log_norm = 0.5 * (n - 1) * math.log(math.pi) + torch.mvlgamma(a - 0.5, n - 1) - torch.lgamma(a) * (n - 1)
        return (powers * diagonal.log()).sum(-1) - log_norm
