"""The families parameterised by ``probs | logits``: Bernoulli, Binomial, Geometric, NegativeBinomial,
Categorical, OneHotCategorical (and its straight-through variant), Multinomial and ContinuousBernoulli.

Exactly one of probs/logits is given and stored; the other is derived on first use (``_Odds``), and
``expand`` carries whichever exist. Binary families use the sigmoid pair, categorical ones softmax.
"""
import math
from numbers import Number

from . import _torch as torch
from . import constraints as C
from ._family import Family, family
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import _lowest, _tiny, broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli", "Binomial", "Categorical", "ContinuousBernoulli", "Geometric", "Multinomial",
           "NegativeBinomial", "OneHotCategorical", "OneHotCategoricalStraightThrough"]

_BCE = "binary_cross_entropy_with_logits"


def _bce(logits, target):
    return getattr(torch.functional, _BCE)(logits, target, reduction="none")


class _Odds(Family):
    """probs | logits storage; ``_binary`` picks sigmoid (True) or softmax over the last dim (False)."""
    _binary = True
    _carry = ("_given",)

    def _formula_args(self):
        # the formulas take the distribution: probs or logits is derived only when a formula uses it
        return (self,)

    def _choose(self, probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        self._given = "probs" if probs is not None else "logits"
        return probs if probs is not None else logits

    def _store_odds(self, validate_args, probs, logits, *others):
        """Broadcast ``others`` with the given one of probs/logits (cast to its dtype) and set the shapes."""
        given = self._choose(probs, logits)
        *rest, odds = broadcast_all(*others, given)
        setattr(self, self._given, odds)
        rest = [t.type_as(odds) for t in rest]
        for (name, _), t in zip(self._params, rest):
            setattr(self, name, t)
        lone_number = not others and isinstance(given, Number)
        Distribution.__init__(self, () if lone_number else odds.shape, (), validate_args)

    _param = property(lambda self: getattr(self, self._given))
    param_shape = property(lambda self: self._param.size())

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._binary)


def _values_along_first(values, batch_shape, expand, trailing=()):
    """``values`` (n, *trailing) shaped to (n, 1.., *trailing) over the batch dims, or expanded across them."""
    n = values.shape[0]
    shaped = values.view((n,) + (1,) * len(batch_shape) + tuple(trailing))
    return shaped.expand((n,) + tuple(batch_shape) + tuple(trailing)) if expand else shaped


def _bernoulli_mode(d):
    p = d.probs
    mode = (p >= 0.5).to(p.dtype)
    mode[p == 0.5] = math.nan
    return mode


def _bernoulli_log_prob(x, d):
    lg, x = broadcast_all(d.logits, x)
    return -_bce(lg, x)


@family(mean=lambda d: d.probs, mode=_bernoulli_mode, variance=lambda d: d.probs * (1 - d.probs),
        log_prob=_bernoulli_log_prob, entropy=lambda d: _bce(d.logits, d.probs),
        draw=lambda shape, d: torch.bernoulli(d.probs.expand(shape)),
        natural=lambda d: (torch.logit(d.probs),), log_normalizer=lambda a: torch.log1p(torch.exp(a)))
class Bernoulli(_Odds, ExponentialFamily):
    _params = (("probs", 0), ("logits", 0))
    arg_constraints = {"probs": C.unit_interval, "logits": C.real}
    support = C.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._store_odds(validate_args, probs, logits)

    def enumerate_support(self, expand=True):
        return _values_along_first(torch.arange(2, dtype=self._param.dtype), self._batch_shape, expand)


def _binomial_log_prob(k, d):
    n, lg = d.total_count, d.logits
    log_choose = torch.lgamma(n + 1) - torch.lgamma(k + 1) - torch.lgamma(n - k + 1)
    # k * logits - n * log(1 + exp(logits)) == k log p + (n - k) log(1 - p), stable for large |logits|
    return log_choose + k * lg - n * torch.functional.softplus(lg)


def _one_count(d, what):
    n = int(d.total_count.max())
    if not d.total_count.min() == n:
        raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
    return n


@family(mean=lambda d: d.total_count * d.probs,
        mode=lambda d: ((d.total_count + 1) * d.probs).floor().clamp(max=d.total_count),
        variance=lambda d: d.total_count * d.probs * (1 - d.probs), log_prob=_binomial_log_prob,
        draw=lambda shape, d: torch.binomial(d.total_count.expand(shape), d.probs.expand(shape)))
