"""NegativeBinomial(total_count, probs | logits): failures before total_count successes (success prob 1-p)."""
from . import _torch as torch
from . import constraints
from ._binary_param import BinaryParameter
from .distribution import Distribution
from ._continuous import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParameter, Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (self.total_count,), batch_shape = self._set_binary_param(probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = torch.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_binary_param(new, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # a Poisson whose rate is Gamma(total_count, (1 - p) / p) is NegativeBinomial(total_count, p)
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return torch.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        F = torch.functional
        log_unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (-torch.lgamma(self.total_count + value) + torch.lgamma(1.0 + value)
                             + torch.lgamma(self.total_count))
        # total_count == value == 0: the only outcome, probability 1
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
