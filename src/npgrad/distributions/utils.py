"""Helpers the distributions share: broadcasting parameters, probabilities <-> logits, lazy properties."""
from numbers import Number

import numpy as np

from . import _torch as torch

__all__ = ["broadcast_all", "clamp_probs", "logits_to_probs", "probs_to_logits", "lazy_property", "euler_constant",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060


def _finfo(dtype):
    return np.finfo(np.dtype(str(dtype).split(".")[-1]))


def _eps(dtype):
    return float(_finfo(dtype).eps)


def _lowest(dtype):
    return float(_finfo(dtype).min)


def _tiny(dtype):
    return float(_finfo(dtype).tiny)


def broadcast_all(*values):
    """Broadcast numbers and Tensors to one shape; numbers become Tensors of the first Tensor's dtype (the
    default dtype when all are numbers)."""
    if not all(isinstance(v, (torch.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    if len(tensors) < len(values):
        dtype = tensors[0].dtype if tensors else torch.get_default_dtype()
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*values)


def _sum_rightmost(value, dim):
    """Sum out the rightmost ``dim`` dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """sigmoid for one binary logit, softmax over the last dim for categorical logits."""
    return torch.sigmoid(logits) if is_binary else torch.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Probabilities kept eps away from 0 and 1 (so that their logs and logits are finite)."""
    eps = _eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """The inverse of logits_to_probs (log-odds, or log-probabilities), from clamped probabilities."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


class lazy_property:
    """A property computed on first access and then stored on the instance (the parameter a distribution
    was not given, e.g. probs from logits). Read on the class, it is a property-like object that still
    answers isinstance(..., lazy_property), which is how argument validation knows to skip it."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            computed = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = computed
        return computed


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)
        self.wrapped = wrapped


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries (below ``diag``-th diagonal inclusive) of each matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = np.tril_indices(n, diag)
    return mat[..., torch.tensor(rows), torch.tensor(cols)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: a batch of lower-triangular matrices filled row by row."""
    k = 1 + 2 * diag
    n = (-k + (k ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > _eps(vec.dtype):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n)
    rows, cols = np.tril_indices(n, diag)
    # a constant 0/1 placement matrix keeps the map linear and differentiable: mat.flat = vec @ P
    place = np.zeros((len(rows), n * n))
    place[np.arange(len(rows)), rows * n + cols] = 1.0
    flat = torch.matmul(vec, torch.tensor(place, dtype=vec.dtype))
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))
