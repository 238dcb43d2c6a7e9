"""The matrix exponential (torch.matrix_exp / torch.linalg.matrix_exp / Tensor.matrix_exp), batched.

Forward: scaling and squaring with the degree-13 Padé approximant (Higham, "The scaling and squaring method
for the matrix exponential revisited", 2005), each matrix scaled by its own power of two so that its 1-norm
is below theta_13, then squared back. Computed in float64 and rounded to the input's dtype.

Backward (PyTorch's): for G the gradient of exp(A), gA is the upper-right block of
exp([[A^T, G], [0, A^T]]), the Fréchet derivative of exp at A^T in the direction G. It is computed with this
same operator, so it differentiates again.
"""
import numpy as np

from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._registry import op
from .decomp import _mT, check_float, check_square

# Padé [13/13] numerator coefficients b_0 .. b_13 and the 1-norm up to which it is accurate in float64.
_B13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
        10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def expm(a):
    """exp of each matrix of a batch (..., n, n), as an array of a's dtype."""
    a = np.asarray(a)
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    x = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    norm = np.abs(x).sum(axis=-2).max(axis=-1)  # the 1-norm: the largest column sum
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(norm / _THETA13))).astype(np.int64)
    s = np.where(np.isfinite(norm), s, 0)
    x = x / (2.0 ** s)[..., None, None]
    b = _B13
    eye = np.eye(n)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for step in range(int(s.max(initial=0))):  # square each matrix as often as it was halved
        r = np.where((step < s)[..., None, None], r @ r, r)
    return r.astype(a.dtype)


class MatrixExp(Op):
    __slots__ = ()
    node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return expm(a)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        n = a.shape[-1]
        at = _mT(a)
        block = P.cat([P.cat([at, g], -1), P.cat([P.zeros_like(at), at], -1)], -2)
        big = MatrixExp.apply(block) if isinstance(block, Tensor) else expm(block)
        return big[..., :n, n:]


@op()
def matrix_exp(input):
    check_square("linalg.matrix_exp", input)
    check_float("linalg.matrix_exp", input)
    return MatrixExp.apply(input)
