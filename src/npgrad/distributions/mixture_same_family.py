"""MixtureSameFamily: a Categorical mixture over the rightmost batch dimension of a component distribution."""
from . import _torch as torch
from . import constraints
from ._discrete import Categorical
from .constraints import MixtureSameFamilyConstraint
from .distribution import Distribution, _broadcastable

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """p(x) = sum_k pi_k p_k(x): ``mixture_distribution`` gives pi over the K components, which are the last
    batch dimension of ``component_distribution``. Everything over the components is done with a component
    axis inserted into the value (``_with_component_axis``) and reduced away."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        outer, inner = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        if not _broadcastable(outer, inner):
            raise ValueError(f"`mixture_distribution.batch_shape` ({outer}) is not compatible with "
                             f"`component_distribution.batch_shape`({inner})")
        k_mix, k_comp = mixture_distribution.logits.shape[-1], component_distribution.batch_shape[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._num_component = k_mix
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch_shape=inner, event_shape=component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        def fill(new, batch_shape):
            new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
            new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
            new._num_component, new._event_ndims = self._num_component, self._event_ndims
        return self._expand_frame(MixtureSameFamily, batch_shape, _instance, fill)

    @constraints.dependent_property
    def support(self):
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    mixture_distribution = property(lambda self: self._mixture_distribution)
    component_distribution = property(lambda self: self._component_distribution)

    def _component_axis(self):
        return -1 - self._event_ndims

    def _with_component_axis(self, x):
        return x.unsqueeze(self._component_axis())

    def _weights(self):
        """The mixture probabilities shaped to broadcast against the components' moments."""
        pi = self._mixture_distribution.probs
        own, mixing = len(self.batch_shape), len(self._mixture_distribution.batch_shape)
        lead = 0 if mixing == 1 else own - mixing
        shape = tuple(pi.shape)
        return pi.reshape(shape[:-1] + (1,) * lead + shape[-1:] + (1,) * self._event_ndims)

    def _average(self, per_component):
        return (self._weights() * per_component).sum(dim=self._component_axis())

    @property
    def mean(self):
        return self._average(self._component_distribution.mean)

    @property
    def variance(self):
        # the law of total variance: E[Var[X | k]] + Var[E[X | k]]
        comp = self._component_distribution
        spread = (comp.mean - self._with_component_axis(self.mean)).pow(2.0)
        return self._average(comp.variance) + self._average(spread)

    def cdf(self, x):
        per_component = self._component_distribution.cdf(self._with_component_axis(x))
        return (per_component * self._mixture_distribution.probs).sum(dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self._component_distribution.log_prob(self._with_component_axis(x))
        log_pi = torch.log_softmax(self._mixture_distribution.logits, dim=-1)
        return torch.logsumexp(per_component + log_pi, dim=-1)

    def sample(self, sample_shape=torch.Size()):
        # draw every component, then pick each draw's own along the component axis
        sample_shape = torch.Size(sample_shape)
        with torch.no_grad():
            axis = len(sample_shape) + len(self.batch_shape)
            which = self._mixture_distribution.sample(sample_shape)
            draws = self._component_distribution.sample(sample_shape)
            event = tuple(self.event_shape)
            index = which.reshape(tuple(which.shape) + (1,) * (len(event) + 1))
            index = index.repeat((1,) * which.dim() + (1,) + event)
            return torch.gather(draws, axis, index).squeeze(axis)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
