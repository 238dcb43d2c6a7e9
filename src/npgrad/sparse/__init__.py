"""``torch.sparse``: sparse COO and CSR tensors and the operators graph networks use on them.

``sparse_coo_tensor``/``sparse_csr_tensor`` (also ``npgrad.*``), ``mm``, ``addmm``, ``sum``, ``softmax``,
``log_softmax`` and the legacy constructors ``FloatTensor(indices, values, size)`` and kin. The tensors
themselves are ``SparseTensor`` (``_tensor.py``); the array work is ``_kernels.py``.
"""
import warnings

import numpy as np

from .. import _layout
from .. import dtypes as _dt
from .._convert import tensor as _new_tensor
from ..tensor import Tensor
from ._tensor import SparseTensor, _matmul, _softmax, _sum

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "FloatTensor", "DoubleTensor", "HalfTensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor"]


def _index_array(indices, what="indices"):
    a = indices._data if isinstance(indices, Tensor) and not isinstance(indices, SparseTensor) else np.asarray(indices)
    if a.dtype.kind not in "iub":
        a = a.astype(np.int64)  # PyTorch accepts float indices, truncated
    return np.ascontiguousarray(a, dtype=np.int64)


def _values_tensor(values, dtype):
    if not isinstance(values, Tensor):
        values = _new_tensor(values, dtype=dtype)
    elif dtype is not None and values.dtype is not _dt.to_dtype(dtype):
        values = values.to(dtype)
    return values


def _leaf(values, requires_grad):
    """The values Tensor a new sparse tensor owns: a non-leaf view of values that require grad (gradients
    flow back to them), else a fresh leaf over the same memory (``requires_grad_`` on the sparse tensor
    must not change the caller's values)."""
    if values.requires_grad and not requires_grad:
        return values[...]
    values = values.detach()
    if requires_grad:
        values.requires_grad = True
    return values


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor from (sparse_dim, nnz) ``indices`` and (nnz, *dense_size) ``values``."""
    idx = _index_array(indices)
    vals = _values_tensor(values, dtype)
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if vals.ndim == 0:
        raise RuntimeError("values must be at least 1-dimensional")  # npgrad: values hold one row per entry
    nnz = idx.shape[1]
    if vals.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {vals.shape[0]}")
    sd = idx.shape[0]
    if nnz and idx.min() < 0:
        d = int(np.flatnonzero((idx < 0).any(axis=1))[0])
        raise RuntimeError(f"found negative index {int(idx[d].min())} for dim {d}")
    if size is None:
        size = tuple(int(m) + 1 for m in idx.max(axis=1)) if nnz else (0,) * sd
        size = size + tuple(vals.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sd + vals.ndim - 1:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sd}) + dense_dim ({vals.ndim - 1}), but "
                           f"got {len(size)}")
    if nnz:
        for d, m in enumerate(idx.max(axis=1)):
            if m >= size[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                                   f"index {int(m)}")
    if tuple(vals.shape[1:]) != size[sd:]:
        raise RuntimeError(f"values has incorrect size, expected {[nnz] + list(size[sd:])}, got "
                           f"{list(vals.shape)}")
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    return SparseTensor._make(idx, _leaf(vals, requires_grad), size, coalesced)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """A sparse CSR matrix from compressed row pointers, column indices and values."""
    crow, col = _index_array(crow_indices), _index_array(col_indices)
    vals = _values_tensor(values, dtype)
    if crow.ndim != 1 or col.ndim != 1 or vals.ndim != 1:
        raise RuntimeError("npgrad: sparse_csr_tensor takes 1-D crow_indices, col_indices and values")
    if col.shape[0] != vals.shape[0]:
        raise RuntimeError(f"col_indices and values must have the same number of elements, but got "
                           f"{col.shape[0]} and {vals.shape[0]}")
    if crow.size == 0 or crow[0] != 0 or crow[-1] != col.size or (np.diff(crow) < 0).any():
        raise RuntimeError("`crow_indices[0] == 0` and `crow_indices[-1] == nnz` and non-decreasing "
                           "crow_indices are expected")
    nrows = crow.size - 1
    if size is None:
        size = (nrows, int(col.max()) + 1 if col.size else 0)
    size = tuple(int(s) for s in size)
    if len(size) != 2 or size[0] != nrows:
        raise RuntimeError(f"size {list(size)} does not match crow_indices of length {crow.size}")
    if col.size and (col.min() < 0 or col.max() >= size[1]):
        raise RuntimeError(f"`0 <= col_indices < ncols` is expected (ncols={size[1]})")
    rows = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(crow))
    return SparseTensor._make(np.stack([rows, col]), _leaf(vals, requires_grad), size, True, _layout.sparse_csr,
                              (crow, col))


def _need_sparse(x, fn):
    if not isinstance(x, SparseTensor):
        raise RuntimeError(f"{fn}: expected a sparse tensor, got a {x.layout!r} one")


def mm(mat1, mat2, reduce="sum"):
    """sparse @ dense -> dense, sparse @ sparse -> sparse; a sparse leaf's gradient keeps its pattern."""
    if reduce != "sum":
        raise RuntimeError("npgrad: torch.sparse.mm supports reduce='sum' only")
    return _matmul(mat1, mat2, dense_leaf_grad=False)


