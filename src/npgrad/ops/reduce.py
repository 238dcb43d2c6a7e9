"""Reductions: sum, mean, prod, max/min (values and indices), amax/amin, argmax/argmin, var/std,
logsumexp, norm, all/any, and the cumulative sum/product.

Gradients follow PyTorch's tie rules: ``max(dim)``/``min(dim)`` send the gradient to the returned index
only, while a full ``max()`` and ``amax``/``amin`` share it evenly between tied elements.
"""
import warnings

import numpy as np

from .. import _layout
from .. import dtypes as _dt
from ..return_types import aminmax as AMinMaxResult, max as MaxResult, min as MinResult
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim, canon_dims
from ._registry import op

_builtin_all, _builtin_any, _builtin_sum, _builtin_max = all, any, sum, max
# PyTorch's CPU kernels accumulate float16 in float32 and round the result back once; the float16 branches
# below do the same (a float16 sum of squares overflows at |x| ~ 256, and tiny values underflow).
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _expand_back(g, dims, keepdim, shape):
    """A reduced gradient reshaped (if needed) and broadcast back over the input's shape."""
    if not keepdim and dims:
        g = P.unsqueeze_dims(g, dims, len(shape))
    return P.broadcast_to(g, shape)


def _keep(x, dims, keepdim):
    """A reduced result (or gradient) reshaped to keepdim form so it broadcasts against the input."""
    if not keepdim and dims:
        return P.unsqueeze_dims(x, dims, None)
    return x


# -- sum / mean ---------------------------------------------------------------------------------------------

def _all_dims(node):
    """Whether a reduction node reduced every dimension (PyTorch names the two overloads apart)."""
    d = node.__dict__
    dims, shape = d.get("dims"), d.get("shape")
    if dims is None:
        return True
    return shape is not None and len(tuple(dims)) == len(shape)


class Sum(Op):
    __slots__ = ()
    node_name = staticmethod(lambda node: "SumBackward0" if _all_dims(node) and not node.__dict__.get("keepdim")
                             else "SumBackward1")

    @staticmethod
    def forward(ctx, x, dims, keepdim, np_dtype):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        return np.add.reduce(x, axis=dims, dtype=np_dtype, keepdims=keepdim)  # np.sum minus its wrapper

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.dims, ctx.keepdim, ctx.shape), None, None, None


def _sum_dtype(x, dtype):
    if dtype is not None:
        return _dt.to_dtype(dtype).np
    if x._data.dtype.kind in "biu":
        return np.dtype(np.int64)  # PyTorch sums integers and bools into int64
    return None


@op()
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    try:
        dims = canon_dims(dim, input._data.ndim)
    except _layout.SparseOperand:  # a sparse input has no array: npgrad.sparse sums its entries
        return _layout.SPARSE_IMPL["sum"](input, dim, keepdim, dtype=dtype)
    np_dtype = _sum_dtype(input, dtype)
    if np_dtype is not None and np_dtype.kind == "f" and input._data.dtype != np_dtype:
        input = input._cast(_dt.from_numpy_dtype(np_dtype))
    return Sum.apply(input, dims, keepdim, np_dtype)


@op()
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    from .pointwise import where
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if input._data.dtype.kind != "f":  # no NaN to skip; where(.., 0.0, ..) would turn integers into floats
        return sum(input, dim, keepdim, dtype=dtype)
    return sum(where(input != input, 0.0, input), dim, keepdim, dtype=dtype)


class Mean(Op):
    __slots__ = ()
    node_name = staticmethod(lambda node: "MeanBackward0" if _all_dims(node) and not node.__dict__.get("keepdim")
                             else "MeanBackward1")

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        n = 1
        for d in dims:
            n *= x.shape[d]
        ctx.shape, ctx.dims, ctx.keepdim, ctx.n = x.shape, dims, keepdim, n
        if x.size == 0 or n == 0:
            return np.full(_reduced(x.shape, dims, keepdim), np.nan, x.dtype)
        acc = np.add.reduce(x, axis=dims, dtype=x.dtype if x.dtype != np.float16 else np.float32, keepdims=keepdim)
        return np.asarray(acc / n).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g / ctx.n, ctx.dims, ctx.keepdim, ctx.shape), None, None


