"""``torch.linalg``: norms, inverses, solvers and decompositions under PyTorch's names and signatures.

The differentiable Ops live in ``npgrad.ops.decomp`` (decompositions) and ``npgrad.ops.reduce`` (the
vector norm); the functions here validate arguments the way torch.linalg does and compose those Ops.
Inputs may be batches of matrices (..., m, n).
"""
import numpy as np

from . import dtypes as _dt
from . import return_types as _rt
from .ops import decomp as _d
from .ops._dims import canon_dim as _canon_dim, canon_dims as _canon_dims
from .ops.decomp import LinAlgError, check_matrix as _check_matrix  # noqa: F401
from .ops.products import matmul  # noqa: F401
from .ops.movement import diagonal as _diagonal
from .tensor import Tensor

__all__ = ["LinAlgError", "vector_norm", "matrix_norm", "norm", "inv", "inv_ex", "det", "slogdet", "solve",
           "solve_ex", "solve_triangular", "cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals",
           "pinv", "matrix_rank", "lstsq", "cross", "matmul", "multi_dot", "matrix_power", "diagonal", "vecdot",
           "cond", "eig", "eigvals", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "householder_product", "matrix_exp",
           "tensorinv", "tensorsolve", "vander", "ldl_factor", "ldl_factor_ex", "ldl_solve"]


# -- norms ------------------------------------------------------------------------------------------------------------

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002 - PyTorch's names
    from .ops.reduce import Norm
    if dtype is not None:
        x = x._cast(_dt.to_dtype(dtype))
    if x._data.dtype.kind != "f":
        if x._data.dtype.kind == "c":
            return vector_norm(x.abs(), ord, dim, keepdim, out=out)  # |z|'s norm: real, differentiable via abs
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dt.scalar_name(x._data.dtype)}")
    if isinstance(ord, str):
        raise TypeError("linalg.vector_norm(): argument 'ord' must be Number, not str")
    dims = _canon_dims(dim, x._data.ndim)
    return _out(Norm.apply(x, float(ord), dims, keepdim), out)


