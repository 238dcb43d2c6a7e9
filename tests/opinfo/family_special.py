"""Op table: special functions (npgrad/ops/special.py and the npgrad.special namespace): erf/erfc/erfinv,
lgamma/digamma/polygamma/mvlgamma, logit, sinc, xlog1py, entr, ndtr.

The gamma family's rows keep their inputs 0.1 away from the integers (its poles); PyTorch's float64 trigamma
is accurate to ~5e-10 only (a short asymptotic series, ours to ~1e-15), hence ``TRIGAMMA_TOL`` on the
gradients of digamma and lgamma's second derivative."""
import math

import numpy as np

from oracle import In
from _record import DOUBLE_BACKWARD, FD, FLOAT32_RESULT_SWEEP, PARITY, OpInfo, Sample, Unary
from _record import raises_like_torch as _r  # noqa: E402 (shared makers)

TRIGAMMA_TOL = dict(rtol=1e-8, atol=1e-10)
INF, NAN = np.inf, np.nan
# The special family's table tests: PyTorch parity and finite differences; DB adds double backward.
S = frozenset({PARITY, FD})
DB = S | {DOUBLE_BACKWARD}


def _away_from_integers(low, high, shape):
    """Values in [low, high) at least 0.1 away from the integers (the poles of the gamma family)."""
    def make(rng):
        v = rng.uniform(low, high, size=shape)
        frac = v - np.floor(v)
        return np.floor(v) + 0.1 + 0.8 * frac
    return make


POS = In((3, 4), 0.2, 6.0)
ANY = In((3, 4), values=_away_from_integers(-6.0, 8.0, (3, 4)))
PROB = In((3, 4), 0.05, 0.95)
UNIT = In((3, 4), -0.95, 0.95)

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _s(name, fn, inputs, checks=S, **kw):
    return Sample(name, fn, inputs, checks=checks, **kw)


