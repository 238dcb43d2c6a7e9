"""Indexing: ``x[...]`` and ``x[...] = v``, gather/scatter, index_select, masked_fill/select.

Index expressions accept what PyTorch accepts: ints, slices (any step, negative bounds), ``None``,
``...``, boolean masks and integer tensors/lists, combined. Basic indexing returns a view (as in
PyTorch); advanced indexing a copy. The gradient of an advanced index accumulates repeated indices.
"""
import warnings

import numpy as np

from .. import dtypes as _dt
from .._fp_quiet import quiet
from ..autograd.function import Op
from ..autograd.grad_mode import state as _grad_state
from ..autograd import record as _record
from ..autograd.record import DUAL_HOOK
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import method, op
from .products import broadcast_batch as _broadcast_batch
from ..autograd.views import mark_view

# -- index conversion ---------------------------------------------------------------------------------------

def _index_array(x):
    a = np.asarray(x)
    if a.dtype.kind == "b":
        return a
    if a.dtype.kind in "iu":
        return a.astype(np.intp, copy=False)
    if a.size == 0:
        return a.astype(np.intp)
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


_SEQUENCE_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                      "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                      "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _list_means_tuple(index):
    """PyTorch's (NumPy's old) rule: a short list holding a tensor, a sequence, a slice, ``None`` or ``...`` is
    read as a tuple of indices, ``x[[[0, 1], [1, 2]]]`` as ``x[[0, 1], [1, 2]]``, with a deprecation warning."""
    return len(index) < 32 and any(
        v is None or v is Ellipsis or isinstance(v, (Tensor, list, tuple, range, slice, np.ndarray)) for v in index)


def convert_index(index):
    """``(numpy_index, is_advanced)`` for a PyTorch index expression."""
    if not isinstance(index, tuple):
        if isinstance(index, list) and _list_means_tuple(index):
            warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
            index = tuple(index)
        else:
            index = (index,)
    out = []
    advanced = False
    for i in index:
        if isinstance(i, Tensor):
            a = i._data
            if a.ndim == 0 and a.dtype.kind in "iu":
                out.append(int(a))  # a 0-d integer tensor indexes like an int
                continue
            out.append(_index_array(a))
            advanced = True
        elif i is None or i is Ellipsis:
            out.append(i)
        elif isinstance(i, slice):
            out.append(slice(*(None if v is None else int(v) for v in (i.start, i.stop, i.step))))
            if i.step is not None and int(i.step) <= 0:
                raise ValueError("slice step cannot be zero" if int(i.step) == 0 else "step must be greater than zero")
        elif isinstance(i, (bool, np.bool_)):
            out.append(bool(i))
            advanced = True
        elif isinstance(i, (int, np.integer)):
            out.append(int(i))
        elif isinstance(i, (list, tuple, np.ndarray, range)):  # a sequence inside the index is an index tensor
            out.append(_index_array(_sequence_array(i)))
            advanced = True
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {type(i).__name__})")
    return tuple(out), advanced


def _sequence_array(seq):
    """A (nested) list or tuple as the integer/bool array PyTorch would make of it; 0-d tensors inside count
    as their values."""
    if isinstance(seq, np.ndarray):
        return seq
    if isinstance(seq, (list, tuple)) and any(isinstance(v, (Tensor, list, tuple)) for v in seq):
        seq = [_sequence_array(v) if isinstance(v, (list, tuple)) else
               v._data if isinstance(v, Tensor) else v for v in seq]
    try:
        return np.asarray(seq)
    except ValueError:  # ragged
        raise ValueError(f"expected sequence of length {len(seq[0])} at dim 1 (got "
                         f"{next(len(v) for v in seq if len(v) != len(seq[0]))})") from None


