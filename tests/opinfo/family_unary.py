"""Op table: elementwise functions of one tensor (npgrad/ops/unary.py): exp/log families, roots, trigonometric
and hyperbolic functions and their inverses, sigmoid, relu, abs/sign/square/reciprocal, rounding.

Each entry is made by ``_unary`` from: its table rows (a method ``M`` or function ``F`` call on a (3, 4) input
drawn inside the domain and away from kinks; every method row also runs on a 0-d tensor, where NumPy hands
back scalars that formulas must survive), its property spec (domain, kinks, NumPy reference), its
second-order rows, and the sweeps it joins (all of them unless told).
"""
import numpy as np

from oracle import In
from _inputs import POS, UNIT, X
from _record import (EMPTY_INTEGER_SWEEP, FLOAT16_SWEEP, INTEGER_SWEEP, KINKS_SWEEP, SECOND_ORDER, SPECIAL_SWEEP,
                     OpInfo, Sample, Unary)

M, F = "method", "fn"
ALL_SWEEPS = frozenset({INTEGER_SWEEP, FLOAT16_SWEEP, SPECIAL_SWEEP})
KINKED = ALL_SWEEPS | {KINKS_SWEEP}

IN_POS = dict(low=0.2, high=3.0)
IN_UNIT = dict(low=-0.9, high=0.9)
IN_NZ = dict(nonzero=True)


def _away_from_integers(shape, low=-3.0, high=3.0):
    """Values at least 0.1 away from any integer (and from any .5 for round), so floor/round are flat."""
    def make(rng):
        whole = rng.integers(int(low), int(high), size=shape)
        frac = rng.choice([0.15, 0.3, 0.7, 0.85], size=shape)
        return whole + frac
    return make


IN_FRAC = dict(values=_away_from_integers((3, 4)))


def method(name):
    """``x.name()``: the Tensor method form."""
    return lambda lib, x: getattr(x, name)()


def function(name):
    """``lib.name(x)``: the function form."""
    return lambda lib, x: getattr(lib, name)(x)


def rows(*specs):
    """Samples of (name, M or F, In kwargs) rows: each on a (3, 4) input, and each method row on a 0-d one."""
    out = [Sample(f"{n}_{form}", (method if form == M else function)(n), [In((3, 4), **spec)])
           for n, form, spec in specs]
    return out + [Sample(f"{n}_0d", method(n), [In((), **spec)]) for n, form, spec in specs
                  if form == M and "values" not in spec]


def second(name, inputs, fn=None):
    return Sample(name, fn or method(name), inputs, checks=frozenset({SECOND_ORDER}))


def _unary(name, ref, table, prop=None, second_order=(), extra=(), sweeps=ALL_SWEEPS, aliases=(), float16=None):
    """``prop``: Unary keyword arguments (low, high, away, fd); the float16 suite runs ``x.name()``."""
    return OpInfo(name, "unary", function(name), ref, samples=[*table, *extra, *second_order],
                  properties=[Unary(name, method(name), ref, **(prop or {}))],
                  float16=[(name, float16 or (lambda lib, x, y: getattr(x, name)()))], sweeps=sweeps,
                  aliases=aliases)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


INTEGERS_AWAY = dict(low=-4, high=4, away=(-3, -2, -1, 0, 1, 2, 3))
NZ23 = In((2, 3), nonzero=True)

