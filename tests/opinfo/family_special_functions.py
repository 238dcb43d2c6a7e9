"""Op table: the Bessel, Airy, orthogonal-polynomial, incomplete-gamma, zeta, erfcx and ndtri functions of
torch.special (npgrad/ops/special_bessel.py, special_poly.py, special_gamma.py), run by
tests/ops/test_special_functions.py.

PyTorch's float64 bessel_j0/j1/y0/y1 are accurate to ~1e-14 below x = 2 and beyond 25 only (abs. errors up
to 9e-7 in between, where npgrad's agree with mpmath to 4e-16), and its airy_ai to ~3e-6 on [-5, -2]: the
parity rows stay where PyTorch is accurate; tests/ops/test_special_functions.py checks the rest against
reference values and identities. The functions PyTorch gives no derivative (the Bessel functions other than
i0/i0e/i1/i1e, airy_ai, the polynomials) have rows without gradients; that their results do not require
grad is checked there too."""
import numpy as np

from oracle import In
from _record import DOUBLE_BACKWARD, FD, FLOAT32_RESULT_SWEEP, PARITY, OpInfo, Sample
from _record import raises_like_torch as _r

INF, NAN = np.inf, np.nan
S = frozenset({PARITY, FD})
DB = S | {DOUBLE_BACKWARD}
VALUE = frozenset({PARITY})
FAMILY = "special_functions"


def _s(name, fn, inputs, checks=S, **kw):
    return Sample(name, fn, inputs, checks=checks, **kw)


def _const(low, high, shape=(3, 4)):
    """An input without gradient (a non-differentiable argument)."""
    return In(shape, low, high, grad=False)


def _degrees(high, shape=(3, 4)):
    return In(shape, grad=False, values=lambda rng: rng.integers(0, high, size=shape).astype(np.float64))


WIDE = In((3, 4), -6.0, 6.0)
UNIT_P = In((3, 4), 0.02, 0.98)


def _no_grad(name, ranges, extra=()):
    """An entry for a function without a derivative: parity over value ranges (no gradient rows)."""
    samples = [_s(f"{name}_{i}", (lambda L, x, n=name: getattr(L.special, n)(x)), [_const(lo, hi)], VALUE)
               for i, (lo, hi) in enumerate(ranges)]
    return OpInfo(name, FAMILY, lambda lib, x: getattr(lib.special, name)(x), samples=samples + list(extra))


def _poly(name, x_range=(-1.0, 1.0), high=12):
    lo, hi = x_range
    f = (lambda L, x, n: getattr(L.special, name)(x, n))
    return OpInfo(name, FAMILY, f, samples=[
        _s(name, f, [_const(lo, hi), _degrees(high)], VALUE),
        _s(f"{name}_int_n", lambda L, x: getattr(L.special, name)(x, 5), [_const(lo, hi)], VALUE),
        _s(f"{name}_scalar_x", lambda L, n: getattr(L.special, name)(0.375, n), [_degrees(high)], VALUE),
        _s(f"{name}_integer_tensors", lambda L, x, n: getattr(L.special, name)(x, n),
           [In((3, 4), -3, 4, dtype=np.int64, grad=False), In((3, 4), 0, 6, dtype=np.int64, grad=False)], VALUE),
        _s(f"{name}_broadcast", f, [_const(lo, hi, (3, 1)), _degrees(high, (4,))], VALUE),
        _s(f"{name}_outside", f, [_const(-3.0, 3.0), _degrees(7)], VALUE),
        _r(f"{name}_two_numbers", lambda L: getattr(L.special, name)(0.5, 3)),
        _r(f"{name}_float16", lambda L: getattr(L.special, name)(L.ones(2, dtype=L.float16), 2)),
    ])


