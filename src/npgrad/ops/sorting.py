"""Order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, quantile, nanquantile.

Every differentiable result here is a selection of input elements: the op finds the indices with NumPy
(a stable argsort: NaN sorts as the largest value, ties keep their order) and gathers the values, and the
gradient goes back to exactly the selected index, as PyTorch's rules say. Only the full ``median()`` /
``nanmedian()`` share the gradient evenly between elements tied with the result (PyTorch's
``evenly_distribute_backward``). Quantiles are sorts followed by an interpolation of Tensor ops, so their
gradient (and higher-order gradients) follow by composition.
"""
import numpy as np

from ..dtypes import scalar_name as _scalar_name
from .. import return_types as _rt
from ..autograd.function import Op
from ..autograd.record import DUAL_HOOK
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import op

def argsort_np(x, axis, descending=False):
    """Stable argsort along ``axis``; descending keeps ties in their original order and puts NaN first."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # Sort the reversed slice ascending and reverse the result: equal elements come out first-come first.
    n = x.shape[axis]
    idx = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(idx, axis)


class _TakeAlong(Op):
    """``x`` gathered at ``idx`` along ``dim`` (indices distinct within a slice); squeezed unless keepdim.
    The gradient goes to the gathered positions only. Subclasses exist for PyTorch's node names."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, idx, dim, keepdim):
        ctx.in_shape, ctx.idx, ctx.dim, ctx.keepdim = x.shape, idx, dim, keepdim
        out = np.take_along_axis(x, idx, dim)
        return out if keepdim else np.squeeze(out, dim)

    @staticmethod
    def backward(ctx, g):
        from .indexing import scatter_add_values
        if not ctx.keepdim:
            g = P.unsqueeze_dims(g, (ctx.dim,), None)
        return scatter_add_values(g, ctx.in_shape, ctx.dim, ctx.idx), None, None, None


class Sort(_TakeAlong):
    __slots__ = ()


class StableSort(_TakeAlong):
    __slots__ = ()
    node_name = "SortBackward1"


class Topk(_TakeAlong):
    __slots__ = ()


class Kthvalue(_TakeAlong):
    __slots__ = ()


class Mode(_TakeAlong):
    __slots__ = ()


class MedianDim(_TakeAlong):
    __slots__ = ()
    node_name = "MedianBackward1"


class NanmedianDim(_TakeAlong):
    __slots__ = ()
    node_name = "NanmedianBackward1"


def _select(cls, input, idx, d, keepdim, result_type):
    """Apply a _TakeAlong op and pair its values with the (squeezed unless keepdim) int64 indices."""
    values = cls.apply(input, idx, d, keepdim)
    indices = idx if keepdim else np.squeeze(idx, d)
    return result_type(values, Tensor._wrap(indices.astype(np.int64, copy=False)))


def _as_1d(input):
    """0-d tensors act as one-element vectors; results are reshaped back by the caller."""
    return input.reshape(1) if input._data.ndim == 0 else input


def _scalar_result(res, result_type):
    return result_type(res[0].reshape(()), res[1].reshape(()))


# -- sort / argsort / msort --------------------------------------------------------------------------------------

_NO_COMPLEX_SORT = " Sort does not support complex dtypes on CPU"


@op()
def sort(input, dim=-1, descending=False, *, stable=False):
    x = input._data
    if x.dtype.kind == "c":
        raise RuntimeError(_NO_COMPLEX_SORT)
    d = canon_dim(dim, x.ndim)
    if x.ndim == 0:
        return _scalar_result(sort(_as_1d(input), 0, descending, stable=stable), _rt.sort)
    idx = argsort_np(x, d, descending)
    return _select(StableSort if stable else Sort, input, idx, d, True, _rt.sort)


@op()
def argsort(input, dim=-1, descending=False, *, stable=False):
    x = input._data
    if x.dtype.kind == "c":
        raise RuntimeError(_NO_COMPLEX_SORT)
    d = canon_dim(dim, x.ndim)
    if x.ndim == 0:
        return Tensor._wrap(np.zeros((), np.int64))
    return Tensor._wrap(argsort_np(x, d, descending).astype(np.int64, copy=False))


@op()
def msort(input):
    return sort(input, 0).values


# -- topk / kthvalue ----------------------------------------------------------------------------------------------