OPS = [
    _unary("abs", np.abs, rows(("abs", M, IN_NZ), ("abs", F, IN_NZ), ("absolute", F, IN_NZ)), dict(away=(0,)),
           [second("abs", [NZ23], lambda lib, x: x.abs() * x)],
           [Sample("abs_operator", lambda lib, x: abs(x), [In((4,), nonzero=True)])],
           KINKED | {EMPTY_INTEGER_SWEEP}, aliases=["absolute"]),
    _unary("exp", np.exp, rows(("exp", M, {}), ("exp", F, {})), dict(low=-3, high=3), [second("exp", [X])]),
    _unary("exp2", np.exp2, rows(("exp2", M, {})), dict(low=-3, high=3), [second("exp2", [X])]),
    _unary("expm1", np.expm1, rows(("expm1", F, {})), dict(low=-3, high=3), [second("expm1", [X])]),
    _unary("log", np.log, rows(("log", M, IN_POS), ("log", F, IN_POS)), dict(low=0.1, high=4),
           [second("log", [POS])], [Sample("log_fn_0d", lambda lib, x: lib.log(x), [In((), 0.5, 2.0)])], KINKED),
    _unary("log2", np.log2, rows(("log2", M, IN_POS)), dict(low=0.1, high=4), [second("log2", [POS])]),
    _unary("log10", np.log10, rows(("log10", F, IN_POS)), dict(low=0.1, high=4), [second("log10", [POS])]),
    _unary("log1p", np.log1p, rows(("log1p", M, dict(low=-0.5, high=2.0))), dict(low=-0.9, high=3),
           [second("log1p", [POS])]),
    _unary("sqrt", np.sqrt, rows(("sqrt", M, IN_POS), ("sqrt", F, IN_POS)), dict(low=0.1, high=4),
           [second("sqrt", [POS])], [Sample("sqrt_3d", lambda lib, x: x.sqrt(), [In((2, 3, 2), 0.2, 3.0)])], KINKED),
    _unary("rsqrt", lambda x: 1 / np.sqrt(x), rows(("rsqrt", M, IN_POS)), dict(low=0.1, high=4),
           [second("rsqrt", [POS])],
           [Sample("rsqrt_of_square_plus", lambda lib, x: (x.square() + 1).rsqrt(), [In((4,))])], KINKED),
    _unary("square", np.square, rows(("square", M, {}), ("square", F, {})), None, [second("square", [X])],
           sweeps=ALL_SWEEPS | {EMPTY_INTEGER_SWEEP}),
    _unary("reciprocal", np.reciprocal, rows(("reciprocal", M, IN_NZ)), dict(away=(0,)),
           [second("reciprocal", [NZ23])],
           [Sample("reciprocal_fn", lambda lib, x: lib.reciprocal(x) * 2, [In((4,), nonzero=True)])], KINKED),
    _unary("sin", np.sin, rows(("sin", M, {})), dict(low=-3, high=3), [second("sin", [X])],
           [Sample("chain_unary", lambda lib, x: (x.sin() * x.exp()).tanh().sigmoid().log(), [In((2, 3))])]),
    _unary("cos", np.cos, rows(("cos", F, {})), dict(low=-3, high=3), [second("cos", [X])]),
    _unary("tan", np.tan, rows(("tan", M, dict(low=-1.2, high=1.2))), dict(low=-1.2, high=1.2),
           [second("tan", [UNIT])]),
    _unary("asin", np.arcsin, rows(("asin", M, IN_UNIT), ("arcsin", F, IN_UNIT)), dict(low=-0.9, high=0.9),
           [second("asin", [UNIT])], sweeps=KINKED, aliases=["arcsin"]),
    _unary("acos", np.arccos, rows(("acos", F, IN_UNIT), ("arccos", M, IN_UNIT)), dict(low=-0.9, high=0.9),
           [second("acos", [UNIT])], sweeps=KINKED, aliases=["arccos"]),
    _unary("atan", np.arctan, rows(("atan", M, {}), ("arctan", F, {})), None, [second("atan", [X])],
           aliases=["arctan"]),
    _unary("sinh", np.sinh, rows(("sinh", M, {})), None, [second("sinh", [X])]),
    _unary("cosh", np.cosh, rows(("cosh", F, {})), None, [second("cosh", [X])]),
    _unary("tanh", np.tanh, rows(("tanh", M, {}), ("tanh", F, {})), None, [second("tanh", [X])],
           [Sample("tanh_1elem", lambda lib, x: x.tanh(), [In((1,))])]),
    _unary("asinh", np.arcsinh, rows(("asinh", M, {}), ("arcsinh", F, {})), None, [second("asinh", [X])],
           aliases=["arcsinh"]),
    _unary("acosh", np.arccosh, rows(("acosh", F, dict(low=1.1, high=3.0)), ("arccosh", M, dict(low=1.1, high=3.0))),
           dict(low=1.1, high=4), [second("acosh", [In((2, 3), 1.2, 3.0)])], aliases=["arccosh"],
           float16=lambda lib, x, y: (x + 1).acosh()),
    _unary("atanh", np.arctanh, rows(("atanh", M, IN_UNIT), ("arctanh", F, IN_UNIT)), dict(low=-0.9, high=0.9),
           [second("atanh", [UNIT])], sweeps=KINKED, aliases=["arctanh"]),
    _unary("sigmoid", _sigmoid, rows(("sigmoid", M, {}), ("sigmoid", F, dict(low=-30.0, high=30.0))),
           dict(low=-6, high=6), [second("sigmoid", [X])]),
    _unary("relu", lambda x: np.maximum(x, 0), rows(("relu", M, IN_NZ), ("relu", F, IN_NZ)), dict(away=(0,)),
           [second("relu", [NZ23], lambda lib, x: x.relu() * x)],
           [Sample("softplus_by_hand", lambda lib, x: (1 + (-x.abs()).exp()).log() + x.relu(),
                   [In((5,), nonzero=True)])], KINKED),
    _unary("sign", lambda x: np.where(np.isnan(x), 0, np.sign(x)), rows(("sign", M, IN_NZ), ("sign", F, IN_NZ)),
           dict(away=(0,), fd=False), sweeps=KINKED | {EMPTY_INTEGER_SWEEP}),
    _unary("floor", np.floor, rows(("floor", M, IN_FRAC)), dict(INTEGERS_AWAY, fd=False),
           [second("floor_round_zero", [In((2, 3), 0.1, 0.4)],
                   lambda lib, x: x.floor() * x + x.round() * x + x.sign() * x)],
           [Sample("floor_0d", lambda lib, x: x.floor(), [In((), values=lambda r: np.array(1.3))])], KINKED),
    _unary("ceil", np.ceil, rows(("ceil", F, IN_FRAC)), dict(INTEGERS_AWAY, fd=False), sweeps=KINKED),
    _unary("trunc", np.trunc, rows(("trunc", F, IN_FRAC)), dict(INTEGERS_AWAY, fd=False), sweeps=KINKED),
    _unary("round", np.round, rows(("round", M, IN_FRAC)),
           dict(low=-4, high=4, away=(-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5), fd=False),
           extra=[Sample("round_decimals", lambda lib, x: x.round(decimals=1) * x,
                         [In((3, 4), values=lambda r: r.uniform(-3, 3, (3, 4)).round(3) + 0.0004)])], sweeps=KINKED),
    _unary("frac", lambda x: x - np.trunc(x), rows(("frac", M, IN_FRAC)), INTEGERS_AWAY,
           [second("frac", [In((2, 3), 0.1, 0.9)], lambda lib, x: x.frac() * x)], sweeps=KINKED),
]