def _reduced(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


@op()
def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input._cast(_dt.to_dtype(dtype))
    if input._data.dtype.kind not in "fc" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_dt.scalar_name(input._data.dtype)}")
    dims = canon_dims(dim, input._data.ndim)
    return Mean.apply(input, dims, keepdim)


@op()
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if input._data.dtype.kind not in "fc" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_dt.scalar_name(input._data.dtype)}")
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    keep = input == input
    return nansum(input, dim, keepdim, dtype=dtype) / sum(keep, dim, keepdim)


# -- prod ------------------------------------------------------------------------------------------------------

class Prod(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, keepdim, np_dtype):
        ctx.save_for_backward(x)
        ctx.dim, ctx.keepdim = dim, keepdim
        # the ufunc itself, not np.prod's Python wrapper: NaN/inf warnings are then raised from npgrad's
        # frame, where npgrad's filter silences them as PyTorch is silent
        return np.multiply.reduce(x, axis=dim, keepdims=keepdim, dtype=np_dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        dim, keepdim = ctx.dim, ctx.keepdim
        if dim is None:
            flat = P.reshape(x, (-1,))
            others = _prod_of_others(flat, 0)
            return P.reshape(others, tuple(x.shape)) * g, None, None, None
        others = _prod_of_others(x, dim)
        return _keep(g, (dim,), keepdim) * others, None, None, None


def _prod_of_others(x, axis):
    """For each element, the product of the other elements along ``axis`` (exact with zeros:
    exclusive products from the left times exclusive products from the right)."""
    n = x.shape[axis]
    if n == 0:
        return x
    ones_shape = list(x.shape)
    ones_shape[axis] = 1
    one = np.ones(ones_shape, P.data_of(x).dtype)
    left = P.cat([one, _narrow(_cumprod(x, axis), axis, 0, n - 1)], axis)
    rev = _flip(x, axis)
    right = _flip(P.cat([one, _narrow(_cumprod(rev, axis), axis, 0, n - 1)], axis), axis)
    return left * right


def _narrow(x, axis, start, length):
    idx = [slice(None)] * len(x.shape)
    idx[axis] = slice(start, start + length)
    return x[tuple(idx)]


def _cumprod(x, axis):
    return x.cumprod(axis) if isinstance(x, Tensor) else np.multiply.accumulate(x, axis=axis)  # as in Prod


def _flip(x, axis):
    return x.flip(axis) if isinstance(x, Tensor) else np.flip(x, axis)


@op()
def prod(input, dim=None, keepdim=False, *, dtype=None):
    np_dtype = _sum_dtype(input, dtype)
    if np_dtype is not None and np_dtype.kind == "f" and input._data.dtype != np_dtype:
        input = input._cast(_dt.from_numpy_dtype(np_dtype))
    d = None if dim is None else canon_dim(dim, input._data.ndim)
    if d is not None and input._data.ndim == 0:
        d = None
    return Prod.apply(input, d, keepdim if d is not None else False, np_dtype)


# -- max / min / amax / amin / argmax / argmin -------------------------------------------------------------

def _empty_check(input, name, dim):
    """PyTorch's errors for a max/min reduction of an empty tensor; ``dim`` as the user wrote it."""
    if input._data.size:
        return
    if dim is None or isinstance(dim, (list, tuple)) and not dim:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):  # the first empty one, in the user's words
        if input._data.shape[canon_dim(d, input._data.ndim)] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _amax_node_name(node):
    d, saved = node.__dict__, node._saved
    is_min = d.get("is_min")
    if is_min is None and saved is not None:  # which of the two the node computed, from its saved output
        x, out = saved[0], saved[1]
        dims, keep = d.get("dims"), d.get("keepdim")
        is_min = bool(np.array_equal(np.min(x, axis=dims, keepdims=keep), out, equal_nan=True)
                      and not np.array_equal(np.max(x, axis=dims, keepdims=keep), out, equal_nan=True))
    if _all_dims(node) and not d.get("keepdim"):
        return "MinBackward1" if is_min else "MaxBackward1"
    return "AminBackward0" if is_min else "AmaxBackward0"


