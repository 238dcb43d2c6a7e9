"""Independent: reinterpret some of a distribution's batch dimensions as event dimensions."""
from . import _torch as torch
from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


def _from_base(name):
    return property(lambda self: getattr(self.base_dist, name))


class Independent(Distribution):
    """The rightmost ``reinterpreted_batch_ndims`` batch dims of ``base_distribution`` become event dims:
    log_prob and entropy sum over them, everything else is the base's."""
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n, base = reinterpreted_batch_ndims, base_distribution
        if n > len(base.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{n} vs {len(base.batch_shape)}")
        self.base_dist, self.reinterpreted_batch_ndims = base, n
        shape = base.batch_shape + base.event_shape
        cut = len(shape) - n - len(base.event_shape)
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        def fill(new, batch_shape):
            n = new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
            new.base_dist = self.base_dist.expand(batch_shape + self.event_shape[:n])
        return self._expand_frame(Independent, batch_shape, _instance, fill)

    has_rsample = _from_base("has_rsample")
    mean = _from_base("mean")
    mode = _from_base("mode")
    variance = _from_base("variance")

    @property
    def has_enumerate_support(self):
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        inner = self.base_dist.support
        n = self.reinterpreted_batch_ndims
        return constraints.independent(inner, n) if n else inner

    def sample(self, sample_shape=torch.Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=torch.Size()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
