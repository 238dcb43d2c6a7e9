"""Counting and binning: unique, unique_consecutive, bincount, histc, searchsorted, bucketize.

None of these is differentiable (PyTorch has no gradient for them either): each computes with NumPy and
returns plain tensors.
"""
import numpy as np

from .. import dtypes as _dt
from .._fp_quiet import quiet
from ..tensor import Tensor
from ._dims import canon_dim
from ._registry import op

def _wrap(a, dtype=None):
    a = np.asarray(a)
    return Tensor._wrap(a if dtype is None else a.astype(dtype, copy=False))


def _results(values, inverse, counts, return_inverse, return_counts):
    out = [values]
    if return_inverse:
        out.append(_wrap(inverse, np.int64))
    if return_counts:
        out.append(_wrap(counts, np.int64))
    return out[0] if len(out) == 1 else tuple(out)


# -- unique ---------------------------------------------------------------------------------------------------------

@op()
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    # PyTorch sorts the result whether or not sorted=True is asked for; NaNs stay distinct.
    x = input._data
    if x.dtype.kind == "c":
        from ..dtypes import not_implemented
        raise not_implemented("unique", x.dtype)
    if dim is None:
        vals, inv, cnt = np.unique(x.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        return _results(_wrap(vals), inv.reshape(x.shape), cnt, return_inverse, return_counts)
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = canon_dim(dim, x.ndim)
    if x.shape[d] == 0 or x.size == 0:
        return _results(_wrap(x.copy()), np.zeros(x.shape[d], np.int64), np.zeros(0 if x.shape[d] == 0 else 1,
                                                                                   np.int64),
                        return_inverse, return_counts)
    vals, inv, cnt = np.unique(x, return_inverse=True, return_counts=True, axis=d, equal_nan=False)
    return _results(_wrap(vals), inv.reshape(-1), cnt, return_inverse, return_counts)


@op()
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    x = input._data
    if x.dtype.kind == "c":
        raise _dt.not_implemented("unique", x.dtype)
    if dim is None:
        flat = x.reshape(-1)
        starts = np.empty(flat.shape, bool)
        if flat.size:
            starts[0] = True
            np.not_equal(flat[1:], flat[:-1], out=starts[1:])
        first = np.flatnonzero(starts)
        inv = (np.cumsum(starts) - 1).reshape(x.shape)
        cnt = np.diff(np.append(first, flat.size))
        return _results(_wrap(flat[first]), inv, cnt, return_inverse, return_counts)
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = canon_dim(dim, x.ndim)
    moved = np.moveaxis(x, d, 0).reshape(x.shape[d], -1)
    starts = np.empty(x.shape[d], bool)
    if x.shape[d]:
        starts[0] = True
        np.any(moved[1:] != moved[:-1], axis=1, out=starts[1:])
    first = np.flatnonzero(starts)
    cnt = np.diff(np.append(first, x.shape[d]))
    return _results(_wrap(np.take(x, first, axis=d)), np.cumsum(starts) - 1, cnt, return_inverse, return_counts)


# -- bincount / histc -----------------------------------------------------------------------------------------------

@op()
def bincount(input, weights=None, minlength=0):
    x = input._data
    if x.dtype.kind not in "iub":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_dt.scalar_name(x.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _wrap(np.bincount(x, minlength=minlength), np.int64)
    w = weights._data if isinstance(weights, Tensor) else np.asarray(weights)
    if w.ndim != 1 or w.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = w.dtype if w.dtype.kind == "f" else np.float64  # integer weights count in double
    return _wrap(np.bincount(x, weights=w, minlength=minlength), out_dtype)


@op()
@quiet  # a range near the dtype's limits overflows to inf (handled below) silently, as PyTorch
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - PyTorch's argument names
    x = input._data
    if x.dtype.kind != "f" and x.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_dt.scalar_name(x.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    dt = x.dtype.type
    lo, hi = dt(min), dt(max)
    if lo == hi and x.size:
        lo, hi = x.min(), x.max()  # the data's range when none is given
    if lo == hi:
        lo, hi = lo - dt(1), hi + dt(1)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_num(lo)}, {_num(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not np.isfinite(np.subtract(hi, lo, dtype=x.dtype)):
        # The range's width overflows the input's dtype (float32 [-3e38, 3e38]): PyTorch counts nothing
        return _wrap(np.zeros(bins, np.int64), x.dtype)
    flat = x.reshape(-1)
    flat = flat[(flat >= lo) & (flat <= hi)]  # NaN and out-of-range values are not counted
    # PyTorch's evenly spaced bins: the index is interpolated in the input's precision, the right edge
    # belongs to the last bin (as does a product (x - min) * bins that overflows to inf).
    pos = np.minimum((flat - lo) * dt(bins) / (hi - lo), dt(bins - 1)).astype(np.int64)
    return _wrap(np.bincount(pos, minlength=bins), x.dtype)


def _num(v):
    v = float(v)
    if v != v:
        return "-nan"
    return str(int(v)) if v.is_integer() else repr(v)


# -- searchsorted / bucketize ----------------------------------------------------------------------------------------

def _side(right, side):
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left while "
                           "right was True")
    return side


@op(methods=())
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    seq = sorted_sequence._data
    if seq.dtype.kind == "c":  # complex numbers have no order
        raise _dt.not_implemented("searchsorted_out_cpu", seq.dtype)
    side = _side(right, side)
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    vals = input._data if isinstance(input, Tensor) else np.asarray(input)
    if sorter is not None:
        srt = sorter._data if isinstance(sorter, Tensor) else np.asarray(sorter)
        if srt.shape != seq.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(seq.shape)}and got sorter tensor {list(srt.shape)}")
        seq = np.take_along_axis(seq, srt.astype(np.intp, copy=False), -1)
    out_dtype = np.int32 if out_int32 else np.int64
    if seq.ndim == 1:
        return _wrap(np.searchsorted(seq, vals, side=side), out_dtype)
    if vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got boundaries "
                           f"tensor {list(seq.shape)} and input value tensor {list(vals.shape)}")
    # One search per row of boundaries (rows are few; each search is vectorised over its values).
    rows = int(np.prod(seq.shape[:-1]))  # explicit: reshape(-1, 0) cannot infer the row count
    s2, v2 = seq.reshape(rows, seq.shape[-1]), vals.reshape(rows, vals.shape[-1])
    out = np.empty(v2.shape, np.int64)
    for r in range(s2.shape[0]):
        out[r] = np.searchsorted(s2[r], v2[r], side=side)
    return _wrap(out.reshape(vals.shape), out_dtype)


@op(methods=())
def bucketize(input, boundaries, *, out_int32=False, right=False):
    b = boundaries._data
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    vals = input._data if isinstance(input, Tensor) else np.asarray(input)
    # bucketize's right=False is boundaries[i-1] < x <= boundaries[i]: searchsorted's left side.
    return _wrap(np.searchsorted(b, vals, side="right" if right else "left"), np.int32 if out_int32 else np.int64)
