"""Numerical integration and differentiation of sampled values, loaded on first use: trapezoid (trapz),
cumulative_trapezoid and gradient. All are sums of shifted slices, so they differentiate through slicing."""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._dims import canon_dim
from ._registry import op


def _float(t):
    return t if t._data.dtype.kind in "fc" else t._cast(_dt.get_default_dtype())


def _sl(t, dim, start, stop):
    n = t._data.shape[dim]
    stop = n if stop is None else stop + n if stop < 0 else min(stop, n)
    start = start + n if start < 0 else start
    return t.narrow(dim, start, max(stop - start, 0))


def _invalid(name, y, x, dx):
    got = ", ".join(["Tensor"] + ([type(x).__name__ if not isinstance(x, Tensor) else "x=Tensor"] if x is not None else [])
                    + (["dx=" + type(dx).__name__] if dx is not None else []))
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f" * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)")


def _spacing(name, y, x, dx, dim):
    """(y as float, the sample spacing along dim: a number or a tensor that broadcasts against the slices)."""
    if x is not None and (not isinstance(x, Tensor) or dx is not None):
        raise _invalid(name, y, x, dx)
    if y._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = canon_dim(dim, y._data.ndim)
    if x is None:
        return _float(y), (1 if dx is None else dx), d
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[d] = max(y._data.shape[d] - 1, 0)
        spacing = x.diff().reshape(shape)
    else:
        spacing = x.diff(dim=dim)
    rt = _dt.result_type(y, x)
    rt = rt if rt.is_floating_point or rt.is_complex else _dt.get_default_dtype()
    return y._cast(rt), spacing._cast(rt), d


@op(methods=())
def trapezoid(y, x=None, *, dx=None, dim=-1):
    y, h, d = _spacing("trapezoid", y, x, dx, dim)
    if y._data.shape[d] == 0:
        return (y * 0).sum(d)
    return ((_sl(y, d, 1, None) + _sl(y, d, 0, -1)) * h).sum(d) / 2


@op(methods=())
def trapz(y, x=None, *, dx=None, dim=-1):
    y, h, d = _spacing("trapz", y, x, dx, dim)
    if y._data.shape[d] == 0:
        return (y * 0).sum(d)
    return ((_sl(y, d, 1, None) + _sl(y, d, 0, -1)) * h).sum(d) / 2


@op(methods=())
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    y, h, d = _spacing("cumulative_trapezoid", y, x, dx, dim)
    if y._data.shape[d] <= 1:
        return _sl(y, d, 0, 0)
    return (((_sl(y, d, 1, None) + _sl(y, d, 0, -1)) * h) / 2).cumsum(d)


# -- gradient ------------------------------------------------------------------------------------------------------

def _along(coef, d, nd, dt):
    shape = [1] * nd
    shape[d] = coef.shape[0] if np.ndim(coef) else 1
    return Tensor._wrap(np.asarray(coef, dt).reshape(shape))


def _grad_uniform(f, d, h, edge_order):
    mid = (_sl(f, d, 2, None) - _sl(f, d, 0, -2)) / (2.0 * h)
    if edge_order == 1:
        first = (_sl(f, d, 1, 2) - _sl(f, d, 0, 1)) / h
        last = (_sl(f, d, -1, None) - _sl(f, d, -2, -1)) / h
    else:
        first = (_sl(f, d, 0, 1) * -1.5 + _sl(f, d, 1, 2) * 2.0 - _sl(f, d, 2, 3) * 0.5) / h
        last = (_sl(f, d, -3, -2) * 0.5 - _sl(f, d, -2, -1) * 2.0 + _sl(f, d, -1, None) * 1.5) / h
    return first, mid, last


def _grad_coords(f, d, coords, edge_order):
    nd, dt = f._data.ndim, f._data.dtype
    x = coords._data if coords._data.dtype.kind == "f" else coords._data.astype(dt)  # weights in x's precision
    h = np.diff(x)
    h1, h2 = h[:-1], h[1:]
    w = [(-h2 / (h1 * (h1 + h2))), ((h2 - h1) / (h1 * h2)), (h1 / (h2 * (h1 + h2)))]
    mid = sum(_sl(f, d, i, f._data.shape[d] - 2 + i) * _along(w[i], d, nd, dt) for i in range(3))
    if edge_order == 1:
        first = (_sl(f, d, 1, 2) - _sl(f, d, 0, 1)) / _along(h[0], d, nd, dt)
        last = (_sl(f, d, -1, None) - _sl(f, d, -2, -1)) / _along(h[-1], d, nd, dt)
        return first, mid, last
    a, b = h[0], h[1]
    wf = [-(2.0 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b))]
    a, b = h[-2], h[-1]
    wl = [b / (a * (a + b)), -(a + b) / (a * b), (2.0 * b + a) / (b * (a + b))]
    first = sum(_sl(f, d, i, i + 1) * _along(wf[i], d, nd, dt) for i in range(3))
    last = sum(_sl(f, d, i - 3, (i - 2) or None) * _along(wl[i], d, nd, dt) for i in range(3))
    return first, mid, last


@op(methods=())
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    from .movement import cat
    nd = input._data.ndim
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(nd)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [canon_dim(d, nd) for d in dims]
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                                   f"equal to 'self.dim() = {nd}', since dim argument was not given, but got a list "
                                   f"of length {len(spacing)}")
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    for s in spacings:
        if isinstance(s, Tensor) and s._data.ndim != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {s._data.ndim} dimensions!")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = _float(input)
    out = []
    for d, s in zip(dims, spacings):
        if isinstance(s, Tensor):
            parts = _grad_coords(f, d, s, edge_order)
        else:
            parts = _grad_uniform(f, d, float(s), edge_order)
        out.append(cat(list(parts), d))
    return tuple(out)
