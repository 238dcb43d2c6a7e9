"""Strided views and their scatters: as_strided (and as_strided_), Tensor.unfold (sliding windows), and
select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter, which return a copy of the input with
``src`` written where the matching view would look.

A NumPy array stands for PyTorch's storage here: a tensor's storage is the array that owns its memory (the
root of ``.base``), and its storage offset is how many elements into that array the tensor starts. The
scatters are ``index_put.PutAt`` on the positions the view selects from ``positions(shape)``.
"""
import numpy as np

from ..autograd.function import Op
from ..autograd.views import mark_view
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import op
from .index_put import positions, put_node

SelectScatter, SliceScatter, DiagonalScatter, AsStridedScatter = (put_node(n) for n in (
    "SelectScatterBackward0", "SliceScatterBackward0", "DiagonalScatterBackward0", "AsStridedScatterBackward0"))


def _check_src(src, pos):
    if tuple(src._data.shape) != pos.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(pos.shape)}")


def _scatter(node, input, src, pos):
    _check_src(src, pos)
    if src._data.dtype != input._data.dtype:
        from .. import dtypes as _dt
        src = src._cast(_dt.from_numpy_dtype(input._data.dtype))
    return node.apply(input, src, pos, False)


@op()
def select_scatter(input, src, dim, index):
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at "
                         f"dimension {d}")
    return _scatter(SelectScatter, input, src, positions(input._data.shape)[(slice(None),) * d + (index,)])


@op()
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = canon_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    sl = (slice(None),) * d + (slice(start, end, step),)
    return _scatter(SliceScatter, input, src, positions(input._data.shape)[sl])


@op()
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    from .movement import diagonal_view
    nd = input._data.ndim
    d1, d2 = canon_dim(dim1, nd), canon_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _scatter(DiagonalScatter, input, src, diagonal_view(positions(input._data.shape), offset, d1, d2))


# -- as_strided ------------------------------------------------------------------------------------------------

def _storage(a):
    """(the 1-d storage array ``a`` lives in, ``a``'s offset in it); a copy of ``a`` when its memory has no
    single owner of its dtype that is C-contiguous (then the storage is ``a``'s own elements, in order)."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is not a and root.dtype == a.dtype and root.flags.c_contiguous:
        offset = (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize
        return root.reshape(-1), offset
    if a.flags.c_contiguous:
        return a.reshape(-1), 0
    return np.ascontiguousarray(a).reshape(-1), 0


def _check_geometry(size, stride, offset, storage_size, itemsize):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > storage_size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {need * itemsize} are out of bounds "
                           f"for storage of size {storage_size * itemsize}")
    return size, stride


def _strided(flat, size, stride, offset):
    """The view of 1-d ``flat`` with element strides ``stride`` from ``offset``. Read-only when elements
    overlap, so in-place writes raise as they do on an expanded tensor (PyTorch writes such a view element by
    element, so an element seen twice is updated twice; NumPy's ufuncs buffer overlapping operands and would
    update it once: neither silently)."""
    if 0 in size:
        return np.zeros(size, flat.dtype)
    base = flat[offset:]
    out = np.lib.stride_tricks.as_strided(base, size, tuple(s * flat.itemsize for s in stride),
                                          writeable=base.flags.writeable)
    if out.flags.writeable and _overlaps(size, stride):
        out.flags.writeable = False
    return out


def _overlaps(size, stride):
    dims = sorted((s, n) for n, s in zip(size, stride) if n > 1)
    reach = 0  # elements covered by the dims seen so far, as an extent of the next stride
    for s, n in dims:
        if s <= reach:
            return True
        reach += (n - 1) * s
    return False


def _geometry_positions(storage_size, size, stride, offset):
    return _strided(np.arange(storage_size, dtype=np.intp), size, stride, offset)


class AsStrided(Op):
    """The view; its gradient adds the output's gradient into a storage-shaped buffer and reads the input's
    elements back from it (PyTorch's AsStridedBackward0 for an input that does not overlap itself)."""

    __slots__ = ()
    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        flat, own = _storage(x)
        ctx.out_geometry = (size, stride, offset)
        ctx.in_geometry = (x.shape, tuple(s // x.itemsize for s in x.strides), own)
        ctx.n = flat.size
        return _strided(flat, size, stride, offset)

    @staticmethod
    def backward(ctx, g):
        from .scatter_reduce import _scatter_add
        n = ctx.n
        buf = _scatter_add(g, _geometry_positions(n, *ctx.out_geometry), (n,))
        return buf[_geometry_positions(n, *ctx.in_geometry)], None, None, None


def _replay_as_strided(size, stride, offset):
    """Re-derives the view from an array or Tensor shaped like a C-contiguous input that owns its storage."""
    def replay(a):
        if isinstance(a, Tensor):
            return a.as_strided(size, stride, offset)
        return _strided(np.ascontiguousarray(a).reshape(-1) if not a.flags.c_contiguous else a.reshape(-1),
                        size, stride, offset)
    return replay


@op(inplace="reshape", methods=("as_strided",))
def as_strided(input, size, stride, storage_offset=None):
    flat, own = _storage(input._data)
    offset = own if storage_offset is None else int(storage_offset)
    size, stride = _check_geometry(size, stride, offset, flat.size, flat.itemsize)
    out = AsStrided.apply(input, size, stride, offset)
    if own == 0 and flat.size == input._data.size and input._data.flags.c_contiguous and 0 not in size:
        mark_view(out, input, _replay_as_strided(size, stride, offset))
    return out


@op()
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` (copied, contiguous: its own storage) with ``src`` written where ``as_strided`` looks."""
    offset = 0 if storage_offset is None else int(storage_offset)
    n = input._data.size
    size, stride = _check_geometry(size, stride, offset, n, input._data.itemsize)
    return _scatter(AsStridedScatter, input, src, _geometry_positions(n, size, stride, offset))


# -- unfold: sliding windows -----------------------------------------------------------------------------------

def _windows(x, d, size, step):
    """The windows of ``size`` elements every ``step`` along dim ``d`` of array ``x``, as a view: dim ``d``
    counts the windows, a new last dim runs through each (writeable only if the windows do not overlap)."""
    if x.ndim == 0:
        return x.reshape(1)
    n = (x.shape[d] - size) // step + 1
    shape = x.shape[:d] + (n,) + x.shape[d + 1:] + (size,)
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable and step >= size)


def _windows_np(x, shape, d, size, step):
    return _windows(x, d, size, step)


def _fold_windows_np(g, shape, d, size, step):
    """The adjoint: each window's gradient added back where it came from."""
    from .indexing import add_at_flat
    return add_at_flat(np.zeros(shape, g.dtype), _windows(positions(shape), d, size, step), g)


Unfold, UnfoldBackward = P.adjoint_pair("Unfold", _windows_np, _fold_windows_np, "UnfoldBackward",
                                        node_name="UnfoldBackward0", adjoint_node_name="UnfoldBackwardBackward0")


def _unfold_of(a, d, size, step):
    return a.unfold(d, size, step) if isinstance(a, Tensor) else _windows(a, d, size, step)


@op(public=False)
def unfold(self, dimension, size, step):
    nd = self._data.ndim
    d = canon_dim(dimension, max(nd, 1))
    n = self._data.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    out = Unfold.apply(self, self._data.shape, d, size, step)
    return mark_view(out, self, lambda a, args=(d, size, step): _unfold_of(a, *args))
