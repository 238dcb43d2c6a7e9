"""The families defined as a simpler distribution pushed through transforms: each names its base, its
transform chain and the closed forms TransformedDistribution cannot derive (moments, entropy, and where
a direct density is better conditioned, log_prob)."""
import math
from numbers import Number

from . import _torch as torch
from . import constraints as C
from ._continuous import Cauchy, Exponential, Gamma, Normal, Uniform
from ._discrete import _Odds, _OverCategorical
from ._family import family
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform, AffineTransform, ExpTransform, PowerTransform, SigmoidTransform, \
    StickBreakingTransform
from .utils import _eps, _tiny, broadcast_all, clamp_probs, euler_constant

__all__ = ["ExpRelaxedCategorical", "Gumbel", "HalfCauchy", "HalfNormal", "InverseGamma", "Kumaraswamy",
           "LogNormal", "LogisticNormal", "LogitRelaxedBernoulli", "Pareto", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "Weibull"]


def _from_base(*path):
    """A property read off the base distribution (``path`` steps down nested bases)."""
    def read(self):
        d = self.base_dist
        for _ in path[:-1]:
            d = d.base_dist
        return getattr(d, path[-1])
    return property(read)


class _Pushforward(TransformedDistribution):
    """A TransformedDistribution family: ``_args`` are the attributes its formulas take, ``_own`` the
    parameters it stores itself (expanded with it) rather than reads off the base."""
    _args = ()
    _own = ()
    _coerce_value = False

    def _formula_args(self):
        return [getattr(self, name) for name in self._args]

    def _take(self, *values):
        """Broadcast the own parameters together and store them."""
        tensors = broadcast_all(*values)
        for name, t in zip(self._own, tensors):
            setattr(self, name, t)
        return tensors

    def expand(self, batch_shape, _instance=None):
        owner = next(c for c in type(self).__mro__ if "_args" in c.__dict__)
        new = self._get_checked_instance(owner, _instance)
        for name in self._own:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        return super().expand(batch_shape, _instance=new)


@family(mean=lambda m, s: (m + s.pow(2) / 2).exp(), mode=lambda m, s: (m - s.square()).exp(),
        variance=lambda m, s: s.pow(2).expm1() * (2 * m + s.pow(2)).exp())
class LogNormal(_Pushforward):
    """exp of a Normal."""
    _args = ("loc", "scale")
    arg_constraints = {"loc": C.real, "scale": C.positive}
    support = C.positive
    has_rsample = True
    loc, scale = _from_base("loc"), _from_base("scale")

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class _Folded(_Pushforward):
    """|X| for X symmetric about 0: twice the base density on the half line, nothing below it."""
    _args = ("scale",)
    arg_constraints = {"scale": C.positive}
    support = C.nonnegative
    has_rsample = True
    scale = _from_base("scale")
    mode = property(lambda self: torch.zeros_like(self.scale))

    def _fold(self, base, scale, validate_args):
        super().__init__(base(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = torch.as_tensor(value, dtype=self.scale.dtype)
        return torch.where(value >= 0, self.base_dist.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


@family(mean=lambda s: s * math.sqrt(2 / math.pi), variance=lambda s: s.pow(2) * (1 - 2 / math.pi))
class HalfNormal(_Folded):
    _args = ("scale",)

    def __init__(self, scale, validate_args=None):
        self._fold(Normal, scale, validate_args)


class HalfCauchy(_Folded):
    _args = ("scale",)
    mean = property(lambda self: torch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype))
    variance = _from_base("variance")

    def __init__(self, scale, validate_args=None):
        self._fold(Cauchy, scale, validate_args)


def _gumbel_log_prob(x, m, s):
    z = (m - x) / s
    return z - z.exp() - s.log()


def _gumbel_sd(m, s):
    return math.pi / math.sqrt(6) * s


@family(log_prob=_gumbel_log_prob, mean=lambda m, s: m + s * euler_constant, mode=lambda m, s: m,
        stddev=_gumbel_sd, variance=lambda m, s: _gumbel_sd(m, s).pow(2),
        entropy=lambda m, s: s.log() + (1 + euler_constant))
class Gumbel(_Pushforward):
    """loc - scale * log(-log(U)) for U ~ Uniform(0, 1)."""
    _args = _own = ("loc", "scale")
    arg_constraints = {"loc": C.real, "scale": C.positive}
    support = C.real

    def __init__(self, loc, scale, validate_args=None):
        m, s = self._take(loc, scale)
        lo, hi = _tiny(m.dtype), 1 - _eps(m.dtype)  # U kept off 0 and 1, where the logs blow up
        if not (isinstance(loc, Number) and isinstance(scale, Number)):
            lo, hi = torch.full_like(m, lo), torch.full_like(m, hi)
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-torch.ones_like(s)), ExpTransform().inv,
                 AffineTransform(loc=m, scale=-s)]
        super().__init__(Uniform(lo, hi, validate_args=validate_args), chain, validate_args=validate_args)


