"""Small helpers shared by the functional families: argument tuples, reductions, and a few
array-or-Tensor ("polymorphic") math helpers that backward formulas need beyond ops._poly."""
import collections.abc
import itertools
import math
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
    """``where(cond, a, b)`` for a backward formula: Tensors go through the differentiable where; for arrays
    (float ``a`` of cond's shape, scalar or same-shaped ``b``) each element is picked bit for bit, so a NaN
    or inf in the branch not taken never reaches the result (as it would through a 0/1 factor: NaN * 0 = NaN).
    ``overwrite``: ``a`` is a temporary the result may be written into.

    Not np.where: on masks that are not mostly uniform (a ReLU's, a clip's) it costs about ten elementwise
    multiplies. The pick is integer passes instead: an all-ones/all-zeros mask of the elements' width,
    ANDed with the bits of ``a`` (and its complement with those of ``b``)."""
    return _pick(cond, True, a, b, overwrite)


def zero_where(cond, a):
    """``where(cond, 0, a)``, as ``select`` picks (without a pass to negate ``cond``)."""
    return _pick(cond, False, a, 0.0, False)


_SAME_WIDTH_INT = {np.dtype(np.float16): np.dtype(np.int16), np.dtype(np.float32): np.dtype(np.int32),
                   np.dtype(np.float64): np.dtype(np.int64)}


def _pick(cond, take_a_where, a, b, overwrite):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return P.where(cond, a, b) if take_a_where else P.where(cond, b, a)
    it = _SAME_WIDTH_INT.get(a.dtype) if isinstance(a, np.ndarray) else None
    b_array = isinstance(b, np.ndarray)
    if it is None or a.shape != cond.shape or (b_array and b.shape != cond.shape):
        return np.where(cond, a, b) if take_a_where else np.where(cond, b, a)
    m = cond.view(np.int8).astype(it)  # (a same-type pass: faster than a casting ufunc)
    if take_a_where:
        np.negative(m, out=m)  # all bits set where cond, 0 elsewhere
    else:
        m -= 1  # all bits set where not cond
    if not b_array and b == 0 and math.copysign(1.0, b) > 0:
        m &= a.view(it)
        return m.view(a.dtype)
    out = a if overwrite and a.flags.writeable else a.copy()
    out.view(it)[...] &= m
    np.invert(m, out=m)
    m &= np.asarray(b, a.dtype).view(it)
    out.view(it)[...] |= m
    return out


def mask_of(cond, dtype):
    """A boolean array as a 0/1 array of ``dtype`` (a constant factor in a formula)."""
    return np.asarray(cond).astype(dtype, copy=False)




def unsqueeze(x, axis):
    return x.unsqueeze(axis) if isinstance(x, Tensor) else np.expand_dims(x, axis)
