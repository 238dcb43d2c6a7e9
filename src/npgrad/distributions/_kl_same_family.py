"""kl_divergence between two members of one family: a table of closed forms (``_CLOSED``), plus the
Bregman divergence any two members of one exponential family have, and the structural pairs
(Independent, TransformedDistribution)."""
import math

from . import _torch as torch
from ..autograd import enable_grad, is_grad_enabled
from ..autograd import grad as _grad
from ._continuous import Beta, Cauchy, Dirichlet, Exponential, Gamma, Laplace, Normal, Poisson, Uniform
from ._discrete import Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical
from ._pushforward import Gumbel, HalfNormal, Pareto
from .exp_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from ._gaussian import LowRankMultivariateNormal
from ._gaussian import MultivariateNormal, _batch_mahalanobis
from .transformed_distribution import TransformedDistribution
from .utils import _sum_rightmost, euler_constant

_softplus = torch.functional.softplus


def _set_where(t, mask, value):
    t[mask] = value
    return t


def _bernoulli(p, q):
    # sum over the two outcomes of P(x) (log P(x) - log Q(x)), with 0 log 0 = 0 and P > 0 = Q giving inf
    heads = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    heads = _set_where(_set_where(heads, q.probs == 0, math.inf), p.probs == 0, 0)
    tails = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    tails = _set_where(_set_where(tails, q.probs == 1, math.inf), p.probs == 1, 0)
    return heads + tails


def _binomial(p, q):
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    n = p.total_count
    kl = n * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    wider = n > q.total_count
    kl[wider] = torch.full_like(kl[wider], math.inf)
    return kl


def _categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms[(q.probs == 0).expand_as(terms)] = math.inf
    terms[(p.probs == 0).expand_as(terms)] = 0
    return terms.sum(-1)


def _exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


def _gumbel(p, q):
    a, b, c = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    return -a.log() - b + c + a * euler_constant + torch.exp(b + (1 + a).lgamma() - c) - (1 + euler_constant)


def _laplace(p, q):
    ratio, gap = p.scale / q.scale, (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * torch.exp(-gap / p.scale) - 1


def _normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


def _cauchy(p, q):
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


def _poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


def _uniform(p, q):
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    kl[(q.low > p.low) | (q.high < p.high)] = math.inf
    return kl


def _gamma(p, q):
    a, b, c, d = p.concentration, p.rate, q.concentration, q.rate
    return c * torch.log(b / d) + torch.lgamma(c) - torch.lgamma(a) + (a - c) * torch.digamma(a) + (d - b) * (a / b)


def _beta(p, q):
    a, b, c, d = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    sp, sq = a + b, c + d
    log_ratio = (c.lgamma() + d.lgamma() + sp.lgamma()) - (a.lgamma() + b.lgamma() + sq.lgamma())
    return log_ratio + (a - c) * torch.digamma(a) + (b - d) * torch.digamma(b) + (sq - sp) * torch.digamma(sp)


def _dirichlet(p, q):
    a, b = p.concentration, q.concentration
    sa, sb = a.sum(-1), b.sum(-1)
    log_ratio = sa.lgamma() - sb.lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
    return log_ratio + ((a - b) * (a.digamma() - sa.digamma().unsqueeze(-1))).sum(-1)


def _mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    log_det_ratio = lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - lp.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    square = torch.broadcast_shapes(tuple(lq.shape[:-2]), tuple(lp.shape[:-2])) + (n, n)
    # tr(Sq^{-1} Sp) = ||Lq^{-1} Lp||_F^2
    trace = torch.linalg.solve_triangular(lq.expand(square), lp.expand(square), upper=False).pow(2).sum((-2, -1))
    return log_det_ratio + 0.5 * (trace + _batch_mahalanobis(lq, q.loc - p.loc) - n)


def _geometric(p, q):
    # log q(k) = k log(1 - r) + log r, and E_p[k] = (1 - p) / p
    return -p.entropy() - (1 - p.probs) / p.probs * torch.log1p(-q.probs) - q.probs.log()


def _pareto(p, q):
    kl = (p.alpha / q.alpha).log() + q.alpha * (p.scale / q.scale).log() + q.alpha / p.alpha - 1
    return torch.where(p.scale < q.scale, torch.full_like(kl, math.inf), kl)


def _independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


def _transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


_CLOSED = {
    Bernoulli: _bernoulli, Binomial: _binomial, Categorical: _categorical,
    OneHotCategorical: lambda p, q: _categorical(p._categorical, q._categorical),
    Exponential: _exponential, Gumbel: _gumbel, Laplace: _laplace, Normal: _normal, Cauchy: _cauchy,
    Poisson: _poisson, Uniform: _uniform, Gamma: _gamma, Beta: _beta, Dirichlet: _dirichlet,
    MultivariateNormal: _mvn, Geometric: _geometric, Pareto: _pareto,
    # folding both at 0 keeps the density ratio, so the KL is that of the unfolded normals
    HalfNormal: lambda p, q: _normal(p.base_dist, q.base_dist),
    Independent: _independent, TransformedDistribution: _transformed,
}
for _family, _fn in _CLOSED.items():
    register_kl(_family, _family)(_fn)


@register_kl(ExponentialFamily, ExponentialFamily)
def _bregman(p, q):
    # KL = F(eta_q) - F(eta_p) - <eta_q - eta_p, grad F(eta_p)>, F the log-normalizer
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    # grad F(eta_p) is taken on p's own natural parameters (not detached copies, as PyTorch takes it), so
    # the result has its true gradient with respect to p's parameters as well as q's; under no_grad the
    # inner derivative is still taken, and nothing is recorded.
    outer = is_grad_enabled()
    with enable_grad():
        p_eta = [e if outer and e.requires_grad else e.detach().requires_grad_() for e in p._natural_params]
        f_p = p._log_normalizer(*p_eta)
        grads = _grad(f_p.sum(), p_eta, create_graph=outer)
    if not outer:
        f_p, p_eta = f_p.detach(), [e.detach() for e in p_eta]
    q_eta = q._natural_params
    result = q._log_normalizer(*q_eta) - f_p
    for ep, eq, g in zip(p_eta, q_eta, grads):
        result = result - _sum_rightmost((eq - ep) * g, len(q.event_shape))
    return result


def _dense(d):
    # The event sizes these are used at make the dense Cholesky route cheap; it is also the exact one.
    if isinstance(d, MultivariateNormal):
        return d
    return MultivariateNormal(d.loc, covariance_matrix=d.covariance_matrix)


def _lowrank_kl(message):
    def kl(p, q):
        if p.event_shape != q.event_shape:
            raise ValueError(message)
        return _mvn(_dense(p), _dense(q))
    return kl


register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)(_lowrank_kl(
    "KL-divergence between two Low Rank Multivariate Normals with different event shapes cannot be computed"))
for _p, _q in ((MultivariateNormal, LowRankMultivariateNormal), (LowRankMultivariateNormal, MultivariateNormal)):
    register_kl(_p, _q)(_lowrank_kl(
        "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes cannot be computed"))
