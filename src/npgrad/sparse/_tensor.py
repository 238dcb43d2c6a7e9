"""``SparseTensor``: a Tensor in the ``sparse_coo`` or ``sparse_csr`` layout.

It keeps its entries as an int64 NumPy array of indices (sparse_dim, nnz) and a dense Tensor of values
(nnz, *dense_shape); a CSR tensor keeps its compressed row pointers and column indices beside the row
indices they expand to. Autograd runs through the values Tensor: a sparse leaf that requires grad owns a
leaf values Tensor, and its ``.grad`` is read from there (a sparse gradient with the leaf's pattern). Where
PyTorch gives a sparse leaf a *dense* gradient (``torch.mm``, ``dense + sparse``), the operator routes it to
a dense stand-in of the leaf (``_proxy``) that costs no memory until a gradient arrives.

Dense code never sees a sparse tensor's array: reading ``_data`` raises ``SparseOperand`` (PyTorch's
"Could not run ... 'SparseCPU' backend" error), which the few dense operators with a sparse overload
(mm, matmul, sum) catch to hand over to this package.
"""
import sys

import numpy as np

from .. import _layout
from .. import dtypes as _dt
from .._tensor_str import _add_suffixes, _body
from ..tensor import Size, Tensor, _check_device
from . import _kernels as K


def _unsupported(self):
    caller = sys._getframe(1).f_code.co_name
    raise _layout.SparseOperand(
        f"Could not run '{caller}' with arguments from the 'SparseCPU' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
        "(if using custom build).")


