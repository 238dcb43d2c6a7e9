"""Reducing values into indexed positions: scatter_reduce and index_reduce (sum, prod, mean, amax, amin;
``include_self`` or not), with their in-place ``_`` forms.

Both are one operation (``Reduce``) on flat positions: scatter_reduce's come from an index shaped like its
source, index_reduce's from slices along a dim. The gradients are PyTorch's, including its choices where the
mathematics leaves one: amax/amin split a gradient evenly between the tied elements (where the tie count
counts the input's own element whenever it equals the result, even with ``include_self=False``), prod
handles zeros without dividing by them, and with ``include_self=False`` the input gets no gradient at the
positions written.
"""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import op
from .index_put import positions

_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _counts(pos, size, include_self):
    """How many values each flat position averages (mean): its sources, plus itself with include_self."""
    return np.bincount(pos.reshape(-1), minlength=size) + int(include_self)


def _reduce_np(x, src, pos, reduce, include_self):
    out = np.array(x, order="C", copy=True)
    flat = out.reshape(-1)
    p = pos.reshape(-1)
    if not include_self:
        flat[p] = _identity(reduce, out.dtype)
    _UFUNC[reduce].at(flat, p, np.asarray(src, out.dtype).reshape(-1))
    if reduce == "mean":
        touched = np.unique(p)
        n = _counts(pos, flat.size, include_self)[touched]
        if out.dtype.kind == "f":
            flat[touched] /= n
        else:
            flat[touched] //= n.astype(out.dtype)
    return out


def _gather(a, pos):
    return P.reshape(a, (-1,))[pos]


def _scatter_add(v, pos, shape):
    """Zeros of ``shape`` with ``v`` added at ``pos`` (both modes)."""
    from .indexing import IndexBackward
    flat = P.kernel_call(IndexBackward, v, (int(np.prod(shape)),), (pos,), True)
    return P.reshape(flat, shape)


class Reduce(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, src, pos, reduce, include_self):
        ctx.pos, ctx.reduce, ctx.include_self = pos, reduce, include_self
        out = _reduce_np(x, src, pos, reduce, include_self)
        if reduce in ("prod", "amax", "amin"):
            ctx.save_for_backward(x, src, out)
        return out

    @staticmethod
    def backward(ctx, g):
        pos, reduce, include_self = ctx.pos, ctx.reduce, ctx.include_self
        shape = tuple(g.shape)
        if reduce == "sum":
            gx, gs = g, _gather(g, pos)
        elif reduce == "mean":
            n = _counts(pos, int(np.prod(shape)), include_self).reshape(shape)
            gd = g / np.maximum(n, 1).astype(P.data_of(g).dtype)
            gx, gs = gd, _gather(gd, pos)
        elif reduce == "prod":
            gx, gs = _prod_grads(g, pos, include_self, *ctx.saved_tensors)
        else:
            x, src, out = ctx.saved_tensors
            xd, sd, od = P.data_of(x), P.data_of(src), P.data_of(out)
            dt = P.data_of(g).dtype
            self_is = (xd == od).astype(dt)
            src_is = (sd == od.reshape(-1)[pos]).astype(dt)
            gd = g / (_scatter_add(src_is, pos, shape) + self_is)
            gx, gs = gd * self_is, _gather(gd, pos) * src_is
        if not include_self:
            gx = P.zero_at(gx, np.unravel_index(pos, shape))
        return (gx if ctx.needs_input_grad[0] else None), (gs if ctx.needs_input_grad[1] else None), None, None, None


def _prod_grads(g, pos, include_self, x, src, out):
    """PyTorch's prod gradient: divide the result by an element only where that element is not 0; a source
    that is the only zero at its position gets the product of the others (recomputed with it set to 1)."""
    def again(a, s):
        return Reduce.apply(a, s, pos, "prod", include_self) if P.is_tensor(a) else \
            _reduce_np(a, s, pos, "prod", include_self)
    xd, sd = P.data_of(x), P.data_of(src)
    self_zero = xd == 0
    masked_self = P.where(self_zero, 1.0, x) if self_zero.any() else x
    gx = g * again(masked_self, src) / masked_self
    src_zero = sd == 0
    n_zero = np.bincount(pos[src_zero].reshape(-1), minlength=xd.size)[pos]
    single = src_zero & (n_zero == 1)
    gs = _gather(g * out, pos) / (P.where(src_zero, 1.0, src) if src_zero.any() else src)
    if single.any():
        gs = P.where(single, _gather(g * again(x, P.where(single, 1.0, src)), pos), gs)
    return gx, gs


class ScatterReduce(Reduce):
    __slots__ = ()
    node_name = "ScatterReduceBackward0"


class IndexReduce(Reduce):
    __slots__ = ()
    node_name = "IndexReduceBackward0"


@op(inplace="generic")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    if reduce not in _UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    from .indexing import _at_least_1d, _grid_positions, _scatter_args
    if input._data.ndim == 0:
        return scatter_reduce(input.reshape(1), dim, _at_least_1d(index), _at_least_1d(src), reduce,
                              include_self=include_self).reshape(())
    d, idx = _scatter_args(input, dim, index, src, "scatter_reduce")
    if src._data.shape != idx.shape:
        src = src[tuple(slice(0, s) for s in idx.shape)]  # scatter reads the leading part of a larger src
    return ScatterReduce.apply(input, src, _grid_positions(input._data.shape, idx, d), reduce, bool(include_self))


@op(inplace="generic")
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = canon_dim(dim, input._data.ndim)
    if not isinstance(index, Tensor) or index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    idx = index._data
    if idx.ndim > 1:
        raise IndexError("index_reduce_(): Index should have dimension 1 or 0 (got " + str(idx.ndim) + ")")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_dt.scalar_name(input._data.dtype)}) and source "
                           f"({_dt.scalar_name(source._data.dtype)}) must have the same scalar type")
    shape = input._data.shape or (1,)
    n = source._data.shape[d] if source._data.ndim else 1
    if idx.size != n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                           f"({n})")
    if idx.size and (idx.min() < -shape[d] or idx.max() >= shape[d]):
        bad = idx[(idx < -shape[d]) | (idx >= shape[d])].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {shape[d]}")
    pos = np.take(positions(shape), idx.reshape(-1).astype(np.intp), axis=d)
    if source._data.shape != pos.shape:
        source = source.reshape(pos.shape)
    out = IndexReduce.apply(input if input._data.ndim else input.reshape(1), source, pos, reduce, bool(include_self))
    return out if input._data.ndim else out.reshape(())
