"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations.

Each registers a small Module through parametrize.register_parametrization, so the state-dict keys are
PyTorch's: ``parametrizations.weight.original0/1`` (weight norm's g and v),
``parametrizations.weight.original`` plus ``parametrizations.weight.0._u/_v`` (spectral norm), and
``parametrizations.weight.original`` plus ``parametrizations.weight.0.base`` (orthogonal).
"""
import math

import numpy as np

from ... import factories as _f
from ... import linalg as _linalg
from ...ops.movement import cat as _cat
from ...autograd import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from ._norm_helpers import as_matrix as _as_matrix, is_conv_transpose as _is_conv_transpose
from ._norm_helpers import norm_except_dim as _norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# -- weight norm ---------------------------------------------------------------------------------------------
class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """``weight = g * v / ||v||``: ``original0`` holds g (one value per slice along ``dim``), ``original1`` v.
    ``dim=None`` normalises over the whole tensor."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def from_hook_keys(mod, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                       error_msgs):
        # Checkpoints written with the hook-based nn.utils.weight_norm name the tensors <name>_g / <name>_v.
        g, v = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g in state_dict and v in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v)

    module.register_load_state_dict_pre_hook(from_hook_keys)
    return module


# -- spectral norm -------------------------------------------------------------------------------------------
class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = _as_matrix(weight, self.dim)
            h, w = mat.shape
            with no_grad():
                u = F.normalize(_f.randn(h, dtype=weight.dtype), dim=0, eps=eps)
                v = F.normalize(_f.randn(w, dtype=weight.dtype), dim=0, eps=eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(mat, 15)  # a good estimate from the start, as PyTorch does

    def _power_method(self, mat, n):
        # u and v are updated in place: the buffers stay the same objects (the state dict holds them).
        with no_grad():
            for _ in range(n):
                self._u.copy_(F.normalize(mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = _as_matrix(weight, self.dim)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / u.vdot(mat.mv(v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """``weight / sigma`` with sigma the largest singular value, estimated by power iteration (one step per
    training-mode read; none in eval mode). ``dim`` defaults to 1 for ConvTranspose layers, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# -- orthogonal ----------------------------------------------------------------------------------------------
_MAPS = ("matrix_exp", "cayley", "householder")


def _eye_like(n, x):
    return _f.eye(n, dtype=x.dtype)


def _matrix_exp(a):
    """exp(A) by scaling and squaring a Taylor polynomial, written with matmuls so autograd differentiates it.
    A is skew-symmetric here (orthogonal's maps), so its norm bounds the terms well."""
    with no_grad():
        norm = float(a.detach().abs().sum(-2).amax()) if a.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    a = a / (2.0 ** s)
    eye = _eye_like(a.shape[-1], a)
    term, out = eye, eye
    for k in range(1, 19):  # ||A|| <= 1/2: the 18th term is below float64's epsilon
        term = term @ a / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def _householder_product(a, tau):
    """Q = H_0 H_1 ... H_{k-1} (its first n x k block), H_i = I - tau_i v_i v_i^H with v_i = [0, .., 1, a[i+1:, i]]."""
    n, k = a.shape[-2], a.shape[-1]
    eye = _eye_like(n, a)
    q = eye.expand(*a.shape[:-2], n, n)
    below = a.tril(-1)
    for i in range(k):
        v = below[..., :, i] + eye[:, i]
        h = eye - tau[..., i, None, None] * (v.unsqueeze(-1) * v.unsqueeze(-2))
        q = q @ h
    return q[..., :k]


def _reflectors(q, transpose):
    """What householder's map needs to give back ``q`` (its columns orthonormal): LAPACK geqrf's reflectors
    below the diagonal, and on it the signs that say which reflectors to flip (PyTorch's right_inverse)."""
    mats = q._data.reshape((-1,) + tuple(q.shape[-2:]))
    outs = []
    for m in mats:
        h, tau = np.linalg.qr(m, mode="raw")
        a = h.T.copy()
        d = np.sign(np.diagonal(a)).copy()
        d[tau == 0.0] *= -1
        np.fill_diagonal(a, d)
        outs.append(a)
    a = Tensor._wrap(np.stack(outs).reshape(q.shape).astype(q._data.dtype, copy=False))
    return a.mT if transpose else a


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * float(np.finfo(q._data.dtype).eps)
    return bool((q.mH @ q).allclose(_eye_like(k, q), atol=eps))


def _make_orthogonal(a):
    # The Q of a QR decomposition whose R has a positive diagonal: unique, so the same as PyTorch's geqrf-based one.
    q, r = _linalg.qr(a)
    sign = r.diagonal(dim1=-2, dim2=-1).sign()
    return q * sign.unsqueeze(-2)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = _cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = _matrix_exp(A)
            else:
                eye = _eye_like(n, A)
                Q = _linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                return _reflectors(Q, transpose)
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = _f.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(_cat([Q, N], dim=-1))
            self.base = Q
            neg_id = _f.zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Keep ``module.<name>`` orthogonal (orthonormal columns or rows): ``weight`` reads as ``base @ map(X)``.
    The default map is the matrix exponential for square (or complex) weights, Householder products else."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
