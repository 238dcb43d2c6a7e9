"""Transforms between vector or matrix spaces: onto the simplex, lower-Cholesky and positive-definite
matrices, reshapes, and transforms applied piecewise along a dimension (Cat/Stack), plus the CDF transform.
Re-exported by ``transforms``."""
import math

import numpy as np

from . import _torch as torch
from . import constraints
from .transforms import Transform, _clipped_sigmoid

__all__ = ["CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform",
           "ReshapeTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform"]


def _tiny(dtype):
    return float(np.finfo(np.dtype(str(dtype).split(".")[-1])).tiny)


def _need_dims(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(Transform):
    """exp then normalise over the last dimension; not bijective (adding a constant gives the same y)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        e = (x - x.max(-1, True)[0]).exp()
        return e / e.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _need_dims(shape)
        return shape

    def inverse_shape(self, shape):
        _need_dims(shape)
        return shape


def _stick_offset(x, k):
    # log(K - i) for i = 0..K-1 centres each break at 1 / (K - i + 1), so x = 0 maps to the uniform simplex point
    return (k - torch.arange(x.shape[-1], dtype=x.dtype)).log()


class StickBreakingTransform(Transform):
    """R^K -> the K-simplex in K+1 coordinates: the i-th sigmoid breaks off a fraction of the stick left."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offset(x, x.shape[-1]))
        remaining = (1 - z).cumprod(-1)
        return torch.functional.pad(z, [0, 1], value=1) * torch.functional.pad(remaining, [1, 0], value=1)

    def _inverse(self, y):
        head = y[..., :-1]
        offset = (y.shape[-1] - 1 - torch.arange(head.shape[-1], dtype=y.dtype)).log()
        left = torch.clamp(1 - head.cumsum(-1), min=_tiny(y.dtype))
        return head.log() - left.log() + offset

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offset(x, x.shape[-1])
        # dy_i/dx_i = y_i (1 - z_i) and 1 - sigmoid(x) = exp(-x) sigmoid(x)
        return (-x + torch.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _need_dims(shape)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _need_dims(shape)
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Keep the strictly lower triangle, exponentiate the diagonal."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + torch.diag_embed(x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return y.tril(-1) + torch.diag_embed(y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(Transform):
    """L L^T of the LowerCholeskyTransform of x."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """x -> F(x), the CDF of ``distribution``; its log-det is the log density."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)


class ReshapeTransform(Transform):
    """Reshape the rightmost dims from ``in_shape`` to ``out_shape`` (same number of elements)."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torch.Size(in_shape)
        self.out_shape = torch.Size(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch = x.shape[:x.dim() - len(self.in_shape)]
        return x.reshape(tuple(batch) + tuple(self.out_shape))

    def _inverse(self, y):
        batch = y.shape[:y.dim() - len(self.out_shape)]
        return y.reshape(tuple(batch) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)

    @staticmethod
    def _swap(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(old)}")
        return tuple(shape[:cut]) + tuple(new)


class CatTransform(Transform):
    """Apply ``tseq[i]`` to the i-th block (of ``lengths[i]``) of dimension ``dim``, as torch.cat does."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, x, fn):
        if not -x.dim() <= self.dim < x.dim():
            raise AssertionError
        if x.size(self.dim) != self.length:
            raise AssertionError
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            out.append(fn(trans, x.narrow(self.dim, start, length)))
            start += length
        return out

    def _call(self, x):
        return torch.cat(self._pieces(x, lambda t, v: t(v)), dim=self.dim)

    def _inverse(self, y):
        return torch.cat(self._pieces(y, lambda t, v: t.inv(v)), dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        if not -x.dim() <= self.dim < x.dim() or x.size(self.dim) != self.length:
            raise AssertionError
        parts, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            xs, ys = x.narrow(self.dim, start, length), y.narrow(self.dim, start, length)
            ladj = trans.log_abs_det_jacobian(xs, ys)
            if trans.event_dim < self.event_dim:
                from .utils import _sum_rightmost
                ladj = _sum_rightmost(ladj, self.event_dim - trans.event_dim)
            parts.append(ladj)
            start += length
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        return torch.cat(parts, dim=dim) if dim < 0 else sum(parts)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply ``tseq[i]`` to the i-th slice of dimension ``dim``, as torch.stack does."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        if not -x.dim() <= self.dim < x.dim() or x.size(self.dim) != len(self.transforms):
            raise AssertionError
        return torch.stack([t(v) for v, t in zip(self._slices(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        if not -y.dim() <= self.dim < y.dim() or y.size(self.dim) != len(self.transforms):
            raise AssertionError
        return torch.stack([t.inv(v) for v, t in zip(self._slices(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        if not -x.dim() <= self.dim < x.dim() or x.size(self.dim) != len(self.transforms):
            raise AssertionError
        parts = [t.log_abs_det_jacobian(xs, ys)
                 for xs, ys, t in zip(self._slices(x), self._slices(y), self.transforms)]
        return torch.stack(parts, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CorrCholeskyTransform(Transform):
    """R^(D(D-1)/2) -> Cholesky factors of D x D correlation matrices: tanh to (-1, 1), then each row is
    stick-broken so that its squared entries sum to 1 (a unit row and a positive diagonal)."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        from .utils import _eps, vec_to_tril_matrix
        eps = _eps(x.dtype)
        r = vec_to_tril_matrix(torch.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        remaining = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype)
        return r * torch.functional.pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        from .utils import tril_matrix_to_vec
        left = 1 - torch.cumsum(y * y, dim=-1)
        left_shifted = torch.functional.pad(left[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left_shifted, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        from .utils import tril_matrix_to_vec
        left = 1 - (y * y).cumsum(dim=-1)
        stick_logdet = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + torch.functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_logdet + tanh_logdet

    def forward_shape(self, shape):
        _need_dims(shape)
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return shape[:-2] + (D * (D - 1) // 2,)
