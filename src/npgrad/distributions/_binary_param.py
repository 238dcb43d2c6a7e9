"""The ``probs | logits`` parameter of the two-outcome distributions (Bernoulli, Binomial, NegativeBinomial,
LogitRelaxedBernoulli): exactly one is given, the other is computed on first use, and ``expand`` carries
whichever exists."""
from numbers import Number

from . import _torch as torch
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class BinaryParameter:
    def _set_binary_param(self, probs, logits, *others):
        """Store the given one of ``probs``/``logits`` broadcast with ``others`` (returned, cast to its dtype),
        and return ``(others, batch_shape)``; a lone Python number gives an empty batch shape."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        *rest, param = broadcast_all(*others, value)
        setattr(self, name, param)
        self._param = param
        rest = [t.type_as(param) for t in rest]
        lone_number = not others and isinstance(value, Number)
        return rest, torch.Size() if lone_number else param.size()

    def _expand_binary_param(self, new, batch_shape):
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()