def _pareto_mean(s, a):
    a = a.clamp(min=1)  # infinite for alpha <= 1
    return a * s / (a - 1)


def _pareto_variance(s, a):
    a = a.clamp(min=2)  # infinite for alpha <= 2
    return s.pow(2) * a / ((a - 1).pow(2) * (a - 2))


@family(mean=_pareto_mean, mode=lambda s, a: s, variance=_pareto_variance,
        entropy=lambda s, a: (s / a).log() + (1 + a.reciprocal()))
class Pareto(_Pushforward):
    """Type I: scale * exp(E) for E ~ Exponential(alpha)."""
    _args = _own = ("scale", "alpha")
    arg_constraints = {"alpha": C.positive, "scale": C.positive}

    def __init__(self, scale, alpha, validate_args=None):
        s, a = self._take(scale, alpha)
        super().__init__(Exponential(a, validate_args=validate_args), [ExpTransform(), AffineTransform(0, s)],
                         validate_args=validate_args)

    @C.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return C.greater_than_eq(self.scale)


def _weibull_chain(s, k):
    return [PowerTransform(exponent=k.reciprocal()), AffineTransform(loc=0, scale=s)]


def _weibull_variance(s, k):
    r = k.reciprocal()
    return s.pow(2) * (torch.exp(torch.lgamma(1 + 2 * r)) - torch.exp(2 * torch.lgamma(1 + r)))


@family(mean=lambda s, k: s * torch.exp(torch.lgamma(1 + k.reciprocal())),
        mode=lambda s, k: s * ((k - 1) / k) ** k.reciprocal(), variance=_weibull_variance,
        entropy=lambda s, k: euler_constant * (1 - k.reciprocal()) + torch.log(s * k.reciprocal()) + 1)
