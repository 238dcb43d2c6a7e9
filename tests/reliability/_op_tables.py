"""Operator tables for the property-based tests: each entry runs in npgrad and PyTorch (``fn(lib, ...)``)
and has a NumPy reference (``ref``) for the machine without PyTorch.

``low``/``high`` bound the values drawn (the operator's domain, kept where it is well conditioned),
``away`` lists kinks or discontinuities that values stay 0.05 away from, and ``fd`` says whether
finite differences are meaningful (False for piecewise-constant operators, whose gradient is zero).

The rows here are the operators not yet moved into the op table (tests/opinfo); each list ends with the
specs of those already there.
"""
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


UNARY = _in_order(properties(Unary), ["erf", "erfc", "pow2", "pow3", "pow_half", "pow_neg", "rpow", "mul_scalar",
                                      "div_scalar"])


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


REDUCTIONS = _in_order(properties(Reduction), ["sum", "mean", "nansum", "prod", "amax", "amin", "max", "min", "argmax", "var", "std_c0",
                            "var_mean", "logsumexp", "norm2", "norm1", "norm3", "norm_inf", "cumsum", "cumprod",
                            "softmax", "log_softmax", "all", "count_nonzero"])
