"""kl_divergence pairs within one family that kl.py lacked: Geometric, HalfNormal, Pareto, the low-rank
multivariate normals, and any two members of one exponential family (a Bregman divergence)."""
import math

from . import _torch as torch
from ..autograd import enable_grad, is_grad_enabled
from ..autograd import grad as _grad
from .exp_family import ExponentialFamily
from ._discrete import Geometric
from ._pushforward import HalfNormal
from .kl import _kl_multivariatenormal_multivariatenormal, _kl_normal_normal, register_kl
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from ._pushforward import Pareto
from .utils import _sum_rightmost


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
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


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # log q(k) = k log(1 - r) + log r, and E_p[k] = (1 - p) / p
    return -p.entropy() - (1 - p.probs) / p.probs * torch.log1p(-q.probs) - q.probs.log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # folding both at 0 keeps the density ratio, so the KL is that of the unfolded normals
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    kl = (p.alpha / q.alpha).log() + q.alpha * (p.scale / q.scale).log() + q.alpha / p.alpha - 1
    return torch.where(p.scale < q.scale, torch.full_like(kl, math.inf), kl)


def _dense(d):
    # The event sizes these are used at make the dense Cholesky route cheap; it is also the exact one.
    if isinstance(d, MultivariateNormal):
        return d
    return MultivariateNormal(d.loc, covariance_matrix=d.covariance_matrix)


def _lowrank_kl(message):
    def kl(p, q):
        if p.event_shape != q.event_shape:
            raise ValueError(message)
        return _kl_multivariatenormal_multivariatenormal(_dense(p), _dense(q))
    return kl


register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)(_lowrank_kl(
    "KL-divergence between two Low Rank Multivariate Normals with different event shapes cannot be computed"))
for _p, _q in ((MultivariateNormal, LowRankMultivariateNormal), (LowRankMultivariateNormal, MultivariateNormal)):
    register_kl(_p, _q)(_lowrank_kl(
        "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes cannot be computed"))