class Weibull(_Pushforward):
    """scale * E^(1/k) for E ~ Exponential(1)."""
    _args = _own = ("scale", "concentration")
    arg_constraints = {"scale": C.positive, "concentration": C.positive}
    support = C.positive

    def __init__(self, scale, concentration, validate_args=None):
        s, k = self._take(scale, concentration)
        self.concentration_reciprocal = k.reciprocal()
        super().__init__(Exponential(torch.ones_like(s), validate_args=validate_args), _weibull_chain(s, k),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        # the chain holds the parameters, so the expanded one gets its own
        new = super().expand(batch_shape, _instance)
        new.concentration_reciprocal = new.concentration.reciprocal()
        new.transforms = _weibull_chain(new.scale, new.concentration)
        return new


def _above(a, bound, value):
    return torch.where(a > bound, value, math.inf)


@family(mean=lambda a, r: _above(a, 1, r / (a - 1)), mode=lambda a, r: r / (a + 1),
        variance=lambda a, r: _above(a, 2, r.square() / ((a - 1).square() * (a - 2))),
        entropy=lambda a, r: a + r.log() + a.lgamma() - (1 + a) * a.digamma())
class InverseGamma(_Pushforward):
    """1 / X for X ~ Gamma(concentration, rate)."""
    _args = ("concentration", "rate")
    arg_constraints = {"concentration": C.positive, "rate": C.positive}
    support = C.positive
    has_rsample = True
    concentration, rate = _from_base("concentration"), _from_base("rate")

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        flip = PowerTransform(-torch.ones((), dtype=base.rate.dtype))
        super().__init__(base, flip, validate_args=validate_args)


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b B(1 + n / a, b)."""
    t = 1 + n / a
    return b * torch.exp(torch.lgamma(t) + torch.lgamma(b) - torch.lgamma(t + b))


def _kumaraswamy_mode(a, b):
    log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
    log_mode[(b < 1) | (a < 1)] = math.nan
    return log_mode.exp()


def _kumaraswamy_entropy(a, b):
    harmonic = torch.digamma(b + 1) + euler_constant
    return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - torch.log(a) - torch.log(b)


@family(mean=lambda a, b: _kumaraswamy_moment(a, b, 1), mode=_kumaraswamy_mode,
        variance=lambda a, b: _kumaraswamy_moment(a, b, 2) - _kumaraswamy_moment(a, b, 1).pow(2),
        entropy=_kumaraswamy_entropy)
class Kumaraswamy(_Pushforward):
    """(1 - U^(1/b))^(1/a) for U ~ Uniform(0, 1)."""
    _args = _own = ("concentration1", "concentration0")
    arg_constraints = {"concentration1": C.positive, "concentration0": C.positive}
    support = C.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        a, b = self._take(concentration1, concentration0)
        base = Uniform(torch.full_like(b, 0), torch.full_like(b, 1), validate_args=validate_args)
        chain = [PowerTransform(exponent=b.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=a.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)


class LogisticNormal(_Pushforward):
    """The stick-breaking image of a Normal: a distribution on the simplex."""
    _args = ()
    arg_constraints = {"loc": C.real, "scale": C.positive}
    support = C.simplex
    has_rsample = True
    loc, scale = _from_base("base_dist", "loc"), _from_base("base_dist", "scale")

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)


# -- the relaxations: a log-space (or logit-space) base, exponentiated (or squashed) ---------------------------

class LogitRelaxedBernoulli(_Odds):
    """(logit(p) + Logistic noise) / temperature."""
    _params = (("probs", 0), ("logits", 0))
    _carry = ("_given", "temperature")
    arg_constraints = {"probs": C.unit_interval, "logits": C.real}
    support = C.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._store_odds(validate_args, probs, logits)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        p = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(torch.rand(shape, dtype=p.dtype))
        logit = lambda q: q.log() - (-q).log1p()  # noqa: E731
        return (logit(u) + logit(p)) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        gap = logits - value.mul(self.temperature)
        return self.temperature.log() + gap - 2 * gap.exp().log1p()


class ExpRelaxedCategorical(_OverCategorical):
    """log_softmax((logits + Gumbel noise) / temperature)."""
    _params = ()
    _carry = ("temperature",)
    arg_constraints = {"probs": C.simplex, "logits": C.real_vector}
    support = C.real_vector  # the values lie on a submanifold (logsumexp == 0) of this
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._wrap(probs, logits, validate_args)

    def rsample(self, sample_shape=torch.Size()):
        u = clamp_probs(torch.rand(self._extended_shape(sample_shape), dtype=self.logits.dtype))
        scores = (self.logits - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = torch.full_like(self.temperature, float(k)).lgamma() + (k - 1) * self.temperature.log()
        score = logits - value.mul(self.temperature)
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class _Relaxed(_Pushforward):
    _args = ()
    has_rsample = True
    temperature, logits, probs = _from_base("temperature"), _from_base("logits"), _from_base("probs")


class RelaxedBernoulli(_Relaxed):
    """sigmoid of a LogitRelaxedBernoulli: a reparameterisable relaxation of Bernoulli on (0, 1)."""
    _args = ()
    arg_constraints = {"probs": C.unit_interval, "logits": C.real}
    support = C.unit_interval

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)


class RelaxedOneHotCategorical(_Relaxed):
    """exp of an ExpRelaxedCategorical: a reparameterisable relaxation of OneHotCategorical on the simplex."""
    _args = ()
    arg_constraints = {"probs": C.simplex, "logits": C.real_vector}
    support = C.simplex

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

