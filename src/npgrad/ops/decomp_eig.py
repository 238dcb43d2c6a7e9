"""The general (non-Hermitian) eigendecomposition, ``torch.linalg.eig``/``eigvals``: complex eigenvalues and
eigenvectors even for a real matrix, as PyTorch returns them (LAPACK geev's vectors: unit norm, phase as
LAPACK leaves it), with PyTorch's gradient and its refusal of a loss that depends on the vectors' phases."""
import numpy as np

from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from .decomp import _cj, _col, _diag_embed, _gauge_check, _mH, _real, _row, _solve, check_square

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def _eig_arrays(a):
    w, v = np.linalg.eig(a)  # real input: NumPy returns real arrays when every eigenvalue is real
    ct = _COMPLEX_OF[a.dtype]
    return w.astype(ct, copy=False), v.astype(ct, copy=False)


class Eig(Op):
    __slots__ = ()
    node_name = "LinalgEigBackward0"
    _complex_native = True  # real input, complex outputs: the gradient is written in PyTorch's convention

    @staticmethod
    def forward(ctx, a):
        w, v = _eig_arrays(a)
        ctx.real_input = a.dtype.kind != "c"
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gl, gv):
        lam, v = ctx.saved_tensors
        vh = _mH(v)
        if gv is None:
            inner = _diag_embed(gl)
        else:
            # PyTorch's linalg_eig_backward: gA = V^-H (diag(gL) + P(V^H gV) / conj(E)) V^H, P projecting onto the
            # tangent space of unit-norm columns, E_ij = lambda_j - lambda_i.
            w = vh @ gv
            rediag = np.diagonal(P.data_of(w), 0, -2, -1)
            _gauge_check(rediag.imag, "linalg_eig_backward")
            re = _real(w.diagonal(0, -2, -1) if isinstance(w, Tensor) else np.diagonal(w, 0, -2, -1))
            w = w - vh @ (v * _row(re))
            n = lam.shape[-1]
            lc = _cj(lam)
            e = _row(lc) - _col(lc) + np.eye(n)
            inner = w / e
            if gl is not None:
                inner = inner * (1 - np.eye(n)) + _diag_embed(gl)
        ga = _solve(vh, inner @ vh)
        return _real(ga) if ctx.real_input else ga


def _check(A, name):
    kind = A._data.dtype.kind
    if kind not in "fc":  # PyTorch fails making the complex result type first
        from ..dtypes import scalar_name
        raise RuntimeError(f"Unknown Complex ScalarType for {scalar_name(A._data.dtype)}")
    check_square(name, A)
    if A._data.dtype == np.float16:
        raise NotImplementedError('"linalg_eig_out_cpu" not implemented for \'Half\'')


def eig(A):
    _check(A, "linalg.eig")
    return Eig.apply(A)


def eigvals(A):
    _check(A, "linalg.eigvals")
    from .decomp import _grad_enabled
    if A._requires_grad and _grad_enabled():
        return Eig.apply(A)[0]  # the gradient needs the eigenvectors, as in PyTorch
    w = np.linalg.eigvals(A._data)
    return Tensor._wrap(w.astype(_COMPLEX_OF[A._data.dtype], copy=False))
