"""Matrix functions and decompositions with their gradients: inverse, det, slogdet, solve, cholesky, qr,
eigh, svd (all batched over leading dims, as NumPy's linalg), plus the torch.* / Tensor entry points
built on them (inverse, det, logdet, slogdet, cholesky, cholesky_solve, cholesky_inverse, qr, svd,
pinverse, matrix_power). ``npgrad.linalg`` exposes them under torch.linalg's names.

Gradients are PyTorch's formulas (FunctionsManual's *_backward), written with ``_poly`` operations so the
same code gives second-order gradients. Decomposition gradients assume what PyTorch assumes: distinct
eigenvalues / singular values, full-rank QR inputs.
"""
import numpy as np

from .. import dtypes as _dt
from .. import return_types as _rt
from ..autograd.function import Op
from ..autograd.record import DUAL_HOOK
from ..tensor import Tensor
from . import _poly as P
from ._registry import op

class _LinAlgError(RuntimeError):
    """Raised when a matrix is singular / not positive-definite (``torch.linalg.LinAlgError``)."""


LinAlgError = _LinAlgError


# -- helpers that work on arrays and Tensors ---------------------------------------------------------------------------

def _mT(x):
    return P.swapaxes(x, -1, -2)


def _cj(x):
    """Complex conjugate (nothing to do for real values)."""
    if isinstance(x, Tensor):
        return x.conj_physical() if x._data.dtype.kind == "c" else x
    return np.conj(x) if x.dtype.kind == "c" else x


def _mH(x):
    """Conjugate transpose: the transpose for real values."""
    return _cj(P.swapaxes(x, -1, -2))


def _real(x):
    if isinstance(x, Tensor):
        return x.real if x._data.dtype.kind == "c" else x
    return x.real if x.dtype.kind == "c" else x


def _gauge_check(im, name, tail="depends on this quantity, so it is ill-defined."):
    """PyTorch's check that a loss does not depend on the free phases of complex singular/eigen vectors."""
    if not np.allclose(P.data_of(im), 0, rtol=1e-2, atol=1e-2):
        vectors = "singular vectors" if name == "svd_backward" else "eigenvectors"
        raise RuntimeError(f"{name}: The {vectors} in the complex case are specified up to multiplication by "
                           f"e^{{i phi}}. The specified loss function {tail}")


def _col(v):
    """(..., n) -> (..., n, 1)"""
    return P.reshape(v, tuple(v.shape) + (1,))


def _row(v):
    """(..., n) -> (..., 1, n)"""
    s = tuple(v.shape)
    return P.reshape(v, s[:-1] + (1, s[-1]))


def _diag_embed(v):
    if isinstance(v, Tensor):
        from .movement import diag_embed
        return diag_embed(v)
    v = np.asarray(v)
    return v[..., :, None] * np.eye(v.shape[-1], dtype=v.dtype)


def _tril(x, k=0):
    return x.tril(k) if isinstance(x, Tensor) else np.tril(x, k)


def _inv(a):
    return Inv.apply(a) if isinstance(a, Tensor) else np.linalg.inv(a)


def _solve(a, b):
    """a^-1 b for matrices b (..., n, k)."""
    return Solve.apply(a, b) if isinstance(a, Tensor) or isinstance(b, Tensor) else np.linalg.solve(a, b)


def _solve_right(x, r):
    """x r^-1 (solve from the right)."""
    return _mT(_solve(_mT(r), _mT(x)))


def _narrow_last(x, start, length):
    return x[..., start:start + length]


# -- checks and PyTorch's messages -------------------------------------------------------------------------------------

def check_square(name, a, arg="A"):
    x = a._data
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are {x.shape[-2]} by "
                           f"{x.shape[-1]} matrices")


def check_float(name, a, arg=""):
    if a._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dt.scalar_name(a._data.dtype)}")


def check_matrix(name, a, arg="A"):
    if a._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    check_float(name, a)