class Binomial(_Odds):
    _params = (("total_count", 0), ("probs", 0), ("logits", 0))
    arg_constraints = {"total_count": C.nonnegative_integer, "probs": C.unit_interval, "logits": C.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._store_odds(validate_args, probs, logits, total_count)

    @C.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return C.integer_interval(0, self.total_count)

    def entropy(self):
        _one_count(self, "entropy")
        log_p = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_p) * log_p).sum(0)

    def enumerate_support(self, expand=True):
        n = _one_count(self, "enumerate_support")
        return _values_along_first(torch.arange(1 + n, dtype=self._param.dtype), self._batch_shape, expand)


def _geometric_log_prob(k, d):
    p = d.probs
    k, q = broadcast_all(k, p)
    q = q.clone()
    q[(q == 1) & (k == 0)] = 0  # 0 * log(0) counts as 0 when p == 1
    return k * (-q).log1p() + p.log()


def _geometric_draw(shape, d):
    p = d.probs
    # inverse CDF: the smallest k with 1 - (1 - p)^(k + 1) >= 1 - u
    u = torch.empty(shape, dtype=p.dtype).uniform_(_tiny(p.dtype), 1)
    return (u.log() / (-p).log1p()).floor()


@family(mean=lambda d: 1.0 / d.probs - 1.0, mode=lambda d: torch.zeros_like(d.probs),
        variance=lambda d: (1.0 / d.probs - 1.0) / d.probs, log_prob=_geometric_log_prob,
        entropy=lambda d: _bce(d.logits, d.probs) / d.probs, draw=_geometric_draw)
class Geometric(_Odds):
    """The number of failures before the first success, on {0, 1, ...}."""
    _params = (("probs", 0), ("logits", 0))
    arg_constraints = {"probs": C.unit_interval, "logits": C.real}
    support = C.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._store_odds(validate_args, probs, logits)
        if self._validate_args and probs is not None:
            p = self.probs
            ok = p > 0
            if not ok.all():
                raise ValueError(f"Expected parameter probs ({type(p).__name__} of shape {tuple(p.shape)}) "
                                 f"of distribution {repr(self)} to be positive but found invalid values:\n"
                                 f"{p.detach()[~ok]}")


def _negbin_log_prob(k, d):
    n, lg = d.total_count, d.logits
    F = torch.functional
    log_unnormalized = n * F.logsigmoid(-lg) + k * F.logsigmoid(lg)
    log_norm = -torch.lgamma(n + k) + torch.lgamma(1.0 + k) + torch.lgamma(n)
    # total_count == value == 0: the only outcome, probability 1
    return log_unnormalized - log_norm.masked_fill(n + k == 0.0, 0.0)


def _negbin_mean(d):
    return d.total_count * torch.exp(d.logits)


@family(mean=_negbin_mean, mode=lambda d: ((d.total_count - 1) * d.logits.exp()).floor().clamp(min=0.0),
        variance=lambda d: _negbin_mean(d) / torch.sigmoid(-d.logits), log_prob=_negbin_log_prob)
class NegativeBinomial(_Odds):
    """Failures before total_count successes, each trial failing with probability probs."""
    _params = (("total_count", 0), ("probs", 0), ("logits", 0))
    arg_constraints = {"total_count": C.greater_than_eq(0), "probs": C.half_open_interval(0.0, 1.0),
                       "logits": C.real}
    support = C.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._store_odds(validate_args, probs, logits, total_count)

    @lazy_property
    def _gamma(self):
        # a Poisson whose rate is Gamma(total_count, (1 - p) / p) is NegativeBinomial(total_count, p)
        from ._continuous import Gamma
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return torch.poisson(self._gamma.sample(sample_shape=sample_shape))


def _categorical_log_prob(x, d):
    index, table = torch.broadcast_tensors(x.long().unsqueeze(-1), d.logits)
    return table.gather(-1, index[..., :1]).squeeze(-1)


def _categorical_entropy(d):
    lg = d.logits
    return -(torch.clamp(lg, min=_lowest(lg.dtype)) * d.probs).sum(-1)


def _undefined(d):
    return torch.full(d._extended_shape(), math.nan, dtype=d.probs.dtype)


@family(log_prob=_categorical_log_prob, entropy=_categorical_entropy, mode=lambda d: d.probs.argmax(-1),
        mean=_undefined, variance=_undefined)