def _matrix_dims(A, dim, name):
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = _canon_dim(dim[0], A._data.ndim), _canon_dim(dim[1], A._data.ndim)
    if d0 == d1:
        raise RuntimeError(f"{name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _keep_matrix_dims(r, d0, d1, keepdim):
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.unsqueeze(d)
    return r


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    name = "linalg.matrix_norm"
    if dtype is not None:
        A = A._cast(_dt.to_dtype(dtype))
    d0, d1 = _matrix_dims(A, tuple(dim), name)
    _d.check_float(name, A)
    if ord == "fro":
        return _out(vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord == "nuc" or ord in (2, -2):
        s = _d.svdvals_op(A.movedim((d0, d1), (-2, -1)))
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        return _out(_keep_matrix_dims(r, d0, d1, keepdim), out)
    if ord in (1, -1, float("inf"), float("-inf")):
        # 1-norms: max column sum (sum over rows d0); inf-norms: max row sum.
        summed, other = (d0, d1) if abs(ord) == 1 else (d1, d0)
        col = A.abs().sum(summed, keepdim=True)
        r = col.amax(other, keepdim=True) if ord > 0 else col.amin(other, keepdim=True)
        if not keepdim:
            r = r.reshape(tuple(s for i, s in enumerate(r.shape) if i not in (d0, d1)))
        return _out(r, out)
    raise RuntimeError(f"{name}: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if isinstance(ord, str) or A._data.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A._data.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A._data.ndim}D.")
    return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)


def cond(A, p=None):
    """Condition number: ratio of extreme singular values for p in (None, 2, -2), else norm(A) norm(A^-1)."""
    if p in (None, 2, -2):
        s = _d.svdvals_op(A)
        return s.amax(-1) / s.amin(-1) if p != -2 else s.amin(-1) / s.amax(-1)
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


# -- inverses and solvers ----------------------------------------------------------------------------------------------

def inv(A, *, out=None):
    return _out(_d.inverse(A), out)


def inv_ex(A, *, check_errors=False, out=None):
    inverse = inv(A)
    return _rt.linalg_inv_ex(inverse, _info(A))


def _info(A):
    return Tensor._wrap(np.zeros(A._data.shape[:-2], np.int32))


def det(A, *, out=None):
    return _out(_d.det(A), out)


def slogdet(A, *, out=None):
    return _rt.linalg_slogdet(*_d._slogdet("linalg.slogdet", A, _rt.linalg_slogdet))


def solve(A, B, *, left=True, out=None):
    return _out(_d.solve(A, B, left=left), out)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    return _rt.linalg_solve_ex(solve(A, B, left=left), _info(A))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solve with the triangle of A that ``upper`` names (the other one is not read, nor differentiated)."""
    name = "linalg.solve_triangular"
    _check_matrix(name, A)
    _check_matrix(name, B)
    tri = A.triu() if upper else A.tril()
    if unitriangular:
        n = A._data.shape[-1]
        eye = np.eye(n, dtype=A._data.dtype)
        tri = tri * Tensor._wrap(1 - eye) + Tensor._wrap(eye)
    try:
        if not left:
            return _out(_d.matrix_solve(tri.mT, B.mT).mT, out)
        return _out(_d.matrix_solve(tri, B), out)
    except RuntimeError as e:
        if "singular" not in str(e):
            raise
    # A zero on the diagonal: substitution gives inf/NaN where LAPACK's trtrs does, as PyTorch returns them.
    from .ops.decomp_lu import trisolve
    if not left:
        return _out(trisolve(tri.mT, B.mT, not upper, unitriangular).mT, out)
    return _out(trisolve(tri, B, upper, unitriangular), out)


def cholesky(A, *, upper=False, out=None):
    return _out(_d.cholesky_op(A, upper, "linalg.cholesky"), out)


def _partial_cholesky(a):
    """LAPACK's potrf on one matrix, as PyTorch returns it when the factorization fails: the columns before the
    failing one factored, that diagonal entry the non-positive pivot, the rest A's lower triangle; and info, the
    order of the first leading minor that is not positive-definite (0: success)."""
    L = np.tril(a).astype(a.dtype, copy=True)
    for j in range(a.shape[-1]):
        pivot = L[j, j] - L[j, :j] @ L[j, :j]
        if not pivot > 0:  # (NaN fails too)
            L[j, j] = pivot
            return L, j + 1
        L[j, j] = np.sqrt(pivot)
        L[j + 1:, j] = (L[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L, 0


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """Like cholesky, but a matrix that is not positive-definite gives a nonzero ``info`` (and LAPACK's partial
    factor, not differentiable) instead of an error, unless ``check_errors``."""
    try:
        L = cholesky(A, upper=upper)
        if np.isfinite(np.diagonal(L._data, axis1=-2, axis2=-1)).all():
            return _rt.linalg_cholesky_ex(L, _info(A))
    except RuntimeError as e:
        if check_errors or "not positive-definite" not in str(e):
            raise type(e)(str(e).replace("linalg.cholesky:", "linalg.cholesky_ex:")) from None
    a = A._data  # some pivot failed (or was NaN): LAPACK's partial factors and their info
    flat = a.reshape((-1,) + a.shape[-2:])
    parts = [_partial_cholesky(m) for m in flat]
    L = np.stack([p[0] for p in parts]).reshape(a.shape) if parts else np.empty_like(a)
    info = np.array([p[1] for p in parts], np.int32).reshape(a.shape[:-2])
    if upper:
        L = np.swapaxes(L, -1, -2).copy()
    return _rt.linalg_cholesky_ex(Tensor._wrap(L), Tensor._wrap(info))


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    return _out(_d.pinv_op(A, atol, rtol, hermitian), out)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    name = "linalg.matrix_rank"
    _check_matrix(name, A)
    a = A._data
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(a.shape[-2:]) * np.finfo(a.dtype).eps
    tol = np.maximum(0.0 if atol is None else atol, rtol * smax)
    return _out(Tensor._wrap(np.asarray(np.sum(s > tol, axis=-1), np.int64)), out)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least squares through the pseudo-inverse (differentiable in A and B). Like PyTorch's default CPU
    driver 'gelsy', residuals and singular values are only filled in for the drivers 'gelsd'/'gelss'."""
    name = "torch.linalg.lstsq"
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    _check_matrix("linalg.lstsq", A)
    vector = B._data.ndim == A._data.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    m, n = A._data.shape[-2:]
    if Bm._data.shape[-2] != m:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    rtol = rcond if rcond is not None and rcond > 0 else None
    sol = _d.pinv_op(A, rtol=rtol) @ Bm
    rank = matrix_rank(A, rtol=rtol)
    empty = Tensor._wrap(np.zeros((0,), A._data.real.dtype))  # residuals and singular values are real
    residuals = singular = empty
    if driver in ("gelsd", "gelss"):
        singular = Tensor._wrap(np.linalg.svd(A._data, compute_uv=False))
        if m > n and (rank._data == n).all():
            r = A @ sol - Bm
            residuals = ((r.abs() if r._data.dtype.kind == "c" else r) ** 2).sum(-2)
    if driver == "gels":
        rank = Tensor._wrap(np.zeros((0,), np.int64))
    return _rt.linalg_lstsq(sol.squeeze(-1) if vector else sol, residuals, rank, singular)


# -- decompositions ----------------------------------------------------------------------------------------------------

def qr(A, mode="reduced", *, out=None):
    return _d.qr_op(A, mode)


def eigh(A, UPLO="L", *, out=None):
    return _d.eigh_op(A, UPLO)


def eigvalsh(A, UPLO="L", *, out=None):
    return _d.eigh_op(A, UPLO).eigenvalues


def eig(A, *, out=None):
    from .ops.decomp_eig import eig as _eig
    res = _eig(A)
    if out is not None:
        for o, r in zip(out, res):
            o.copy_(r)
        res = tuple(out)
    return _rt.linalg_eig(*res)


def eigvals(A, *, out=None):
    from .ops.decomp_eig import eigvals as _eigvals
    return _out(_eigvals(A), out)


def svd(A, full_matrices=True, *, driver=None, out=None):
    return _d.svd_op(A, full_matrices)


def svdvals(A, *, driver=None, out=None):
    return _d.svdvals_op(A)


def lu_factor(A, *, pivot=True, out=None):
    from .ops import decomp_lu
    return decomp_lu.lu_factor(A, pivot=pivot)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    from .ops import decomp_lu
    return decomp_lu.lu_factor_ex(A, pivot=pivot, check_errors=check_errors)


def lu(A, *, pivot=True, out=None):
    from .ops import decomp_lu
    return decomp_lu.linalg_lu(A, pivot=pivot)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    from .ops import decomp_lu
    return _out(decomp_lu.lu_solve(LU, pivots, B, left=left, adjoint=adjoint), out)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    from .ops import decomp_ldl
    return decomp_ldl.ldl_factor_ex(A, hermitian=hermitian, check_errors=check_errors)


def ldl_factor(A, *, hermitian=False, out=None):
    from .ops import decomp_ldl
    return decomp_ldl.ldl_factor(A, hermitian=hermitian)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    from .ops import decomp_ldl
    return _out(decomp_ldl.ldl_solve(LD, pivots, B, hermitian=hermitian), out)


def householder_product(A, tau, *, out=None):
    from .ops import householder
    return _out(householder.householder_product(A, tau), out)


def matrix_exp(A):
    from .ops.matrix_exp import matrix_exp as _matrix_exp
    return _matrix_exp(A)


# -- tensor forms of inv / solve, Vandermonde ----------------------------------------------------------------------------

def tensorinv(A, ind=2, *, out=None):
    """The inverse of A read as a matrix (prod(shape[:ind]), prod(shape[ind:])), shaped shape[ind:] + shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A._data.shape)
    rows, cols = int(np.prod(shape[:ind])), int(np.prod(shape[ind:]))
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {cols} != {rows}")
    try:
        r = _d.inverse(A.reshape(rows, cols))
    except LinAlgError as e:  # PyTorch names the kernel "inv" here, not "linalg.inv"
        raise LinAlgError(str(e).replace("linalg.inv: ", "inv: ", 1)) from None
    return _out(r.reshape(shape[ind:] + shape[:ind]), out)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B; ``dims``: dims of A moved to the end first."""
    if dims is not None:
        nd = A._data.ndim
        dims = [_canon_dim(d, nd) for d in dims]
        A = A.permute(*[d for d in range(nd) if d not in dims], *dims)
    shape = tuple(A._data.shape)
    k = B._data.ndim
    rows, cols = B._data.size, int(np.prod(shape[k:]))
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    x = _d.solve(A.reshape(rows, cols), B.reshape(rows))
    return _out(x.reshape(shape[k:]), out)


def vander(x, N=None):
    """Columns x^0, x^1, ..., x^(N-1) along a new last dim (integers as int64), built by repeated products."""
    dt = x._data.dtype
    if dt.kind == "b" or dt == np.float16:
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{_dt.scalar_name(dt)}")
    n = x._data.shape[-1] if x._data.ndim else 1
    N = n if N is None else N
    if N <= 1 or x._data.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    if dt.kind in "iu":
        x = x._cast(_dt.int64)
    cols = [Tensor._wrap(np.ones(x._data.shape, x._data.dtype)), x]
    while len(cols) < N:
        cols.append(cols[-1] * x)
    from .ops.movement import stack
    return stack(cols, -1)


# -- products and views ------------------------------------------------------------------------------------------------

def cross(input, other, *, dim=-1, out=None):
    from .ops.products import cross as _cross
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _canon_dim(dim, input._data.ndim)
    a, b = input._data.shape[d], other._data.shape[d]
    if a != 3 or b != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} and {b}")
    return _out(_cross(input, other, dim), out)


