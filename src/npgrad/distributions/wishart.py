"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): the distribution of sum_i x_i x_i^T for df
draws x_i ~ N(0, Sigma), extended to real df > p - 1."""
import math
import warnings

from . import _torch as torch
from . import constraints
from ._continuous import Chi2
from .exp_family import ExponentialFamily
from ._gaussian import _MatrixForms, _factor_of, _given_form
from .utils import _eps

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: the derivative of mvlgamma(x, p), sum_j digamma(x - j/2)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = torch.arange(p, dtype=x.dtype).div(2)
    return torch.digamma(x.unsqueeze(-1) - halves).sum(-1)


class Wishart(_MatrixForms, ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        name, m = _given_form(covariance_matrix, precision_matrix, scale_tril, error=AssertionError)
        if m.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, torch.Tensor):
            batch = torch.broadcast_shapes(tuple(m.shape[:-2]), tuple(df.shape))
            self.df = df.expand(batch)
        else:
            batch = torch.Size(m.shape[:-2])
            self.df = torch.tensor(df, dtype=m.dtype)
        p = m.shape[-1]
        if self.df.le(p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        self._store_form(name, m, batch)
        if self.df.lt(p).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df "
                          "< ndim.", stacklevel=2)
        super().__init__(batch, m.shape[-2:], validate_args=validate_args)
        # factored after validation, so that a matrix that is not positive definite is reported as such
        self._unbroadcasted_scale_tril = _factor_of(name, m)
        self._set_chi2()

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape

    def _set_chi2(self):
        # Bartlett: the i-th diagonal entry of the triangular factor is sqrt(chi2(df - i)).
        p = self._event_shape[-1]
        steps = torch.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - steps.expand(self._batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        def fill(new, batch_shape):
            matrices = batch_shape + self.event_shape
            new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrices)
            new.df = self.df.expand(batch_shape)
            self._carry_forms(new, matrices)
        new = self._expand_frame(Wishart, batch_shape, _instance, fill)
        new._set_chi2()
        return new

    def _df_matrix(self):
        return self.df.reshape(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        # (df - p - 1) Sigma exists only for df > p + 1; below that PyTorch answers NaN.
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = torch.where(factor <= 0, torch.full_like(factor, math.nan), factor)
        return factor.reshape(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=torch.Size()):
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=_eps(diag.dtype))
        i, j = torch.tril_indices(p, p, offset=-1)
        below = torch.randn(torch.Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,), dtype=diag.dtype)
        # A = diag(sqrt chi2) plus N(0, 1) strictly below the diagonal; L A (L A)^T ~ Wishart(df, L L^T).
        # Only the diagonal carries a gradient (to df), so the normal part is filled in a constant tensor.
        lower = torch.zeros(diag.shape + (p,), dtype=diag.dtype)
        lower[..., i, j] = below
        A = torch.diag_embed(diag) + lower
        chol = torch.matmul(self._unbroadcasted_scale_tril, A)
        return torch.matmul(chol, chol.mT)

    def rsample(self, sample_shape=torch.Size(), max_try_correction=None):
        """Bartlett-decomposition samples. A sample that comes out singular (possible for df close to p - 1)
        is drawn again, up to ``max_try_correction`` times (default 10), with a warning; one still singular
        after that is returned as it is (its log_prob is -inf)."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = torch.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = self._singular(sample)
        if singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(singular[singular].shape)
                sample[singular] = fresh
                singular[singular.clone()] = self._singular(fresh)
                if not singular.any():
                    break
        return sample

    def _singular(self, sample):
        # One flag per sample_shape index: a draw is redone for the whole batch when any member is singular.
        bad = ~self.support.check(sample)
        n = len(self._batch_shape)
        return bad.flatten(-n).any(-1) if n else bad

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        log_det_L = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = torch.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + log_det_L) - torch.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * torch.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_L) + torch.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        a = y + (p + 1) / 2
        return a * (-torch.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + torch.mvlgamma(a, p=p)
