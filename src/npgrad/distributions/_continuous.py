"""The families given directly by their parameters (no base distribution): each is its parameter list, its
support and the formulas of PyTorch's documentation, installed by ``family`` (see _family.py)."""
import math

import numpy as np

from . import _torch as torch
from . import constraints as C
from ._family import Family, family
from ._gamma_sampling import standard_gamma
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import _eps, _tiny, broadcast_all

__all__ = ["Beta", "Cauchy", "Chi2", "Dirichlet", "Exponential", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Laplace", "Normal", "Poisson", "StudentT", "Uniform", "VonMises"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _noise(kind, shape, like):
    """Standard draws of one kind, in ``like``'s dtype."""
    if kind == "normal":
        return torch.randn(shape, dtype=like.dtype)
    if kind == "uniform":
        return torch.rand(shape, dtype=like.dtype)
    fill = getattr(torch.empty(shape, dtype=like.dtype), kind + "_")  # exponential_, cauchy_
    return fill()


@family(mean=lambda m, s: m, mode=lambda m, s: m, stddev=lambda m, s: s, variance=lambda m, s: s.pow(2),
        log_prob=lambda x, m, s: -((x - m) ** 2) / (2 * s ** 2) - s.log() - _LOG_SQRT_2PI,
        cdf=lambda x, m, s: 0.5 * (1 + torch.erf((x - m) * s.reciprocal() / math.sqrt(2))),
        icdf=lambda u, m, s: m + s * torch.erfinv(2 * u - 1) * math.sqrt(2),
        entropy=lambda m, s: 0.5 + _LOG_SQRT_2PI + s.log(),
        draw=lambda shape, m, s: m + _noise("normal", shape, m) * s,
        natural=lambda m, s: (m / s.pow(2), -0.5 * s.pow(2).reciprocal()),
        log_normalizer=lambda a, b: -0.25 * a.pow(2) / b + 0.5 * torch.log(-math.pi / b))
class Normal(Family, ExponentialFamily):
    _params = (("loc", 0), ("scale", 0))
    arg_constraints = {"loc": C.real, "scale": C.positive}
    support = C.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self._store(validate_args, loc, scale)


def _uniform_log_prob(x, lo, hi):
    inside = lo.le(x).type_as(lo) * hi.gt(x).type_as(lo)
    return inside.log() - (hi - lo).log()


@family(mean=lambda lo, hi: (hi + lo) / 2, mode=lambda lo, hi: math.nan * hi,
        stddev=lambda lo, hi: (hi - lo) / 12 ** 0.5, variance=lambda lo, hi: (hi - lo).pow(2) / 12,
        log_prob=_uniform_log_prob, cdf=lambda x, lo, hi: ((x - lo) / (hi - lo)).clamp(min=0, max=1),
        icdf=lambda u, lo, hi: u * (hi - lo) + lo, entropy=lambda lo, hi: (hi - lo).log(),
        draw=lambda shape, lo, hi: lo + _noise("uniform", shape, lo) * (hi - lo))
class Uniform(Family):
    _params = (("low", 0), ("high", 0))
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self._store(validate_args, low, high)

    @property
    def arg_constraints(self):
        return {"low": C.less_than(self.high), "high": C.greater_than(self.low)}

    @C.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return C.interval(self.low, self.high)


@family(mean=lambda r: r.reciprocal(), mode=lambda r: torch.zeros_like(r), stddev=lambda r: r.reciprocal(),
        variance=lambda r: r.pow(-2), log_prob=lambda x, r: r.log() - r * x,
        cdf=lambda x, r: 1 - torch.exp(-r * x), icdf=lambda u, r: -torch.log1p(-u) / r,
        entropy=lambda r: 1.0 - r.log(), draw=lambda shape, r: _noise("exponential", shape, r) / r,
        natural=lambda r: (-r,), log_normalizer=lambda a: -torch.log(-a))
class Exponential(Family, ExponentialFamily):
    _params = (("rate", 0),)
    arg_constraints = {"rate": C.positive}
    support = C.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        self._store(validate_args, rate)


def _laplace_draw(shape, m, b):
    # u uniform on (-1, 1), kept off the endpoints so that log1p(-|u|) stays finite
    e = _eps(m.dtype)
    u = _noise("uniform", shape, m) * (2 - 2 * e) - (1 - e)
    return m - b * u.sign() * torch.log1p(-u.abs())


@family(mean=lambda m, b: m, mode=lambda m, b: m, variance=lambda m, b: 2 * b.pow(2),
        stddev=lambda m, b: 2 ** 0.5 * b,
        log_prob=lambda x, m, b: -torch.log(2 * b) - (x - m).abs() / b,
        cdf=lambda x, m, b: 0.5 - 0.5 * (x - m).sign() * torch.expm1(-(x - m).abs() / b),
        icdf=lambda u, m, b: m - b * (u - 0.5).sign() * torch.log1p(-2 * (u - 0.5).abs()),
        entropy=lambda m, b: 1 + torch.log(2 * b), draw=_laplace_draw)
class Laplace(Family):
    _params = (("loc", 0), ("scale", 0))
    arg_constraints = {"loc": C.real, "scale": C.positive}
    support = C.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self._store(validate_args, loc, scale)


@family(mean=lambda m, s: torch.full_like(m, math.nan), mode=lambda m, s: m,
        variance=lambda m, s: torch.full_like(m, math.inf),
        log_prob=lambda x, m, s: -math.log(math.pi) - s.log() - (((x - m) / s) ** 2).log1p(),
        cdf=lambda x, m, s: torch.atan((x - m) / s) / math.pi + 0.5,
        icdf=lambda u, m, s: torch.tan(math.pi * (u - 0.5)) * s + m,
        entropy=lambda m, s: math.log(4 * math.pi) + s.log(),
        draw=lambda shape, m, s: m + _noise("cauchy", shape, m) * s)
class Cauchy(Family):
    _params = (("loc", 0), ("scale", 0))
    arg_constraints = {"loc": C.real, "scale": C.positive}
    support = C.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self._store(validate_args, loc, scale)


def _gamma_log_prob(x, a, r):
    return torch.xlogy(a, r) + torch.xlogy(a - 1, x) - r * x - torch.lgamma(a)


@family(mean=lambda a, r: a / r, mode=lambda a, r: ((a - 1) / r).clamp(min=0), variance=lambda a, r: a / r.pow(2),
        log_prob=_gamma_log_prob, cdf=lambda x, a, r: torch.special.gammainc(a, r * x),
        entropy=lambda a, r: a - r.log() + torch.lgamma(a) + (1.0 - a) * torch.digamma(a),
        draw=lambda shape, a, r: standard_gamma(a.expand(shape)) / r.expand(shape),
        natural=lambda a, r: (a - 1, -r),
        log_normalizer=lambda e1, e2: torch.lgamma(e1 + 1) + (e1 + 1) * torch.log(-e2.reciprocal()))
class Gamma(Family, ExponentialFamily):
    _params = (("concentration", 0), ("rate", 0))
    arg_constraints = {"concentration": C.positive, "rate": C.positive}
    support = C.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0
    _coerce_value = True  # log_prob accepts a Python number (converted before validation)

    def __init__(self, concentration, rate, validate_args=None):
        self._store(validate_args, concentration, rate)


class Chi2(Gamma):
    """Gamma(df / 2, 1 / 2)."""
    _params = Gamma._params
    arg_constraints = {"df": C.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2


def _masked(value, where, fill):
    out = value.clone()
    out[where] = fill
    return out


def _student_variance(df, m, s):
    out = df.clone()
    finite = df > 2
    out[finite] = s[finite].pow(2) * df[finite] / (df[finite] - 2)
    out[(df <= 2) & (df > 1)] = math.inf
    out[df <= 1] = math.nan
    return out


def _student_log_prob(x, df, m, s):
    z2 = ((x - m) / s) ** 2.0
    log_norm = (s.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                + torch.lgamma(0.5 * df) - torch.lgamma(0.5 * (df + 1.0)))
    return -0.5 * (df + 1.0) * torch.log1p(z2 / df) - log_norm


def _student_entropy(df, m, s):
    h, h1 = 0.5 * df, 0.5 * (df + 1)
    log_beta = torch.lgamma(h) + math.lgamma(0.5) - torch.lgamma(h1)
    return s.log() + h1 * (torch.digamma(h1) - torch.digamma(h)) + 0.5 * df.log() + log_beta


@family(mean=lambda df, m, s: _masked(m, df <= 1, math.nan), mode=lambda df, m, s: m,
        variance=_student_variance, log_prob=_student_log_prob, entropy=_student_entropy)
class StudentT(Family):
    """loc + scale * Z / sqrt(V / df) for Z ~ Normal(0, 1), V ~ Chi2(df)."""
    _params = (("df", 0), ("loc", 0), ("scale", 0))
    arg_constraints = {"df": C.positive, "loc": C.real, "scale": C.positive}
    support = C.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self._store(validate_args, df, loc, scale)
        self._chi2 = Chi2(self.df)

    def _expanded(self, new, batch_shape):
        new._chi2 = self._chi2.expand(batch_shape)

    def rsample(self, sample_shape=torch.Size()):
        z = _noise("normal", self._extended_shape(sample_shape), self.df)
        v = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * torch.rsqrt(v / self.df)


def _fisher_mode(d1, d2):
    return _masked((d1 - 2) / d1 * d2 / (d2 + 2), d1 <= 2, math.nan)


def _fisher_variance(d1, d2):
    d2 = _masked(d2, d2 <= 4, math.nan)
    return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))