def vecdot(x, y, *, dim=-1, out=None):
    """sum(conj(x) * y) over ``dim``: the first vector is conjugated, as in vdot."""
    dx, dy = x._data.dtype, y._data.dtype
    if dx != dy:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_dt.scalar_name(x.dtype)} and y of type {_dt.scalar_name(y.dtype)} instead")
    if dx.kind not in "fc":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{_dt.scalar_name(x.dtype)}")
    return _out(((x.conj() if dx.kind == "c" else x) * y).sum(dim), out)


def matrix_power(A, n, *, out=None):
    return _out(_d.matrix_power(A, n), out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _diagonal(A, offset, dim1, dim2)


def multi_dot(tensors, *, out=None):
    """A chain of matrix products in the cheapest order; a 1-D first (last) operand is a row (column)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    ts = list(tensors)
    first_1d, last_1d = ts[0]._data.ndim == 1, ts[-1]._data.ndim == 1
    for i, t in enumerate(ts):
        nd = t._data.ndim
        if (i == 0 or i == n - 1) and nd not in (1, 2):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {nd}D")
        if 0 < i < n - 1 and nd != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {nd}D")
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i in range(n - 1):
        if ts[i]._data.shape[1] != ts[i + 1]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                               f"{list(tensors[i + 1].shape)} cannot be multiplied")
    dims = [t._data.shape[0] for t in ts] + [ts[-1]._data.shape[1]]
    order = _chain_order(dims)
    r = _chain(ts, order, 0, n - 1)
    if first_1d:
        r = r.squeeze(0)
    if last_1d:
        r = r.squeeze(-1)
    return _out(r, out)


def _chain_order(dims):
    """Matrix-chain dynamic programme: split[i][j] is where the product of matrices i..j splits."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(ts, split, i, j):
    if i == j:
        return ts[i]
    k = split[i][j]
    return _chain(ts, split, i, k) @ _chain(ts, split, k + 1, j)


def _out(result, out):
    if out is None:
        return result
    out.copy_(result)
    return out
