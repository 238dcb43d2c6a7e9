"""The Gaussian families over vectors (MultivariateNormal, LowRankMultivariateNormal) and the matrix
parameter they share with Wishart: exactly one of covariance_matrix, precision_matrix, scale_tril is
given; the computations use its lower Cholesky factor L (Sigma = L L^T), and the other two forms are
derived from L on first use."""
import math

from . import _torch as torch
from . import constraints as C
from ._family import Family
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal", "MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)
_FORMS = ("covariance_matrix", "precision_matrix", "scale_tril")


def _given_form(covariance_matrix, precision_matrix, scale_tril, error=ValueError):
    """(name, matrix) of the one form given."""
    given = [(name, m) for name, m in zip(_FORMS, (covariance_matrix, precision_matrix, scale_tril))
             if m is not None]
    if len(given) != 1:
        raise error("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
    return given[0]


def _tril_of_precision(prec):
    # With J the reversal matrix, chol(J P J) = J U J for the upper factor U of P = U U^T, so the lower
    # factor of P^{-1} = U^{-T} U^{-1} is U^{-T}: one Cholesky and one triangular solve, no inverse formed.
    upper = torch.flip(torch.linalg.cholesky(torch.flip(prec, (-2, -1))), (-2, -1))
    eye = torch.eye(prec.shape[-1], dtype=prec.dtype)
    return torch.linalg.solve_triangular(upper.mT, eye, upper=False)


def _factor_of(name, m):
    if name == "scale_tril":
        return m
    if name == "covariance_matrix":
        return torch.linalg.cholesky(m)
    return _tril_of_precision(m)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^{-1} x for a lower-triangular L, broadcasting L's batch dims against x's."""
    n = bx.size(-1)
    batch = torch.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    z = torch.linalg.solve_triangular(bL.expand(batch + (n, n)), bx.expand(batch + (n,)).unsqueeze(-1), upper=False)
    return z.squeeze(-1).pow(2).sum(-1)


def _half_log_det(tril):
    return tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class _MatrixForms:
    """The three forms of a positive-definite matrix parameter, from ``_unbroadcasted_scale_tril`` and
    ``_matrix_shape()`` (the batch shape followed by the matrix's own two dims)."""

    def _store_form(self, name, m, batch_shape):
        setattr(self, name, m.expand(tuple(batch_shape) + (-1, -1)))

    def _carry_forms(self, new, shape):
        for name in _FORMS:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape))

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return (low @ low.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())


def _entropy(n, log_det, batch_shape):
    """The Gaussian entropy (n (1 + log 2 pi) + log det Sigma) / 2, over the batch."""
    h = 0.5 * (n * (1.0 + _LOG_2PI) + log_det)
    return h.expand(batch_shape) if len(batch_shape) else h


class MultivariateNormal(_MatrixForms, Distribution):
    arg_constraints = {"loc": C.real_vector, "covariance_matrix": C.positive_definite,
                       "precision_matrix": C.positive_definite, "scale_tril": C.lower_cholesky}
    support = C.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, m = _given_form(covariance_matrix, precision_matrix, scale_tril)
        if m.dim() < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{label} must be at least two-dimensional, with optional leading batch dimensions")
        batch = torch.broadcast_shapes(tuple(m.shape[:-2]), tuple(loc.shape[:-1]))
        self._store_form(name, m, batch)
        self.loc = loc.expand(batch + (-1,))
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        # factored after validation, so that a matrix that is not positive definite is reported as such
        self._unbroadcasted_scale_tril = _factor_of(name, m)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    def expand(self, batch_shape, _instance=None):
        def fill(new, batch_shape):
            new.loc = self.loc.expand(batch_shape + self.event_shape)
            new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
            self._carry_forms(new, batch_shape + self.event_shape + self.event_shape)
        return self._expand_frame(MultivariateNormal, batch_shape, _instance, fill)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=torch.Size()):
        z = torch.randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ z.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        low = self._unbroadcasted_scale_tril
        quad = _batch_mahalanobis(low, value - self.loc)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + quad) - _half_log_det(low)

    def entropy(self):
        return _entropy(self._event_shape[0], 2 * _half_log_det(self._unbroadcasted_scale_tril), self._batch_shape)