def spmm(input, mat2):
    """``torch.spmm``: sparse @ dense, as ``torch.mm`` (a sparse leaf gets a dense gradient)."""
    return _matmul(input, mat2, dense_leaf_grad=True)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` for sparse ``mat1``, dense ``mat`` and ``mat2``."""
    _need_sparse(mat1, "sparse.addmm")
    prod = _matmul(mat1, mat2, dense_leaf_grad=False)
    return (mat if beta == 1 else mat * beta) + (prod if alpha == 1 else prod * alpha)


def sum(input, dim=None, dtype=None):  # noqa: A001 - PyTorch's name
    """All entries summed (a dense 0-d tensor) or over ``dim`` (sparse while sparse dims remain)."""
    _need_sparse(input, "sparse.sum")
    return _sum(input, dim, False, dtype)


def softmax(input, dim, *, dtype=None):
    """Softmax over ``dim`` among each slice's specified entries; absent entries stay absent."""
    _need_sparse(input, "sparse.softmax")
    return _softmax(input, dim, dtype, False)


def log_softmax(input, dim, *, dtype=None):
    _need_sparse(input, "sparse.log_softmax")
    return _softmax(input, dim, dtype, True)


def _legacy(name, dtype):
    def construct(*args, device=None):
        warnings.warn("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
                      "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).", UserWarning, stacklevel=2)
        if all(isinstance(a, (int, np.integer)) for a in args):
            return SparseTensor._make(np.zeros((len(args), 0), np.int64),
                                      Tensor._wrap(np.zeros((0,), dtype.np)), args, True)
        if len(args) not in (2, 3):
            raise TypeError(f"{name}(): expected (indices, values[, size]) or sizes, got {len(args)} arguments")
        values = args[1] if isinstance(args[1], Tensor) else _new_tensor(args[1], dtype=dtype)
        return sparse_coo_tensor(args[0], values, *args[2:])
    construct.__name__ = construct.__qualname__ = name
    return construct


FloatTensor = _legacy("FloatTensor", _dt.float32)
DoubleTensor = _legacy("DoubleTensor", _dt.float64)
HalfTensor = _legacy("HalfTensor", _dt.float16)
LongTensor = _legacy("LongTensor", _dt.int64)
IntTensor = _legacy("IntTensor", _dt.int32)
ShortTensor = _legacy("ShortTensor", _dt.int16)
CharTensor = _legacy("CharTensor", _dt.int8)
ByteTensor = _legacy("ByteTensor", _dt.uint8)


def to_sparse(x, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """A dense tensor's nonzero entries as a coalesced COO tensor (``Tensor.to_sparse``)."""
    from ._kernels import Gather
    if layout is _layout.sparse_csr:
        return to_sparse_csr(x)
    sd = x.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= x.ndim:
        raise RuntimeError(f"sparse_dim must be in [0, {x.ndim}], got {sd}")
    arr = x._data
    mask = arr != 0
    if arr.ndim > sd:
        mask = mask.any(axis=tuple(range(sd, arr.ndim)))
    idx = np.stack(np.nonzero(mask)).astype(np.int64).reshape(sd, -1) if sd else np.zeros((0, 1), np.int64)
    vals = Gather.apply(x, tuple(idx)) if sd else x.unsqueeze(0)
    out = SparseTensor._make(idx, vals, arr.shape, True)
    if x.requires_grad:
        out._dsrc = x  # where PyTorch sends a dense gradient of the sparse result (torch.mm, dense + it)
    return out


def to_sparse_csr(x, dense_dim=None):
    if x.ndim != 2:
        raise RuntimeError(f"to_sparse_csr: expected a 2-D tensor, got {x.ndim}-D (npgrad supports matrices)")
    return to_sparse(x).to_sparse_csr()
