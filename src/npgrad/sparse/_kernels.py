"""The array work behind sparse tensors, NumPy only: grouping sums, coalescing, products, softmax.

Every sparse operator reduces to gathers (``x[keys]``) and their adjoint, a sum of rows grouped by key. The
grouped sum sorts once and adds runs with ``np.add.reduceat`` (sorted keys, as a coalesced tensor's rows
are, skip the sort), which is much faster than ``np.add.at``'s element-by-element scatter.
"""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op


def group_plan(keys):
    """How to sum rows by ``keys``: (the sorting order or None when already sorted, each run's start, each
    run's key). A sparse tensor keeps the plans of its rows and columns, so a training loop sorts once."""
    if keys.size > 1 and not (keys[1:] >= keys[:-1]).all():
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
    else:
        order = None
    if keys.size == 0:
        return order, np.zeros(0, np.intp), keys
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return order, starts, keys[starts]


def segment_sum(keys, x, n, plan=None):
    """``out[k] = sum of x[i] where keys[i] == k`` for an (n, ...) ``out``."""
    out = np.zeros((n,) + x.shape[1:], x.dtype)
    if keys.size == 0:
        return out
    order, starts, run_keys = group_plan(keys) if plan is None else plan
    out[run_keys] = np.add.reduceat(x if order is None else x[order], starts, axis=0)
    return out


def flat_keys(indices, shape):
    """Each entry's position in the row-major order of the sparse dims ``shape`` (one int64 per entry)."""
    if indices.shape[0] == 0:
        return np.zeros(indices.shape[1], np.int64)
    return np.ravel_multi_index(tuple(indices), shape) if indices.shape[1] else np.zeros(0, np.int64)


def coalesce_plan(indices, shape):
    """(unique sorted indices, inverse: which unique entry each original entry adds into)."""
    keys = flat_keys(indices, shape)
    uniq, inverse = np.unique(keys, return_inverse=True)
    return np.stack(np.unravel_index(uniq, shape)).astype(np.int64).reshape(len(shape), -1), inverse.ravel()


class SegmentSum(Op):
    """Values added by group: coalescing, sparse sums. The adjoint gathers the gradient back."""
    __slots__ = ()
    node_name = "SparseSumBackward0"

    @staticmethod
    def forward(ctx, v, keys, n):
        ctx.keys = keys
        return segment_sum(keys, v, n)

    @staticmethod
    def backward(ctx, g):
        return g[ctx.keys], None, None


def scatter_add(shape, index, values):
    """A dense array of ``shape`` with ``values`` added at ``index`` (duplicates add): ToDense's forward and
    Gather's adjoint, the one linear map both directions of that pair use."""
    out = np.zeros(shape, values.dtype)
    np.add.at(out, index, values)
    return out


class Gather(Op):
    """Entries picked from a dense array (``to_sparse``); the adjoint scatters them back."""
    __slots__ = ()
    node_name = "ToSparseBackward0"

    @staticmethod
    def forward(ctx, x, index):
        ctx.index, ctx.shape = index, x.shape
        return x[index]

    @staticmethod
    def backward(ctx, g):
        return scatter_add(ctx.shape, ctx.index, g), None


class ToDense(Op):
    """A sparse tensor's values placed in a dense array of its shape (duplicates add)."""
    __slots__ = ()
    node_name = "ToDenseBackward0"

    @staticmethod
    def forward(ctx, v, index, shape):
        ctx.index = index
        return scatter_add(shape, index, v)

    @staticmethod
    def backward(ctx, g):
        return g[ctx.index], None, None


class SpMM(Op):
    """(m, k) sparse @ (k, n) dense from the entries (rows, cols, values). ``proxy`` is the dense stand-in of
    a sparse leaf that PyTorch gives a dense gradient (``torch.mm``): it receives ``g @ dense.T`` whole."""
    __slots__ = ()
    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, v, d, proxy, rows, cols, m, plans):
        ctx.rows, ctx.cols, ctx.v, ctx.d, ctx.plans = rows, cols, v, d, plans
        return segment_sum(rows, v[:, None] * d[cols] if d.ndim == 2 else v * d[cols], m, plans[0])

    @staticmethod
    def backward(ctx, g):
        rows, cols, v, d = ctx.rows, ctx.cols, ctx.v, ctx.d
        need_v, need_d, need_p = ctx.needs_input_grad[:3]
        gv = gd = gp = None
        if need_d:
            gd = segment_sum(cols, v[:, None] * g[rows] if g.ndim == 2 else v * g[rows], d.shape[0], ctx.plans[1])
        if need_v:
            gv = (g[rows] * d[cols]).sum(axis=1) if g.ndim == 2 else g[rows] * d[cols]
        if need_p:
            gp = g @ d.T if g.ndim == 2 else np.outer(g, d)
        return gv, gd, gp, None, None, None, None