def _first_zero_pivot(a):
    """1-based position of the first zero pivot of LU with partial pivoting (LAPACK getrf), or None."""
    u = np.array(a, dtype=np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return None


def _batch_prefix(x, k):
    return f"(Batch element {k}): " if x.ndim > 2 else ""


def _singular_error(name, x):
    flat = x.reshape((-1,) + x.shape[-2:])
    for k, m in enumerate(flat):
        piv = _first_zero_pivot(m)
        if piv is not None:
            return _LinAlgError(f"{name}: {_batch_prefix(x, k)}The diagonal element {piv} is zero, the inversion could "
                                "not be completed because the input matrix is singular.")
    return _LinAlgError(f"{name}: The inversion could not be completed because the input matrix is singular.")


def _not_pd_error(name, x):
    flat = x.reshape((-1,) + x.shape[-2:])
    for k, m in enumerate(flat):
        try:
            np.linalg.cholesky(m)
            continue
        except np.linalg.LinAlgError:
            pass
        order = next(j for j in range(1, m.shape[0] + 1) if not _is_pd(m[:j, :j]))
        return _LinAlgError(f"{name}: {_batch_prefix(x, k)}The factorization could not be completed because the input "
                            f"is not positive-definite (the leading minor of order {order} is not positive-definite).")
    return _LinAlgError(f"{name}: The factorization could not be completed because the input is not "
                        "positive-definite.")


def _is_pd(m):
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


# -- inverse / det / slogdet / solve -----------------------------------------------------------------------------------

class Inv(Op):
    __slots__ = ()
    node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, a):
        try:
            out = np.linalg.inv(a)
        except np.linalg.LinAlgError:
            raise _singular_error("linalg.inv", a) from None
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (ainv,) = ctx.saved_tensors
        t = _mT(ainv)
        return -(t @ g @ t)


def _inv_checked(name, a):
    check_square(name, a)
    check_float(name, a)
    return Inv.apply(a)


@op()
def inverse(input):
    return _inv_checked("linalg.inv", input)