class SparseTensor(Tensor):
    """A sparse COO or CSR tensor (``torch.sparse_coo_tensor``, ``Tensor.to_sparse()``)."""

    _data = property(_unsupported)

    @classmethod
    def _make(cls, indices, values, shape, coalesced=False, layout=_layout.sparse_coo, csr=None):
        t = object.__new__(cls)
        t._requires_grad = False
        t._grad_fn = None
        t._grad = None
        t._out_idx = 0
        t._vc = None
        t._view_of = None
        t._idx, t._vals, t._shape, t._coal = indices, values, tuple(int(s) for s in shape), coalesced
        t._lay, t._csr, t._proxy, t._dsrc = layout, csr, None, None
        return t

    # -- what it is ---------------------------------------------------------------------------------------
    @property
    def layout(self):
        return self._lay

    @property
    def is_sparse(self):
        return self._lay is _layout.sparse_coo

    @property
    def is_sparse_csr(self):
        return self._lay is _layout.sparse_csr

    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        return self._shape[dim]

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    def numel(self):
        return int(np.prod(self._shape, dtype=np.int64))

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def sparse_dim(self):
        return self._idx.shape[0] if self._csr is None else 2

    def dense_dim(self):
        return self._vals.ndim - 1

    def _nnz(self):
        return self._idx.shape[1]

    def is_coalesced(self):
        if self._csr is not None:
            raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got SparseCsr")
        return self._coal

    def __len__(self):
        return self._shape[0]

    # -- autograd, through the values -----------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._vals.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        self._vals.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def is_leaf(self):
        return self._vals.is_leaf

    @property
    def grad(self):
        gv = self._vals._grad if self._vals.is_leaf else None
        gp = None if self._proxy is None else self._proxy._grad
        if gp is None:
            return None if gv is None else self._grad_by_position(gv)
        if gv is not None:
            gp = gp + K.ToDense.apply(gv, tuple(self._idx), self._shape)
        return gp

    def _grad_by_position(self, gv):
        """The gradient of what the tensor *is* (one value per position), as PyTorch reports it: every
        duplicate entry of an uncoalesced leaf has the same gradient, given once."""
        if self._coal or self._csr is not None:
            return SparseTensor._make(self._idx, gv, self._shape, self._coal)
        sd = self._idx.shape[0]
        keys = K.flat_keys(self._idx, self._shape[:sd])
        _, first = np.unique(keys, return_index=True)
        return SparseTensor._make(self._idx[:, first], Tensor._wrap(gv._data[first]), self._shape, True)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise RuntimeError("npgrad's sparse tensors take only grad = None")
        self._vals._grad = None
        if self._proxy is not None:
            self._proxy._grad = None

    def _dense_grad_target(self):
        """The dense stand-in that receives a dense gradient, when this is a leaf that requires grad."""
        if self._dsrc is not None:
            return self._dsrc  # made by to_sparse from a dense tensor that requires grad: that tensor
        if not (self._vals.requires_grad and self._vals.is_leaf):
            return None
        if self._proxy is None:
            z = np.broadcast_to(np.zeros((), self._vals._data.dtype), self._shape)
            self._proxy = Tensor._wrap(z)
            self._proxy._requires_grad = True
        return self._proxy

    def _plans(self):
        """The grouping plans of the rows and the columns (``K.group_plan``), made on first use."""
        plans = self.__dict__.get("_plan_cache")
        if plans is None:
            plans = self._plan_cache = (K.group_plan(self._idx[0]), K.group_plan(self._idx[1]))
        return plans

    def detach(self):
        return SparseTensor._make(self._idx, self._vals.detach(), self._shape, self._coal, self._lay, self._csr)

    # -- the entries ----------------------------------------------------------------------------------
    def _need_coo(self, what):
        if self._csr is not None:
            raise RuntimeError(f"{what} expected sparse coordinate tensor layout but got SparseCsr")

    def indices(self):
        self._need_coo("indices")
        if not self._coal:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return Tensor._wrap(self._idx)

    def _indices(self):
        self._need_coo("_indices")
        return Tensor._wrap(self._idx)

    def values(self):
        if self._csr is None and not self._coal:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._values()

    def _values(self):
        v = self._vals
        return v[...] if v.requires_grad else v

    def crow_indices(self):
        if self._csr is None:
            raise RuntimeError("crow_indices expected sparse row compressed tensor layout but got Sparse")
        return Tensor._wrap(self._csr[0])

    def col_indices(self):
        if self._csr is None:
            raise RuntimeError("col_indices expected sparse row compressed tensor layout but got Sparse")
        return Tensor._wrap(self._csr[1])

    def coalesce(self):
        self._need_coo("coalesce")
        if self._coal:
            return self
        sd = self._idx.shape[0]
        idx, inverse = K.coalesce_plan(self._idx, self._shape[:sd])
        vals = K.SegmentSum.apply(self._vals, inverse, idx.shape[1])
        return SparseTensor._make(idx, vals, self._shape, True)

    # -- conversions ----------------------------------------------------------------------------------
    def to_dense(self, dtype=None, *, masked_grad=None):
        sd = self.sparse_dim()
        out = K.ToDense.apply(self._vals, tuple(self._idx), self._shape)
        del sd
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args, layout=None, **kwargs):
        if layout is _layout.sparse_csr:
            return self.to_sparse_csr()
        if self._csr is not None:
            return SparseTensor._make(self._idx, self._vals, self._shape, True)
        return self

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        if self._csr is not None:
            return self
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError("to_sparse_csr: only 2-D sparse tensors without dense dimensions are supported")
        c = self.coalesce()
        rows, cols = c._idx
        crow = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=self._shape[0])))).astype(np.int64)
        return SparseTensor._make(c._idx, c._vals, self._shape, True, _layout.sparse_csr, (crow, cols.copy()))

    def to(self, *args, **kwargs):
        dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        kwargs.pop("non_blocking", None), kwargs.pop("copy", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _dt.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            else:
                device = a
        _check_device(device)  # CPU is the only device, as for dense tensors
        if dtype is None:
            return self
        return self._with_values(self._vals.to(dtype))

    def _with_values(self, vals):
        return SparseTensor._make(self._idx, vals, self._shape, self._coal, self._lay, self._csr)

    def float(self):
        return self.to(_dt.float32)

    def double(self):
        return self.to(_dt.float64)

    def half(self):
        return self.to(_dt.float16)

    def cpu(self):
        return self

    def clone(self, *, memory_format=None):
        return self._with_values(self._vals.clone())

    def numpy(self, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def t(self):
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        return SparseTensor._make(self._idx[::-1].copy(), self._vals, self._shape[::-1], False)

    # -- arithmetic -------------------------------------------------------------------------------------
    def __mul__(self, other):
        if isinstance(other, SparseTensor):
            raise RuntimeError("npgrad: sparse * sparse is not supported; multiply by a scalar")
        if isinstance(other, Tensor) and other.ndim:
            if tuple(other.shape) != self._shape or self.dense_dim() or self._csr is not None:
                raise RuntimeError("npgrad: sparse * dense needs a dense tensor of the sparse COO tensor's shape "
                                   "(no broadcasting, no dense dimensions)")
            c = self.coalesce()
            return SparseTensor._make(c._idx, K.MulDense.apply(c._vals, other, c._idx, c._shape), c._shape, True)
        return self._with_values(self._vals * other)

    __rmul__ = __mul__

    def mul(self, other):
        return self * other

    def __truediv__(self, other):
        if isinstance(other, Tensor) and other.ndim:
            raise RuntimeError("npgrad: sparse / dense tensor is not supported; divide by a scalar")
        return self._with_values(self._vals / other)

    div = __truediv__

    def __neg__(self):
        return self._with_values(-self._vals)

    neg = __neg__

    def __add__(self, other):
        if isinstance(other, SparseTensor):
            return _add_sparse(self, other, 1)
        if type(other) is np.ndarray:  # the engine summing a sparse and a dense gradient of one tensor
            return self._plus_array(other)
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")

    def __radd__(self, other):
        if isinstance(other, Tensor):
            return _add_dense(other, self, 1)
        if type(other) is np.ndarray:
            return self._plus_array(other)
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")

    def _plus_array(self, arr):
        out = np.array(arr, dtype=np.result_type(arr, self._vals._data), copy=True)
        np.add.at(out, tuple(self._idx), self._vals._data)
        return out

    add = __add__

    def __sub__(self, other):
        if isinstance(other, SparseTensor):
            return _add_sparse(self, other, -1)
        raise RuntimeError("sub(sparse, dense) is not supported. Use sub(dense, sparse) instead.")

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return _add_dense(other, self, -1)
        raise RuntimeError("sub(sparse, dense) is not supported. Use sub(dense, sparse) instead.")

    def __matmul__(self, other):
        return _matmul(self, other, dense_leaf_grad=True)

    def __rmatmul__(self, other):
        return _matmul(other, self, dense_leaf_grad=True)

    matmul = mm = __matmul__

    def sum(self, dim=None, keepdim=False, dtype=None):
        return _sum(self, dim, keepdim, dtype)

    def softmax(self, dim, dtype=None):
        return _softmax(self, dim, dtype, False)

    def log_softmax(self, dim, dtype=None):
        return _softmax(self, dim, dtype, True)

    # -- copying and pickling: the components, and requires_grad (never the graph) -------------------------
    def __reduce_ex__(self, protocol):
        csr = None if self._csr is None else tuple(a.copy() for a in self._csr)
        return (_rebuild_sparse, (self._idx.copy(), self._vals.detach()._data.copy(), self._shape, self._coal,
                                  self._lay._name, csr, self.requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.")
        if self._csr is not None:
            raise NotImplementedError("Cannot access storage of SparseCsrTensorImpl")
        new = _rebuild_sparse(*self.__reduce_ex__(2)[1])
        memo[id(self)] = new
        return new

    # -- printing --------------------------------------------------------------------------------------
    def __repr__(self):
        return _sparse_repr(self)

    __str__ = __repr__


def _rebuild_sparse(indices, values, shape, coalesced, layout, csr, requires_grad):
    vals = Tensor._wrap(values)
    vals.requires_grad = requires_grad
    return SparseTensor._make(indices, vals, shape, coalesced, getattr(_layout, layout), csr)


def _inner(arr, indent):
    """A component array printed as a tensor whose continuation lines start ``indent`` columns in."""
    if arr.size == 0:
        return f"tensor([], size={tuple(arr.shape)})"  # the size always, as PyTorch's sparse repr has it
    return "tensor(" + _body(arr, indent + 7) + ")"


def _sparse_repr(t):
    vals = t._vals._data
    sep = ",\n       "
    if t._csr is None:
        head = ("tensor(indices=" + _inner(t._idx, 15) + sep + "values=" + _inner(vals, 14) + sep +
                f"size={t._shape}")
        suffixes = [f"nnz={t._nnz()}"]
    else:
        head = ("tensor(crow_indices=" + _inner(t._csr[0], 20) + sep + "col_indices=" + _inner(t._csr[1], 19) +
                sep + "values=" + _inner(vals, 14))
        suffixes = [f"size={t._shape}", f"nnz={t._nnz()}"]
    if t.dtype is not _dt.get_default_dtype():
        suffixes.append(f"dtype={t.dtype!r}")
    suffixes.append(f"layout={t._lay!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name().rpartition('::')[2]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(head, suffixes, 7)


def _add_dense(dense, sp, alpha):
    if tuple(dense.shape) != sp._shape:
        raise RuntimeError(f"The size of tensor a ({dense.shape[-1]}) must match the size of tensor b "
                           f"({sp._shape[-1]}) at non-singleton dimension {len(sp._shape) - 1}")
    proxy = sp._dense_grad_target()
    vals = None if proxy is not None else sp._vals
    args = (dense, sp._vals.detach() if proxy is not None else vals, proxy, tuple(sp._idx), alpha)
    return K.DenseAdd.apply(*args)


def _add_sparse(a, b, alpha):
    if a._shape != b._shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(a._shape)} while other has size {list(b._shape)} (FYI: dense-sparse "
                           "addition is not supported)")
    vals = K.Concat.apply(a._vals, b._vals if alpha == 1 else b._vals * alpha)
    both = SparseTensor._make(np.concatenate([a._idx, b._idx], axis=1), vals, a._shape, False)
    return both.coalesce()


def _matmul(a, b, dense_leaf_grad):
    """sparse @ dense -> dense, dense @ sparse -> dense, sparse @ sparse -> sparse (2-D COO/CSR)."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        return _spgemm(a, b)
    if isinstance(b, SparseTensor):
        # dense @ sparse = (sparse.T @ dense.T).T; a dense gradient for b arrives transposed
        bt = b.t()
        target = b._dense_grad_target() if dense_leaf_grad else None
        if target is not None:
            bt._dsrc = target.t()
        return _matmul(bt, a.t(), dense_leaf_grad).t()
    if a.sparse_dim() != 2 or a.dense_dim() != 0:
        raise RuntimeError("npgrad: sparse @ dense needs a 2-D sparse matrix without dense dimensions")
    if not isinstance(b, Tensor):
        raise TypeError(f"mm(): argument 'mat2' must be Tensor, not {type(b).__name__}")
    if b.ndim not in (1, 2):
        raise RuntimeError("mat2 must be a matrix")
    m, k = a._shape
    if b.shape[0] != k:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {k}, got {b.shape[0]}")
    if b.dtype != a.dtype:
        raise RuntimeError(f"expected mat1 and mat2 to have the same dtype, but got: {_dname(a.dtype)} != "
                           f"{_dname(b.dtype)}")
    proxy = a._dense_grad_target() if dense_leaf_grad else None
    vals = a._vals.detach() if proxy is not None else a._vals
    rows, cols = a._idx
    return K.SpMM.apply(vals, b, proxy, rows, cols, m, a._plans())


def _dname(dtype):
    return {"float32": "float", "float64": "double"}.get(str(dtype).replace("npgrad.", ""), str(dtype))


def _spgemm(a, b):
    for s in (a, b):
        if s.sparse_dim() != 2 or s.dense_dim() != 0:
            raise RuntimeError("npgrad: sparse @ sparse needs 2-D sparse matrices without dense dimensions")
    if a._shape[1] != b._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a._shape[0]}x{a._shape[1]} and "
                           f"{b._shape[0]}x{b._shape[1]})")
    pa, pb, inverse, idx = K.spgemm_plan(a._idx[0], a._idx[1], b._idx[0], b._idx[1], b._shape[1])
    vals = K.SpGEMM.apply(a._vals, b._vals, pa, pb, inverse, idx.shape[1])
    return SparseTensor._make(idx, vals, (a._shape[0], b._shape[1]), True)


def _canon(dim, n):
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _sum(sp, dim, keepdim=False, dtype=None):
    """Sum over all entries (a dense 0-d result) or over dims (sparse while sparse dims remain)."""
    if sp._csr is not None:
        sp = sp.to_sparse()
    vals = sp._vals if dtype is None else sp._vals.to(dtype)
    if dim is None:
        return vals.sum()
    dims = sorted({_canon(d, sp.ndim) for d in ((dim,) if isinstance(dim, int) else dim)})
    sd = sp.sparse_dim()
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        vals = vals.sum(dense_dims)
    keep = [d for d in range(sd) if d not in dims]
    shape = tuple(s for d, s in enumerate(sp._shape) if d not in dims)
    if not keep:
        return vals.sum(0)
    idx, inverse = K.coalesce_plan(sp._idx[keep], tuple(sp._shape[d] for d in keep))
    summed = K.SegmentSum.apply(vals, inverse, idx.shape[1])
    return SparseTensor._make(idx, summed, shape, True)


def _softmax(sp, dim, dtype, log):
    if sp._csr is not None:
        raise RuntimeError("npgrad: sparse softmax takes a COO tensor (call .to_sparse() first)")
    dim = _canon(dim, sp.ndim)
    sd = sp.sparse_dim()
    if dim >= sd:
        raise RuntimeError("npgrad: sparse softmax over a dense dimension is not supported")
    c = sp.coalesce()
    vals = c._vals if dtype is None else c._vals.to(dtype)
    others = [d for d in range(sd) if d != dim]
    groups = K.flat_keys(c._idx[others], tuple(sp._shape[d] for d in others))
    _, groups = np.unique(groups, return_inverse=True)
    groups = groups.ravel()
    n = int(groups.max()) + 1 if groups.size else 0
    return SparseTensor._make(c._idx, K.GroupSoftmax.apply(vals, groups, n, log), sp._shape, True)


_layout.SPARSE_IMPL.update(mm=lambda a, b: _matmul(a, b, True), matmul=lambda a, b: _matmul(a, b, True),
                           sum=lambda x, dim=None, keepdim=False, *, dtype=None: _sum(x, dim, keepdim, dtype))