class IntsFirst:
    """An index PyTorch applies in two steps: its integers first (an int is a basic index there, not an
    advanced one as in NumPy), then the rest. ``x[1, :, idx]`` is ``x[1][:, idx]``: idx's dims follow the
    slice's, where NumPy would move them to the front. Reads and writes go through the view ``a[first]``."""

    __slots__ = ("first", "rest")

    def __init__(self, first, rest):
        self.first, self.rest = first, rest

    def read(self, a):
        return a[self.first][self.rest]

    def write(self, a, value):
        a[self.first][self.rest] = value


def ints_first(idx):
    """The two-step form of a converted index whose advanced dims PyTorch places elsewhere than NumPy does:
    its advanced parts sit together once the ints are taken out, but not with the ints in, and something
    that keeps a dim comes before them. None otherwise (NumPy's single step agrees)."""
    if len(idx) < 3:  # an int and an advanced index need something between them to be placed differently
        return None
    # each entry: 2 an int, 1 advanced (an index array, a bool), 0 anything else (a slice, None, ...)
    kinds = [2 if type(i) is int else 1 if type(i) is bool or isinstance(i, np.ndarray) else 0 for i in idx]
    if 2 not in kinds:
        return None
    lo, hi = kinds.index(1), len(kinds) - kinds[::-1].index(1)
    if 0 in kinds[lo:hi] or 0 not in kinds[:lo]:
        return None  # apart with the ints out too (both put them first), or only ints before them
    ints = [k for k, v in enumerate(kinds) if v == 2]
    if 0 not in kinds[min(lo, ints[0]):max(hi, ints[-1] + 1)]:
        return None  # together with the ints in as well: NumPy places them where PyTorch does
    first, rest = [], []
    for i in idx:
        if type(i) is int or i is Ellipsis:
            first.append(i)
        elif isinstance(i, np.ndarray):
            first.extend([slice(None)] * (i.ndim if i.dtype.kind == "b" else 1))
        elif isinstance(i, slice):
            first.append(slice(None))
        if type(i) is not int:
            rest.append(i)
    return IntsFirst(tuple(first), tuple(rest))


def _read_at(a, index):
    return index.read(a) if type(index) is IntsFirst else a[index]


def _write_at(a, index, value):
    if type(index) is IntsFirst:
        index.write(a, value)
    else:
        a[index] = value


def _index_error(e, shape, index):
    """PyTorch's IndexError for an index NumPy rejected (worked out only once it has failed)."""
    msg = str(e)
    if "too many indices" in msg:
        if not shape:
            return IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                              "in C++ to convert a 0-dim tensor to a number")
        return IndexError(f"too many indices for tensor of dimension {len(shape)}")
    found = _explain_index(shape, index)
    if found is not None:
        return IndexError(found)
    if "out of bounds" in msg:
        return IndexError(msg.replace("axis", "dimension"))
    return IndexError(msg)


