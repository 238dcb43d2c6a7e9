"""Bessel and Airy functions (``torch.special``): i0/i0e/i1/i1e with gradients, and PyTorch's
non-differentiable modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1, bessel_j0/j1/y0/y1,
spherical_bessel_j0 and airy_ai. The kernels (float64, NumPy only) are in ``_bessel.py``.

Every kernel evaluates in float64 and rounds to the input's dtype. As in PyTorch, integer and bool inputs give
float32, i0/i0e/i1/i1e take float16 and the others raise for it, and the functions PyTorch gives no
derivative return a tensor that does not require grad (no grad_fn, as PyTorch's).
"""

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _bessel as B
from ._registry import op

__all__ = ["i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1",
           "bessel_y0", "bessel_y1", "spherical_bessel_j0", "airy_ai"]


def _float_in(input, kernel=None, cname=None):
    """The input as a float tensor (integers and bool: the default float type); float16 raises PyTorch's
    error for the kernels that have no float16 version (``kernel`` given), complex PyTorch's error for its
    kernel (``cname``, else ``kernel``_cpu): these kernels are real."""
    kind = input._data.dtype
    if kind.kind == "c":
        raise _dt.not_implemented(cname or f"{kernel}_cpu", kind)
    if kind.kind != "f":
        return input._cast(_dt.get_default_dtype())
    if kernel is not None and kind == np.float16:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Half'")
    return input


def _via64(fn):
    """A kernel on arrays of any float dtype from a float64 one (results rounded back to the input's dtype)."""
    # (kernels see 1-d arrays: boolean-mask assignment needs an array, and a 0-d one would come back a scalar)
    return lambda x: fn(x.astype(np.float64).reshape(-1)).reshape(x.shape).astype(x.dtype, copy=False)


# -- differentiable: i0, i0e, i1, i1e --------------------------------------------------------------------------------

# PyTorch's float32 kernels form exp(|x|) first, so their I0 and I1 are inf from where that overflows
# (|x| > 88.72284), though the results themselves would still fit up to ~91.
_FLOAT32_EXP_OVERFLOW = 88.72283935546875


def _i_plain(n, x):
    out = B.i_plain(n, x.astype(np.float64).reshape(-1)).reshape(x.shape)
    if x.dtype != np.float64:
        big = (np.abs(x) > _FLOAT32_EXP_OVERFLOW) & np.isfinite(x)
        if big.any():
            out[big] = np.copysign(np.inf, x[big]) if n else np.inf
    return out.astype(x.dtype, copy=False)


def _i0_np(x):
    return _i_plain(0, x)


def _i1_np(x):
    return _i_plain(1, x)


_i0e_np = _via64(lambda x: B.i_scaled(0, x))
_i1e_np = _via64(lambda x: B.i_scaled(1, x))


def _call(cls, kernel, x):
    """cls applied to a Tensor (create_graph) or the kernel on an array (plain backward)."""
    return cls.apply(x) if isinstance(x, Tensor) else kernel(x)


def _sign(x):
    return x.sign() if isinstance(x, Tensor) else np.sign(x)


def _at_zero(x, value, other):
    """``value`` where x is 0 (or NaN, where PyTorch's formula also gives it), ``other`` elsewhere."""
    zero = ~(np.abs(x._data if isinstance(x, Tensor) else x) > 0)
    if not zero.any():
        return other
    if isinstance(other, Tensor):
        return other.masked_fill(Tensor._wrap(zero), value)
    return np.where(zero, np.asarray(value, other.dtype), other)


def _safe(x):
    """x with its zeros replaced by 1 (a divisor whose result is then overwritten at 0)."""
    zero = ~(np.abs(x._data if isinstance(x, Tensor) else x) > 0)
    if not zero.any():
        return x
    return x.masked_fill(Tensor._wrap(zero), 1.0) if isinstance(x, Tensor) else np.where(zero, 1.0, x).astype(x.dtype)


