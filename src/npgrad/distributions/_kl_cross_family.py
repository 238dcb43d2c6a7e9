"""kl_divergence between distributions of different families (PyTorch's registry has each of these pairs).

Every finite pair is KL(p || q) = -H(p) + E_p[-log q(X)], and E_p[-log q(X)] depends on p only through a
few of its expectations (mean, variance, E[log X], a moment generating value). So each family q gets one
"cross entropy" function of those expectations, and each pair supplies p's. Pairs where p puts mass where
q has none are +inf.
"""
import math

from . import _torch as torch
from ._discrete import Bernoulli
from ._continuous import Beta
from ._discrete import Binomial
from ._discrete import ContinuousBernoulli, _cb_log_norm
from ._continuous import Exponential
from ._continuous import Gamma
from ._pushforward import Gumbel
from .kl import register_kl
from ._continuous import Laplace
from ._continuous import Normal
from ._pushforward import Pareto
from ._continuous import Poisson
from ._continuous import Uniform
from .utils import euler_constant

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _inf_where(mask, value):
    return torch.where(mask, torch.full_like(value, math.inf), value)


# -- E_p[-log q(X)] for each family q, from the expectations of p it needs ---------------------------------
def _normal_cross(mean, var, q):
    return _LOG_SQRT_2PI + q.scale.log() + (var + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


def _exponential_cross(mean, q):
    return -q.rate.log() + q.rate * mean


def _gamma_cross(mean, mean_log, q):
    a, b = q.concentration, q.rate
    return -a * b.log() + torch.lgamma(a) - (a - 1) * mean_log + b * mean


def _gumbel_cross(mean, log_mgf, q):
    # -log q(x) = log beta + z + exp(-z) with z = (x - loc) / beta; log_mgf is log E_p[exp(-X / beta)]
    return q.scale.log() + (mean - q.loc) / q.scale + torch.exp(q.loc / q.scale + log_mgf)


def _cb_cross(mean, q):
    # log q(x) = x logit(r) + log(1 - r) + log C(r)
    return -(mean * q.logits + torch.log1p(-q.probs) + _cb_log_norm(q))


def _beta_cross(mean_log, mean_log1m, q):
    a, b = q.concentration1, q.concentration0
    log_beta_fn = torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b)
    return log_beta_fn - (a - 1) * mean_log - (b - 1) * mean_log1m


def _pareto_cross(mean_log, q):
    return -q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * mean_log


def _gumbel_log_mgf_normal(p, q):
    return -p.loc / q.scale + 0.5 * (p.scale / q.scale).pow(2)