def _explain_index(shape, index):
    """Describe the first problem of an index NumPy refused as PyTorch does, in its order: the integers (it
    applies the basic part, ints, slices and None, first), the masks against the dims that basic part leaves,
    the index tensors' broadcast, then their bounds (an index tensor's dimension counted among the index
    tensors, as PyTorch reports it)."""
    consumed = 0
    for i in index:
        if isinstance(i, np.ndarray):
            consumed += i.ndim if i.dtype.kind == "b" else 1
        elif i is not None and i is not Ellipsis and not isinstance(i, bool):
            consumed += 1
    d, placed, left = 0, [], []  # placed: (entry, first dim it consumes, its position in the basic part's result)
    for i in index:
        if i is Ellipsis:
            left += shape[d:d + len(shape) - consumed]
            d += len(shape) - consumed
        elif i is None:
            left.append(1)
        elif not isinstance(i, bool):
            size = shape[d] if d < len(shape) else 0
            if type(i) is int:
                if not -size <= i < size:
                    return f"index {i} is out of bounds for dimension {d} with size {size}"
                d += 1
                continue
            placed.append((i, d, len(left)))
            n = i.ndim if isinstance(i, np.ndarray) and i.dtype.kind == "b" else 1
            left += [len(range(*i.indices(size)))] if isinstance(i, slice) else list(shape[d:d + n])
            d += n
    left += shape[d:]
    tensors = [(i, d, at) for i, d, at in placed if isinstance(i, np.ndarray)]
    tensor_shapes = []
    for i, d, at in tensors:
        if i.dtype.kind == "b":
            for j, n in enumerate(i.shape):
                if at + j >= len(left) or left[at + j] != n:
                    return (f"The shape of the mask {list(i.shape)} at index {j} does not match the shape of the "
                            f"indexed tensor {left} at index {at + j}")
            tensor_shapes += [[int(np.count_nonzero(i))]] * i.ndim
        else:
            tensor_shapes.append(list(i.shape))
    try:
        np.broadcast_shapes(*[tuple(t) for t in tensor_shapes])
    except ValueError:
        return ("shape mismatch: indexing tensors could not be broadcast together with shapes "
                + ", ".join(str(t) for t in tensor_shapes))
    # bounds, in the order PyTorch meets them: result element by element, each element's indices in turn
    checks, k = [], 0
    for i, d, _ in tensors:
        if i.dtype.kind != "b":
            size = shape[d] if d < len(shape) else 0
            checks.append((i, (i < -size) | (i >= size), k, size))
        k += i.ndim if i.dtype.kind == "b" else 1
    if any(bad.any() for _, bad, _, _ in checks):
        full = np.broadcast_shapes(*[tuple(t) for t in tensor_shapes])
        bads = [np.broadcast_to(bad, full).ravel() for _, bad, _, _ in checks]
        first = min(int(np.argmax(b)) for b in bads if b.any())
        for (i, _, k, size), b in zip(checks, bads):
            if b[first]:
                value = np.broadcast_to(i, full).ravel()[first]
                return f"index {value} is out of bounds for dimension {k} with size {size}"
    return None


def _value_shape_error(shape, index, advanced, vshape, dtype):
    """PyTorch's message for a value that does not fit ``x[index] = value``."""
    target = list(_read_at(np.broadcast_to(np.empty((), np.int8), shape), index).shape)
    vshape = list(vshape)
    if advanced:
        return RuntimeError(f"shape mismatch: value tensor of shape {vshape} cannot be broadcast to indexing result "
                            f"of shape {target}")
    v = list(vshape)
    while len(v) > len(target) and v[0] == 1:
        v.pop(0)
    if len(v) > len(target):
        return RuntimeError(f"expand(torch.{_dt.scalar_name(dtype)}Tensor{{{vshape}}}, size={target}): the number of sizes provided "
                            f"({len(target)}) must be greater or equal to the number of dimensions in the tensor "
                            f"({len(vshape)})")
    lead = len(target) - len(v)
    for i in range(len(target) - 1, lead - 1, -1):
        if v[i - lead] != target[i] and v[i - lead] != 1:
            return RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size "
                                f"({v[i - lead]}) at non-singleton dimension {i}.  Target sizes: {target}.  Tensor "
                                f"sizes: {vshape}")
    return RuntimeError(f"shape mismatch: value tensor of shape {vshape} cannot be broadcast to indexing result of "
                        f"shape {target}")


def _basic_part_is_view(index, shape):
    """Whether PyTorch's setitem writes through a view (it applies ints, None and partial slices first):
    decides which of its two leaf errors it raises."""
    d = 0
    for i in index:
        if i is None or isinstance(i, int) and not isinstance(i, bool):
            return True
        if isinstance(i, slice):
            if i.indices(shape[d]) != (0, shape[d], 1):
                return True
            d += 1
        elif i is Ellipsis:  # (found by identity: list.index would compare the index arrays with ==)
            k = next(j for j, e in enumerate(index) if e is Ellipsis)
            d = len(shape) - sum(e.ndim if isinstance(e, np.ndarray) and e.dtype.kind == "b" else 1
                                 for e in index[k + 1:] if e is not None and not isinstance(e, bool))
        elif isinstance(i, np.ndarray):
            d += i.ndim if i.dtype.kind == "b" else 1
    return False


