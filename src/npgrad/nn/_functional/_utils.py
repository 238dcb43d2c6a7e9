"""Small helpers shared by the functional families: argument tuples, reductions, and a few
array-or-Tensor ("polymorphic") math helpers that backward formulas need beyond ops._poly."""
import collections.abc
import itertools
import warnings

import numpy as np

from ...ops import _poly as P
from ...tensor import Tensor


def _ntuple(n, name):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(itertools.repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def as_ints(value, n, name):
    """An int or a sequence of ``n`` ints, as a tuple of Python ints (PyTorch's expand_param_if_needed)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and n > 1:
            value = tuple(value) * n
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                               f"convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * n




def legacy_reduction(size_average, reduce, emit_warning=True):
    """Map the deprecated (size_average, reduce) pair to a reduction string, as PyTorch does."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def resolve_reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def reduce_loss(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss






# -- polymorphic math (arrays in a plain backward, Tensors under create_graph) ---------------------------------

def log1p(x):
    return x.log1p() if isinstance(x, Tensor) else np.log1p(x)


def clamp_min(x, v):
    return x.clamp_min(v) if isinstance(x, Tensor) else np.maximum(x, v)


def clamp_max(x, v):
    return x.clamp_max(v) if isinstance(x, Tensor) else np.minimum(x, v)


def clamp(x, lo, hi):
    return x.clamp(lo, hi) if isinstance(x, Tensor) else np.clip(x, lo, hi)


def select(cond, a, b=0.0, overwrite=False):
    """``where(cond, a, b)`` for a backward formula (ops._poly.where: differentiable for Tensors, arrays picked
    bit for bit so a NaN or inf in the branch not taken never reaches the result). ``overwrite``: ``a`` is a
    temporary array the result may be written into."""
    if overwrite and type(a) is np.ndarray:
        r = P.bits_select(cond, True, a, b, overwrite=True)
        if r is not None:
            return r
    return P.where(cond, a, b)


def zero_where(cond, a):
    """``where(cond, 0, a)``."""
    return P.where(cond, 0.0, a)


def mask_of(cond, dtype):
    """A boolean array as a 0/1 array of ``dtype`` (a constant factor in a formula)."""
    return np.asarray(cond).astype(dtype, copy=False)




def unsqueeze(x, axis):
    return x.unsqueeze(axis) if isinstance(x, Tensor) else np.expand_dims(x, axis)