@op()
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - PyTorch's argument name
    x = input._data
    d = canon_dim(dim, x.ndim)
    if x.dtype.kind in "bc":
        raise RuntimeError("topk does not support bool dtypes on CPU" if x.dtype.kind == "b" else
                           " topk does not support complex dtypes on CPU")
    n = x.shape[d] if x.ndim else 1
    k = int(k)
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        return _scalar_result(topk(_as_1d(input), k, 0, largest, sorted), _rt.topk)
    if 2 * k < n and n > 256:
        # Partition first: only the k selected elements are sorted.
        kth = n - k if largest else k - 1
        part = np.argpartition(x, kth, axis=d)
        cand = np.take(part, np.arange(n - k, n) if largest else np.arange(k), axis=d)
        order = argsort_np(np.take_along_axis(x, cand, d), d, largest)
        idx = np.take_along_axis(cand, order, d)
    else:
        idx = np.take(argsort_np(x, d, largest), np.arange(k), axis=d)
    return _select(Topk, input, idx, d, True, _rt.topk)


@op()
def kthvalue(input, k, dim=-1, keepdim=False):
    x = input._data
    d = canon_dim(dim, x.ndim)
    if x.dtype.kind in "bc":
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for '{_scalar_name(x.dtype)}'")
    n = x.shape[d] if x.ndim else 1
    k = int(k)
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.ndim == 0:
        return _scalar_result(kthvalue(_as_1d(input), k, 0, keepdim), _rt.kthvalue)
    idx = np.take(argsort_np(x, d), [k - 1], axis=d)
    return _select(Kthvalue, input, idx, d, keepdim, _rt.kthvalue)


# -- median / nanmedian -------------------------------------------------------------------------------------------

