"""TransformedDistribution: a base distribution pushed through a sequence of Transforms."""
from . import _torch as torch
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


def _transform_list(transforms):
    if isinstance(transforms, Transform):
        return [transforms]
    if not isinstance(transforms, list):
        raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
    if not all(isinstance(t, Transform) for t in transforms):
        raise ValueError("transforms must be a Transform or a list of Transforms")
    return transforms


class TransformedDistribution(Distribution):
    """X ~ base_distribution, Y = f_n(...f_1(X)); log_prob by the change-of-variables formula.

    The base is broadcast to the shape the transforms need (an AffineTransform with a batch of scales widens
    it) and its batch dims that the transforms consume become event dims (Independent)."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = _transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        d_in, d_out = chain.domain.event_dim, chain.codomain.event_dim
        shape = base_distribution.batch_shape + base_distribution.event_shape
        base_events = len(base_distribution.event_shape)
        if len(shape) < d_in:
            raise ValueError(f"base_distribution needs to have shape with size at least {d_in}, but got {shape}.")
        out_shape = chain.forward_shape(shape)
        needed = chain.inverse_shape(out_shape)
        if needed != shape:
            base_distribution = base_distribution.expand(needed[:len(needed) - base_events])
        if d_in > base_events:
            base_distribution = Independent(base_distribution, d_in - base_events)
        self.base_dist = base_distribution
        events = max(d_out, base_events + d_out - d_in)
        if len(out_shape) < events:
            raise AssertionError
        cut = len(out_shape) - events
        super().__init__(out_shape[:cut], out_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        def fill(new, batch_shape):
            shape = ComposeTransform(self.transforms).inverse_shape(batch_shape + self.event_shape)
            new.base_dist = self.base_dist.expand(shape[:len(shape) - len(self.base_dist.event_shape)])
            new.transforms = self.transforms
        return self._expand_frame(TransformedDistribution, batch_shape, _instance, fill)

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        last = self.transforms[-1].codomain
        extra = len(self.event_shape) - last.event_dim
        return constraints.independent(last, extra) if extra > 0 else last

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def _push(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return self._push(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=torch.Size()):
        return self._push(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        # pull value back through the transforms, subtracting each log|det J| summed over its extra event dims
        if self._validate_args:
            self._validate_sample(value)
        events, y, total = len(self.event_shape), value, 0.0
        for t in reversed(self.transforms):
            x = t.inv(y)
            events += t.domain.event_dim - t.codomain.event_dim
            total = total - _sum_rightmost(t.log_abs_det_jacobian(x, y), events - t.domain.event_dim)
            y = x
        return total + _sum_rightmost(self.base_dist.log_prob(y), events - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """A decreasing chain turns the base CDF into a survival function: flip it (sign -1)."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        return self._push(self.base_dist.icdf(self._monotonize_cdf(value)))
