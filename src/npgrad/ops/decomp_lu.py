"""LU with partial pivoting and what is built on it: torch.linalg.lu_factor / lu_factor_ex / lu / lu_solve, and
the torch.* spellings torch.lu (deprecated), lu_solve, lu_unpack and triangular_solve.

The factorization is LAPACK's getrf, done here row by row over the whole batch: ``LU`` packs the unit lower
factor L (below the diagonal) and U (on and above it); ``pivots`` are LAPACK's 1-based int32 row swaps (row
i was swapped with row pivots[i] - 1, in order), so A = P L U. Its gradient is PyTorch's (linalg_lu_backward,
the square, wide and tall cases) written with ``_poly`` operations, so it differentiates again; lu_solve and
lu_unpack are compositions of differentiable operators (tril/triu, solves, matmul).
"""
import warnings

import numpy as np

from .. import dtypes as _dt
from .. import return_types as _rt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._registry import op
from .decomp import _mT, _solve, _solve_right, _tril, check_square


def _triu(x, k=0):
    return x.triu(k) if isinstance(x, Tensor) else np.triu(x, k)


def _const_like(arr, like):
    return Tensor._wrap(arr) if isinstance(like, Tensor) else arr


# -- the factorization (arrays) -----------------------------------------------------------------------------------------

def getrf(a):
    """(LU, pivots int32, info int32) of a batch (..., m, n), as LAPACK's getrf: info is the 1-based index of
    the first exactly zero pivot (0 when there is none)."""
    a = np.asarray(a)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    nb = int(np.prod(batch))
    lu = a.reshape((nb, m, n)).copy()
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        top = lu[rows, j].copy()
        lu[rows, j] = lu[rows, p]
        lu[rows, p] = top
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        if j + 1 < m:
            col = lu[:, j + 1:, j] / np.where(zero, 1, pivot)[:, None]  # a zero pivot's column is all zero
            lu[:, j + 1:, j] = col
            lu[:, j + 1:, j + 1:] -= col[:, :, None] * lu[:, j, None, j + 1:]
    return lu.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def permutation(pivots, m, dtype):
    """The matrices P (..., m, m) of A = P L U from LAPACK's pivots (..., k)."""
    k = np.shape(pivots)[-1]
    nb = int(np.prod(np.shape(pivots)[:-1]))
    piv = np.asarray(pivots).reshape((nb, k)) - 1
    perm = np.tile(np.arange(m), (nb, 1))
    rows = np.arange(nb)
    for i in range(k):
        p = piv[:, i]
        top = perm[rows, i].copy()
        perm[rows, i] = perm[rows, p]
        perm[rows, p] = top
    out = np.zeros((nb, m, m), dtype)
    out[rows[:, None], perm, np.arange(m)[None, :]] = 1  # P[perm[i], i] = 1: row i of LU is row perm[i] of A
    return out.reshape(np.shape(pivots)[:-1] + (m, m))


def _unpack(lu, k):
    """L (unit lower, (..., m, k)) and U ((..., k, n)) from a packed LU (arrays or Tensors)."""
    m, n = lu.shape[-2], lu.shape[-1]
    low = _tril(lu, -1)[..., :, :k] + np.eye(m, k, dtype=P.data_of(lu).dtype)
    up = _triu(lu)[..., :k, :]
    return low, up


# -- the differentiable factorization ----------------------------------------------------------------------------------

class LUFactor(Op):
    __slots__ = ()
    node_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def forward(ctx, a):
        lu, piv, info = getrf(a)
        ctx.save_for_backward(lu)
        ctx.pivots = piv
        ctx.mark_non_differentiable(piv, info)
        return lu, piv, info

    @staticmethod
    def backward(ctx, g_lu, g_piv, g_info):
        (lu,) = ctx.saved_tensors
        return lu_backward(g_lu, lu, ctx.pivots)


