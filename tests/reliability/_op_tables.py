"""Operator tables for the property-based tests: each entry runs in npgrad and PyTorch (``fn(lib, ...)``)
and has a NumPy reference (``ref``) for the machine without PyTorch.

``low``/``high`` bound the values drawn (the operator's domain, kept where it is well conditioned),
``away`` lists kinks or discontinuities that values stay 0.05 away from, and ``fd`` says whether
finite differences are meaningful (False for piecewise-constant operators, whose gradient is zero).

The rows here are the operators not yet moved into the op table (tests/opinfo); each list ends with the
specs of those already there.
"""
import math

import numpy as np

import npgrad
import npgrad.nn  # noqa: F401  (nn.functional's ops are in the tables too)
from opinfo import Binary, Reduction, Unary, promotion, properties


def _in_order(specs, first):
    """``specs`` with the names in ``first`` leading, in that order: the fuzz suites draw an operator by its
    index (st.sampled_from), so this keeps their examples what they were before those rows moved into the
    op table."""
    named = {s.name: s for s in specs}
    return [named[n] for n in first] + [s for s in specs if s.name not in first]


def _m(name):
    return lambda lib, x: getattr(x, name)()


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


UNARY = [
    Unary("erf", _m("erf"), _erf),
    Unary("erfc", _m("erfc"), _erfc),
] + _in_order(properties(Unary), ["pow2", "pow3", "pow_half", "pow_neg", "rpow", "mul_scalar", "div_scalar"])


BINARY = _in_order(properties(Binary), ["add", "sub", "mul", "div", "pow", "remainder", "fmod", "add_alpha", "rsub"])

# Operators applied to every dtype pair to check type promotion and integer semantics (forward only), with
# where PyTorch accepts a Python scalar operand: "both" sides (operators), "second" only, or "none".
PROMOTION = [
    ("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), "second"),
    ("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), "second"),
    ("add_fn", lambda lib, a, b: lib.add(a, b), "second"),
    ("mul_fn", lambda lib, a, b: lib.mul(a, b), "second"),
] + promotion()
# the rows that moved into the op table keep the places they had here (a stable sort: the rest stay in order)
_PROMOTION_ORDER = ["eq", "lt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "div_trunc", "div_floor", "add_fn",
                    "mul_fn", "logical_and"]
PROMOTION.sort(key=lambda p: _PROMOTION_ORDER.index(p[0]) if p[0] in _PROMOTION_ORDER else len(_PROMOTION_ORDER))


def _kw(dim, keepdim):
    return {} if dim is None else {"dim": dim, "keepdim": keepdim}


def _np_reduce(np_fn):
    return lambda x, dim, keepdim: np_fn(x, axis=dim, keepdims=keepdim if dim is not None else False)


def _log_softmax(x, dim):
    m = np.max(x, axis=dim, keepdims=True) if x.size else 0
    z = x - m
    return z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True))


def _logsumexp(x, dim, keepdim):
    m = np.max(x, axis=dim, keepdims=True) if x.size else np.zeros((1,) * x.ndim)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True)) + m
    return out if keepdim or dim is None and x.ndim == 0 else np.squeeze(out, axis=dim)


def _norm(p):
    def ref(x, dim, keepdim):
        kd = keepdim if dim is not None else False
        a = np.abs(x)
        if p == float("inf"):
            return np.max(a, axis=dim, keepdims=kd)
        return np.sum(a ** p, axis=dim, keepdims=kd) ** (1 / p)
    return ref


REDUCTIONS = [
    Reduction("sum", lambda lib, x, d, k: x.sum(**_kw(d, k)), _np_reduce(np.sum)),
    Reduction("mean", lambda lib, x, d, k: x.mean(**_kw(d, k)), _np_reduce(np.mean)),
    Reduction("nansum", lambda lib, x, d, k: lib.nansum(x, **_kw(d, k)), _np_reduce(np.nansum)),
    Reduction("prod", lambda lib, x, d, k: x.prod(**_kw(d, k)), _np_reduce(np.prod), dims="int", special_grads=False),
    Reduction("amax", lambda lib, x, d, k: x.amax(**_kw(d, k)) if d is not None else x.amax(),
              _np_reduce(np.max)),
    Reduction("amin", lambda lib, x, d, k: x.amin(**_kw(d, k)) if d is not None else x.amin(),
              _np_reduce(np.min)),
    Reduction("max", lambda lib, x, d, k: x.max(**_kw(d, k)), lambda x, d, k: _np_reduce(np.max)(x, d, k),
              dims="int"),
    Reduction("min", lambda lib, x, d, k: x.min(**_kw(d, k)), lambda x, d, k: _np_reduce(np.min)(x, d, k),
              dims="int"),
    Reduction("argmax", lambda lib, x, d, k: x.argmax(**_kw(d, k)),
              lambda x, d, k: _np_reduce(np.argmax)(x, d, k) if d is not None else np.argmax(x), dims="int"),
    Reduction("var", lambda lib, x, d, k: x.var(**_kw(d, k)),
              lambda x, d, k: np.var(x, axis=d, ddof=1, keepdims=k if d is not None else False), special_huge=False),
    Reduction("std_c0", lambda lib, x, d, k: x.std(correction=0, **_kw(d, k)), _np_reduce(np.std),
              special_huge=False),
    Reduction("var_mean", lambda lib, x, d, k: lib.var_mean(x, correction=0, **_kw(d, k)), _np_reduce(np.var),
              special_grads=False),
    Reduction("logsumexp", lambda lib, x, d, k: lib.logsumexp(x, d, keepdim=k), _logsumexp, dims="required"),
    Reduction("norm2", lambda lib, x, d, k: x.norm(2, **_kw(d, k)), _norm(2), low=0.3, high=2.0),
    Reduction("norm1", lambda lib, x, d, k: x.norm(1, **_kw(d, k)), _norm(1), low=0.3, high=2.0),
    Reduction("norm3", lambda lib, x, d, k: x.norm(3, **_kw(d, k)), _norm(3), low=0.3, high=2.0),
    Reduction("norm_inf", lambda lib, x, d, k: x.norm(float("inf"), **_kw(d, k)), _norm(float("inf")),
              low=0.3, high=2.0),
    Reduction("cumsum", lambda lib, x, d, k: x.cumsum(d), lambda x, d, k: np.cumsum(x, axis=d) if x.ndim else x,
              dims="required"),
    Reduction("cumprod", lambda lib, x, d, k: x.cumprod(d), lambda x, d, k: np.cumprod(x, axis=d) if x.ndim else x,
              dims="required", special_grads=False),
    Reduction("softmax", lambda lib, x, d, k: x.softmax(d),
              lambda x, d, k: np.exp(_log_softmax(x, d if x.ndim else None)), dims="required"),
    Reduction("log_softmax", lambda lib, x, d, k: x.log_softmax(d),
              lambda x, d, k: _log_softmax(x, d if x.ndim else None), dims="required"),
    Reduction("all", lambda lib, x, d, k: (x > 0).all(**_kw(d, k)), _np_reduce(lambda a, axis, keepdims:
              np.all(a > 0, axis=axis, keepdims=keepdims)), dims="int", fd=False),
    Reduction("count_nonzero", lambda lib, x, d, k: lib.count_nonzero(x > 0, dim=d),
              lambda x, d, k: np.count_nonzero(x > 0, axis=d), fd=False),
]
