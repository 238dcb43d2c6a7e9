"""The machinery most families share, so that a family is a parameter list plus its formulas.

A family class declares
  ``_params``  the tensor parameters as (name, trailing dims beyond the batch shape) pairs; the constructor
               hands their values to ``_store`` and ``expand`` carries whichever of them are set,
  ``_carry``   other attributes ``expand`` copies as they are (a temperature, an int total_count),
  ``_args``    the attributes its formulas take, in order (default: the ``_params`` names),
and ``family(...)`` (a class decorator) installs the formulas: properties for the moments, methods for
entropy, log_prob, cdf and icdf (the last three given the value first), a sampler ``draw(shape, *args)``
that becomes rsample (reparameterised) or sample, and the exponential-family pair.
"""
from numbers import Number

from . import _torch as torch
from .distribution import Distribution
from .utils import broadcast_all


class Family(Distribution):
    _params = ()
    _carry = ()
    _args = None
    _coerce_value = False  # log_prob takes Python numbers too (as Tensors of the parameters' dtype)

    def _store(self, validate_args, *values, event_shape=()):
        """Broadcast the parameter values together and set up the shapes; all-Python-number parameters
        give an empty batch shape."""
        tensors = broadcast_all(*values)
        for (name, _), t in zip(self._params, tensors):
            setattr(self, name, t)
        scalar = all(isinstance(v, Number) for v in values)
        Distribution.__init__(self, () if scalar else tensors[0].shape, event_shape, validate_args)

    def _formula_args(self):
        names = self._args if self._args is not None else [name for name, _ in self._params]
        return [getattr(self, name) for name in names]

    def _owner(self):
        # the class that declared the parameter list is the one whose __init__ this expand understands
        return next(c for c in type(self).__mro__ if "_params" in c.__dict__)

    def expand(self, batch_shape, _instance=None):
        def fill(new, batch_shape):
            for name, extra in self._params:
                if name in self.__dict__:
                    value = self.__dict__[name]
                    setattr(new, name, value.expand(batch_shape + value.shape[value.dim() - extra:]))
            for name in self._carry:
                setattr(new, name, getattr(self, name))
            self._expanded(new, batch_shape)
        return self._expand_frame(self._owner(), batch_shape, _instance, fill)

    def _expanded(self, new, batch_shape):
        """Rebuild what else ``new`` needs (helper distributions built from the parameters)."""


def _validated(fn, coerce=False):
    def method(self, value):
        if coerce and self._coerce_value:
            value = torch.as_tensor(value, dtype=self._formula_args()[0].dtype)
        if self._validate_args:
            self._validate_sample(value)
        return fn(value, *self._formula_args())
    return method


def family(*, mean=None, mode=None, variance=None, stddev=None, entropy=None, log_prob=None, cdf=None,
           icdf=None, draw=None, natural=None, log_normalizer=None):
    """Install the given formulas on the decorated class (see the module docstring)."""
    def install(cls):
        for name, fn in (("mean", mean), ("mode", mode), ("variance", variance), ("stddev", stddev)):
            if fn is not None:
                setattr(cls, name, property(lambda self, fn=fn: fn(*self._formula_args())))
        if entropy is not None:
            cls.entropy = lambda self: entropy(*self._formula_args())
        for name, fn in (("log_prob", log_prob), ("cdf", cdf)):
            if fn is not None:
                setattr(cls, name, _validated(fn, coerce=name == "log_prob"))
        if icdf is not None:
            cls.icdf = lambda self, value: icdf(value, *self._formula_args())
        if draw is not None:
            def drawn(self, sample_shape=torch.Size()):
                return draw(self._extended_shape(sample_shape), *self._formula_args())
            if cls.has_rsample:
                cls.rsample = drawn
            else:
                def sample(self, sample_shape=torch.Size()):
                    with torch.no_grad():
                        return drawn(self, sample_shape)
                cls.sample = sample
        if natural is not None:
            cls._natural_params = property(lambda self: natural(*self._formula_args()))
            cls._log_normalizer = lambda self, *eta: log_normalizer(*eta)
        return cls
    return install
