"""Distribution: the base class (shapes, argument and sample validation, the expand frame, defaults)."""
import warnings

from . import _torch as torch
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _unimplemented(what):
    def missing(self):
        raise NotImplementedError(f"{self.__class__} does not implement {what}")
    return property(missing)


def _abstract(self, *args, **kwargs):
    raise NotImplementedError


def _broadcastable(a, b):
    return all(m == n or 1 in (m, n) for m, n in zip(reversed(a), reversed(b)))


class Distribution:
    """A batch of probability distributions: ``batch_shape`` independent ones, each over ``event_shape``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        if value is not True and value is not False:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = torch.Size(batch_shape)
        self._event_shape = torch.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self):
        try:
            table = self.arg_constraints
        except NotImplementedError:
            table = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = "
                          "{}` or initialize the distribution with `validate_args=False` to turn off validation.")
        for name, constraint in table.items():
            skipped = constraints.is_dependent(constraint) or (
                # a parameter that was not given (probs when logits were) is derived, not checked
                name not in self.__dict__ and isinstance(getattr(type(self), name), lazy_property))
            if skipped:
                continue
            value = getattr(self, name)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {repr(self)} to satisfy the constraint {repr(constraint)}, "
                    f"but found invalid values:\n{value}")

    def _expand_frame(self, cls, batch_shape, _instance, fill):
        """What every expand does around its own part: a blank instance of this type (refused when a
        subclass of ``cls`` has its own __init__), ``fill(new, batch_shape)``, the shapes, and the same
        validation setting (the expanded parameters are not checked again)."""
        new = self._get_checked_instance(cls, _instance)
        size = torch.Size(batch_shape)
        fill(new, size)
        Distribution.__init__(new, size, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    batch_shape = property(lambda self: self._batch_shape)
    event_shape = property(lambda self: self._event_shape)
    arg_constraints = property(_abstract)
    support = property(_abstract)
    mean = _unimplemented("mean")
    mode = _unimplemented("mode")
    variance = _unimplemented("variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(torch.Size((n,)))

    def rsample(self, sample_shape=torch.Size()):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=torch.Size()):
        return torch.Size(tuple(sample_shape) + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = torch.Size(value.shape)
        k = len(self._event_shape)
        if shape[len(shape) - k:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {shape} vs "
                             f"{self._event_shape}.")
        full = torch.Size(self._batch_shape + self._event_shape)
        if not _broadcastable(shape, full):
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {shape} vs {full}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.")
            return
        if support is None:
            raise AssertionError
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({repr(support)}) of the distribution {repr(self)}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is not None:
            return _instance
        if type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self))

    def __repr__(self):
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                shown.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{self.__class__.__name__}({', '.join(shown)})"