def lu_backward(g, lu, pivots):
    """gA from the gradient of the packed LU (PyTorch's linalg_lu_backward for A = P L U)."""
    m, n = lu.shape[-2], lu.shape[-1]
    k = min(m, n)
    low, up = _unpack(lu, k)
    perm = _const_like(permutation(pivots, m, P.data_of(lu).dtype), g)
    if m == n:
        x = _tril(_mT(low) @ _tril(g, -1), -1) + _triu(_triu(g) @ _mT(up))
        return perm @ _solve_right(_solve(_mT(low), x), _mT(up))
    if m < n:  # wide: U = [U1 | U2]
        gl, gu = _tril(g[..., :, :m], -1), _triu(g)
        x = _tril(_mT(low) @ gl - gu @ _mT(up), -1)
        x = _solve_right(x, _mT(up[..., :, :m]))
        x = P.cat([x + gu[..., :, :m], gu[..., :, m:]], -1)
        return perm @ _solve(_mT(low), x)
    gl, gu = _tril(g, -1), _triu(g[..., :n, :])  # tall: L = [L1; L2]
    x = _triu(gu @ _mT(up) - _mT(low) @ gl)
    x = _solve(_mT(low[..., :n, :]), x)
    x = P.cat([x + gl[..., :n, :], gl[..., n:, :]], -2)
    return perm @ _solve_right(x, _mT(up))


def _check_lu_input(name, A, short):
    x = A._data
    if x.ndim < 2:
        raise RuntimeError(f"torch.{short}: Expected tensor with 2 or more dimensions. Got size: {list(x.shape)} "
                           "instead")
    if x.dtype.kind != "f" or x.dtype == np.float16:
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{_dt.scalar_name(x.dtype)}\'')


def _zero_pivot_error(name, info):
    flat = info.reshape(-1)
    for b, i in enumerate(flat):
        if i > 0:
            where = f"(Batch element {b}): " if info.ndim else ""
            return RuntimeError(f"torch.{name}: {where}U[{i},{i}] is zero and using it on lu_solve would result in a "
                                "division by zero. If you still want to perform the factorization, consider calling "
                                "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return None  # (PyTorch raises a plain RuntimeError here, not a LinAlgError)


def lu_factor_ex(A, *, pivot=True, check_errors=False, name="linalg.lu_factor_ex"):
    _check_lu_input(name, A, "lu_factor")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = LUFactor.apply(A)
    if check_errors:
        err = _zero_pivot_error(name, info._data)
        if err is not None:
            raise err
    return _rt.linalg_lu_factor_ex(lu, piv, info)


def lu_factor(A, *, pivot=True):
    lu, piv, _ = lu_factor_ex(A, pivot=pivot, check_errors=True, name="linalg.lu_factor")
    return _rt.linalg_lu_factor(lu, piv)


def linalg_lu(A, *, pivot=True):
    lu, piv, _ = lu_factor_ex(A, pivot=pivot, name="linalg.lu")
    return _rt.linalg_lu(*lu_unpack(lu, piv))


@op(methods=())
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's output; an empty tensor for a part not asked for."""
    if LU_data._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data._data.shape)} instead")
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    dt = LU_data._data.dtype
    m, n = LU_data._data.shape[-2:]
    empty = Tensor._wrap(np.zeros((0,), dt))
    low = up = perm = empty
    if unpack_data:
        low, up = _unpack(LU_data, min(m, n))
    if unpack_pivots:
        batch = LU_data._data.shape[:-2]
        piv = np.broadcast_to(LU_pivots._data, batch + LU_pivots._data.shape[-1:])
        perm = Tensor._wrap(permutation(piv, m, dt))
    return _rt.lu_unpack(perm, low, up)


# -- triangular solves -------------------------------------------------------------------------------------------------