# LowRankMultivariateNormal: covariance W W^T + diag(D), handled through the m x m capacitance matrix
# C = I + W^T D^{-1} W (the Woodbury identity and the matrix determinant lemma), so that log_prob and
# entropy cost O(n m^2) instead of O(n^3).

def _plus_identity(k):
    return k + torch.eye(k.shape[-1], dtype=k.dtype)


def _capacitance_tril(w, d):
    return torch.linalg.cholesky(_plus_identity((w.mT / d.unsqueeze(-2)) @ w))


def _lowrank_log_det(d, cap):
    # det(W W^T + D) = det(C) det(D)
    return 2 * _half_log_det(cap) + d.log().sum(-1)


def _lowrank_mahalanobis(w, d, x, cap):
    # x^T (W W^T + D)^{-1} x = x^T D^{-1} x - |C^{-1/2} W^T D^{-1} x|^2
    projected = ((w.mT / d.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / d).sum(-1) - _batch_mahalanobis(cap, projected)


class LowRankMultivariateNormal(Family):
    _params = (("loc", 1), ("cov_factor", 2), ("cov_diag", 1))
    _carry = ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag", "_capacitance_tril")
    arg_constraints = {"loc": C.real_vector, "cov_factor": C.independent(C.real, 2),
                       "cov_diag": C.independent(C.positive, 1)}
    support = C.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(n):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(n):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {torch.Size(n)}")
        try:
            # a trailing unit dim lets the vectors broadcast against the factor's m columns
            wide = torch.broadcast_tensors(loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {torch.Size(loc.shape)}, cov_factor "
                             f"{torch.Size(cov_factor.shape)}, cov_diag {torch.Size(cov_diag.shape)}") from e
        self.loc, self.cov_factor, self.cov_diag = wide[0][..., 0], wide[1], wide[2][..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        Distribution.__init__(self, self.loc.shape[:-1], n, validate_args)

    def _full(self, m, trailing):
        return m.expand(self._batch_shape + self._event_shape * trailing)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @lazy_property
    def variance(self):
        return self._full(self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag, 1)

    @lazy_property
    def scale_tril(self):
        # W W^T + D = D^{1/2} (I + D^{-1/2} W W^T D^{-1/2}) D^{1/2}
        root = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / root
        return self._full(root * torch.linalg.cholesky(_plus_identity(scaled @ scaled.mT)), 2)

    @lazy_property
    def covariance_matrix(self):
        w = self._unbroadcasted_cov_factor
        return self._full(w @ w.mT + torch.diag_embed(self._unbroadcasted_cov_diag), 2)

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^{-1} - D^{-1} W C^{-1} W^T D^{-1}
        d = self._unbroadcasted_cov_diag
        half = torch.linalg.solve_triangular(self._capacitance_tril, self._unbroadcasted_cov_factor.mT
                                             / d.unsqueeze(-2), upper=False)
        return self._full(torch.diag_embed(d.reciprocal()) - half.mT @ half, 2)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        z_rank = torch.randn(shape[:-1] + self.cov_factor.shape[-1:], dtype=self.loc.dtype)
        z_diag = torch.randn(shape, dtype=self.loc.dtype)
        low_rank = (self._unbroadcasted_cov_factor @ z_rank.unsqueeze(-1)).squeeze(-1)
        return self.loc + low_rank + self._unbroadcasted_cov_diag.sqrt() * z_diag

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        w, d, cap = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        quad = _lowrank_mahalanobis(w, d, value - self.loc, cap)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + _lowrank_log_det(d, cap) + quad)

    def entropy(self):
        log_det = _lowrank_log_det(self._unbroadcasted_cov_diag, self._capacitance_tril)
        return _entropy(self._event_shape[0], log_det, self._batch_shape)