def _fisher_log_prob(x, d1, d2):
    h1, h2 = d1 * 0.5, d2 * 0.5
    ratio = d1 / d2
    log_inv_beta = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
    return log_inv_beta + h1 * ratio.log() + (h1 - 1) * torch.log(x) - (h1 + h2) * torch.log1p(ratio * x)


def _fisher_mean(d1, d2):
    d2 = _masked(d2, d2 <= 2, math.nan)
    return d2 / (d2 - 2)


@family(mean=_fisher_mean, mode=_fisher_mode, variance=_fisher_variance, log_prob=_fisher_log_prob)
class FisherSnedecor(Family):
    """(V1 / df1) / (V2 / df2) for independent Chi2 variables; Gamma(df / 2, df) is Chi2(df) / df."""
    _params = (("df1", 0), ("df2", 0))
    arg_constraints = {"df1": C.positive, "df2": C.positive}
    support = C.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self._store(validate_args, df1, df2)
        self._gamma1, self._gamma2 = Gamma(self.df1 * 0.5, self.df1), Gamma(self.df2 * 0.5, self.df2)

    def _expanded(self, new, batch_shape):
        new._gamma1, new._gamma2 = self._gamma1.expand(batch_shape), self._gamma2.expand(batch_shape)

    def rsample(self, sample_shape=torch.Size(())):
        shape = self._extended_shape(sample_shape)
        top = self._gamma1.rsample(sample_shape).view(shape)
        bottom = self._gamma2.rsample(sample_shape).view(shape)
        tiny = _tiny(bottom.dtype)
        return (top / bottom.clamp(min=tiny)).clamp(min=tiny)