def _singular_cofactors(a):
    """The cofactor matrices of a stack of square arrays, from the SVD A = U S Vh: adj(A)^T = det(U) det(Vh)
    conj(U) diag(prod_{j != i} s_j) conj(Vh), defined at singular matrices too (nonzero at rank n - 1)."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    unit = np.linalg.det(u) * np.linalg.det(vh)
    return (unit[..., None, None] * (np.conj(u) * others[..., None, :].astype(a.dtype)) @ np.conj(vh)).astype(a.dtype)


def _det_grad_factor(a, det):
    """d det(A) / dA = det(A) A^-T, the cofactor matrix. Where det(A) is exactly 0 that formula has no inverse
    to use: the cofactors come from the SVD instead (not zero at rank n - 1, where PyTorch's answer depends on
    whether its LU finds an exact zero pivot on the machine). Under create_graph they are a constant there."""
    singular = P.data_of(det) == 0
    if not singular.any():
        return _col(_col(det)) * _mT(_inv(a))
    mask = singular[..., None, None]
    eye = np.eye(a.shape[-1], dtype=P.data_of(a).dtype)
    stand_in = P.where(mask, eye, a)  # an invertible stand-in where singular: its term is replaced below
    return P.where(mask, _singular_cofactors(P.data_of(a)), _col(_col(det)) * _mT(_inv(stand_in)))


class Det(Op):
    __slots__ = ()
    node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, a):
        out = np.asarray(np.linalg.det(a), a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, det = ctx.saved_tensors
        return _col(_col(g)) * _det_grad_factor(a, det)


@op()
def det(input):
    check_square("linalg.det", input)
    check_float("linalg.det", input)
    return Det.apply(input)


class Slogdet(Op):
    __slots__ = ()
    node_name = "LinalgSlogdetBackward0"
    _complex_native = True  # the complex sign is differentiable; its gradient is written out below

    @staticmethod
    def forward(ctx, a):
        sign, logabs = np.linalg.slogdet(a)
        sign, logabs = np.asarray(sign, a.dtype), np.asarray(logabs, a.real.dtype)
        ctx.save_for_backward(a, sign)
        if a.dtype.kind != "c":
            ctx.mark_non_differentiable(sign)
        return sign, logabs

    @staticmethod
    def backward(ctx, g_sign, g_logabs):
        a, sign = ctx.saved_tensors
        if P.data_of(a).dtype.kind != "c":
            if g_logabs is None:
                return None
            return _col(_col(g_logabs)) * _mT(_inv(a))
        # d sign = i Im(t) sign and d logabs = Re(t), t = tr(A^-1 dA): the gradient is conj(c) A^-H with
        # c = g_logabs + i Im(conj(g_sign) sign).
        c = 0
        if g_sign is not None:
            c = (_cj(g_sign) * sign).imag * -1j
        if g_logabs is not None:
            c = c + g_logabs
        if isinstance(c, int):
            return None
        return _col(_col(c)) * _mH(_inv(a))


def _slogdet(name, input, result_type):
    check_square(name, input)
    check_float(name, input)
    return result_type(*Slogdet.apply(input))


@op()
def slogdet(input):
    return _slogdet("linalg.slogdet", input, _rt.slogdet)


@op()
def logdet(input):
    """log det(A): NaN for a negative determinant, -inf for a singular matrix (as PyTorch)."""
    sign, logabs = _slogdet("linalg.slogdet", input, _rt.slogdet)
    if sign._data.dtype.kind == "c":  # log(det) on the principal branch: log|det| + i arg(det)
        return logabs + sign.log()
    from .pointwise import where
    return where(Tensor._wrap(sign._data < 0), float("nan"), logabs)


class Solve(Op):
    """X = A^-1 B for B of shape (..., n, k)."""

    __slots__ = ()
    node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, a, b):
        try:
            x = np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            raise _LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = _solve(_mT(a), g)
        ga = -(gb @ _mT(x)) if ctx.needs_input_grad[0] else None
        return ga, (gb if ctx.needs_input_grad[1] else None)


def solve(A, B, *, left=True):
    """torch.linalg.solve: B may be a batch of vectors (..., n) or of matrices (..., n, k)."""
    check_square("linalg.solve", A)
    check_float("linalg.solve", A)
    if B._data.dtype != A._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_dt.scalar_name(A._data.dtype)} and B of type {_dt.scalar_name(B._data.dtype)} instead")
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return solve(A.mT, B.mT).mT
    a, b = A._data, B._data
    n = a.shape[-1]
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bm = B.unsqueeze(-1) if vector else B
    if bm._data.ndim < 2 or bm._data.shape[-2] != n:
        k = bm._data.shape[-1] if bm._data.ndim >= 2 else 1
        rows = bm._data.shape[-2] if bm._data.ndim >= 2 else bm._data.shape[-1]
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and "
                           f"{rows}x{k})")
    x = matrix_solve(A, bm)
    return x.squeeze(-1) if vector else x


# -- cholesky ----------------------------------------------------------------------------------------------------------

class Cholesky(Op):
    __slots__ = ()
    node_name = "LinalgCholeskyExBackward0"
    _complex_native = True  # not holomorphic: the formula uses conjugate transposes

    @staticmethod
    def forward(ctx, a, upper, name):
        try:
            low = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise _not_pd_error(name, a) from None
        ctx.upper = upper
        out = _mH(low).copy() if upper else low
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        low, gl = (_mH(out), _mH(g)) if ctx.upper else (out, g)
        # PyTorch's cholesky_backward: gA = L^-H Phi(L^H gL) L^-1, Phi keeping the lower triangle and
        # halving the diagonal, made Hermitian.
        t = _tril(_mH(low) @ gl)
        phi = 0.5 * (t + _mH(_tril(t, -1)))
        ga = _solve(_mH(low), phi)
        return _solve_right(ga, low), None, None


def cholesky_op(A, upper, name):
    check_square(name, A)
    check_float(name, A)
    return Cholesky.apply(A, bool(upper), name)


@op()
def cholesky(input, upper=False):
    import warnings
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                  "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
                  UserWarning, stacklevel=2)
    return cholesky_op(input, upper, "cholesky")


@op()
def cholesky_solve(input, input2, upper=False):
    """Solve A X = B given A's Cholesky factor ``input2`` (lower, or upper with upper=True); B is ``input``."""
    low = input2.triu().mH if upper else input2.tril()  # as PyTorch, only the factor's triangle is read
    return matrix_solve(low.mH, matrix_solve(low, input))