# -- p on [0, 1]: Beta and ContinuousBernoulli -------------------------------------------------------------
@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _cb_cross(p.mean, q)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() + _exponential_cross(p.mean, q)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    mean_log = torch.digamma(p.concentration1) - torch.digamma(p.concentration1 + p.concentration0)
    return -p.entropy() + _gamma_cross(p.mean, mean_log, q)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() + _normal_cross(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    return _inf_where((q.low > 0) | (q.high < 1), -p.entropy() + (q.high - q.low).log())


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return _cb_cross(p.mean, q) - _cb_cross(p.mean, p)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() + _exponential_cross(p.mean, q)


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    return -p.entropy() + _normal_cross(p.mean, p.variance, q)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    # PyTorch's test is non-strict (a Uniform exactly on [0, 1] also gives inf); kept for parity
    return _inf_where((q.low >= 0) | (q.high <= 1), -p.entropy() + (q.high - q.low).log())


# -- p on [0, inf): Exponential, Gamma, Pareto ---------------------------------------------------------------
@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    log_mgf = -torch.log1p(1 / (p.rate * q.scale))  # E[exp(-X/beta)] = rate / (rate + 1/beta)
    return -p.entropy() + _gumbel_cross(p.mean, log_mgf, q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() + _exponential_cross(p.mean, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    log_mgf = -p.concentration * torch.log1p(1 / (p.rate * q.scale))
    return -p.entropy() + _gumbel_cross(p.mean, log_mgf, q)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() + _normal_cross(p.mean, p.variance, q)


def _pareto_mean_log(p):
    return p.scale.log() + 1 / p.alpha


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    mean = p.alpha * p.scale / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, -p.entropy() + _exponential_cross(mean, q))


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean = p.alpha * p.scale / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, -p.entropy() + _gamma_cross(mean, _pareto_mean_log(p), q))


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    mean = p.alpha * p.scale / (p.alpha - 1)
    var = p.scale.pow(2) * p.alpha / ((p.alpha - 1).pow(2) * (p.alpha - 2))
    return _inf_where(p.alpha <= 2, -p.entropy() + _normal_cross(mean, var, q))


# -- p on the real line: Gumbel, Laplace, Normal -------------------------------------------------------------
@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    mean = p.loc + p.scale * euler_constant
    var = (math.pi * p.scale).pow(2) / 6
    return -p.entropy() + _normal_cross(mean, var, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    return -p.entropy() + _normal_cross(p.loc, 2 * p.scale.pow(2), q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    return -p.entropy() + _gumbel_cross(p.loc, _gumbel_log_mgf_normal(p, q), q)


# -- p uniform on [a, b] -------------------------------------------------------------------------------------
def _uniform_mean_log(p):
    # E[log X] = (b log b - a log a) / (b - a) - 1, with 0 log 0 = 0
    return (torch.xlogy(p.high, p.high) - torch.xlogy(p.low, p.low)) / (p.high - p.low) - 1


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    one_minus_low, one_minus_high = 1 - p.low, 1 - p.high
    mean_log1m = (torch.xlogy(one_minus_low, one_minus_low) - torch.xlogy(one_minus_high, one_minus_high)) \
        / (p.high - p.low) - 1
    kl = -p.entropy() + _beta_cross(_uniform_mean_log(p), mean_log1m, q)
    return _inf_where((p.high > 1) | (p.low < 0), kl)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    # non-strict bounds as in PyTorch (a Uniform touching 0 or 1 gives inf)
    return _inf_where((p.high >= 1) | (p.low <= 0), -p.entropy() + _cb_cross(p.mean, q))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    return _inf_where(p.low < 0, -p.entropy() + _exponential_cross(p.mean, q))


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    return _inf_where(p.low < 0, -p.entropy() + _gamma_cross(p.mean, _uniform_mean_log(p), q))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    # log E[exp(-X/beta)] = log(beta (exp(-a/beta) - exp(-b/beta)) / (b - a))
    beta = q.scale
    log_mgf = (beta * (torch.exp(-p.low / beta) - torch.exp(-p.high / beta)) / (p.high - p.low)).log()
    return -p.entropy() + _gumbel_cross(p.mean, log_mgf, q)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    return _inf_where(p.low < q.scale, -p.entropy() + _pareto_cross(_uniform_mean_log(p), q))


# -- the pairs PyTorch states in closed form directly ----------------------------------------------------------
@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    return -p.entropy() + _normal_cross(p.mean, p.variance, q)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return -p.entropy() + _normal_cross(p.mean, p.variance, q)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    # E[log X] = -log(rate) - euler_constant
    return -p.entropy() + _gamma_cross(p.mean, -p.rate.log() - euler_constant, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # -log q(x) = log(2 b) + |x - m| / b, and E|X - m| for X ~ N(mu, s^2) is the folded normal's mean
    gap = p.loc - q.loc
    folded = math.sqrt(2 / math.pi) * p.scale * torch.exp(-0.5 * (gap / p.scale).pow(2)) \
        + gap * torch.erf(gap / (p.scale * math.sqrt(2)))
    return -p.entropy() + torch.log(2 * q.scale) + folded / q.scale


# -- discrete p ----------------------------------------------------------------------------------------------
@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # log q(x) = x log rate - rate for x in {0, 1}
    return -p.entropy() - p.probs * q.rate.log() + q.rate


# -- support of p not inside the support of q: infinite -------------------------------------------------------
def _infinite(param):
    def kl(p, q):
        value = getattr(p, param)
        return torch.full_like(value, math.inf)
    return kl


_NOWHERE = {
    (Beta, Pareto): "concentration1",
    (ContinuousBernoulli, Pareto): "probs",
    (Poisson, Bernoulli): "rate", (Poisson, Binomial): "rate",
}
for _q in (Beta, ContinuousBernoulli, Pareto, Uniform):
    _NOWHERE[Exponential, _q] = "rate"
    _NOWHERE[Gamma, _q] = "concentration"
for _q in (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform):
    _NOWHERE[Gumbel, _q] = "loc"
    _NOWHERE[Laplace, _q] = "loc"
    _NOWHERE[Normal, _q] = "loc"
for _q in (Beta, ContinuousBernoulli, Uniform):
    _NOWHERE[Pareto, _q] = "scale"
for (_p, _q), _param in _NOWHERE.items():
    register_kl(_p, _q)(_infinite(_param))