class Categorical(_Odds):
    """Over {0, ..., K-1}; probs are normalised to sum to 1, logits so that logsumexp(logits) == 0."""
    _params = (("probs", 1), ("logits", 1))
    _carry = ("_given", "_num_events")
    _binary = False
    arg_constraints = {"probs": C.simplex, "logits": C.independent(C.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        given = self._choose(probs, logits)
        if given.dim() < 1:
            raise ValueError(f"`{self._given}` parameter must be at least one-dimensional.")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._num_events = given.shape[-1]
        Distribution.__init__(self, given.shape[:-1], (), validate_args)

    @C.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return C.integer_interval(0, self._num_events - 1)

    def sample(self, sample_shape=torch.Size()):
        sample_shape = torch.Size(sample_shape)
        count = math.prod(sample_shape)
        rows = self.probs.reshape(-1, self._num_events).detach()
        draws = torch.multinomial(rows, count, True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def enumerate_support(self, expand=True):
        return _values_along_first(torch.arange(self._num_events, dtype=torch.int64), self._batch_shape, expand)


class _OverCategorical(Family):
    """A distribution built on a Categorical ``_categorical`` of the same probs/logits, with its event
    dimension the categories."""
    _params = ()

    def _wrap(self, probs, logits, validate_args):
        self._categorical = Categorical(probs, logits)
        cat = self._categorical
        Distribution.__init__(self, cat.batch_shape, cat.param_shape[-1:], validate_args)

    def _expanded(self, new, batch_shape):
        new._categorical = self._categorical.expand(batch_shape)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    _param = property(lambda self: self._categorical._param)

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)


def _one_hot(index, k, like):
    return torch.functional.one_hot(index, k).to(like.dtype)


class OneHotCategorical(_OverCategorical):
    """A Categorical whose samples are one-hot vectors."""
    _params = ()
    arg_constraints = {"probs": C.simplex, "logits": C.real_vector}
    support = C.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._wrap(probs, logits, validate_args)

    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self._categorical.probs * (1 - self._categorical.probs))

    @property
    def mode(self):
        p = self._categorical.probs
        return _one_hot(p.argmax(-1), p.shape[-1], p)

    def sample(self, sample_shape=torch.Size()):
        cat = self._categorical
        return _one_hot(cat.sample(torch.Size(sample_shape)), cat._num_events, cat.probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self.event_shape[0]
        return _values_along_first(torch.eye(k, dtype=self._param.dtype), self.batch_shape, expand, (k,))


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample is the one-hot sample in the forward pass and passes the gradient
    to probs unchanged in the backward pass (the straight-through estimator)."""
    has_rsample = True

    def rsample(self, sample_shape=torch.Size()):
        p = self._categorical.probs
        return self.sample(sample_shape) + (p - p.detach())


class Multinomial(_OverCategorical):
    """Counts of ``total_count`` categorical draws."""
    _params = ()
    _carry = ("total_count",)
    arg_constraints = {"probs": C.simplex, "logits": C.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._wrap(probs, logits, validate_args)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)

    def _expanded(self, new, batch_shape):
        super()._expanded(new, batch_shape)
        new._binomial = self._binomial.expand(batch_shape + self.event_shape)

    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @C.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return C.multinomial(self.total_count)

    def sample(self, sample_shape=torch.Size()):
        sample_shape = torch.Size(sample_shape)
        draws = self._categorical.sample(torch.Size((self.total_count,)) + sample_shape)
        # (total_count, *sample, *batch) -> (*sample, *batch, total_count), then count each category
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = torch.zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return counts.scatter_add_(-1, draws, torch.ones_like(draws, dtype=counts.dtype))

    def entropy(self):
        n = torch.tensor(self.total_count)  # an int64 tensor, as in torch: lgamma(n) is then float32
        k = self._binomial.enumerate_support()
        weight = torch.exp(self._binomial.log_prob(k)) * torch.lgamma(k + 1)
        return n * self._categorical.entropy() - torch.lgamma(n + 1) + weight.sum([0, -1])

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        logits[(value == 0) & (logits == -math.inf)] = 0  # 0 * log(0) counts as 0
        return torch.lgamma(value.sum(-1) + 1) - torch.lgamma(value + 1).sum(-1) + (logits * value).sum(-1)


# ContinuousBernoulli: density C(p) p^x (1 - p)^(1 - x) on [0, 1]. Near p = 1/2 the closed forms are 0/0;
# inside (lims[0], lims[1]] they give way to Taylor polynomials in (p - 1/2), and the closed forms are
# evaluated at a safe cut value there so that their (unused) gradients stay finite.

def _cb_parts(d):
    """(where the closed forms are used, probs cut away from 1/2 elsewhere)."""
    lo, hi = d._lims
    p = d.probs
    far = torch.le(p, lo) | torch.gt(p, hi)
    return far, torch.where(far, p, lo * torch.ones_like(p))


def _cb_log_norm(d):
    """log C(p), C(p) = 2 atanh(1 - 2p) / (1 - 2p); log 2 + (4/3 + 104/45 x) x with x = (p - 1/2)^2 near 1/2."""
    far, p = _cb_parts(d)
    lower = torch.le(p, 0.5)
    denominator = torch.where(lower, torch.log1p(-2.0 * torch.where(lower, p, torch.zeros_like(p))),
                              torch.log(2.0 * torch.where(torch.ge(p, 0.5), p, torch.ones_like(p)) - 1.0))
    closed = torch.log(torch.abs(torch.log1p(-p) - torch.log(p))) - denominator
    x = torch.pow(d.probs - 0.5, 2)
    return torch.where(far, closed, math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x)


def _cb_mean(d):
    far, p = _cb_parts(d)
    closed = p / (2.0 * p - 1.0) + 1.0 / (torch.log1p(-p) - torch.log(p))
    x = d.probs - 0.5
    return torch.where(far, closed, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(x, 2)) * x)


def _cb_variance(d):
    far, p = _cb_parts(d)
    closed = p * (p - 1.0) / torch.pow(1.0 - 2.0 * p, 2) + 1.0 / torch.pow(torch.log1p(-p) - torch.log(p), 2)
    x = torch.pow(d.probs - 0.5, 2)
    return torch.where(far, closed, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)


def _cb_cdf(x, d):
    far, p = _cb_parts(d)
    closed = (torch.pow(p, x) * torch.pow(1.0 - p, 1.0 - x) + p - 1.0) / (2.0 * p - 1.0)
    inside = torch.where(far, closed, x)
    return torch.where(torch.le(x, 0.0), torch.zeros_like(x), torch.where(torch.ge(x, 1.0), torch.ones_like(x), inside))


def _cb_icdf(u, d):
    far, p = _cb_parts(d)
    closed = (torch.log1p(-p + u * (2.0 * p - 1.0)) - torch.log1p(-p)) / (torch.log(p) - torch.log1p(-p))
    return torch.where(far, closed, u)


def _cb_log_normalizer(d, eta):
    lo, hi = d._lims[0] - 0.5, d._lims[1] - 0.5
    far = torch.le(eta, lo) | torch.gt(eta, hi)
    cut = torch.where(far, eta, lo * torch.ones_like(eta))
    closed = torch.log(torch.abs(torch.special.expm1(cut))) - torch.log(torch.abs(cut))
    return torch.where(far, closed, 0.5 * eta + torch.pow(eta, 2) / 24.0 - torch.pow(eta, 4) / 2880.0)


def _cb_entropy(d):
    log_q, log_p = torch.log1p(-d.probs), torch.log(d.probs)
    return _cb_mean(d) * (log_q - log_p) - _cb_log_norm(d) - log_q


def _cb_log_prob(x, d):
    lg, x = broadcast_all(d.logits, x)
    return -_bce(lg, x) + _cb_log_norm(d)


@family(mean=_cb_mean, variance=_cb_variance, stddev=lambda d: torch.sqrt(_cb_variance(d)), entropy=_cb_entropy,
        log_prob=_cb_log_prob, cdf=_cb_cdf, icdf=_cb_icdf, draw=lambda shape, d: _cb_icdf(torch.rand(
            shape, dtype=d.probs.dtype), d))
class ContinuousBernoulli(_Odds, ExponentialFamily):
    _params = (("probs", 0), ("logits", 0))
    _carry = ("_given", "_lims")
    arg_constraints = {"probs": C.unit_interval, "logits": C.real}
    support = C.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        given = self._choose(probs, logits)
        (value,) = broadcast_all(given)
        if probs is not None:
            # validated before clamping, so that an out-of-range probs is reported as given
            if validate_args is not None and not self.arg_constraints["probs"].check(value).all():
                raise ValueError("The parameter probs has invalid values")
            value = clamp_probs(value)
        setattr(self, self._given, value)
        self._lims = lims
        Distribution.__init__(self, () if isinstance(given, Number) else value.shape, (), validate_args)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    _natural_params = property(lambda self: (self.logits,))

    def _log_normalizer(self, eta):
        return _cb_log_normalizer(self, eta)