def _lower_median_index(x, d, ignore_nan):
    """Index (keepdim shape) of the lower median along ``d``. With NaNs: median picks the first NaN;
    nanmedian takes the median of the other values (NaN only where a slice is all NaN)."""
    order = argsort_np(x, d)  # NaNs last
    n = x.shape[d]
    if x.dtype.kind != "f":
        return np.take(order, [(n - 1) // 2], axis=d)
    nan = np.isnan(x)
    if ignore_nan:
        count = n - np.sum(nan, axis=d, keepdims=True)
        k = np.where(count > 0, (count - 1) // 2, (n - 1) // 2)
        return np.take_along_axis(order, k, d)
    idx = np.take(order, [(n - 1) // 2], axis=d)
    if nan.any():
        has_nan = nan.any(axis=d, keepdims=True)
        idx = np.where(has_nan, np.argmax(nan, axis=d, keepdims=True), idx)
    return idx


class Median(Op):
    """The full median()/nanmedian(): the gradient is shared evenly by the elements equal to the result."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, ignore_nan):
        flat = x.reshape(-1)
        if flat.size == 0:
            out = np.full((), np.nan, x.dtype)
        else:
            out = flat[_lower_median_index(flat, 0, ignore_nan)[0]].reshape(())
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        xd, v = P.data_of(x), P.data_of(out)
        mask = np.isnan(xd) if np.isnan(v) else xd == v
        # selected, as PyTorch: a NaN upstream gradient reaches only the elements equal to the median
        return P.where(mask, g * (mask / np.sum(mask)).astype(xd.dtype), 0.0), None


class Nanmedian(Median):
    __slots__ = ()


def _median(input, dim, keepdim, ignore_nan):
    name = "nanmedian" if ignore_nan else "median"
    x = input._data
    if x.dtype.kind in "bc":  # (PyTorch's nanmedian of complex names the median kernel)
        raise NotImplementedError(f"\"{name if x.dtype.kind == 'b' else 'median'}_cpu\" not implemented for "
                                  f"'{_scalar_name(x.dtype)}'")
    if dim is None:
        return (Nanmedian if ignore_nan else Median).apply(input, ignore_nan)
    d = canon_dim(dim, x.ndim)
    rt = _rt.nanmedian if ignore_nan else _rt.median
    if x.ndim == 0:
        return _scalar_result(_median(_as_1d(input), 0, keepdim, ignore_nan), rt)
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = _lower_median_index(x, d, ignore_nan)
    return _select(NanmedianDim if ignore_nan else MedianDim, input, idx, d, keepdim, rt)


@op()
def median(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, False)


@op()
def nanmedian(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, True)


# -- mode --------------------------------------------------------------------------------------------------------

def _mode_index(x, d):
    """Index (keepdim shape) of the most frequent value along ``d``: the smallest such value on ties, and
    its last occurrence, as PyTorch. NaNs never equal each other, so each counts once."""
    order = argsort_np(x, d)
    s = np.moveaxis(np.take_along_axis(x, order, d), d, -1)
    n = s.shape[-1]
    pos = np.arange(n)
    differs = s[..., 1:] != s[..., :-1]
    edge = np.ones(s.shape[:-1] + (1,), bool)
    starts = np.concatenate([edge, differs], -1)   # a run of equal values begins here
    ends = np.concatenate([differs, edge], -1)     # ... or ends here
    run_start = np.maximum.accumulate(np.where(starts, pos, 0), axis=-1)
    run_end = np.flip(np.minimum.accumulate(np.flip(np.where(ends, pos, n), -1), axis=-1), -1)
    best = np.argmax(run_end - run_start, axis=-1)[..., None]  # the first longest run: the smallest value
    last = np.take_along_axis(run_end, best, -1)
    return np.take_along_axis(order, np.moveaxis(last, -1, d), d)


@op()
def mode(input, dim=-1, keepdim=False):
    x = input._data
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"mode_cpu\" not implemented for '{_scalar_name(x.dtype)}'")
    d = canon_dim(dim, x.ndim)
    if x.ndim == 0:
        return _scalar_result(mode(_as_1d(input), 0, keepdim), _rt.mode)
    if x.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return _select(Mode, input, _mode_index(x, d), d, keepdim, _rt.mode)


# -- quantile / nanquantile ---------------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile" if ignore_nan else "quantile"
    x = input._data
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q._data.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._data.dtype != x.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qa, q_is_vector = q._data, q._data.ndim == 1
    else:
        qa, q_is_vector = np.asarray(q, x.dtype), False
        if qa.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        q_is_vector = qa.ndim == 1
    if x.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if qa.size and not ((qa >= 0).all() and (qa <= 1).all()):
        bad = qa.reshape(-1)[np.argmax(~((qa >= 0) & (qa <= 1)).reshape(-1))]
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {bad}" if qa.ndim == 0 else
                           f"{name}() q values must be in the range [0, 1]")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    # Bring the reduced values to the last axis: (..., n).
    if dim is None:
        flat, out_shape = input.reshape(-1), ((1,) * x.ndim if keepdim else ())
    else:
        d = canon_dim(dim, x.ndim)
        flat = input.movedim(d, -1) if x.ndim else input.reshape(1)
        out_shape = tuple(1 if i == d else s for i, s in enumerate(x.shape)) if keepdim else \
            tuple(s for i, s in enumerate(x.shape) if i != d)
    srt = sort(flat, -1).values  # NaN last
    sd = srt._data
    n = sd.shape[-1]
    qv = qa.reshape(-1).astype(x.dtype, copy=False)  # (m,)
    if ignore_nan:
        count = n - np.sum(np.isnan(sd), axis=-1, keepdims=True)
        ranks = qv * (count - 1).astype(x.dtype)
        overridden = ranks < 0  # an all-NaN slice: rank 0 gives NaN
        ranks = np.where(overridden, 0, ranks).astype(x.dtype)
    else:
        ranks = np.broadcast_to(qv * x.dtype.type(n - 1), sd.shape[:-1] + qv.shape)
        overridden = np.isnan(sd[..., -1:])  # a NaN anywhere sorts to the end: point every rank at it
        ranks = np.where(overridden, x.dtype.type(n - 1), ranks).astype(x.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as PyTorch
    below = ranks.astype(np.int64)
    out = srt.gather(-1, Tensor._wrap(below))
    if interpolation in ("linear", "midpoint"):
        w = (ranks - below).astype(x.dtype) if interpolation == "linear" else np.full(ranks.shape, 0.5, x.dtype)
        if interpolation == "linear" and isinstance(q, Tensor) and (q._requires_grad or
                                                                    (DUAL_HOOK and DUAL_HOOK[2](q))):
            w = _weights_of(q, ranks, below, n, count if ignore_nan else None, overridden)
        above = srt.gather(-1, Tensor._wrap(np.ceil(ranks).astype(np.int64)))
        out = _lerp_const(out, above, w)
    # (..., m) -> (m, ...) with the reduced dim removed (or kept as 1)
    m = qv.shape[0]
    out = out.movedim(-1, 0).reshape((m,) + out_shape)
    return out if q_is_vector else out.reshape(out_shape)


def _weights_of(q, ranks, below, n, count, overridden):
    """The interpolation weights as a function of q, for a q that requires grad (PyTorch differentiates
    them too); positions whose rank was overridden (NaN handling) get a constant weight."""
    from .pointwise import where
    qv = q.reshape(-1)
    r = qv * (float(n - 1) if count is None else Tensor._wrap((count - 1).astype(ranks.dtype)))
    w = r - Tensor._wrap(below.astype(ranks.dtype))
    if overridden.any():
        w = where(Tensor._wrap(np.broadcast_to(overridden, ranks.shape)), 0.0, w)
    return w


def _lerp_const(a, b, w):
    """PyTorch's lerp with a constant weight array: a + w (b - a) below 0.5, b - (b - a)(1 - w) above."""
    from .pointwise import where
    diff = b - a
    low = w < 0.5
    if low.all():
        return a + diff * w
    return where(Tensor._wrap(low), a + diff * w, b - diff * (1 - w))


@op()
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, False)


@op()
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, True)

