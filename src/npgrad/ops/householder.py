"""QR in LAPACK's compact form and products with its Householder reflectors: torch.geqrf, orgqr /
torch.linalg.householder_product, ormqr (and their Tensor methods), batched over leading dims.

geqrf is LAPACK's geqr2: column j holds the reflector H_j = I - tau_j v_j v_j^T below the diagonal (v_j's leading 1
is implicit) and R on and above it. Like PyTorch, geqrf has no gradient. householder_product and ormqr apply the
reflectors one at a time with differentiable operators, so their gradients (and second-order gradients) follow.
"""
import numpy as np

from .. import dtypes as _dt
from .. import return_types as _rt
from ..autograd.function import Op
from ._registry import op


def _geqr2(a):
    a = np.array(a, copy=True)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    nb = int(np.prod(batch))
    a = a.reshape((nb, m, n))
    k = min(m, n)
    tau = np.zeros((nb, k), a.dtype)
    for j in range(k):
        alpha = a[:, j, j].copy()
        xnorm = np.sqrt((a[:, j + 1:, j] ** 2).sum(-1))
        beta = -np.copysign(np.hypot(alpha, xnorm), alpha)
        live = xnorm != 0  # a zero column below the diagonal: H_j = I (tau 0), as LAPACK's larfg
        safe_beta = np.where(live, beta, 1)
        t = np.where(live, (beta - alpha) / safe_beta, 0)
        scale = np.where(live, 1 / np.where(live, alpha - beta, 1), 0)
        a[:, j + 1:, j] *= scale[:, None]
        a[:, j, j] = np.where(live, beta, alpha)
        tau[:, j] = t
        if j + 1 < n:
            v = np.concatenate([np.ones((nb, 1), a.dtype), a[:, j + 1:, j]], axis=1)  # (nb, m - j)
            w = np.einsum("bi,bij->bj", v, a[:, j:, j + 1:])
            a[:, j:, j + 1:] -= (t[:, None] * v)[:, :, None] * w[:, None, :]
    return a.reshape(batch + (m, n)), tau.reshape(batch + (k,))


class Geqrf(Op):
    __slots__ = ()
    node_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx, a):
        return _geqr2(a)

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


@op()
def geqrf(input, *, out=None):
    x = input._data
    if x.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if x.dtype.kind != "f" or x.dtype == np.float16:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{_dt.scalar_name(x.dtype)}\'')
    return _rt.geqrf(*Geqrf.apply(input))


def _reflectors(input, k):
    """The Householder vectors v_0 .. v_{k-1} as the columns of (..., m, k): unit diagonal, input below it."""
    m = input._data.shape[-2]
    return input.tril(-1)[..., :, :k] + np.eye(m, k, dtype=input._data.dtype)


def _check_tau(name, input, tau, kernel):
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau._data.shape[:-1] != input._data.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau._data.shape[:-1])}")
    if tau._data.dtype != input._data.dtype:
        if kernel == "ormqr":
            raise RuntimeError(f"{name}: Expected input and tau to have the same dtype, but input has dtype"
                               f"{_dt.scalar_name(input._data.dtype)} and tau has dtype "
                               f"{_dt.scalar_name(tau._data.dtype)}")
        raise RuntimeError(f"{name}: tau dtype {_dt.scalar_name(tau._data.dtype)} does not match input dtype "
                           f"{_dt.scalar_name(input._data.dtype)}")
    dt = input._data.dtype
    if dt.kind != "f" or dt == np.float16:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_dt.scalar_name(dt)}\'')


def householder_product(input, tau):
    """The first n columns of H_0 H_1 ... H_{k-1} (input (..., m, n), tau (..., k), m >= n >= k)."""
    name = "torch.linalg.householder_product"
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = input._data.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau._data.shape[-1] > n:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    _check_tau(name, input, tau, "orgqr")
    k = tau._data.shape[-1]
    if k == 0 or input._data.size == 0:
        return _NoReflectors.apply(input, tau)
    eye = input.new_tensor(np.broadcast_to(np.eye(m, n, dtype=input._data.dtype), input._data.shape[:-2] + (m, n)))
    return _apply_reflectors(input, tau, k, eye, left=True, transpose=False)


class _NoReflectors(Op):
    """The product of no reflectors (or of an empty batch): the identity, which (as in PyTorch) requires grad
    and passes none back."""

    __slots__ = ()
    node_name = "LinalgHouseholderProductBackward0"

    @staticmethod
    def forward(ctx, a, tau):
        return np.broadcast_to(np.eye(*a.shape[-2:], dtype=a.dtype), a.shape).copy()

    @staticmethod
    def backward(ctx, g):
        return None, None


def _apply_reflectors(input, tau, k, c, left, transpose):
    """op(Q) c (left) or c op(Q) (right), Q = H_0 ... H_{k-1}, one rank-1 update per reflector."""
    v = _reflectors(input, k)
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    for i in order:
        vi = v[..., :, i:i + 1]                      # (..., m, 1)
        ti = tau[..., i:i + 1].unsqueeze(-1)         # (..., 1, 1)
        if left:
            c = c - (ti * vi) @ (vi.mT @ c)
        else:
            c = c - ((c @ vi) * ti) @ vi.mT
    return c


@op()
def orgqr(input, tau):
    return householder_product(input, tau)


@op()
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    name = "torch.ormqr"
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other._data.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other._data.shape[side] != input._data.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau._data.shape[-1] != min(other._data.shape[side], input._data.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    _check_tau(name, input, tau, "ormqr")
    if other._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input has dtype"
                           f"{_dt.scalar_name(input._data.dtype)} and other has dtype "
                           f"{_dt.scalar_name(other._data.dtype)}")
    return _apply_reflectors(input, tau, tau._data.shape[-1], other, left, transpose)