# -- getitem -----------------------------------------------------------------------------------------------------

def _getitem_node_name(node):
    _, index, advanced = node.__dict__.get("args", (None, None, False))
    if advanced:
        return "IndexBackward0"
    parts = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in parts):
        return "SelectBackward0"
    if any(i is None for i in parts):
        return "UnsqueezeBackward0"
    return "SliceBackward0"


def _scatter_index(g, shape, index, advanced):
    out = np.zeros(shape, np.asarray(g).dtype)
    if advanced and any(isinstance(i, np.ndarray) and i.dtype.kind != "b" for i in index):
        add_at_flat(out, _index_positions(shape, index), g)  # repeated indices accumulate
    else:
        out[index] = g  # basic indexing and masks select each element at most once
    return out


def _index_positions(shape, index):
    """Flat positions (in a C-contiguous array of ``shape``) of the elements ``x[index]`` selects."""
    first = index[0]
    if isinstance(first, np.ndarray) and first.dtype.kind != "b" and \
            all(isinstance(i, slice) and i == slice(None) for i in index[1:]):
        # x[idx] / x[idx, :]: rows, the common case (embeddings); no position table needed.
        n = shape[0]
        rows = np.where(first < 0, first + n, first) if first.size and first.min() < 0 else first
        post = int(np.prod(shape[1:]))
        return (rows[..., None] * post + np.arange(post)).reshape(first.shape + tuple(shape[1:]))
    return np.arange(int(np.prod(shape))).reshape(shape)[index]


def add_at_flat(out, positions, values):
    """``out.flat[positions] += values`` with repeated positions accumulating. NumPy's np.add.at is fast
    only on a 1-D array with one integer index, so every scatter-add goes through this form.
    ``out`` must be C-contiguous (a fresh array), so that ``reshape(-1)`` is a view of it."""
    np.add.at(out.reshape(-1), positions.reshape(-1), np.broadcast_to(values, positions.shape).reshape(-1))
    return out


def _getitem_np(x, shape, index, advanced):
    return x[index]


# the adjoint of indexing: the gradient scattered (added, for repeated indices) into zeros of x's shape
GetItem, IndexBackward = P.adjoint_pair("GetItem", _getitem_np, _scatter_index, "IndexBackward",
                                        node_name=_getitem_node_name)


def _getitem(self, index):
    idx, advanced = convert_index(index)
    if advanced:
        two = ints_first(idx)
        if two is not None:  # PyTorch's order: the ints' view, then the rest (see IntsFirst)
            return _getitem(_getitem(self, two.first), two.rest)
    try:
        out = GetItem.apply(self, self._data.shape, idx, advanced)
    except IndexError as e:
        raise _index_error(e, self._data.shape, idx) from None
    if not advanced:
        mark_view(out, self, lambda a, i=idx: a[i])
    return out


method("__getitem__", _getitem)


# -- setitem -------------------------------------------------------------------------------------------------------

