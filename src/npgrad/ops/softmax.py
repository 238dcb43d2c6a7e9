"""softmax / log_softmax as fused, numerically stable Ops (the max is subtracted first): ``x.softmax(dim)``,
``npgrad.softmax``, and the body of ``nn.functional.softmax`` (which adds only torch's ``_stacklevel``).

Both save their output: softmax's gradient is ``y * (g - sum(g * y))`` and log_softmax's is
``g - exp(y) * sum(g)``; written with the array-or-Tensor helpers they are differentiable again.
"""
import warnings

import numpy as np

from .. import _parallel
from .. import dtypes as _dt
from .. import kernels as _kernels
from ..kernels import softmax as _ksoftmax
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import op

# PyTorch's CPU softmax kernels compute float16 in float32 (exp, sum, divide) and round once.
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _shifted(x, dim):
    if x.size == 0:
        return x.copy()
    return x - np.max(x, axis=dim, keepdims=True)


def softmax_np(x, dim):
    if x.dtype is _F16:
        return softmax_np(x.astype(_F32), dim).astype(_F16)
    if dim == x.ndim - 1 and _rows_layout(x):
        return _softmax_rows(x)
    e = _shifted(x, dim)
    np.exp(e, out=e)
    e /= np.sum(e, axis=dim, keepdims=True)
    return e


def _rows_layout(*arrays):
    """Contiguous float32/float64 arrays of one non-empty shape: softmax over their last axis runs by rows."""
    a = arrays[0]
    return (a.size > 0 and a.dtype.kind == "f" and a.dtype.itemsize >= 4
            and all(type(b) is np.ndarray and b.flags.c_contiguous and b.shape == a.shape and b.dtype == a.dtype
                    for b in arrays))


# The row sums are einsum's (attention scores 16384x64 float32: 46 vs 290 us for NumPy's per-row reduce, which
# pays ~50 ns a row), so they are sequential SIMD-lane sums rather than pairwise: within float32 rounding.

def _softmax_rows(x):
    """softmax over the last axis of a contiguous array by rows, split over the threads when large: each row goes
    through the same steps (bit-identical across thread counts). Attention scores (32, 4, 64, 64) float32: the
    exp alone is ~1.5 ms of the ~2.5 on one core here."""
    if _kernels.fits(x):
        y = _ksoftmax.softmax(x)
        if y is not None:
            return y
    L = x.shape[-1]
    x2 = x.reshape(-1, L)
    out = np.empty_like(x2)

    def rows(lo, hi):
        e = out[lo:hi]
        np.subtract(x2[lo:hi], np.max(x2[lo:hi], axis=1, keepdims=True), out=e)
        np.exp(e, out=e)
        e /= np.einsum("ij->i", e)[:, None]

    _parallel.split(rows, x2.shape[0], per=L)
    return out.reshape(x.shape)


def _softmax_grad_rows(y, g):
    """SoftmaxOp.grad's formula on arrays by rows, y * (g - sum(g * y)) as PyTorch's kernel groups it, with the
    row dot product from einsum (no product pass); rows split over the threads when large (bit-identical)."""
    if _kernels.fits(y, g):
        gx = _ksoftmax.softmax_grad(y, g)
        if gx is not None:
            return gx
    L = y.shape[-1]
    y2, g2 = y.reshape(-1, L), g.reshape(-1, L)
    out = np.empty_like(y2)

    def rows(lo, hi):
        o, yr, gr = out[lo:hi], y2[lo:hi], g2[lo:hi]
        np.subtract(gr, np.einsum("ij,ij->i", gr, yr)[:, None], out=o)
        o *= yr

    _parallel.split(rows, y2.shape[0], per=L)
    return out.reshape(y.shape)


def log_softmax_np(x, dim):
    if x.dtype is _F16:
        return log_softmax_np(x.astype(_F32), dim).astype(_F16)
    if dim == x.ndim - 1 and _kernels.fits(x):
        y = _ksoftmax.softmax(x, log=True)
        if y is not None:
            return y
    s = _shifted(x, dim)
    lse = np.log(np.sum(np.exp(s), axis=dim, keepdims=True))
    s -= lse
    return s


class _SoftmaxFamily(Op):
    """softmax and log_softmax along ``dim``: forward runs the class's kernel and saves its output; backward
    hands that output and the gradient (in float32 for float16, as PyTorch accumulates) to ``grad``."""

    __slots__ = ()

    @classmethod
    def forward(cls, ctx, x, dim):
        y = cls.kernel(x, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @classmethod
    def backward(cls, ctx, g):
        (y,) = ctx.saved_tensors
        if P.data_of(y).dtype is _F16:
            y, g = P.cast(y, _F32), P.cast(g, _F32)
        return cls.grad(y, g, ctx.dim), None


class SoftmaxOp(_SoftmaxFamily):
    node_name = "SoftmaxBackward0"
    __slots__ = ()
    kernel = staticmethod(softmax_np)

    @staticmethod
    def grad(y, g, dim):
        if dim == y.ndim - 1 and type(y) is np.ndarray and _rows_layout(y, g):
            return _softmax_grad_rows(y, g)
        gy = g * y
        return gy - y * P.sum(gy, axis=dim, keepdims=True)


class LogSoftmaxOp(_SoftmaxFamily):
    node_name = "LogSoftmaxBackward0"
    __slots__ = ()
    kernel = staticmethod(log_softmax_np)

    @staticmethod
    def grad(y, g, dim):
        if dim == y.ndim - 1 and type(y) is np.ndarray and _kernels.fits(y, g):
            gx = _ksoftmax.softmax_grad(y, g, log=True)
            if gx is not None:
                return gx
        return g - P.exp(y) * P.sum(g, axis=dim, keepdims=True)


def implicit_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def _prepare(input, dim, dtype, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        dim = implicit_dim(name, input.dim())
    if dtype is not None:
        input = input._cast(_dt.to_dtype(dtype))
    elif input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        last = canon_dim(dim, max(input._data.ndim, 1)) == max(input._data.ndim, 1) - 1
        err = NotImplementedError if input._data.dtype.kind == "c" else RuntimeError
        raise err(f'"{name}_{"lastdim_" if last or input._data.dtype.kind != "c" else ""}kernel_impl" not implemented '
                  f"for '{_dt.scalar_name(input.dtype)}'")
    nd = input._data.ndim
    d = canon_dim(dim, nd)
    if nd == 0:
        return input.reshape(1), 0, True
    return input, d, False


@op()
def softmax(input, dim=None, dtype=None):
    x, d, scalar = _prepare(input, dim, dtype, "softmax")
    y = SoftmaxOp.apply(x, d)
    return y.reshape(()) if scalar else y


@op()
def log_softmax(input, dim=None, dtype=None):
    x, d, scalar = _prepare(input, dim, dtype, "log_softmax")
    y = LogSoftmaxOp.apply(x, d)
    return y.reshape(()) if scalar else y


def softmax_poly(x, dim):
    """softmax inside a backward formula: an array, or a differentiable Tensor under create_graph."""
    return P.kernel_call(SoftmaxOp, x, dim)
