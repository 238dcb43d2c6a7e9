"""Writing values at indexed positions, out of place: index_copy, index_fill, index_put, put, masked_scatter
(each with its in-place ``_`` form), and nonzero_static, the fixed-size form of the index query.

Every one of them is the same operation on a different set of positions: ``out`` is ``input`` with ``src``
written (or, for ``accumulate``, added) at flat positions of ``input`` that the operator's index addresses.
So one graph node does the work (``PutAt``), and each operator only works out its positions, as an integer
array shaped like the values it writes (``positions(shape)[index]``). The gradient follows: the input gets
``g`` with the overwritten positions zeroed (all of ``g`` when accumulating), the values get ``g`` read back at
their positions (summed where one value was broadcast to several).
"""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import op


def positions(shape):
    """The flat (C order) position of every element of an array of ``shape``."""
    return np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)


class PutAt(Op):
    """``input`` with ``src`` (broadcast to ``pos``'s shape) written or added at the flat positions ``pos``."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, src, pos, accumulate):
        ctx.pos, ctx.accumulate, ctx.src_shape = pos, accumulate, np.shape(src)
        out = np.array(x, order="C", copy=True)
        flat = out.reshape(-1)
        vals = np.broadcast_to(np.asarray(src, out.dtype), pos.shape).reshape(-1)
        if accumulate:
            np.add.at(flat, pos.reshape(-1), vals)
        else:
            flat[pos.reshape(-1)] = vals
        return out

    @staticmethod
    def backward(ctx, g):
        pos = ctx.pos
        gx = gs = None
        if ctx.needs_input_grad[0]:
            gx = g if ctx.accumulate else P.zero_at(g, np.unravel_index(pos, tuple(g.shape)))
        if ctx.needs_input_grad[1]:
            gs = P.sum_to(P.reshape(g, (-1,))[pos], ctx.src_shape)
        return gx, gs, None, None


def put_node(name):
    """A ``PutAt`` whose graph node carries PyTorch's name for the operator (``IndexCopyBackward0`` ...)."""
    return type(name.replace("Backward0", ""), (PutAt,), {"__slots__": (), "node_name": name})


IndexCopy, IndexFill, IndexPutNode, Put, MaskedScatter = (put_node(n) for n in (
    "IndexCopyBackward0", "IndexFillBackward0", "IndexPutBackward0", "PutBackward0", "MaskedScatterBackward0"))


def _index_vector(index, name, what):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype != np.int64:
        raise (IndexError if name == "index_fill_" else RuntimeError)(what(index._data.dtype))
    return index._data


def _dim_positions(input, d, idx, name):
    """Positions of the slices ``idx`` along ``d`` (an input of 0 dims acts as one of shape (1,))."""
    shape = input._data.shape or (1,)
    size = shape[d]
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx[(idx < -size) | (idx >= size)].flat[0]
        raise IndexError(f"{name}index {bad} is out of bounds for dimension {d} with size {size}")
    return np.take(positions(shape), idx.reshape(-1), axis=d)


@op(inplace="generic")
def index_copy(input, dim, index, source):
    d = canon_dim(dim, input._data.ndim)
    idx = _index_vector(index, "index_copy_",
                        lambda dt: f"index_copy_(): Expected a long tensor for index, but got {_dt.scalar_name(dt)}")
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_dt.scalar_name(input._data.dtype)} and (source) {_dt.scalar_name(source._data.dtype)}")
    n = source._data.shape[d] if source._data.ndim else 1
    if idx.size != n:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) ({n})")
    pos = _dim_positions(input, d, idx, "index_copy_(): ")
    return IndexCopy.apply(input, source.reshape(pos.shape) if source._data.ndim != pos.ndim else source, pos, False)


@op(inplace="generic")
def index_fill(input, dim, index, value):
    d = canon_dim(dim, input._data.ndim)
    idx = _index_vector(index, "index_fill_", lambda dt: "index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if value._data.dtype != input._data.dtype:
            value = value._cast(_dt.from_numpy_dtype(input._data.dtype))
    elif isinstance(value, complex) and input._data.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    else:
        value = _dt.checked_fill_value(value, input._data.dtype)
    pos = _dim_positions(input, d, idx, "")
    return IndexFill.apply(input, value, pos, False)


@op(inplace="generic")
def index_put(input, indices, values, accumulate=False):
    from .indexing import convert_index
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    idx, _ = convert_index(tuple(slice(None) if i is None else i for i in indices))
    shape = input._data.shape
    try:
        pos = positions(shape)[idx]
    except IndexError as e:
        from .indexing import _index_error
        raise _index_error(e, shape, idx) from None
    vshape = values._data.shape if isinstance(values, Tensor) else np.shape(values)
    try:
        np.broadcast_shapes(vshape, pos.shape)
        if len(vshape) > pos.ndim or np.broadcast_shapes(vshape, pos.shape) != pos.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(vshape)} cannot be broadcast to indexing "
                           f"result of shape {list(pos.shape)}") from None
    if isinstance(values, Tensor) and values._data.dtype != input._data.dtype:
        values = values._cast(_dt.from_numpy_dtype(input._data.dtype))
    return IndexPutNode.apply(input, values, pos, bool(accumulate))


@op(inplace="generic")
def put(input, index, source, accumulate=False):
    if index._data.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_dt.scalar_name(index._data.dtype)}")
    idx = index._data.reshape(-1)
    n = input._data.size
    if source._data.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._data.size}, index.numel() = {idx.size}")
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    pos = np.where(idx < 0, idx + n, idx).astype(np.intp).reshape(index._data.shape)
    return Put.apply(input, source.reshape(pos.shape), pos, bool(accumulate))


@op(inplace="generic")
def masked_scatter(input, mask, source):
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_dt.scalar_name(mask._data.dtype)}")
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    if input._data.shape != shape:
        input = input.expand(shape)
    pos = positions(shape)[np.broadcast_to(mask._data, shape)]
    if pos.size > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return MaskedScatter.apply(input, source.reshape(-1)[:pos.size], pos, False)


@op()
def nonzero_static(input, *, size, fill_value=-1):
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    from .indexing import nonzero
    nz = nonzero(input)._data[:size]
    out = np.full((size, nz.shape[1]), fill_value, np.int64)
    out[:len(nz)] = nz
    return Tensor._wrap(out)
