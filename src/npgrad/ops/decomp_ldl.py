"""LDL^T of symmetric matrices with Bunch-Kaufman pivoting: torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve.

The factorization is LAPACK's sytf2 on the lower triangle (the upper one is not read): D is block diagonal with
1x1 and 2x2 blocks, and ``pivots`` are LAPACK's 1-based int32 interchanges, negative (and repeated) for a 2x2
block. ``LD`` packs D (its diagonal and, for 2x2 blocks, the subdiagonal) and the unit lower factor below.
PyTorch defines no gradient for either function; neither does npgrad (backward raises PyTorch's error).
"""
import numpy as np

from .. import dtypes as _dt
from .. import return_types as _rt
from ..autograd.function import Op
from .decomp import check_square

_ALPHA = (1 + np.sqrt(17.0)) / 8  # Bunch-Kaufman's growth bound


def _sytf2(a):
    """(LD, pivots, info) of one symmetric matrix, from its lower triangle."""
    n = a.shape[0]
    w = np.tril(a) + np.tril(a, -1).T  # work on the full symmetric matrix; only its lower part is returned
    piv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        step, kp = 1, k
        absakk = abs(w[k, k])
        imax = k + 1 + int(np.argmax(np.abs(w[k + 1:, k]))) if k < n - 1 else k
        colmax = abs(w[imax, k]) if k < n - 1 else 0.0
        if max(absakk, colmax) == 0:
            info = info or k + 1
        elif absakk < _ALPHA * colmax:
            rowmax = max(np.abs(w[imax, k:imax]).max(), np.abs(w[imax + 1:, imax]).max(initial=0.0))
            if absakk >= _ALPHA * colmax * (colmax / rowmax):
                pass
            elif abs(w[imax, imax]) >= _ALPHA * rowmax:
                kp = imax
            else:
                kp, step = imax, 2
        kk = k + step - 1
        if kp != kk:  # symmetric interchange of kk and kp in the trailing block
            w[[kk, kp], k:] = w[[kp, kk], k:]
            w[k:, [kk, kp]] = w[k:, [kp, kk]]
        if step == 1:
            if w[k, k] != 0 and k < n - 1:
                col = w[k + 1:, k] / w[k, k]
                w[k + 1:, k + 1:] -= np.outer(col, w[k + 1:, k])
                w[k + 1:, k] = col
                w[k, k + 1:] = col
            piv[k] = kp + 1
        else:
            if k < n - 2:
                d = np.array([[w[k, k], w[k + 1, k]], [w[k + 1, k], w[k + 1, k + 1]]])
                rows = w[k + 2:, k:k + 2]
                lmat = np.linalg.solve(d, rows.T).T  # L's two columns: rows D^-1
                w[k + 2:, k + 2:] -= lmat @ rows.T
                w[k + 2:, k:k + 2] = lmat
                w[k:k + 2, k + 2:] = lmat.T
            piv[k] = piv[k + 1] = -(kp + 1)
        k += step
    return np.tril(w), piv, info


def _sytrs(ld, piv, b):
    """Solve A X = B with A's factorization by sytf2 (LAPACK's sytrs, lower)."""
    n = ld.shape[0]
    x = b.copy()
    k = 0
    while k < n:  # solve P L D y = b, one block at a time
        if piv[k] > 0:
            kp = piv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            x[k + 1:] -= np.outer(ld[k + 1:, k], x[k])
            x[k] /= ld[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            x[[k + 1, kp]] = x[[kp, k + 1]]
            x[k + 2:] -= np.outer(ld[k + 2:, k], x[k]) + np.outer(ld[k + 2:, k + 1], x[k + 1])
            d = np.array([[ld[k, k], ld[k + 1, k]], [ld[k + 1, k], ld[k + 1, k + 1]]])
            x[k:k + 2] = np.linalg.solve(d, x[k:k + 2])
            k += 2
    k = n - 1
    while k >= 0:  # then L^T P^T x = y, backwards
        if piv[k] > 0:
            x[k] -= ld[k + 1:, k] @ x[k + 1:]
            kp = piv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 1
        else:
            x[k] -= ld[k + 1:, k] @ x[k + 1:]
            x[k - 1] -= ld[k + 1:, k - 1] @ x[k + 1:]
            kp = -piv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 2
    return x


class _NoGradient(Op):
    """Forward through ``fn``; like PyTorch, the result requires grad but has no derivative."""

    __slots__ = ()
    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, fn, what, *xs):
        ctx.what = what
        outs = fn(*xs)
        ctx.mark_non_differentiable(*outs[1:])
        return outs if len(outs) > 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.what} is not implemented")


def _factor_batch(a):
    batch, n = a.shape[:-2], a.shape[-1]
    nb = int(np.prod(batch))
    flat = a.reshape((nb, n, n))
    ld, piv, info = np.zeros_like(flat), np.zeros((nb, n), np.int32), np.zeros(nb, np.int32)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(nb):
            ld[i], piv[i], info[i] = _sytf2(flat[i])
    return ld.reshape(a.shape), piv.reshape(batch + (n,)), info.reshape(batch)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    name = "torch.linalg.ldl_factor_ex"
    check_square(name, A)
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dt.scalar_name(A._data.dtype)}")
    if A._data.dtype == np.float16:
        raise NotImplementedError('"ldl_factor_kernel_cpu" not implemented for \'Half\'')
    ld, piv, info = _NoGradient.apply(_factor_batch, "linalg_ldl_factor_ex", A)
    if check_errors:
        _raise_singular("torch.linalg.ldl_factor_ex", info._data)
    return _rt.linalg_ldl_factor_ex(ld, piv, info)


def _raise_singular(name, info):
    for b, i in enumerate(info.reshape(-1)):
        if i > 0:
            where = f"(Batch element {b}): " if info.ndim else ""
            raise RuntimeError(f"{name}: {where}The factorization could not be completed because the block diagonal "
                               f"matrix D is exactly singular (D[{i},{i}] is zero).")


def ldl_factor(A, *, hermitian=False):
    ld, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_singular("torch.linalg.ldl_factor", info._data)
    return _rt.linalg_ldl_factor(ld, piv)


def ldl_solve(LD, pivots, B, *, hermitian=False):
    name = "torch.linalg.ldl_solve"
    check_square(name, LD)
    n = LD._data.shape[-1]
    if B._data.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{B._data.ndim}, "
                         f"{B._data.ndim - 1}], but got -2)")
    if B._data.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B._data.shape[-2]} by {B._data.shape[-1]}")
    if B._data.dtype != LD._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_dt.scalar_name(B._data.dtype)} and A of type {_dt.scalar_name(LD._data.dtype)} instead.")

    def solve(ld, piv, b):
        batch = np.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
        ld = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((-1, n, n))
        piv = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((-1, n))
        bb = np.broadcast_to(b, batch + b.shape[-2:])
        x = np.array(bb, dtype=ld.dtype).reshape((-1,) + b.shape[-2:]) if bb.size else np.zeros(bb.shape, ld.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(x.shape[0] if x.ndim == 3 else 0):
                x[i] = _sytrs(ld[i], piv[i], x[i])
        return (x.reshape(batch + b.shape[-2:]),)
    return _NoGradient.apply(solve, "linalg_ldl_solve", LD, pivots, B)
