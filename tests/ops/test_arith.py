"""Arithmetic operators against PyTorch and finite differences (one row per case)."""
import numpy as np
import pytest

from oracle import HAS_TORCH, In, OpCase, check_against_torch, check_finite_differences

CASES = [
    OpCase("add", lambda lib, x, y: x + y, [In((3, 4)), In((3, 4))]),
    OpCase("add_broadcast", lambda lib, x, y: x + y, [In((2, 3, 4)), In((3, 1))]),
    OpCase("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), [In((3,)), In((3,))]),
    OpCase("radd_scalar", lambda lib, x: 2.5 + x, [In((4,))]),
    OpCase("sub_broadcast", lambda lib, x, y: x - y, [In((4, 1)), In((3,))]),
    OpCase("rsub_scalar", lambda lib, x: 2 - x, [In((4,))]),
    OpCase("mul_broadcast", lambda lib, x, y: x * y, [In((2, 1, 4)), In((3, 1))]),
    OpCase("mul_0d", lambda lib, x, y: x * y, [In((3, 2)), In(())]),
    OpCase("div", lambda lib, x, y: x / y, [In((3, 4)), In((4,), nonzero=True)]),
    OpCase("rdiv_scalar", lambda lib, x: 1.5 / x, [In((4,), nonzero=True)]),
    OpCase("neg", lambda lib, x: -x, [In((2, 3))]),
    OpCase("pow_scalar", lambda lib, x: x ** 3, [In((5,))]),
    OpCase("pow_fractional", lambda lib, x: x ** 1.5, [In((5,), 0.5, 2.0)]),
    OpCase("pow_tensor", lambda lib, x, y: x ** y, [In((3, 4), 0.5, 2.0), In((4,))]),
    OpCase("rpow", lambda lib, x: 2 ** x, [In((5,))]),
    OpCase("remainder", lambda lib, x, y: x % y, [In((6,), -5, 5), In((6,), 0.5, 2.0)]),
    OpCase("fmod", lambda lib, x, y: lib.fmod(x, y), [In((6,), -5, 5), In((6,), 0.5, 2.0)]),
]


if HAS_TORCH:  # without PyTorch the finite-difference test below is the oracle
    @pytest.mark.parametrize("case", CASES, ids=str)
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test_matches_torch(case, dtype):
        check_against_torch(case, dtype)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_finite_differences(case):
    check_finite_differences(case)