OPS = [
    OpInfo("i0", FAMILY, lambda lib, x: lib.i0(x), samples=[
        _s("i0", lambda L, x: L.i0(x), [WIDE], DB),
        _s("i0_method", lambda L, x: x.i0(), [In((3, 4), -30.0, 30.0)]),
        _s("special_i0", lambda L, x: L.special.i0(x), [In((3, 4), -1.0, 1.0)]),
    ], special_values=[("i0", lambda L, x: L.i0(x), [0.0, -0.0, 1e-300, 0.5, -30.0, 700.0, NAN, INF, -INF])],
       sweeps=frozenset({FLOAT32_RESULT_SWEEP})),
    OpInfo("i0e", FAMILY, lambda lib, x: lib.special.i0e(x), samples=[
        _s("i0e", lambda L, x: L.special.i0e(x), [WIDE], DB),
        _s("i0e_large", lambda L, x: L.special.i0e(x), [In((3, 4), 15.0, 400.0)]),
    ], special_values=[("i0e", lambda L, x: L.special.i0e(x), [0.0, 1e-300, 0.5, -3.0, 50.0, NAN, INF, -INF])]),
    OpInfo("i1", FAMILY, lambda lib, x: lib.special.i1(x), samples=[
        _s("i1", lambda L, x: L.special.i1(x), [WIDE], DB),
        _s("i1_large", lambda L, x: L.special.i1(x), [In((3, 4), -40.0, 40.0)]),
    ], special_values=[("i1", lambda L, x: L.special.i1(x), [0.0, -0.0, 1e-300, 0.5, -30.0, 700.0, NAN, INF, -INF])]),
    OpInfo("i1e", FAMILY, lambda lib, x: lib.special.i1e(x), samples=[
        _s("i1e", lambda L, x: L.special.i1e(x), [WIDE], DB),
        _s("i1e_large", lambda L, x: L.special.i1e(x), [In((3, 4), -400.0, 400.0)]),
    ], special_values=[("i1e", lambda L, x: L.special.i1e(x), [0.0, 1e-300, 0.5, -3.0, 50.0, NAN, INF, -INF])]),
    _no_grad("modified_bessel_i0", [(-30.0, 30.0), (100.0, 700.0)]),
    _no_grad("modified_bessel_i1", [(-30.0, 30.0), (-700.0, -100.0)]),
    _no_grad("modified_bessel_k0", [(0.01, 2.0), (2.0, 30.0), (30.0, 700.0)]),
    _no_grad("modified_bessel_k1", [(0.01, 2.0), (2.0, 30.0), (30.0, 700.0)]),
    _no_grad("scaled_modified_bessel_k0", [(0.01, 2.0), (2.0, 30.0), (30.0, 1e5)]),
    _no_grad("scaled_modified_bessel_k1", [(0.01, 2.0), (2.0, 30.0), (30.0, 1e5)]),
    _no_grad("bessel_j0", [(-2.0, 2.0), (25.0, 300.0)]),
    _no_grad("bessel_j1", [(-2.0, 2.0), (-300.0, -25.0)]),
    _no_grad("bessel_y0", [(0.01, 2.0), (25.0, 300.0)]),
    _no_grad("bessel_y1", [(0.01, 2.0), (25.0, 300.0)]),
    _no_grad("spherical_bessel_j0", [(-1.0, 1.0), (-100.0, 100.0)]),
    _no_grad("airy_ai", [(-2.0, 2.0), (2.0, 20.0), (-25.0, -5.0)]),
    _poly("chebyshev_polynomial_t"),
    _poly("chebyshev_polynomial_u"),
    _poly("chebyshev_polynomial_v"),
    _poly("chebyshev_polynomial_w"),
    _poly("shifted_chebyshev_polynomial_t", (0.0, 1.0)),
    _poly("shifted_chebyshev_polynomial_u", (0.0, 1.0)),
    _poly("shifted_chebyshev_polynomial_v", (0.0, 1.0)),
    _poly("shifted_chebyshev_polynomial_w", (0.0, 1.0)),
    _poly("hermite_polynomial_h", (-2.0, 2.0)),
    _poly("hermite_polynomial_he", (-2.0, 2.0)),
    _poly("laguerre_polynomial_l", (0.0, 8.0)),
    _poly("legendre_polynomial_p"),
    OpInfo("erfcx", FAMILY, lambda lib, x: lib.special.erfcx(x), samples=[
        _s("erfcx", lambda L, x: L.special.erfcx(x), [In((3, 4), -3.0, 3.0)], DB),
        _s("erfcx_large", lambda L, x: L.special.erfcx(x), [In((3, 4), 2.0, 1e4)]),
        _s("erfcx_negative", lambda L, x: L.special.erfcx(x), [In((3, 4), -9.0, -1.0)]),
        _r("erfcx_float16", lambda L: L.special.erfcx(L.ones(2, dtype=L.float16))),
    ], special_values=[("erfcx", lambda L, x: L.special.erfcx(x), [0.0, -0.0, 1e-300, 2.0, -30.0, 1e300, NAN, INF, -INF])]),
    OpInfo("ndtri", FAMILY, lambda lib, x: lib.special.ndtri(x), samples=[
        _s("ndtri", lambda L, x: L.special.ndtri(x), [UNIT_P], DB),
        _s("ndtri_tails", lambda L, x: L.special.ndtri(x), [In((6,), values=lambda rng: np.array(
            [1e-300, 1e-20, 1e-5, 1 - 1e-5, 1 - 1e-12, 0.5]), grad=False)]),
    ], special_values=[("ndtri", lambda L, x: L.special.ndtri(x), [0.0, -0.0, 1.0, 1.5, -0.5, 0.5, 1e-300, NAN])]),
    OpInfo("igamma", FAMILY, lambda lib, a, x: lib.igamma(a, x), samples=[
        _s("igamma", lambda L, a, x: L.igamma(a, x), [_const(0.5, 6.0), In((3, 4), 0.1, 8.0)], DB),
        # (a < 20: beyond, PyTorch's asymptotic expansion is accurate to ~2e-9 only; test_incomplete_gamma_closed_forms
        # checks npgrad's there)
        _s("gammainc", lambda L, a, x: L.special.gammainc(a, x), [_const(5.0, 19.0), In((3, 4), 1.0, 30.0)]),
        _s("igamma_method_broadcast", lambda L, a, x: a.igamma(x), [_const(0.01, 1.0, (3, 1)), In((4,), 0.01, 3.0)]),
        _r("igamma_integer", lambda L: L.igamma(L.tensor([1, 2]), L.tensor([1, 2]))),
        _r("gammainc_number", lambda L: L.special.gammainc(L.tensor([1.0]), 2.0)),
        _r("igamma_grad_of_a", lambda L: L.igamma(L.tensor([1.5], requires_grad=True), L.tensor([1.0])).sum().backward()),
    ], special_values=[("igamma_x", lambda L, x: L.igamma(x.detach() * 0 + 1.5, x), [0.0, 1e-300, 2.0, 1e300, NAN, INF])]),
    OpInfo("igammac", FAMILY, lambda lib, a, x: lib.igammac(a, x), samples=[
        _s("igammac", lambda L, a, x: L.igammac(a, x), [_const(0.5, 6.0), In((3, 4), 0.1, 8.0)], DB),
        _s("gammaincc", lambda L, a, x: L.special.gammaincc(a, x), [_const(5.0, 19.0), In((3, 4), 1.0, 30.0)]),
        _s("igammac_method", lambda L, a, x: a.igammac(x), [_const(0.01, 1.0), In((3, 4), 0.01, 3.0)]),
        _r("gammaincc_number", lambda L: L.special.gammaincc(1.0, L.tensor([2.0]))),
        _r("igammac_grad_of_a", lambda L: L.igammac(L.tensor([1.5], requires_grad=True), L.tensor([1.0])).sum().backward()),
    ], special_values=[("igammac_x", lambda L, x: L.igammac(x.detach() * 0 + 1.5, x), [0.0, 1e-300, 2.0, 1e300, NAN, INF])]),
    OpInfo("zeta", FAMILY, lambda lib, s, q: lib.special.zeta(s, q), samples=[
        _s("zeta", lambda L, s, q: L.special.zeta(s, q), [_const(1.5, 6.0), In((3, 4), 0.2, 6.0)], DB),
        _s("zeta_wide", lambda L, s, q: L.special.zeta(s, q), [_const(1.01, 60.0), In((3, 4), 0.01, 1e3)]),
        _s("zeta_number_s", lambda L, q: L.special.zeta(3.0, q), [In((3, 4), 0.2, 6.0)]),
        _s("zeta_number_q", lambda L, s: L.special.zeta(s, 2.5), [_const(1.5, 6.0)], VALUE),
        _s("zeta_integer_tensors", lambda L, s, q: L.special.zeta(s, q),
           [In((3, 4), 2, 6, dtype=np.int64, grad=False), In((3, 4), 1, 6, dtype=np.int64, grad=False)], VALUE),
        _r("zeta_two_numbers", lambda L: L.special.zeta(2.0, 3.0)),
        _r("zeta_grad_of_s", lambda L: L.special.zeta(L.tensor([2.0], requires_grad=True), L.tensor([1.0])).sum().backward()),
        _r("zeta_float16", lambda L: L.special.zeta(L.ones(2, dtype=L.float16) * 2, L.ones(2, dtype=L.float16))),
    ], special_values=[("zeta_q", lambda L, q: L.special.zeta(q.detach() * 0 + 3.0, q), [0.0, -1.0, -2.5, 1e-300, 0.5, 1e300, NAN, INF])]),
]