def _trisolve_np(a, b, upper, unit):
    """X with tri(A) X = B by substitution (no error for a zero on the diagonal: inf/NaN, as LAPACK's trtrs)."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], np.result_type(a, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            rest = slice(i + 1, n) if upper else slice(0, i)
            r = b[..., i, :] - (a[..., i:i + 1, rest] @ x[..., rest, :])[..., 0, :]
            x[..., i, :] = r if unit else r / a[..., i, i, None]
    return x


class TriSolve(Op):
    """X = tri(A)^-1 B, reading only the triangle ``upper`` names (its diagonal taken as 1 when ``unit``);
    A and B of the same batch shape."""

    __slots__ = ()
    node_name = "TriangularSolveBackward0"

    @staticmethod
    def forward(ctx, a, b, upper, unit):
        x = _trisolve_np(a, b, upper, unit)
        ctx.save_for_backward(a, x)
        ctx.upper, ctx.unit = upper, unit
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = trisolve(_mT(a), g, not ctx.upper, ctx.unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = -(gb @ _mT(x))
            off = 1 if ctx.unit else 0
            ga = _triu(ga, off) if ctx.upper else _tril(ga, -off)
        return ga, gb, None, None


def trisolve(a, b, upper, unit=False):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        a, b = P.as_tensor(a), P.as_tensor(b)
        batch = tuple(np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2]))
        a = a.expand(batch + a._data.shape[-2:]) if a._data.shape[:-2] != batch else a
        b = b.expand(batch + b._data.shape[-2:]) if b._data.shape[:-2] != batch else b
        return TriSolve.apply(a, b, bool(upper), bool(unit))
    return _trisolve_np(a, b, upper, unit)


# -- solving with the factorization ------------------------------------------------------------------------------------

def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (A^T X = B for adjoint; X A = B for left=False), A = P L U given as (LU, pivots)."""
    name = "linalg.lu_solve"
    check_square(f"torch.{name}", LU, "A")
    if B._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_dt.scalar_name(LU._data.dtype)} and B of type {_dt.scalar_name(B._data.dtype)} instead")
    n = LU._data.shape[-1]
    if pivots._data.shape[-1:] != (n,):
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the dimension of the matrix")
    if pivots._data.shape != LU._data.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots._data.shape)} instead")
    rows = B._data.shape[-2] if left else B._data.shape[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{B._data.shape[-2]}x{B._data.shape[-1]})")
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    perm = Tensor._wrap(permutation(pivots._data, n, LU._data.dtype))
    if adjoint:  # U^T L^T P^T X = B
        return perm @ trisolve(LU.mT, trisolve(LU.mT, B, False), True, True)
    return trisolve(LU, trisolve(LU, perm.mT @ B, False, True), True)


# -- the torch.* spellings ---------------------------------------------------------------------------------------------

@op(methods=())
def lu(input, pivot=True, get_infos=False, *, out=None):
    """torch.lu (deprecated): (LU, pivots), or return_types._lu_with_info(LU, pivots, info) with get_infos."""
    _warn_lu()
    lu_, piv, info = lu_factor_ex(input, pivot=pivot)
    return _rt._lu_with_info(lu_, piv, info) if get_infos else (lu_, piv)


@op(name="lu", public=False)
def lu_method(self, pivot=True, get_infos=False):
    """Tensor.lu: as torch.lu, but a plain tuple with get_infos (as PyTorch's)."""
    _warn_lu()
    lu_, piv, info = lu_factor_ex(self, pivot=pivot)
    return (lu_, piv, info) if get_infos else (lu_, piv)


def _warn_lu():
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                  "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                  "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                  "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=3)


@op(name="lu_solve")
def lu_solve_deprecated(input, LU_data, LU_pivots, *, out=None):
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                  "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                  "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
                  UserWarning, stacklevel=2)
    return lu_solve(LU_data, LU_pivots, input)


@op()
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(solution, cloned_coefficient) of op(A) X = b with op the transpose when asked; batch dims broadcast."""
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
                  "in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
                  "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
                  "with\nX = torch.linalg.solve_triangular(A, B).", UserWarning, stacklevel=2)
    b, a = input._data, A._data
    if b.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.ndim} "
                           "dimensions instead")
    if a.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {a.ndim} "
                           "dimensions instead")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {a.shape[-2]} by {a.shape[-1]} "
                           "matrices")
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {a.shape[-2]} by "
                           f"{a.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_dt.scalar_name(b.dtype)} "
                           f"and A of type {_dt.scalar_name(a.dtype)} instead.")
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"triangular_solve_cpu" not implemented for \'{_dt.scalar_name(a.dtype)}\'')
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    A = A.expand(batch + a.shape[-2:]) if a.shape[:-2] != batch else A
    x = trisolve(A.mT if transpose else A, input, upper != transpose, unitriangular)
    return _rt.triangular_solve(x, A.clone())
