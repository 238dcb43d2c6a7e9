"""Scans along a dimension: cummax/cummin (values and indices), logcumsumexp, and diff.

cummax/cummin gather the running extreme's element, so the gradient goes to that element (summed where
one element stays the extreme for several positions). logcumsumexp's gradient is PyTorch's: positive and
negative parts of the upstream gradient are accumulated in log space, so nothing overflows.
"""
import numpy as np

from .. import dtypes as _dt
from .. import return_types as _rt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import op

# -- cummax / cummin ------------------------------------------------------------------------------------------------

class Cummax(Op):
    """``x`` gathered at the running extreme's index; the gradient is scatter-added back."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, idx, dim):
        ctx.in_shape, ctx.idx, ctx.dim = x.shape, idx, dim
        return np.take_along_axis(x, idx, dim)

    @staticmethod
    def backward(ctx, g):
        from .indexing import scatter_add_values
        return scatter_add_values(g, ctx.in_shape, ctx.dim, ctx.idx), None, None


class Cummin(Cummax):
    __slots__ = ()


def _running_index(x, d, is_min):
    """Index of the running max/min along ``d``: the latest position that equals it (ties move the index
    forward, as PyTorch), and once a NaN is seen, the latest NaN."""
    ufunc = np.minimum if is_min else np.maximum
    running = ufunc.accumulate(x, axis=d)
    record = x == running
    if x.dtype.kind == "f":
        record |= np.isnan(x)
    shape = [1] * x.ndim
    shape[d] = x.shape[d]
    pos = np.where(record, np.arange(x.shape[d]).reshape(shape), 0)
    return np.maximum.accumulate(pos, axis=d)


def _cum_extreme(input, dim, is_min):
    x = input._data
    d = canon_dim(dim, x.ndim)
    rt = _rt.cummin if is_min else _rt.cummax
    if x.dtype.kind == "c":
        raise _dt.not_implemented("cummin_cpu" if is_min else "cummax_cpu", x.dtype)
    if x.ndim == 0:
        return rt(input.clone(), Tensor._wrap(np.zeros((), np.int64)))
    if x.dtype.kind == "b":
        x = x.astype(np.uint8)
    idx = _running_index(x, d, is_min) if x.size else np.zeros(x.shape, np.int64)
    values = (Cummin if is_min else Cummax).apply(input, idx, d)
    return rt(values, Tensor._wrap(idx.astype(np.int64, copy=False)))


@op()
def cummax(input, dim):
    return _cum_extreme(input, dim, False)


@op()
def cummin(input, dim):
    return _cum_extreme(input, dim, True)


# -- logcumsumexp -----------------------------------------------------------------------------------------------------

def _lcse_np(x, d):
    return np.logaddexp.accumulate(x, axis=d) if x.size else x.copy()


def _reverse_lcse(v, d):
    if isinstance(v, Tensor):
        return v.flip(d).logcumsumexp(d).flip(d)
    return np.flip(_lcse_np(np.flip(v, d), d), d)


class Logcumsumexp(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim):
        out = _lcse_np(x, dim)
        ctx.save_for_backward(x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        d = ctx.dim
        gd = P.data_of(g)
        lowest = np.finfo(gd.dtype).min  # stands for log(0) without producing inf - inf
        log_abs = P.log(P.abs(g))
        pos = _reverse_lcse(P.where(gd > 0, log_abs, lowest) - out, d) + x
        neg = _reverse_lcse(P.where(gd < 0, log_abs, lowest) - out, d) + x
        return P.exp(pos) - P.exp(neg), None


@op()
def logcumsumexp(input, dim):
    x = input._data
    d = canon_dim(dim, x.ndim)
    if x.dtype.kind != "f" and x.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_dt.scalar_name(x.dtype)}'")
    if x.ndim == 0:
        return input.clone()
    return Logcumsumexp.apply(input, d)


# -- diff --------------------------------------------------------------------------------------------------------------

@op()
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = canon_dim(dim, input._data.ndim)
    parts = []
    for extra in (prepend, input, append):
        if extra is None:
            continue
        if extra._data.ndim != input._data.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(extra)
    x = input
    if len(parts) > 1:
        from .movement import cat
        x = cat(parts, d)
    for _ in range(n):
        length = x._data.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x._data.dtype.kind == "b" else hi - lo
    return x