class DenseAdd(Op):
    """dense + alpha * sparse -> dense; the sparse operand's gradient is dense (a leaf's, via ``proxy``) or
    gathered at its entries (values that came from elsewhere)."""
    __slots__ = ()
    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, dense, v, proxy, index, alpha):
        ctx.index, ctx.alpha = index, alpha
        out = np.array(dense, dtype=_dt.result_np_dtype(dense, v), copy=True)  # PyTorch's promotion
        np.add.at(out, index, v * alpha if alpha != 1 else v)
        return out

    @staticmethod
    def backward(ctx, g):
        need_d, need_v, need_p = ctx.needs_input_grad[:3]
        a = ctx.alpha
        return (g if need_d else None, (g[ctx.index] * a) if need_v else None,
                (g * a if a != 1 else g) if need_p else None, None, None)


def spgemm_plan(a_rows, a_cols, b_rows, b_cols, n_cols):
    """The pairs of entries (A[i, j], B[j, l]) whose product lands in C[i, l], and C's coalesced entries."""
    order = np.argsort(b_rows, kind="stable")
    br_sorted = b_rows[order]
    lo = np.searchsorted(br_sorted, a_cols, "left")
    hi = np.searchsorted(br_sorted, a_cols, "right")
    counts = hi - lo
    pa = np.repeat(np.arange(a_rows.size), counts)
    # for each A entry, the run of B entries lo..hi-1 (in sorted order)
    run_start = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    pb = order[run_start + np.arange(pa.size)] if pa.size else np.zeros(0, np.int64)
    keys = a_rows[pa] * n_cols + b_cols[pb]
    uniq, inverse = np.unique(keys, return_inverse=True)
    return pa, pb, inverse.ravel(), np.stack([uniq // n_cols, uniq % n_cols]).astype(np.int64)


class SpGEMM(Op):
    """sparse @ sparse -> sparse values, from the pair plan of ``spgemm_plan``."""
    __slots__ = ()
    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, va, vb, pa, pb, inverse, n):
        ctx.va, ctx.vb, ctx.pa, ctx.pb, ctx.inverse = va, vb, pa, pb, inverse
        return segment_sum(inverse, va[pa] * vb[pb], n)

    @staticmethod
    def backward(ctx, g):
        gp = g[ctx.inverse]
        need_a, need_b = ctx.needs_input_grad[:2]
        ga = segment_sum(ctx.pa, gp * ctx.vb[ctx.pb], ctx.va.shape[0]) if need_a else None
        gb = segment_sum(ctx.pb, gp * ctx.va[ctx.pa], ctx.vb.shape[0]) if need_b else None
        return ga, gb, None, None, None, None


class MulDense(Op):
    """sparse * dense of the same shape -> sparse with the sparse operand's pattern. As in PyTorch, the dense
    operand's gradient is sparse too (nonzero only where the sparse operand has entries)."""
    __slots__ = ()
    node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, v, d, idx, shape):
        picked = d[tuple(idx)]
        ctx.v, ctx.picked, ctx.idx, ctx.shape = v, picked, idx, shape
        return v * picked

    @staticmethod
    def backward(ctx, g):
        from ._tensor import SparseTensor
        need_v, need_d = ctx.needs_input_grad[:2]
        gd = None
        if need_d:
            from ..tensor import Tensor
            gd = SparseTensor._make(ctx.idx, Tensor._wrap(g * ctx.v), ctx.shape, True)
        return (g * ctx.picked) if need_v else None, gd, None, None


class Concat(Op):
    """Two tensors' values one after the other (sparse + sparse, before coalescing)."""
    __slots__ = ()
    node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.n = a.shape[0]
        return np.concatenate([a, b.astype(a.dtype, copy=False)])

    @staticmethod
    def backward(ctx, g):
        return g[:ctx.n], g[ctx.n:]


class GroupSoftmax(Op):
    """Softmax (or log-softmax) of the values within each group of entries (one row of the sparse tensor):
    the absent entries take no part, as in PyTorch's sparse softmax."""
    __slots__ = ()
    node_name = staticmethod(lambda node: "LogSoftmaxBackward0" if node.__dict__.get("log") else "SoftmaxBackward0")

    @staticmethod
    def forward(ctx, v, groups, n, log):
        mx = np.full((n,) + v.shape[1:], -np.inf, v.dtype)
        np.maximum.at(mx, groups, v)
        z = v - mx[groups]
        e = np.exp(z)
        s = segment_sum(groups, e, n)
        out = z - np.log(s)[groups] if log else e / s[groups]
        ctx.groups, ctx.n, ctx.log, ctx.out = groups, n, log, out
        return out

    @staticmethod
    def backward(ctx, g):
        y, groups, n = ctx.out, ctx.groups, ctx.n
        if ctx.log:
            return g - np.exp(y) * segment_sum(groups, g, n)[groups], None, None, None
        return y * (g - segment_sum(groups, g * y, n)[groups]), None, None, None