OPS = [
    OpInfo("erf", "special", lambda lib, x: x.erf(), _erf,
           samples=[_s("erf_method", lambda L, x: x.erf(), [In((3, 4))]),
                    # (was tests/nn/test_functional_parity.py's "erf" row)
                    _s("erf_function_and_method", lambda L, x: L.erf(x) + x.erf() * 2,
                       [In((4, 5), values=lambda rng: rng.standard_normal((4, 5)) * 2)], fd_tol=1e-5)],
           properties=[Unary("erf")],
           # (erf/erfc of float16 are evaluated in float32, as PyTorch's)
           float16=[("erf", lambda lib, x, y: (x + 1).erf())], sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("erfc", "special", lambda lib, x: x.erfc(), _erfc,
           samples=[_s("erfc_function", lambda L, x: L.erfc(x), [In((3, 4))])],
           properties=[Unary("erfc")],
           float16=[("erfc", lambda lib, x, y: (x + 1).erfc())], sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("erfinv", "special", lambda lib, x: lib.erfinv(x),
           samples=[
               _s("erfinv", lambda L, x: L.erfinv(x), [UNIT], DB),
               _s("erfinv_tails", lambda L, x: x.erfinv(), [In((6,), values=lambda rng: np.array(
                   [-0.999999, -0.9999, -0.6, 0.55, 0.9999, 0.99999999]))], fd_eps=1e-10, fd_tol=1e-3),
               _s("erfinv_special_namespace", lambda L, x: L.special.erfinv(x), [UNIT]),
           ],
           special_values=[("erfinv", lambda L, x: L.erfinv(x), [-1.0, 1.0, 1.5, -1.5, 0.0, -0.0, NAN])],
           sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("lgamma", "special", lambda lib, x: lib.lgamma(x),
           samples=[
               _s("lgamma_positive", lambda L, x: L.lgamma(x), [POS]),
               _s("lgamma_negative_too", lambda L, x: x.lgamma(), [ANY], DB, grad_tol=TRIGAMMA_TOL),
               _s("lgamma_large", lambda L, x: L.lgamma(x), [In((5,), 10.0, 1e4)]),
               _s("gammaln", lambda L, x: L.special.gammaln(x), [POS]),
           ],
           special_values=[("lgamma", lambda L, x: L.lgamma(x),
                            [0.0, -0.0, -1.0, -2.5, INF, -INF, NAN, 1e-300, 1e306, 0.5])],
           sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("digamma", "special", lambda lib, x: lib.digamma(x),
           samples=[
               _s("digamma_positive", lambda L, x: L.digamma(x), [POS], grad_tol=TRIGAMMA_TOL),
               _s("digamma_negative_too", lambda L, x: x.digamma(), [ANY], grad_tol=TRIGAMMA_TOL),
               _s("psi", lambda L, x: L.special.psi(x), [POS], grad_tol=TRIGAMMA_TOL),
           ],
           special_values=[("digamma", lambda L, x: L.digamma(x), [0.0, -0.0, -2.5, INF, -INF, NAN, 1e-300, 1.0])],
           sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("polygamma", "special", lambda lib, x: lib.polygamma(1, x),
           samples=[
               _s("polygamma1", lambda L, x: L.polygamma(1, x), [POS]),
               _s("polygamma2_method", lambda L, x: x.polygamma(2), [ANY], DB),
               _s("polygamma3", lambda L, x: L.special.polygamma(3, x), [POS]),
               _s("polygamma0_is_digamma", lambda L, x: L.polygamma(0, x), [POS], grad_tol=TRIGAMMA_TOL),
               _r("polygamma_negative_n", lambda L: L.polygamma(-1, L.tensor([1.0]))),
           ],
           special_values=[
               ("polygamma1", lambda L, x: L.polygamma(1, x), [0.0, -2.5, 1e-3, 3.0, INF, NAN]),
               ("polygamma2", lambda L, x: L.polygamma(2, x), [0.0, -1.0, -2.5, 1e-3, 3.0, INF, NAN]),
           ],
           empty=[("n=1", lambda L, x: L.polygamma(1, x), ((0, 3), "float32"))]),
    OpInfo("mvlgamma", "special", lambda lib, x: lib.mvlgamma(x, 3),
           samples=[
               _s("mvlgamma", lambda L, x: L.mvlgamma(x, 3), [In((3, 4), 1.2, 5.0)], DB, grad_tol=TRIGAMMA_TOL),
               _s("multigammaln", lambda L, x: L.special.multigammaln(x, 2), [In((3, 4), 0.7, 5.0)]),
               _r("mvlgamma_p", lambda L: L.mvlgamma(L.tensor([3.0]), 0)),
           ]),
    OpInfo("logit", "special", lambda lib, x: lib.logit(x),
           samples=[
               _s("logit", lambda L, x: L.logit(x), [PROB], DB),
               _s("logit_eps_clamped", lambda L, x: x.logit(eps=0.2), [In((3, 4), values=lambda rng: np.array(
                   [[0.05, 0.15, 0.3, 0.5], [0.7, 0.85, 0.95, 0.25], [0.1, 0.9, 0.45, 0.55]]))], DB),
               _s("logit_int_input", lambda L, x: L.logit(x), [In((3,), 0, 2, dtype=np.int64)], fd=False),
               _s("special_logit", lambda L, x: L.special.logit(x, 1e-3), [PROB]),
           ],
           special_values=[
               ("logit", lambda L, x: L.logit(x), [0.0, 1.0, 0.5, -0.1, 1.2, NAN]),
               ("logit_eps", lambda L, x: L.logit(x, eps=0.1), [0.0, 1.0, 0.5, -0.1, 1.2, 0.05]),
           ],
           sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("sinc", "special", lambda lib, x: lib.sinc(x),
           samples=[_s("sinc", lambda L, x: L.sinc(x), [In((3, 4), -3.0, 3.0)], DB)],
           special_values=[("sinc", lambda L, x: L.sinc(x), [0.0, -0.0, 1.0, 0.5, INF, NAN, 1e-20])],
           sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("xlog1py", "special", lambda lib, x, y: lib.special.xlog1py(x, y),
           samples=[
               _s("xlog1py", lambda L, x, y: L.special.xlog1py(x, y), [In((3, 4)), In((3, 4), -0.9, 3.0)], DB),
               _s("xlog1py_broadcast_scalar", lambda L, x: L.special.xlog1py(x, 2.0), [In((3, 4))]),
               _s("xlog1py_scalar_first", lambda L, y: L.special.xlog1py(2.0, y), [In((3, 4), -0.9, 3.0)]),
               _r("xlog1py_shapes", lambda L: L.special.xlog1py(L.ones(2), L.ones(3))),
           ],
           special_values=[
               ("xlog1py_zero_x", lambda L, x: L.special.xlog1py(x * 0, x - 1), [0.0, 1.0, 3.0, NAN]),
               ("xlog1py_at_minus_one", lambda L, x: L.special.xlog1py(x, x * 0 - 1), [0.0, 1.0, -1.0]),
           ]),
    OpInfo("entr", "special", lambda lib, x: lib.special.entr(x),
           samples=[_s("entr", lambda L, x: L.special.entr(x), [In((3, 4), 0.1, 3.0)], DB)],
           special_values=[("entr", lambda L, x: L.special.entr(x), [0.0, -1.0, 2.0, NAN, INF])]),
    OpInfo("ndtr", "special", lambda lib, x: lib.special.ndtr(x),
           samples=[
               _s("ndtr", lambda L, x: L.special.ndtr(x), [In((3, 4), -4.0, 4.0)], DB),
               # (log_ndtr is a function of the namespace built on ndtr, not an operator of its own)
               _s("log_ndtr", lambda L, x: L.special.log_ndtr(x), [In((3, 4), -6.0, 4.0)]),
           ],
           special_values=[("ndtr_wide", lambda L, x: L.special.ndtr(x), [-40.0, -2.0, 0.0, 10.0, INF, -INF])]),
]
