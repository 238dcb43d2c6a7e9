"""Second derivatives of (nearly) every differentiable core operator.

For each row: the first-order gradient taken with ``create_graph=True`` and its derivative (with
respect to the inputs and to the upstream gradient) must equal PyTorch's, and a float64
``gradgradcheck`` against finite differences must pass (the oracle when PyTorch is absent).
"""
import numpy as np
import pytest

from oracle import HAS_TORCH, In, OpCase
from opinfo import SECOND_ORDER, samples
from _second_order import check_double_backward, gradgradcheck_case


def _spd(rng):  # well away from ties and zeros for ops with kinks
    return rng.permutation(np.linspace(0.3, 2.0, 6)).reshape(2, 3) * rng.choice([-1, 1], size=(2, 3))


def _spd_shifted(rng):  # never equal to a value of _spd: no ties between the two
    return _spd(rng) * 0.5 + 0.05


X = In((2, 3))
POS = In((2, 3), 0.5, 2.0)
UNIT = In((2, 3), -0.8, 0.8)
V3 = In((3,))

CASES = [
    # (arithmetic operators: tests/opinfo/family_arith.py)
    # Through float32: finite differences at eps=1e-6 cannot resolve it, so only PyTorch checks it.
    OpCase("cast_roundtrip", lambda lib, x: (x.float() * 2).double() * x, [X], fd=False),
    # selection and elementwise n-ary
    # (reductions: tests/opinfo/family_reduce.py)
    # (softmax, log_softmax: tests/opinfo/family_softmax.py)
    # movement and views
    OpCase("view", lambda lib, x: (x.exp()).view(6) * x.reshape(-1), [X]),
    OpCase("expand", lambda lib, x: x.expand(4, 2, 3).sin() * 2.0 + x.sum(), [X]),
    OpCase("repeat", lambda lib, x: x.repeat(2, 1).exp(), [X]),
    # indexing
    OpCase("getitem_slice", lambda lib, x: x[1:, ::2] ** 2, [X]),
    OpCase("getitem_int", lambda lib, x: x[0] * x[1], [X]),
    OpCase("getitem_adv_repeat", lambda lib, x: x[[0, 1, 0]] ** 2, [X]),
    OpCase("getitem_mask", lambda lib, x: x[x > 0] ** 2, [X]),
    OpCase("setitem", lambda lib, x, v: _setitem(lib, x, v), [X, In((3,))]),
    # more of the core's surface
    OpCase("float_power", lambda lib, x: lib.float_power(x, 2.5), [POS]),
    OpCase("expand_as", lambda lib, x, y: x.expand_as(y) * y * x.sum(), [In((1, 3)), X]),
    OpCase("rsub_fn", lambda lib, x, y: lib.rsub(x, y * y, alpha=2), [X, X]),
    OpCase("sub_alpha", lambda lib, x, y: lib.sub(x * x, y, alpha=3), [X, X]),
    OpCase("div_rounding_zero_grad", lambda lib, x: lib.div(x, 0.3, rounding_mode="floor") * x + x * x, [In((2, 3), 0.05, 0.25)]),
    # in-place ops recorded in the graph
    OpCase("inplace_mul", lambda lib, x: _inplace(lib, x), [X]),
    OpCase("inplace_generic", lambda lib, x: _inplace_generic(lib, x), [X]),
    OpCase("copy_", lambda lib, x, y: _copy(lib, x, y), [X, In((3,))]),
]


def _inplace_generic(lib, x):
    y = x * 1.0
    y.sin_()
    y.exp_()  # (an in-place op after sigmoid_ would invalidate sigmoid's saved output, as in torch)
    return y * x


def _copy(lib, x, y):
    z = x * x
    z[1].copy_(y.exp())
    return z * x


def _setitem(lib, x, v):
    y = x * 1.0
    y[0] = v * v
    return y * x


def _inplace(lib, x):
    y = x * x
    y.mul_(x)
    y.add_(x.exp())
    return y


# Operators already in the op table (tests/opinfo) bring their second-order rows from there.
CASES += samples(SECOND_ORDER)

if HAS_TORCH:
    @pytest.mark.parametrize("case", CASES, ids=str)
    def test_second_order_matches_torch(case):
        check_double_backward(case, tol=dict(rtol=1e-9, atol=1e-10))


@pytest.mark.parametrize("case", [c for c in CASES if c.fd], ids=str)
def test_gradgradcheck(case):
    assert gradgradcheck_case(case, atol=1e-6, rtol=1e-4)