class I0(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _i0_np(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _call(I1, _i1_np, x)


class I1(Op):
    __slots__ = ()
    node_name = "SpecialI1Backward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _i1_np(x)

    @staticmethod
    def backward(ctx, g):
        # I1' = I0 - I1 / x, 1/2 at 0 (and at NaN, as PyTorch's)
        (x,) = ctx.saved_tensors
        d = _call(I0, _i0_np, x) - _call(I1, _i1_np, x) / _safe(x)
        return g * _at_zero(x, 0.5, d)


class I0e(Op):
    __slots__ = ()
    node_name = "SpecialI0EBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _i0e_np(x)

    @staticmethod
    def backward(ctx, g):
        # (e^-|x| I0)' = I1e - sgn(x) I0e
        (x,) = ctx.saved_tensors
        return g * (_call(I1e, _i1e_np, x) - _sign(x) * _call(I0e, _i0e_np, x))


class I1e(Op):
    __slots__ = ()
    node_name = "SpecialI1EBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _i1e_np(x)

    @staticmethod
    def backward(ctx, g):
        # (e^-|x| I1)' = I0e - I1e (sgn(x) + 1/x), 1/2 at 0 (and at NaN, as PyTorch's)
        (x,) = ctx.saved_tensors
        d = _call(I0e, _i0e_np, x) - _call(I1e, _i1e_np, x) * (_sign(x) + 1 / _safe(x))
        return g * _at_zero(x, 0.5, d)


@op(inplace="generic")
def i0(input):
    """The modified Bessel function of the first kind of order 0, differentiable (i0' = i1)."""
    return I0.apply(_float_in(input, cname="i0_vml_cpu"))


@op(methods=())
def i0e(input):
    """exp(-|x|) i0(x), differentiable."""
    return I0e.apply(_float_in(input, cname="i0e_cpu"))


@op(methods=())
def i1(input):
    """The modified Bessel function of the first kind of order 1, differentiable."""
    return I1.apply(_float_in(input, cname="i1_cpu"))


@op(methods=())
def i1e(input):
    """exp(-|x|) i1(x), differentiable."""
    return I1e.apply(_float_in(input, cname="i1e_cpu"))


# -- without a derivative in PyTorch ---------------------------------------------------------------------------------

def _no_grad_unary(name, kernel, doc):
    def fn(input):
        x = _float_in(input, name)
        return Tensor._wrap(kernel(x._data))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + " PyTorch defines no derivative: the result does not require grad."
    return op(methods=())(fn)


modified_bessel_i0 = _no_grad_unary("modified_bessel_i0", _i0_np, "I0, the modified Bessel function of order 0.")
modified_bessel_i1 = _no_grad_unary("modified_bessel_i1", _i1_np, "I1, the modified Bessel function of order 1.")
modified_bessel_k0 = _no_grad_unary("modified_bessel_k0", _via64(lambda x: B.k_plain(0, x)),
                                    "K0, the modified Bessel function of the second kind of order 0.")
modified_bessel_k1 = _no_grad_unary("modified_bessel_k1", _via64(lambda x: B.k_plain(1, x)),
                                    "K1, the modified Bessel function of the second kind of order 1.")
scaled_modified_bessel_k0 = _no_grad_unary("scaled_modified_bessel_k0", _via64(lambda x: B.k_scaled(0, x)),
                                           "exp(x) K0(x).")
scaled_modified_bessel_k1 = _no_grad_unary("scaled_modified_bessel_k1", _via64(lambda x: B.k_scaled(1, x)),
                                           "exp(x) K1(x).")
bessel_j0 = _no_grad_unary("bessel_j0", _via64(lambda x: B.j(0, x)), "J0, the Bessel function of the first kind of order 0.")
bessel_j1 = _no_grad_unary("bessel_j1", _via64(lambda x: B.j(1, x)), "J1, the Bessel function of the first kind of order 1.")
bessel_y0 = _no_grad_unary("bessel_y0", _via64(lambda x: B.y(0, x)), "Y0, the Bessel function of the second kind of order 0.")
bessel_y1 = _no_grad_unary("bessel_y1", _via64(lambda x: B.y(1, x)), "Y1, the Bessel function of the second kind of order 1.")
spherical_bessel_j0 = _no_grad_unary("spherical_bessel_j0", _via64(B.spherical_j0), "sin(x) / x, the spherical Bessel j0.")
airy_ai = _no_grad_unary("airy_ai", _via64(B.airy_ai), "Ai, the Airy function of the first kind.")