class IndexPut(Op):
    """``x[index] = value`` as a graph node: the overwritten region gets no gradient."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, value, index):
        ctx.index = index
        _write_at(x, index, value)  # x is the target tensor's own array: this is the in-place write
        return x

    @staticmethod
    def backward(ctx, g):
        index = ctx.index
        gx = gv = None
        if ctx.needs_input_grad[0]:
            gx = _zero_at(g, index)
        if ctx.needs_input_grad[1]:
            gv = _read_at(g, index)
        return gx, gv, None


def _zero_at(g, index):
    if type(index) is not IntsFirst:
        return P.zero_at(g, index)
    mask = np.ones(P.data_of(g).shape, P.data_of(g).dtype)
    index.write(mask, 0)
    return g * mask


class _SliceCopy(IndexPut):
    __slots__ = ()
    node_name = "torch::autograd::CopySlices"


@quiet  # (the write casts: 1e300 into float32 is inf, silently, as PyTorch)
def _setitem(self, index, value):
    from .inplace import check_inplace, rebase_after_inplace, bump_version, LEAF_MSG, VIEW_LEAF_MSG
    idx, advanced = convert_index(index)
    at = (ints_first(idx) or idx) if advanced else idx  # where the write goes (PyTorch's order, see IntsFirst)
    if isinstance(value, Tensor):
        v = value
        if v._data.dtype != self._data.dtype:
            v = v._cast(_dt.from_numpy_dtype(self._data.dtype))
    else:
        value = _dt.checked_fill_value(value, self._data.dtype, setitem=True)
        v = np.asarray(value, dtype=self._data.dtype) if not isinstance(value, (int, float, bool)) else value
    recording = _grad_state.enabled and (self._requires_grad or (isinstance(v, Tensor) and v._requires_grad))
    try:
        if not recording:
            if _record._tracer is not None:  # the write would not reach the exported graph: refuse, never drop it
                raise RuntimeError("npgrad.onnx.export: assignment into a tensor (x[index] = value) cannot be "
                                   "exported yet; build the value out of place instead (torch.where, "
                                   "torch.cat, masked_fill, index_copy)")
            if not self._data.flags.writeable:
                raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                                   "refers to a single memory location. Please clone() the tensor before "
                                   "performing the operation.")
            _write_at(self._data, at, v._data if isinstance(v, Tensor) else v)
            bump_version(self)
            if DUAL_HOOK and DUAL_HOOK[2](self, v):  # forward AD: the tangent's region takes v's tangent
                DUAL_HOOK[4](self, at, v)
            return
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError(VIEW_LEAF_MSG if _basic_part_is_view(idx, self._data.shape) else LEAF_MSG)
        check_inplace(self)
        old = Tensor._wrap(self._data, self._grad_fn, self._out_idx)
        old._requires_grad = self._requires_grad
        if DUAL_HOOK:
            DUAL_HOOK[3](self, old)
        if not isinstance(v, Tensor):
            v = Tensor._wrap(np.asarray(v, self._data.dtype))
        # PyTorch writes through a view when the index has a basic part (x[0] = v, x[0, [1, 2]] = v): CopySlices.
        r = (_SliceCopy if _basic_part_is_view(idx, self._data.shape) else IndexPut).apply(old, v, at)
    except IndexError as e:
        raise _index_error(e, self._data.shape, idx) from None
    except ValueError:
        raise _value_shape_error(self._data.shape, at, advanced, np.shape(P.data_of(v)), self._data.dtype) \
            from None
    rebase_after_inplace(self, r)


method("__setitem__", _setitem)


# -- gather / scatter -----------------------------------------------------------------------------------------

def _grid(index, dim):
    """Full index tuple addressing ``index``'s positions with ``index`` itself along ``dim``."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _grid_positions(shape, index, dim):
    """Flat positions (C order, array of ``shape``) that ``_grid(index, dim)`` addresses."""
    nd = len(shape)
    if nd == 0:
        return index
    strides = [1] * nd
    for i in range(nd - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    flat = index * strides[dim]
    for d, n in enumerate(index.shape):
        if d != dim:
            view = [1] * index.ndim
            view[d] = n
            flat = flat + (np.arange(n) * strides[d]).reshape(view)
    return flat


def _check_index_tensor(index, name):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32):
        what = "int32 or int64" if name == "index_select" else "int32/int64"
        raise RuntimeError(f"{name}(): Expected dtype {what} for index")
    return index._data