def matrix_solve(A, B):
    """A^-1 B for matrices B (..., n, k), batch dims broadcast."""
    a, b = A._data, B._data
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if a.shape[:-2] != batch:
        A = A.expand(batch + a.shape[-2:])
    if b.shape[:-2] != batch:
        B = B.expand(batch + b.shape[-2:])
    return Solve.apply(A, B)


@op()
def cholesky_inverse(input, upper=False):
    check_square("cholesky_inverse", input)
    low = input
    n = low._data.shape[-1]
    eye = Tensor._wrap(np.broadcast_to(np.eye(n, dtype=low._data.dtype), low._data.shape))
    return cholesky_solve(eye, input, upper)


# -- qr ----------------------------------------------------------------------------------------------------------------

class QR(Op):
    __slots__ = ()
    node_name = "LinalgQrBackward0"
    _complex_native = True  # not holomorphic: the formula uses conjugate transposes

    @staticmethod
    def forward(ctx, a, mode):
        if mode == "r":
            r = np.linalg.qr(a, mode="r")
            ctx.mode = mode
            return np.zeros((0,), a.dtype), np.asarray(r, a.dtype)
        q, r = np.linalg.qr(a, mode=mode)
        ctx.save_for_backward(a, q, r)
        ctx.mode = mode
        return q, r

    @staticmethod
    def backward(ctx, gq, gr):
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                               "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
        a, q, r = ctx.saved_tensors
        m, n = a.shape[-2], a.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if m >= n:
            return _qr_backward_tall(gq, gr, q, r), None
        # Wide A = Q [U | V]: X = A[:, :m] = Q U (square case), V = Q^H Y with Y = A[:, m:].
        y = _narrow_last(a, m, n - m)
        gu = None if gr is None else _narrow_last(gr, 0, m)
        gv = None if gr is None else _narrow_last(gr, m, n - m)
        u = _narrow_last(r, 0, m)
        gq2 = gq if gv is None else (y @ _mH(gv) if gq is None else gq + y @ _mH(gv))
        gx = _qr_backward_tall(gq2, gu, q, u)
        gy = q @ gv if gv is not None else P.zeros_like(y)
        return P.cat([gx, gy], -1), None


def _qr_backward_tall(gq, gr, q, r):
    """m >= n: gA = (gQ + Q copyltu(M)) R^-H with M = R gR^H - gQ^H Q (copyltu mirrors the strict lower triangle,
    conjugated, and keeps the real part of the diagonal: R's diagonal is real, so Im(diag) belongs to Q)."""
    if gr is not None and gq is not None:
        mm = r @ _mH(gr) - _mH(gq) @ q
    elif gr is not None:
        mm = r @ _mH(gr)
    else:
        mm = -(_mH(gq) @ q)
    low = _tril(mm)
    n = P.data_of(mm).shape[-1]
    # tril(M, -1) + its conjugate transpose + Re(diag M): (t + t^H) with the (real) diagonal halved
    b = q @ ((low + _mH(low)) * (1 - 0.5 * np.eye(n, dtype=P.data_of(mm).real.dtype)))
    if gq is not None:
        b = b + gq
    return _mH(_solve(r, _mH(b)))  # b R^-H


