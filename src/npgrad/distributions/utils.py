"""Helpers the distributions share: broadcasting parameters, probabilities <-> logits, lazy properties."""
from numbers import Number

import numpy as np

from . import _torch as torch

__all__ = ["broadcast_all", "clamp_probs", "logits_to_probs", "probs_to_logits", "lazy_property", "euler_constant"]

euler_constant = 0.57721566490153286060


def _eps(dtype):
    return float(np.finfo(np.dtype(str(dtype).split(".")[-1])).eps)


def _tiny(dtype):
    return float(np.finfo(np.dtype(str(dtype).split(".")[-1])).tiny)


def broadcast_all(*values):
    """Broadcast numbers and Tensors to one shape; numbers become Tensors of the default dtype (or of the
    Tensors' dtype when there is one)."""
    if not all(isinstance(v, (torch.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, torch.Tensor) for v in values):
        dtype = torch.get_default_dtype()
        for v in values:
            if isinstance(v, torch.Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype):
    return torch.randn(tuple(shape), dtype=dtype)


def _sum_rightmost(value, dim):
    """Sum out the rightmost ``dim`` dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return torch.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = _eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


class lazy_property:
    """A property computed on first access and then stored on the instance (the parameter a distribution
    was not given, e.g. probs from logits)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)
