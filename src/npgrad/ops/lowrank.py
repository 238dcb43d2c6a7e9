"""Partial spectral decompositions: torch.svd_lowrank, torch.pca_lowrank and torch.lobpcg.

svd_lowrank is the randomized SVD of Halko, Martinsson and Tropp (2009, algorithm 5.1): an orthonormal basis Q of
the range of A from A times a Gaussian matrix, sharpened by ``niter`` power iterations (re-orthonormalized by QR
each time), then the exact SVD of the small matrix Q^T A. It draws from npgrad's generator, so its values are
PyTorch's only up to that draw: for a matrix of rank <= q the result is exact, and U S V^T reproduces A.

lobpcg returns the k extreme eigenpairs of a symmetric A (or of the pencil A x = lambda B x, B positive definite)
as PyTorch's does, but computes them with a full symmetric eigensolver instead of iterating: the eigenvalues equal
PyTorch's converged ones, eigenvectors agree up to sign (and rotation within a repeated eigenvalue). The iteration
controls (X's values, iK, niter, tol, method, tracker, ortho_*) therefore change nothing here; their shapes are
checked as PyTorch checks them.

All three are compositions of differentiable operators (matmul, qr, svd, eigh, cholesky, solves).
"""
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._registry import op


def _floating(A):
    if A._data.dtype.kind == "f":
        return A
    return A._cast(_dt.get_default_dtype())


def _gaussian(shape, dtype):
    from ..random import rng
    return Tensor._wrap(rng().standard_normal(shape).astype(dtype))


def _range_basis(A, q, niter, M):
    """Q with orthonormal columns spanning (approximately) the range of A - M."""
    from .decomp import qr_op

    def prod(x):
        return A @ x if M is None else A @ x - M @ x

    def prod_t(x):
        return A.mT @ x if M is None else A.mT @ x - M.mT @ x
    r = _gaussian((A._data.shape[-1], q), A._data.dtype)
    basis = qr_op(prod(r), "reduced").Q
    for _ in range(niter):
        basis = qr_op(prod_t(basis), "reduced").Q
        basis = qr_op(prod(basis), "reduced").Q
    return basis


def _svd_lowrank(A, q, niter, M):
    from .decomp import svd_op
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    A = _floating(A)
    m, n = A._data.shape[-2:]
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))
    if A._data.size == 0 and M is None:  # nothing to sample: the exact (empty) SVD
        u, s, vh = svd_op(A, False)
        return u, s, vh.mT
    wide = m < n
    if wide:  # work on the tall A^T
        A = A.mT
        M = None if M is None else M.mT
    basis = _range_basis(A, q, niter, M)
    small = basis.mT @ A if M is None else basis.mT @ A - basis.mT @ M
    u, s, vh = svd_op(small, False)
    u, v = basis @ u, vh.mT
    return (v, s, u) if wide else (u, s, v)


@op(methods=())
def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A ~ U diag(S) V^T (of A - M when M is given), q singular triplets."""
    return _svd_lowrank(A, q, niter, M)


@op(methods=())
def pca_lowrank(A, q=None, center=True, niter=2):
    m, n = A._data.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(-2, keepdim=True), q, niter, None)


@op(methods=())
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """(E, X): the k largest (smallest with largest=False) eigenvalues of A x = E B x and their B-orthonormal
    eigenvectors, A (and B) symmetric, batched over leading dims."""
    if A._data.shape[-2] != A._data.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and B._data.shape != A._data.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    m = A._data.shape[-1]
    k = (1 if X is None else X._data.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X._data.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    if X is not None and tuple(X._data.shape[-2:]) != (m, n):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    from .decomp import cholesky_op, eigh_op
    from .decomp_lu import trisolve
    A = _floating(A)
    sym = (A + A.mT) / 2  # PyTorch symmetrizes too, so that the gradient is symmetric
    if B is None:
        values, vectors = eigh_op(sym)
    else:
        low = cholesky_op((B + B.mT) / 2, False, "linalg.cholesky")
        c = trisolve(low, trisolve(low, sym, False).mT, False).mT  # L^-1 A L^-T, symmetric
        values, y = eigh_op((c + c.mT) / 2)
        vectors = trisolve(low.mT, y, True)                   # L^-T Y: B-orthonormal
    if largest is None or largest:  # eigh sorts ascending
        values, vectors = values.flip(-1), vectors.flip(-1)
    return values[..., :k], vectors[..., :, :k]