def qr_op(A, mode):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           "'complete'")
    check_matrix("linalg.qr", A)
    return _rt.linalg_qr(*QR.apply(A, mode))


@op()
def qr(input, some=True):
    import warnings
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
                  "Q, R = torch.qr(A, some)\nshould be replaced with\n"
                  "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2)
    return _rt.qr(*qr_op(input, "reduced" if some else "complete"))


# -- eigh --------------------------------------------------------------------------------------------------------------

class Eigh(Op):
    __slots__ = ()
    node_name = "LinalgEighBackward0"
    _complex_native = True  # not holomorphic: the formula uses conjugate transposes

    @staticmethod
    def forward(ctx, a, uplo):
        w, v = np.linalg.eigh(a, UPLO=uplo)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gl, gv):
        lam, v = ctx.saved_tensors
        # PyTorch's linalg_eig_backward (Hermitian): gA = V (diag(gL) + skew(V^H gV) / 2E) V^H,
        # E_ij = lambda_j - lambda_i off the diagonal.
        if gv is None:
            return (v * _row(gl)) @ _mH(v), None
        w = _mH(v) @ gv
        if P.data_of(w).dtype.kind == "c":
            _gauge_check(np.diagonal(P.data_of(w), 0, -2, -1).imag, "linalg_eigh_backward")
        n = lam.shape[-1]
        e = _row(lam) - _col(lam) + np.eye(n, dtype=P.data_of(lam).dtype)
        inner = 0.5 * (w - _mH(w)) / e
        if gl is not None:
            inner = inner + _diag_embed(gl)
        return v @ inner @ _mH(v), None


def eigh_op(A, UPLO="L"):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    check_square("linalg.eigh", A)
    check_float("linalg.eigh", A)
    return _rt.linalg_eigh(*Eigh.apply(A, UPLO))


# -- svd ---------------------------------------------------------------------------------------------------------------

class SVD(Op):
    __slots__ = ()
    node_name = "LinalgSvdBackward0"
    _complex_native = True  # not holomorphic: the formula uses conjugate transposes

    @staticmethod
    def forward(ctx, a, full_matrices):
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        ctx.save_for_backward(u, s, vh)
        ctx.full = full_matrices
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        u, s, vh = ctx.saved_tensors
        k = s.shape[-1]
        if ctx.full:  # the extra columns do not depend on A in a defined way: PyTorch ignores them
            u, vh = _narrow_last(u, 0, k), _mT(_narrow_last(_mT(vh), 0, k))
            gu = None if gu is None else _narrow_last(gu, 0, k)
            gvh = None if gvh is None else _mT(_narrow_last(_mT(gvh), 0, k))
        return svd_backward(gu, gs, gvh, u, s, vh), None


def svd_backward(gu, gs, gvh, u, s, vh):
    """PyTorch's svd_backward (reduced U, S, Vh; conjugate transposes, so real and complex inputs)."""
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    if gu is None and gvh is None:
        if gs is None:
            return None
        return (u * _row(gs)) @ vh
    complex_ = P.data_of(u).dtype.kind == "c"
    s2 = s * s
    e = _row(s2) - _col(s2) + np.eye(k, dtype=P.data_of(s).dtype)  # E_jk = s_k^2 - s_j^2, 1 on the diagonal
    inner = None
    im_diag = 0
    if gu is not None:
        uhgu = _mH(u) @ gu
        inner = ((uhgu - _mH(uhgu)) / e) * _row(s)
        if complex_:
            im_diag = np.diagonal(P.data_of(uhgu), 0, -2, -1).imag
    if gvh is not None:
        vhgv = vh @ _mH(gvh)
        term = _col(s) * ((vhgv - _mH(vhgv)) / e)
        inner = term if inner is None else inner + term
        if complex_:
            im_diag = im_diag + np.diagonal(P.data_of(vhgv), 0, -2, -1).imag
    if complex_:
        # the phases of U's and V's columns are free together: the loss may depend on their difference only
        _gauge_check(im_diag, "svd_backward", "depends on this phase term, making it ill-defined.")
        if gu is not None:  # Im(diag(U^H gU)) / s: the part of dA that turns U's phases against V's
            inner = inner + _diag_embed(1j * _im_diag(uhgu) / s)
    if gs is not None:
        inner = inner + _diag_embed(gs)
    ga = u @ inner @ vh
    if m > k and gu is not None:
        gus = gu / _row(s)
        ga = ga + (gus - u @ (_mH(u) @ gus)) @ vh
    if n > k and gvh is not None:
        v = _mH(vh)
        gvs = _mH(gvh) / _row(s)
        ga = ga + u @ _mH(gvs - v @ (vh @ gvs))
    return ga


