"""Histograms with bin edges, loaded on first use: histogram and histogramdd (histc, which returns counts
only, is in counting.py). Counts are not differentiable; the results never require grad."""
import builtins

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._registry import op


def _check_float(x):
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_dt.scalar_name(x._data.dtype)}'")


def _edges(name, col, bins, lo_hi, d, dt):
    """The bin edges of dimension ``d``: given as a tensor, or ``bins`` equal bins over the range."""
    if isinstance(bins, Tensor):
        e = np.asarray(bins._data, dt)
        if e.ndim != 1 or e.shape[0] < 1:
            raise RuntimeError(f"{name}: bins tensor should have one dimension and at least 1 element, but got "
                               f"{e.ndim} dimensions and {e.size} elements")
        return e
    if bins <= 0:
        raise RuntimeError(f"{name}: The number of bins must be positive, but got {bins} for dimension {d}")
    if lo_hi is not None:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
        if lo > hi:
            raise RuntimeError(f"{name}: min should not exceed max, but got min {lo:g} max {hi:g} for dimension {d}")
    elif col.size:
        lo, hi = float(col.min()), float(col.max())
    else:
        lo, hi = 0.0, 0.0
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"{name}: dimension {d}'s range [{lo:g}, {hi:g}] is not finite")
    if lo == hi:  # PyTorch widens an empty range to one unit: [0, 1] without data, else around the value
        lo, hi = (0.0, 1.0) if col.size == 0 and lo_hi is None else (lo - 0.5, hi + 0.5)
    return _linspace(lo, hi, int(bins) + 1, dt)


def _linspace(lo, hi, steps, dt):
    """PyTorch's linspace bit for bit: each point is one fused multiply-add (a single rounding, emulated in a
    wider type), counted from the start below halfway and from the end above it."""
    dt = np.dtype(dt).type
    wide = np.longdouble if dt == np.float64 else np.float64
    lo, hi = dt(lo), dt(hi)
    step = dt((hi - lo) / dt(steps - 1))
    i = np.arange(steps)
    from_end = (steps - 1 - i).astype(wide)
    return np.where(i < steps // 2, wide(lo) + wide(step) * i.astype(wide), wide(hi) - wide(step) * from_end).astype(dt)


def _histdd(name, sample, bins, range, weight, density):
    """Counts (and the edges) of the rows of ``sample`` (N, D)."""
    n, D = sample.shape
    dt = sample.dtype
    if not isinstance(bins, (list, tuple)):
        bins = [bins] * D
    if len(bins) != D:
        raise RuntimeError(f"{name}: expected {D} sequences of bin edges for each dimension, but got {len(bins)}")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"{name}: for a {D}-dimensional histogram range should have {2 * D} elements, but got "
                           f"{len(range)}")
    edges = [_edges(name, sample[:, d], bins[d], None if range is None else range[2 * d:2 * d + 2], d, dt)
             for d in builtins.range(D)]
    w = None if weight is None else np.asarray(weight._data, np.float64).reshape(-1)
    hist, _ = np.histogramdd(np.asarray(sample, np.float64).reshape(n, D),
                             bins=[np.asarray(e, np.float64) for e in edges], weights=w)
    if density:
        total = hist.sum()
        widths = np.ix_(*[np.diff(np.asarray(e, np.float64)) for e in edges])
        vol = 1.0
        for wd in widths:
            vol = vol * wd
        with np.errstate(all="ignore"):
            hist = hist / (total * vol)  # no weight at all gives 0/0, NaN, as in PyTorch
    return hist.astype(dt), edges


@op()
def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002 - PyTorch's name
    from .. import return_types
    _check_float(input)
    hist, edges = _histdd("torch.histogramdd", input._data.reshape(-1, 1), bins, range, weight, density)
    return return_types.histogram(Tensor._wrap(hist), Tensor._wrap(edges[0]))


@op(methods=())
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    from .. import return_types
    _check_float(input)
    x = input._data
    if x.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if x.shape[-1] == 0:  # points with no coordinates: a 0-d histogram that counts nothing, no edges
        return return_types.histogramdd(Tensor._wrap(np.zeros((), x.dtype)), ())
    hist, edges = _histdd("torch.histogramdd", x.reshape(-1, x.shape[-1]), bins, range, weight, density)
    return return_types.histogramdd(Tensor._wrap(hist), tuple(Tensor._wrap(e) for e in edges))