class AMax(Op):
    """amax/amin (and a full max()/min()): ties share the gradient evenly."""

    __slots__ = ()
    node_name = staticmethod(_amax_node_name)

    @staticmethod
    def forward(ctx, x, dims, keepdim, is_min):
        out = (np.min if is_min else np.max)(x, axis=dims, keepdims=keepdim)
        ctx.save_for_backward(x, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        dims, keepdim = ctx.dims, ctx.keepdim
        xd = P.data_of(x)
        outd = _keep(P.data_of(out), dims, keepdim)
        mask = xd == outd
        if dims is None:  # a full max()/min() counts a NaN result as tied with the NaNs; amax/amin do not
            mask |= (xd != xd) & (outd != outd)
        count = np.sum(mask, axis=dims, keepdims=True)
        weight = (mask / count).astype(xd.dtype)
        gk = _keep(g, dims, keepdim) * weight
        if dims is None:  # PyTorch's max()/min() fill the gradient in (other elements: exact 0, even from NaN);
            gk = P.where(mask, gk, 0.0)  # amax/amin multiply by the mask (NaN * 0 stays NaN), as here
        return gk, None, None, None


class MaxDim(Op):
    """max/min along one dim: the gradient goes to the returned index only."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, keepdim, idx_k, is_min):
        # The extreme value itself (a plain reduction is much cheaper than gathering at idx_k); NaN
        # propagates, consistent with argmax/argmin picking the first NaN.
        values = (np.minimum if is_min else np.maximum).reduce(x, axis=dim, keepdims=keepdim)
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        ctx.idx = idx_k
        return values

    @staticmethod
    def backward(ctx, g):
        from .indexing import scatter_add_values
        return scatter_add_values(_keep(g, (ctx.dim,), ctx.keepdim), ctx.shape, ctx.dim, ctx.idx), None, None, None, None


def _minmax(input, dim, keepdim, is_min, name, other=None):
    if other is not None and isinstance(dim, Tensor):
        other = dim
    if input._data.dtype.kind == "c" and not isinstance(dim, Tensor):
        raise _dt.not_implemented(f"{name}_all", input.dtype) if dim is None else \
            RuntimeError(f"{name}(): does not support complex input")
    if isinstance(dim, Tensor):
        from .pointwise import maximum, minimum
        return (minimum if is_min else maximum)(input, dim)
    if dim is None:
        _empty_check(input, name, None)
        return AMax.apply(input, None, False, is_min)
    d = canon_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        return (MinResult if is_min else MaxResult)(input.clone(), Tensor._wrap(np.zeros((), np.int64)))
    if input._data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    # NaN wins, as in PyTorch: argmax/argmin return the first NaN's index.
    idx = np.expand_dims((np.argmin if is_min else np.argmax)(input._data, axis=d), d)
    values = MaxDim.apply(input, d, keepdim, idx, is_min)
    indices = idx if keepdim else np.squeeze(idx, axis=d)
    return (MinResult if is_min else MaxResult)(values, Tensor._wrap(np.asarray(indices, np.int64)))


@op()
def max(input, dim=None, keepdim=False):  # noqa: A001
    return _minmax(input, dim, keepdim, False, "max")


@op()
def min(input, dim=None, keepdim=False):  # noqa: A001
    return _minmax(input, dim, keepdim, True, "min")


@op()
def amax(input, dim=(), keepdim=False):
    if input._data.dtype.kind == "c":
        raise _dt.not_implemented("max_values_cpu", input.dtype)
    dims = canon_dims(dim, input._data.ndim)
    _empty_check(input, "amax", dim)
    return AMax.apply(input, dims, keepdim, False)


@op()
def amin(input, dim=(), keepdim=False):
    if input._data.dtype.kind == "c":
        raise _dt.not_implemented("min_values_cpu", input.dtype)
    dims = canon_dims(dim, input._data.ndim)
    _empty_check(input, "amin", dim)
    return AMax.apply(input, dims, keepdim, True)


@op()
def aminmax(input, *, dim=None, keepdim=False):
    if input._data.dtype.kind == "c":
        raise _dt.not_implemented("aminmax_cpu", input.dtype)
    dims = () if dim is None else dim
    if input._data.size == 0:
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        d = canon_dim(dim, input._data.ndim)
        if input._data.ndim and input._data.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return AMinMaxResult(amin(input, dims, keepdim), amax(input, dims, keepdim))


def _arg(input, dim, keepdim, fn, name):
    x = input._data
    if x.dtype.kind in "bc":
        raise RuntimeError(f"{name}(): does not support {'bool' if x.dtype.kind == 'b' else 'complex'} input")
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        r = np.asarray(fn(x.reshape(-1)), np.int64)
        return Tensor._wrap(r.reshape((1,) * x.ndim) if keepdim else r)
    d = canon_dim(dim, x.ndim)
    if x.ndim == 0:
        return Tensor._wrap(np.zeros((), np.int64))
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    r = np.asarray(fn(x, axis=d), np.int64)
    return Tensor._wrap(np.expand_dims(r, d) if keepdim else r)


@op()
def argmax(input, dim=None, keepdim=False):
    return _arg(input, dim, keepdim, np.argmax, "argmax")


@op()
def argmin(input, dim=None, keepdim=False):
    return _arg(input, dim, keepdim, np.argmin, "argmin")


# -- var / std ---------------------------------------------------------------------------------------------------

def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


class Var(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        n = 1
        for d in dims:
            n *= x.shape[d]
        ctx.save_for_backward(x)
        ctx.dims, ctx.keepdim, ctx.denom = dims, keepdim, n - correction
        if x.size == 0:
            return np.full(_reduced(x.shape, dims, keepdim), np.nan, x.dtype)
        if x.dtype is _F16:
            return _var_np(x.astype(_F32), dims, keepdim, n - correction).astype(_F16)
        return _var_np(x, dims, keepdim, n - correction)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if P.data_of(x).dtype is _F16:  # the deviations and the 2/n factor in float32, as PyTorch's kernel
            x, g = P.cast(x, _F32), P.cast(g, _F32)
        return _keep(g, ctx.dims, ctx.keepdim) * _centered(x, ctx.dims) * _over(2.0, ctx.denom), None, None, None


def _var_np(x, dims, keepdim, denom):
    # (np.mean's inf - inf warns from NumPy's frame, which npgrad's filter does not cover)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = x - np.mean(x, axis=dims, keepdims=True)
        # corrected two-pass: remove the rounding error of the mean itself, so equal values (even 1e30s)
        # give exactly 0, as PyTorch's Welford does, and tiny spreads around a large mean keep their digits
        d -= np.mean(d, axis=dims, keepdims=True)
        # PyTorch clamps the divisor at 0 (inf/nan), but its gradient uses n - correction as is.
        if d.dtype.kind == "c":  # |d|^2: the variance of complex numbers is real
            sq = d.real * d.real + d.imag * d.imag
            return np.asarray(np.sum(sq, axis=dims, keepdims=keepdim) / _builtin_max(denom, 0)).astype(sq.dtype)
        return np.asarray(np.sum(d * d, axis=dims, keepdims=keepdim) / _builtin_max(denom, 0)).astype(x.dtype)


def _over(a, denom):
    return a / denom if denom != 0 else float("nan")


def _centered(x, dims):
    return x - _mean_keep(x, dims)


class Std(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dims, keepdim, correction):
        if x.dtype is _F16:  # the variance of values above ~256 overflows float16; its root need not
            v = Var.forward(ctx, x.astype(_F32), dims, keepdim, correction)
            out = np.sqrt(v).astype(_F16)
        else:
            out = np.sqrt(Var.forward(ctx, x, dims, keepdim, correction))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        dims, keepdim = ctx.dims, ctx.keepdim
        if P.data_of(x).dtype is _F16:
            x, g, out = P.cast(x, _F32), P.cast(g, _F32), P.cast(out, _F32)
        zero = P.data_of(out) == 0
        if zero.any():
            # A zero std (constant input) has gradient 0 in PyTorch, not 0/0.
            g = P.where(zero, 0.0, g / P.where(zero, 1.0, out))
        else:
            g = g / out
        return _keep(g, dims, keepdim) * _centered(x, dims) * _over(1.0, ctx.denom), None, None, None


def _mean_keep(x, dims):
    if isinstance(x, Tensor):
        return x.mean(dim=dims, keepdim=True)
    if x.size == 0:  # np.mean warns "Mean of empty slice"; the NaN it returns is PyTorch's value
        return np.full(_reduced(x.shape, dims, True), np.nan, x.dtype)
    with np.errstate(invalid="ignore"):  # inf - inf warns from NumPy's frame, outside npgrad's filter
        return np.mean(x, axis=dims, keepdims=True)


def _var_args(name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):  # var(x, unbiased) positional form
        unbiased, dim = dim, None
    if input._data.dtype.kind not in "fc" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims, c = canon_dims(dim, input._data.ndim), _correction(unbiased, correction)
    kept = 1  # PyTorch's reduction factor: input numel over output numel (0 for an empty input)
    for d, size in enumerate(input._data.shape):
        kept *= 1 if d in dims else size
    if input._data.size // _builtin_max(kept, 1) - c <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    return dims, keepdim, c


@op()
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return Var.apply(input, *_var_args("var", input, dim, unbiased, keepdim, correction))


@op()
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return Std.apply(input, *_var_args("std", input, dim, unbiased, keepdim, correction))


@op(methods=())
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    args = _var_args("var_mean", input, dim, unbiased, keepdim, correction)
    return Var.apply(input, *args), mean(input, dim, keepdim)


@op(methods=())
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    args = _var_args("std_mean", input, dim, unbiased, keepdim, correction)
    return Std.apply(input, *args), mean(input, dim, keepdim)


# -- logsumexp / norm ---------------------------------------------------------------------------------------------

class LogSumExp(Op):
    node_name = "LogsumexpBackward0"
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        if x.size == 0:
            out = np.full(_reduced(x.shape, dims, keepdim), -np.inf, x.dtype)
        else:
            # any finite shift is exact; the largest real part keeps exp() in range for complex numbers too
            m = np.max(x if x.dtype.kind != "c" else x.real, axis=dims, keepdims=True)
            m = np.where(np.isfinite(m), m, 0).astype(x.dtype)
            s = np.sum(np.exp(x - m), axis=dims, keepdims=True)
            out = np.log(s) + m
            if not keepdim:
                out = np.squeeze(out, axis=dims)
        ctx.save_for_backward(x, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        dims, keepdim = ctx.dims, ctx.keepdim
        return _keep(g, dims, keepdim) * P.exp(x - _keep(out, dims, keepdim)), None, None


@op()
def logsumexp(input, dim=None, keepdim=False):
    if input._data.dtype.kind not in "fc":
        input = input._cast(_dt.get_default_dtype())
    dims = canon_dims(dim, input._data.ndim)
    return LogSumExp.apply(input, dims, keepdim)


class Norm(Op):
    node_name = "LinalgVectorNormBackward0"
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, p, dims, keepdim):
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        if x.dtype is _F16:
            out = _norm_np(x.astype(_F32), p, dims, keepdim).astype(_F16)
        else:
            out = _norm_np(x, p, dims, keepdim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        p, dims, keepdim = ctx.p, ctx.dims, ctx.keepdim
        if P.data_of(x).dtype is _F16 and p not in (0, 1):  # g / norm and |x|^(p-1) leave float16's range
            x, g, out = P.cast(x, _F32), P.cast(g, _F32), P.cast(out, _F32)
        gk = _keep(g, dims, keepdim)
        nk = _keep(out, dims, keepdim)
        if p == 0:
            return None, None, None, None  # a zero gradient: PyTorch leaves .grad unset too
        if p == 1:
            return gk * P.sign(x), None, None, None
        if p in (np.inf, -np.inf):
            xd = P.data_of(x)
            # the elements that are the max (or min), NaN included, as PyTorch: NaN is the result there
            mask = np.abs(xd) == _keep(P.data_of(out), dims, keepdim)
            mask |= np.isnan(xd)
            count = np.sum(mask, axis=dims, keepdims=True)
            return gk * P.sign(x) * (mask / count).astype(xd.dtype), None, None, None
        zero = P.data_of(nk) == 0
        if p == 2:
            # PyTorch's subgradient at 0 is 0 (not NaN): mask the division by a zero norm.
            safe = P.where(zero, 1.0, nk) if zero.any() else nk
            r = x * (gk / safe)
            return (P.where(zero, 0.0, r) if zero.any() else r), None, None, None
        safe = P.where(zero, 1.0, nk) if zero.any() else nk
        r = x * P.abs(x) ** (p - 2) * gk / safe ** (p - 1)
        return (P.where(zero, 0.0, r) if zero.any() else r), None, None, None


def _norm_np(x, p, dims, keepdim):
    a = np.abs(x)
    if p == np.inf:
        out = np.max(a, axis=dims, keepdims=keepdim) if x.size else np.zeros(_reduced(x.shape, dims, keepdim), x.dtype)
    elif p == -np.inf:
        out = np.min(a, axis=dims, keepdims=keepdim)
    elif p == 0:
        out = np.sum(a != 0, axis=dims, keepdims=keepdim).astype(x.dtype)
    elif p == 1:
        out = np.sum(a, axis=dims, keepdims=keepdim)
    elif p == 2:
        out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
    else:
        out = np.sum(a ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(out, x.dtype)


@op()
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        input = input._cast(_dt.to_dtype(dtype))
    if input._data.dtype.kind not in "fc" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dt.scalar_name(input._data.dtype)}")
    if p == "fro" or p is None:
        p = 2
    elif p == "nuc":
        raise NotImplementedError("norm(p='nuc') is not supported by npgrad")
    p = float(p)
    dims = canon_dims(dim, input._data.ndim)
    if input._data.size == 0 and (p < 0 or p == np.inf):
        _empty_norm_check(input, p, dim)
    if input._data.dtype.kind == "c":
        input = input.abs()  # a complex vector's norm is its moduli's: real, differentiable through abs
    return Norm.apply(input, p, dims, keepdim)


def _empty_norm_check(input, p, dim):
    # max/min-like norms have no identity: PyTorch refuses to reduce an empty tensor or dimension
    why = "because the operation does not have an identity"
    if dim is None or isinstance(dim, (list, tuple)) and not dim:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor {why}")
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):
        if input._data.shape[canon_dim(d, input._data.ndim)] == 0:
            # (sic: PyTorch's message has no space after the dimension)
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the dimension {d}"
                               f"{why.replace('because', 'because this dimension is empty and', 1)}")


# -- all / any / count_nonzero -------------------------------------------------------------------------------------

@op()
def all(input, dim=None, keepdim=False):  # noqa: A001
    return _logical_result(np.all(input._data, axis=_logical_dims(dim, input), keepdims=keepdim), input)


@op()
def any(input, dim=None, keepdim=False):  # noqa: A001
    return _logical_result(np.any(input._data, axis=_logical_dims(dim, input), keepdims=keepdim), input)


def _logical_dims(dim, input):
    # PyTorch's all/any read an empty dim list as no dims (each element's truth), not as every dim
    if isinstance(dim, (list, tuple)) and not dim:
        return ()
    return canon_dims(dim, input._data.ndim)


def _logical_result(r, input):
    # PyTorch keeps uint8 for all/any of a uint8 tensor (a legacy of byte masks); bool otherwise
    return Tensor._wrap(np.asarray(r, np.uint8 if input._data.dtype == np.uint8 else np.bool_))


@op()
def count_nonzero(input, dim=None):
    dims = canon_dims(dim, input._data.ndim)
    return Tensor._wrap(np.asarray(np.count_nonzero(input._data, axis=dims), np.int64))


# -- cumulative ----------------------------------------------------------------------------------------------------

class CumSum(Op):
    node_name = "CumsumBackward0"
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, np_dtype):
        ctx.dim = dim
        if x.dtype is _F16 and np_dtype is None:
            return np.cumsum(x, axis=dim, dtype=_F32).astype(_F16)
        return np.cumsum(x, axis=dim, dtype=np_dtype)

    @staticmethod
    def backward(ctx, g):
        d = ctx.dim
        return _flip(_cumsum(_flip(g, d), d), d), None, None


def _cumsum(x, axis):
    if isinstance(x, Tensor):
        return x.cumsum(axis)
    if x.dtype is _F16:  # running sums in float32, rounded once, as PyTorch's kernel
        return np.cumsum(x, axis=axis, dtype=_F32).astype(_F16)
    return np.cumsum(x, axis=axis)


@op()
def cumsum(input, dim, *, dtype=None):
    d = canon_dim(dim, input._data.ndim)
    np_dtype = _sum_dtype(input, dtype)
    if np_dtype is not None and np_dtype.kind == "f" and input._data.dtype != np_dtype:
        input = input._cast(_dt.from_numpy_dtype(np_dtype))
    if input._data.ndim == 0:
        return input.clone()
    return CumSum.apply(input, d, np_dtype)


class CumProd(Op):
    node_name = "CumprodBackward0"
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, np_dtype):
        out = np.multiply.accumulate(x, axis=dim, dtype=np_dtype)  # the ufunc, as in Prod
        ctx.save_for_backward(x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        d = ctx.dim
        xd = P.data_of(x)
        after = _flip(_cumsum(_flip(g * out, d), d), d)  # sum_{k >= i} g_k * out_k
        is_zero = xd == 0
        if not is_zero.any():
            return after / x, None, None
        if isinstance(g, Tensor):  # O(n^2) but differentiable through the zeros; arrays take the O(n) form
            return _cumprod_grad_with_zeros_graph(x, g, d), None, None
        return _cumprod_grad_with_zeros(x, g, out, after, is_zero, d), None, None


def _cumprod_grad_with_zeros(x, g, out, after, is_zero, axis):
    """The exact gradient when zeros occur, in O(n) per slice (and differentiable again).

    With z the first zero of a slice: before z, d out_k / d x_i = out_k / x_i as usual; at z it is the
    product of the other factors, i.e. the cumprod of x with x_z replaced by 1; after z every output
    that depends on x_i also contains the factor x_z = 0, so the gradient is zero.
    """
    seen = np.cumsum(is_zero, axis=axis)
    before = seen == 0
    first = is_zero & (seen == 1)
    x_first_one = P.where(first, 1.0, x)
    at_first = _flip(_cumsum(_flip(g * _cumprod(x_first_one, axis), axis), axis), axis)
    safe_x = P.where(before, x, 1.0)
    return P.where(before, after / safe_x, 0.0) + P.where(first, at_first, 0.0)


def _cumprod_grad_with_zeros_graph(x, g, axis):
    """The same gradient for create_graph=True, as PyTorch computes it: O(n^2) along the axis, but
    every term is a product of the other factors, so it differentiates correctly through the zeros
    (the O(n) form above is exact in value but drops the dependence of later positions on x_z)."""
    from .movement import cat, stack
    n = x.shape[axis]
    cols = []
    for i in range(n):
        before = x.narrow(axis, 0, i).prod(axis, keepdim=True)  # the empty product is 1
        rest = x.narrow(axis, i + 1, n - i - 1).cumprod(axis)
        omitted = cat([before, before * rest], axis)  # prod_{j <= k, j != i} x_j for k >= i
        cols.append((g.narrow(axis, i, n - i) * omitted).sum(axis))
    return stack(cols, axis)


@op()
def cumprod(input, dim, *, dtype=None):
    d = canon_dim(dim, input._data.ndim)
    np_dtype = _sum_dtype(input, dtype)
    if np_dtype is not None and np_dtype.kind == "f" and input._data.dtype != np_dtype:
        input = input._cast(_dt.from_numpy_dtype(np_dtype))
    if input._data.ndim == 0:
        return input.clone()
    return CumProd.apply(input, d, np_dtype)
