"""Comparisons, logical and bitwise operators: bool (or integer) results, no gradient, PyTorch's
promotion and broadcasting, and PyTorch's errors for dtypes that have no kernel."""
import operator

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _elementwise_parity import check_forward, check_like_torch
from _table_tests import expected_errors_test, torch_parity_test
from opinfo import OP_DB, PARITY, call_forms, raised, samples

# The rows live in the op table: tests/opinfo/family_compare.py.
if HAS_TORCH:
    test_op_table_matches_torch = torch_parity_test(samples(PARITY, "compare"))
test_expected_errors = expected_errors_test(raised("compare"))

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_]
IDS = [np.dtype(d).name for d in DTYPES]


def _values(dtype, shape=(2, 3), seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    a = rng.integers(0 if np.dtype(dtype).kind == "u" else -3, 4, size=shape)  # small ints: many ties
    return a.astype(dtype)


# The dtype sweeps' call forms fn(lib, a, b), by id: comparisons and logical operators, then bitwise ones.
FORMS = dict(call_forms("dtype_forms", "compare"))
BITWISE_OPS = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
               "bitwise_right_shift"}
NOT_BITWISE = dict(form for op in OP_DB if op.family == "compare" and op.name not in BITWISE_OPS
                   for form in op.call_forms("dtype_forms"))
OPERATORS = ["eq", "ne", "lt", "le", "gt", "ge"]  # the six comparison operators


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
    @pytest.mark.parametrize("op", list(FORMS))
    def test_same_dtype_like_torch(op, dtype):
        # Results or, for float bitwise and bool shifts, PyTorch's NotImplementedError.
        check_like_torch(FORMS[op], _values(dtype), _values(dtype, (3,), seed=1), what=op)

    PAIRS = [(np.int32, np.int64), (np.uint8, np.int8), (np.int16, np.float32), (np.bool_, np.int32),
             (np.float16, np.float64), (np.float32, np.bool_), (np.uint8, np.bool_), (np.int64, np.float64)]

    @pytest.mark.parametrize("da, db", PAIRS, ids=[f"{np.dtype(a).name}-{np.dtype(b).name}" for a, b in PAIRS])
    @pytest.mark.parametrize("op", OPERATORS + ["logical_and", "logical_xor", "and", "or", "xor"])
    def test_mixed_dtypes_like_torch(op, da, db):
        check_like_torch(FORMS[op], _values(da), _values(db, (2, 1), seed=2), what=op)

    SCALARS = [0, 2, -1, 2.5, True, False, 300, np.float64(0.5), np.int64(2)]

    @pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("scalar", SCALARS, ids=repr)
    @pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "lshift_s", "rshift_s"])
    def test_scalar_operand_like_torch(op, scalar, dtype):
        fns = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
               "ge": operator.ge, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
               "lshift_s": operator.lshift, "rshift_s": operator.rshift}
        f = fns[op]
        # (a negative shift count included: PyTorch defines it, 0 or the sign's fill, as for counts past the width)
        check_like_torch(lambda lib, a: f(a, scalar), _values(dtype), what=f"{op} {scalar!r}")
        check_like_torch(lambda lib, a: f(scalar, a), _values(dtype), what=f"reflected {op} {scalar!r}")

    def test_nan_and_inf_comparisons_like_torch():
        a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], np.float32)
        b = np.array([np.nan, np.inf, np.inf, -0.0, 0.0, np.nan], np.float32)
        for fn in NOT_BITWISE.values():
            check_forward(fn, a, b)

    @pytest.mark.parametrize("sa, sb", [((3, 1), (4,)), ((2, 1, 3), (4, 1)), ((), (2, 2)), ((1,), (3, 1))])
    def test_broadcasting_like_torch(sa, sb):
        a, b = _values(np.int32, sa), _values(np.int32, sb, seed=3)
        for fn in [FORMS[n] for n in OPERATORS + ["logical_or", "xor"]]:
            check_forward(fn, a, b)

    def test_unsigned_against_negative_and_out_of_range_scalars():
        # The scalar is compared as a number, not wrapped into the tensor's type.
        u = np.array([0, 1, 255], np.uint8)
        for fn in (lambda lib, t: t > -1, lambda lib, t: t == 256, lambda lib, t: t < 300, lambda lib, t: t >= 255.5):
            check_forward(fn, u)


def test_results_are_bool_and_outside_the_graph():
    x = npgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for r in (x > 1, x == x, npgrad.logical_not(x), npgrad.logical_and(x, x), x.isnan()):
        assert r.dtype is npgrad.bool and not r.requires_grad and r.grad_fn is None


def test_eq_and_ne_with_none_or_strings():
    # PyTorch answers == None with False and != None with True instead of failing.
    x = npgrad.tensor([1.0, 2.0])
    assert (x == None) is False  # noqa: E711
    assert (x != None) is True  # noqa: E711
    if HAS_TORCH:
        t = torch.tensor([1.0, 2.0])
        assert (t == None) is False and (t != None) is True  # noqa: E711


def test_tensors_stay_hashable_by_identity():
    a, b = npgrad.tensor([1.0]), npgrad.tensor([1.0])
    assert len({a, b, a}) == 2
    assert {a: 1}[a] == 1


def test_isclose_allclose_equal():
    a = npgrad.tensor([1.0, 2.0, float("nan")])
    b = npgrad.tensor([1.0 + 1e-9, 2.1, float("nan")])
    assert npgrad.isclose(a, b).tolist() == [True, False, False]
    assert npgrad.isclose(a, b, equal_nan=True).tolist() == [True, False, True]
    assert not npgrad.allclose(a, b) and npgrad.allclose(a[:1], b[:1])
    assert npgrad.equal(a[:2], a[:2].clone()) and not npgrad.equal(a[:2], a[:1])