def _best_fisher(loc, kappa, shape):
    """Best & Fisher's (1979) rejection sampler on a wrapped Cauchy envelope, in float64 NumPy."""
    from ..random import rng
    g = rng()
    kappa = np.broadcast_to(kappa, shape)
    tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
    with np.errstate(all="ignore"):
        rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
        r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
    x = np.zeros(shape)
    done = np.zeros(shape, dtype=bool)
    while not done.all():
        u1, u2, u3 = g.random((3,) + tuple(shape))
        z = np.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        with np.errstate(all="ignore"):
            accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
        accept &= ~done
        x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(np.clip(f, -1, 1)), x)
        done |= accept
    return (x + math.pi + np.broadcast_to(loc, shape)) % (2 * math.pi) - math.pi


def _von_mises_draw(shape, m, k):
    as64 = lambda t: t.detach().numpy().astype(np.float64)  # noqa: E731
    return torch.tensor(_best_fisher(as64(m), as64(k), tuple(shape)).astype(m.detach().numpy().dtype))


@family(mean=lambda m, k: m, mode=lambda m, k: m,
        # the circular variance 1 - I1(k) / I0(k), and log I0(k) = log(i0e(k)) + k (finite for large k)
        variance=lambda m, k: 1 - torch.special.i1e(k) / torch.special.i0e(k),
        log_prob=lambda x, m, k: k * torch.cos(x - m) - math.log(2 * math.pi) - (torch.special.i0e(k).log() + k),
        draw=_von_mises_draw)
class VonMises(Family):
    """The circular analogue of the Normal, on [-pi, pi)."""
    _params = (("loc", 0), ("concentration", 0))
    arg_constraints = {"loc": C.real, "concentration": C.positive}
    support = C.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self._store(validate_args, loc, concentration)


def _xi_split(xi):
    """(xi ~ 0, xi with those entries replaced by 1): the xi -> 0 limit is taken separately, and the
    replaced entries keep the other branch finite (no NaN gradients through where)."""
    at_zero = torch.isclose(xi, torch.zeros_like(xi))
    return at_zero, torch.where(at_zero, torch.ones_like(xi), xi)


def _gp_log_survival(x, m, s, xi):
    z = (x - m) / s
    at_zero, safe = _xi_split(xi)
    return torch.where(at_zero, -z, -torch.log1p(safe * z) / safe)


def _gp_log_prob(x, m, s, xi):
    z = (x - m) / s
    at_zero, safe = _xi_split(xi)
    power = 1 / safe + torch.ones_like(z)
    tail = torch.where(power == 0, power, power * torch.log1p(safe * z))
    return -s.log() - torch.where(at_zero, z, tail)


def _gp_icdf(u, m, s, xi):
    at_zero, safe = _xi_split(xi)
    log_tail = torch.log1p(-u)
    return torch.where(at_zero, m - s * log_tail, m + s / safe * torch.expm1(-safe * log_tail))


def _gp_mean(m, s, xi):
    ok = xi < 1
    return torch.where(ok, m + s / (1 - torch.where(ok, xi, 0.5)), math.nan)