def _im_diag(x):
    if isinstance(x, Tensor):
        return x.diagonal(0, -2, -1).imag
    return np.diagonal(x, 0, -2, -1).imag


def svd_op(A, full_matrices=True):
    check_matrix("linalg.svd", A)
    return _rt.linalg_svd(*SVD.apply(A, bool(full_matrices)))


def svdvals_op(A):
    check_matrix("linalg.svdvals", A)
    # the gradient needs U and V (as in PyTorch); so does a forward-AD tangent
    if (A._requires_grad and _grad_enabled()) or (DUAL_HOOK and DUAL_HOOK[2](A)):
        return SVD.apply(A, False)[1]
    return Tensor._wrap(np.linalg.svd(A._data, compute_uv=False))


def _grad_enabled():
    from ..autograd.grad_mode import state
    return state.enabled


@op()
def svd(input, some=True, compute_uv=True):
    """torch.svd (deprecated form): returns V rather than Vh; some=False gives the full U and V."""
    if not compute_uv:
        s = svdvals_op(input)
        m, n = input._data.shape[-2:]
        z = lambda r: Tensor._wrap(np.zeros(input._data.shape[:-2] + (r, r), input._data.dtype))  # noqa: E731
        return _rt.svd(z(m), s, z(n))
    u, s, vh = svd_op(input, not some)
    return _rt.svd(u, s, vh.mH)


# -- built on the above ------------------------------------------------------------------------------------------------

def pinv_op(A, atol=None, rtol=None, hermitian=False, name="linalg.pinv"):
    """Pseudo-inverse through the SVD, dropping singular values at or below max(atol, rtol * s_max)."""
    check_matrix(name, A)
    u, s, vh = svd_op(A, False)
    sd = s._data
    smax = sd.max(axis=-1, keepdims=True) if sd.shape[-1] else np.zeros(sd.shape[:-1] + (1,), sd.dtype)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else max(A._data.shape[-2:]) * np.finfo(sd.dtype).eps
    tol = np.maximum(0.0 if atol is None else atol, rtol * smax)
    keep = sd > tol
    from .pointwise import where
    sinv = where(Tensor._wrap(keep), 1.0 / where(Tensor._wrap(keep), s, 1.0), 0.0)
    return (vh.mH * sinv.unsqueeze(-2)) @ u.mH


@op()
def pinverse(input, rcond=1e-15):
    return pinv_op(input, rtol=rcond, name="linalg.pinv")


class _Identity(Op):
    """Identity matrices shaped like the input (A^0), with the zero gradient PyTorch gives."""

    __slots__ = ()
    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, a):
        return np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()

    @staticmethod
    def backward(ctx, g):
        return P.zeros_like(g)


@op()
def matrix_power(input, n):
    check_square("linalg.matrix_power", input)
    n = int(n)
    if n == 0:
        return _Identity.apply(input)
    base = _inv_checked("linalg.inv", input) if n < 0 else input
    n = abs(n)
    result = None
    while True:  # binary powering: O(log n) products
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if not n:
            return result
        base = base @ base
