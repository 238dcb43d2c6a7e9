"""cdist: p-norm distances between every row of ``x1`` and every row of ``x2`` (batched, broadcast).

For p = 2 with more than 25 rows on either side PyTorch switches to the matrix-product form
``|a|^2 + |b|^2 - 2 a.b`` (fast, less accurate for near-equal rows); npgrad makes the same choice under the
same ``compute_mode`` so results agree. Gradients are PyTorch's subgradients: zero where a distance is zero.
"""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from . import _poly as P
from ._registry import op

_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _pairwise_diff(x1, x2):
    """(..., P, M) and (..., R, M) -> (..., P, R, M) differences (arrays or Tensors)."""
    s1, s2 = tuple(x1.shape), tuple(x2.shape)
    return P.reshape(x1, s1[:-1] + (1, s1[-1])) - P.reshape(x2, s2[:-2] + (1,) + s2[-2:])


def _norms(diff, p):
    a = np.abs(diff)
    if p == 2:
        return np.sqrt(np.sum(diff * diff, axis=-1))
    if p == 1:
        return np.sum(a, axis=-1)
    if p == np.inf:
        return np.max(a, axis=-1, initial=0)
    if p == 0:
        return np.sum(a != 0, axis=-1).astype(diff.dtype)
    return np.sum(a ** p, axis=-1) ** (1.0 / p)


def _euclid_mm(x1, x2):
    sq1 = np.sum(x1 * x1, axis=-1)[..., :, None]
    sq2 = np.sum(x2 * x2, axis=-1)[..., None, :]
    d2 = (-2 * x1) @ np.swapaxes(x2, -1, -2) + sq1 + sq2
    return np.sqrt(np.maximum(d2, 1e-30))


class Cdist(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x1, x2, p, use_mm):
        out = _euclid_mm(x1, x2) if use_mm else _norms(_pairwise_diff(x1, x2), p)
        out = np.asarray(out, x1.dtype)
        ctx.save_for_backward(x1, x2, out)
        ctx.p = p
        return out

    @staticmethod
    def backward(ctx, g):
        x1, x2, out = ctx.saved_tensors
        p = ctx.p
        need1, need2 = ctx.needs_input_grad[:2]
        if p == 0:  # piecewise constant: zero gradients (PyTorch materialises them)
            return (P.zeros_like(x1) if need1 else None), (P.zeros_like(x2) if need2 else None), None, None
        zero = P.data_of(out) == 0
        if p == 2:
            ratio = P.where(zero, 0.0, g / P.where(zero, 1.0, out))
            n1, m = x1.shape[-2], x1.shape[-1]
            if n1 * x2.shape[-2] * m > (1 << 18):
                # Large inputs: the same gradient through matrix products, without the (P, R, M) block.
                rt = P.swapaxes(ratio, -1, -2)
                g1 = x1 * P.sum(ratio, -1, keepdims=True) - P.matmul(ratio, x2) if need1 else None
                g2 = x2 * P.sum(rt, -1, keepdims=True) - P.matmul(rt, x1) if need2 else None
                return g1, g2, None, None
            gd = _pairwise_diff(x1, x2) * _last(ratio)
        else:
            diff = _pairwise_diff(x1, x2)
            dd = P.data_of(diff)
            if p == 1:
                gd = _last(g) * P.sign(diff)
            elif p == np.inf:
                hit = (np.abs(dd) == P.data_of(out)[..., None]).astype(dd.dtype)
                gd = _last(g) * P.sign(diff) * hit
            else:
                scale = P.where(zero, 0.0, g / P.where(zero, 1.0, out) ** (p - 1))
                a = P.abs(diff)
                if p < 1:  # |diff|^(p-1) is infinite at 0; PyTorch's subgradient there is 0
                    nz = dd != 0
                    a = P.where(nz, a, 1.0)
                    gd = P.where(nz, P.sign(diff) * a ** (p - 1), 0.0) * _last(scale)
                else:
                    gd = P.sign(diff) * a ** (p - 1) * _last(scale)
        return (P.sum(gd, -2) if need1 else None), (-P.sum(gd, -3) if need2 else None), None, None


def _last(t):
    return P.reshape(t, tuple(t.shape) + (1,))


@op(methods=())
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    a, b = x1._data, x2._data
    if a.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {b.ndim}D")
    for name, t in (("X1", a), ("X2", b)):
        if t.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_dt.scalar_name(t.dtype)}")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_dt.scalar_name(a.dtype)} but found {_dt.scalar_name(b.dtype)}")
    p = float(p)
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode is None:
        compute_mode = _MODES[0]
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    from .broadcast import broadcast_error
    err = broadcast_error(a.shape[:-2], b.shape[:-2])
    if err is not None:
        raise err
    use_mm = p == 2 and (compute_mode == _MODES[1] or
                         compute_mode == _MODES[0] and (a.shape[-2] > 25 or b.shape[-2] > 25))
    return Cdist.apply(x1, x2, p, use_mm)