def _check_gather_shapes(x_shape, idx_shape, dim, name, src_shape=None):
    if len(idx_shape) != len(x_shape):
        what = "input" if name == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
    if name == "gather":
        for d, (a, b) in enumerate(zip(idx_shape, x_shape)):
            if d != dim and a > b:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(idx_shape)} to be no "
                                   f"larger than self {list(x_shape)} apart from dimension {dim}")
        return
    too_big = any(d != dim and a > b for d, (a, b) in enumerate(zip(idx_shape, x_shape)))
    if src_shape is not None:
        too_big = too_big or any(a > b for a, b in zip(idx_shape, src_shape))
    if too_big:
        raise RuntimeError(f"Expected index {list(idx_shape)} to be no larger than self {list(x_shape)} apart from "
                           f"dimension {dim}" + ("" if src_shape is None else
                                                 f" and to be no larger size than src {list(src_shape)}"))


def _bounds(index, size, dim, name):
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = index[(index < 0) | (index >= size)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _gather_np(x, shape, dim, index):
    return x[_grid(index, dim)]


def _scatter_add_np(g, shape, dim, index):
    return add_at_flat(np.zeros(shape, np.asarray(g).dtype), _grid_positions(shape, index, dim), g)


Gather, GatherBackward = P.adjoint_pair("Gather", _gather_np, _scatter_add_np, "GatherBackward")


def scatter_add_values(g, shape, dim, index):
    """Zeros of ``shape`` with ``g`` added at ``index`` along ``dim`` (differentiable in Tensor mode)."""
    return P.kernel_call(GatherBackward, g, shape, dim, index)


@op()
def gather(input, dim, index, *, sparse_grad=False):
    d = canon_dim(dim, input._data.ndim)
    idx = _check_index_tensor(index, "gather")
    if input._data.ndim == 0 or idx.ndim == 0:  # a scalar acts as a 1-element vector
        return gather(_at_least_1d(input), d, _at_least_1d(index)).reshape(idx.shape)
    _check_gather_shapes(input._data.shape, idx.shape, d, "gather")
    _bounds(idx, input._data.shape[d] if input._data.ndim else 1, d, "gather")
    return Gather.apply(input, input._data.shape, d, idx.astype(np.intp, copy=False))


@op()
def take_along_dim(input, indices, dim=None):
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = canon_dim(dim, input._data.ndim)
    shape = list(np.broadcast_shapes(tuple(s if i != d else 1 for i, s in enumerate(input.shape)),
                                     tuple(s if i != d else 1 for i, s in enumerate(indices.shape))))
    xs = list(shape)
    xs[d] = input._data.shape[d]
    ish = list(shape)
    ish[d] = indices._data.shape[d]
    return gather(input.expand(xs), d, indices.expand(ish))


class ScatterAdd(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        out = x.copy()  # C order
        return add_at_flat(out, _grid_positions(x.shape, index, dim), src[tuple(slice(0, s) for s in index.shape)])

    @staticmethod
    def backward(ctx, g):
        gsrc = None
        if ctx.needs_input_grad[3]:
            gsrc = _pad_to(g[_grid(ctx.index, ctx.dim)], ctx.src_shape)
        return g, None, None, gsrc


def _pad_to(g, shape):
    if tuple(g.shape) == tuple(shape):
        return g
    # zero-padding is the adjoint of the crop src[:a, :b, ...] that scatter reads
    return P.kernel_call(IndexBackward, g, tuple(shape), tuple(slice(0, s) for s in g.shape), False)


class Scatter(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.index = dim, index
        out = x.copy()
        is_scalar = np.ndim(src) == 0
        ctx.src_shape = None if is_scalar else src.shape
        out[_grid(index, dim)] = src if is_scalar else src[tuple(slice(0, s) for s in index.shape)]
        return out

    @staticmethod
    def backward(ctx, g):
        grid = _grid(ctx.index, ctx.dim)
        gx = gsrc = None
        if ctx.needs_input_grad[0]:
            gx = P.zero_at(g, grid)
        if ctx.needs_input_grad[3] and ctx.src_shape is not None:
            gsrc = _pad_to(g[grid], ctx.src_shape)
        return gx, None, None, gsrc


def _scatter_args(input, dim, index, src, name):
    d = canon_dim(dim, input._data.ndim)
    idx = _check_index_tensor(index, "scatter")
    src_shape = src._data.shape if isinstance(src, Tensor) else None
    if src_shape is not None and len(src_shape) != input._data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    _check_gather_shapes(input._data.shape, idx.shape, d, name, src_shape)
    _bounds(idx, input._data.shape[d] if input._data.ndim else 1, d, name)
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return d, idx.astype(np.intp, copy=False)


@op(inplace="generic")
def scatter_add(input, dim, index, src):
    if input._data.ndim == 0:
        return scatter_add(input.reshape(1), dim, _at_least_1d(index), _at_least_1d(src)).reshape(())
    d, idx = _scatter_args(input, dim, index, src, "scatter_add")
    return ScatterAdd.apply(input, d, idx, src)


@op(inplace="generic")
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    if reduce is not None:
        return _scatter_with_reduce(input, dim, index, src if src is not None else value, reduce)
    if src is None:
        src = value
    if input._data.ndim == 0:
        return scatter(input.reshape(1), dim, _at_least_1d(index), _at_least_1d(src)).reshape(())
    d, idx = _scatter_args(input, dim, index, src, "scatter")
    if not isinstance(src, Tensor):
        src = np.asarray(src, input._data.dtype)
    return Scatter.apply(input, d, idx, src)


_SCATTER_REDUCE_DEPRECATED = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                              "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                              "options.")


def _scatter_with_reduce(input, dim, index, src, reduce):
    # scatter(reduce=) is scatter_reduce with the target's values included; a scalar value is written (in the
    # target's dtype, as PyTorch casts it) at every position the index names, repeats accumulating
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        warnings.warn(_SCATTER_REDUCE_DEPRECATED, UserWarning, stacklevel=3)
    else:
        idx = index._data if isinstance(index, Tensor) else np.asarray(index)
        src = Tensor._wrap(np.full(idx.shape, _dt.checked_fill_value(src, input._data.dtype), input._data.dtype))
    if reduce == "add":
        return scatter_add(input, dim, index, src)
    return input.scatter_reduce(dim, index, src, "prod")  # (the method: its family loads lazily)


def _index_add(out, dim, index, g):
    """``out[(:,) * dim + (index,)] += g`` with repeated indices accumulating (``out`` C-contiguous)."""
    shape = out.shape
    pre = int(np.prod(shape[:dim]))
    post = int(np.prod(shape[dim + 1:]))
    n = shape[dim]
    pos = (np.arange(pre)[:, None, None] * (n * post) + index[None, :, None] * post
           + np.arange(post)[None, None, :])
    return add_at_flat(out, pos, np.reshape(g, (pre, len(index), post)))


def _take_np(x, shape, dim, index):
    return np.take(x, index, axis=dim)


def _index_add_np(g, shape, dim, index):
    return _index_add(np.zeros(shape, g.dtype), dim, index, g)


IndexSelect, IndexAddBackward = P.adjoint_pair("IndexSelect", _take_np, _index_add_np, "IndexAddBackward")


@op()
def index_select(input, dim, index):
    d = canon_dim(dim, input._data.ndim)
    idx = _check_index_tensor(index, "index_select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    idx = idx.reshape(-1).astype(np.intp, copy=False)
    size = input._data.shape[d] if input._data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx[(idx < 0) | (idx >= size)][0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    if input._data.ndim == 0:
        if idx.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
        return input.clone()
    return IndexSelect.apply(input, input._data.shape, d, idx)


def _at_least_1d(t):
    if isinstance(t, Tensor):
        return t.reshape(1) if t._data.ndim == 0 else t
    return t


class IndexAdd(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, index, src, alpha):
        ctx.dim, ctx.index, ctx.alpha = dim, index, alpha
        out = x.copy()  # C order
        return _index_add(out, dim, index, src * alpha if alpha != 1 else src)

    @staticmethod
    def backward(ctx, g):
        gs = None
        if ctx.needs_input_grad[3]:
            gs = P.kernel_call(IndexSelect, g, g.shape, ctx.dim, ctx.index)
            if ctx.alpha != 1:
                gs = gs * ctx.alpha
        return g, None, None, gs, None


@op(inplace="generic")
def index_add(input, dim, index, source, *, alpha=1):
    d = canon_dim(dim, input._data.ndim)
    if not isinstance(index, Tensor) or index._data.dtype not in (np.int64, np.int32):
        got = _dt.scalar_name(index._data.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {got}")
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                           f"{_dt.scalar_name(idx.dtype)} and size: {list(idx.shape)}")
    idx = idx.reshape(-1).astype(np.intp, copy=False)
    src_n = source._data.shape[d] if source._data.ndim else 1
    if idx.size != src_n:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({src_n}), for dim: {d}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_add_(): self ({_dt.scalar_name(input._data.dtype)}) and source "
                           f"({_dt.scalar_name(source._data.dtype)}) must have the same scalar type")
    _bounds(idx, input._data.shape[d] if input._data.ndim else 1, d, "index_add")
    if input._data.ndim == 0:
        return index_add(input.reshape(1), 0, index.reshape(1), source.reshape(1), alpha=alpha).reshape(())
    return IndexAdd.apply(input, d, idx, source, alpha)


@op()
def take(input, index):
    if isinstance(index, Tensor) and index._data.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_dt.scalar_name(index._data.dtype)}")
    return input.reshape(-1)[index]


# -- masks -----------------------------------------------------------------------------------------------------------

class MaskedFill(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.mask = mask
        out = P.fill_where(x, mask, value)  # (the value is a scalar: masked_fill checks it)
        return np.where(mask, np.asarray(value, x.dtype), x) if out is None else out

    @staticmethod
    def backward(ctx, g):
        mask = ctx.mask
        gx = P.where(mask, 0.0, g) if ctx.needs_input_grad[0] else None
        gv = None
        if ctx.needs_input_grad[2]:
            gv = P.sum(P.where(mask, g, 0.0))
        return gx, None, gv


def _mask_array(mask, name):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype.kind != "b":
        if name == "masked_fill":
            from .products import cpp_type_name
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                               f"{cpp_type_name(mask._data.dtype)}")
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return mask._data


@op(inplace="generic")
def masked_fill(input, mask, value):
    m = _mask_array(mask, "masked_fill")
    full = _broadcast_batch(m.shape, input._data.shape)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if value._data.dtype.kind == "c" and input._data.dtype.kind != "c":  # read as a scalar, as PyTorch does
            _dt.checked_fill_value(value.item(), input._data.dtype)
        if value._data.dtype != input._data.dtype:
            value = value._cast(_dt.from_numpy_dtype(input._data.dtype))
    elif input._data.dtype.kind in "iub" and isinstance(value, float) and not np.isfinite(value):
        raise _dt.overflow_error(input._data.dtype)
    else:
        value = _dt.checked_fill_value(value, input._data.dtype)
    if full != input._data.shape:
        input = input.expand(full)
    return MaskedFill.apply(input, m, value)


@op()
def masked_select(input, mask):
    m = _mask_array(mask, "masked_select")
    shape = np.broadcast_shapes(m.shape, input._data.shape)
    x = input.expand(shape) if input._data.shape != shape else input
    return x[Tensor._wrap(np.broadcast_to(m, shape))]


@op()
def nonzero(input, *, as_tuple=False):
    d = input._data
    if d.ndim == 0:  # PyTorch: a 0-d tensor is one element with no coordinates (np.nonzero refuses 0-d)
        n = int(bool(d))
        return (Tensor._wrap(np.zeros(n, np.int64)),) if as_tuple else Tensor._wrap(np.zeros((n, 0), np.int64))
    nz = np.nonzero(d)
    if as_tuple:
        return tuple(Tensor._wrap(np.asarray(a, np.int64)) for a in nz)
    return Tensor._wrap(np.stack(nz, axis=1).astype(np.int64))


@op()
def argwhere(input):
    return nonzero(input)