def _gp_variance(m, s, xi):
    ok = xi < 0.5
    safe = torch.where(ok, xi, 0.25)
    return torch.where(ok, s ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)


@family(mean=_gp_mean, variance=_gp_variance, mode=lambda m, s, xi: m, log_prob=_gp_log_prob, icdf=_gp_icdf,
        draw=lambda shape, m, s, xi: _gp_icdf(_noise("uniform", shape, m), m, s, xi))
class GeneralizedPareto(Family):
    """The limit law of threshold exceedances: concentration 0 is the shifted Exponential, positive gives a
    power-law tail, negative a bounded support."""
    _params = (("loc", 0), ("scale", 0), ("concentration", 0))
    arg_constraints = {"loc": C.real, "scale": C.positive, "concentration": C.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self._store(validate_args, loc, scale, concentration)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _gp_log_survival(value, *self._formula_args())

    def log_cdf(self, value):
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torch.exp(self.log_cdf(value))

    def entropy(self):
        return torch.broadcast_to(self.scale.log() + self.concentration + 1, self._batch_shape)

    @C.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = torch.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return C.interval(self.loc, upper)


def _poisson_log_prob(x, r):
    r, x = broadcast_all(r, x)
    return x.xlogy(r) - r - (x + 1).lgamma()


@family(mean=lambda r: r, mode=lambda r: r.floor(), variance=lambda r: r, log_prob=_poisson_log_prob,
        draw=lambda shape, r: torch.poisson(r.expand(shape)),
        natural=lambda r: (r.log(),), log_normalizer=lambda a: a.exp())
class Poisson(Family, ExponentialFamily):
    _params = (("rate", 0),)
    arg_constraints = {"rate": C.nonnegative}
    support = C.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        self._store(validate_args, rate)


def _dirichlet_mode(a):
    above = (a - 1).clamp(min=0.0)
    mode = above / above.sum(-1, True)
    all_below = (a < 1).all(dim=-1)
    if bool(all_below.any()):  # all below 1: torch puts the mode at a vertex, the argmax of the NaN row (0)
        vertex = torch.functional.one_hot(mode[all_below].argmax(-1), above.shape[-1])
        mode[all_below] = vertex.to(mode.dtype)
    return mode


def _dirichlet_variance(a):
    total = a.sum(-1, True)
    return a * (total - a) / (total.pow(2) * (total + 1))


def _dirichlet_entropy(a):
    k, total = a.size(-1), a.sum(-1)
    return (torch.lgamma(a).sum(-1) - torch.lgamma(total) - (k - total) * torch.digamma(total)
            - ((a - 1.0) * torch.digamma(a)).sum(-1))


def _dirichlet_draw(shape, a):
    # the gradient flows through each Gamma draw (implicit reparameterisation) and the normalisation
    g = standard_gamma(a.expand(shape))
    return (g / g.sum(-1, keepdim=True)).clamp(min=_tiny(g.dtype))


def _log_multivariate_beta(a):
    return a.lgamma().sum(-1) - torch.lgamma(a.sum(-1))


@family(mean=lambda a: a / a.sum(-1, True), mode=_dirichlet_mode, variance=_dirichlet_variance,
        entropy=_dirichlet_entropy, draw=_dirichlet_draw,
        log_prob=lambda x, a: torch.xlogy(a - 1.0, x).sum(-1) - _log_multivariate_beta(a),
        natural=lambda a: (a,), log_normalizer=_log_multivariate_beta)
class Dirichlet(Family, ExponentialFamily):
    """Normalised independent Gamma(concentration_i, 1) draws."""
    _params = (("concentration", 1),)
    arg_constraints = {"concentration": C.independent(C.positive, 1)}
    support = C.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        Distribution.__init__(self, shape[:-1], shape[-1:], validate_args)


def _beta_variance(a, b):
    total = a + b
    return a * b / (total.pow(2) * (total + 1))


@family(mean=lambda a, b: a / (a + b), variance=_beta_variance,
        natural=lambda a, b: (a, b),
        log_normalizer=lambda a, b: torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b))
class Beta(Family, ExponentialFamily):
    """The first coordinate of a two-category Dirichlet."""
    _params = ()
    _args = ("concentration1", "concentration0")
    arg_constraints = {"concentration1": C.positive, "concentration0": C.positive}
    support = C.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        pair = torch.stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        Distribution.__init__(self, self._dirichlet.batch_shape, (), validate_args)

    def _expanded(self, new, batch_shape):
        new._dirichlet = self._dirichlet.expand(batch_shape)

    concentration1 = property(lambda self: self._dirichlet.concentration[..., 0])
    concentration0 = property(lambda self: self._dirichlet.concentration[..., 1])
    mode = property(lambda self: self._dirichlet.mode[..., 0])

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(torch.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

