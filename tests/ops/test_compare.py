"""Comparisons, logical and bitwise operators: bool (or integer) results, no gradient, PyTorch's
promotion and broadcasting, and PyTorch's errors for dtypes that have no kernel."""
import operator

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _elementwise_parity import check_error, check_forward, check_like_torch
from _table_tests import torch_parity_test
from opinfo import PARITY, samples

if HAS_TORCH:  # the operators already in the op table (tests/opinfo/family_compare.py)
    test_op_table_matches_torch = torch_parity_test(samples(PARITY, "compare"))

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_]
IDS = [np.dtype(d).name for d in DTYPES]


def _values(dtype, shape=(2, 3), seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    a = rng.integers(0 if np.dtype(dtype).kind == "u" else -3, 4, size=shape)  # small ints: many ties
    return a.astype(dtype)


COMPARE = {
    "eq": lambda lib, a, b: a == b, "ne": lambda lib, a, b: a != b, "lt": lambda lib, a, b: a < b,
    "le": lambda lib, a, b: a <= b, "gt": lambda lib, a, b: a > b, "ge": lambda lib, a, b: a >= b,
    "eq_fn": lambda lib, a, b: lib.eq(a, b), "ne_method": lambda lib, a, b: a.ne(b),
    "lt_fn": lambda lib, a, b: lib.lt(a, b), "le_method": lambda lib, a, b: a.le(b),
    "gt_method": lambda lib, a, b: a.gt(b), "ge_fn": lambda lib, a, b: lib.ge(a, b),
    "greater": lambda lib, a, b: lib.greater(a, b), "less_equal": lambda lib, a, b: a.less_equal(b),
    "not_equal": lambda lib, a, b: lib.not_equal(a, b), "greater_equal": lambda lib, a, b: a.greater_equal(b),
}

LOGICAL = {
    "logical_and": lambda lib, a, b: lib.logical_and(a, b), "logical_or": lambda lib, a, b: a.logical_or(b),
    "logical_xor": lambda lib, a, b: lib.logical_xor(a, b), "logical_not": lambda lib, a, b: lib.logical_not(a),
    "logical_not_method": lambda lib, a, b: b.logical_not(),
}

BITWISE = {
    "and": lambda lib, a, b: a & b, "or": lambda lib, a, b: a | b, "xor": lambda lib, a, b: a ^ b,
    "invert": lambda lib, a, b: ~a, "lshift": lambda lib, a, b: a << b.abs() if b.dtype != lib.bool else a << b,
    "rshift": lambda lib, a, b: a >> b.abs() if b.dtype != lib.bool else a >> b,
    "bitwise_and": lambda lib, a, b: lib.bitwise_and(a, b), "bitwise_or": lambda lib, a, b: a.bitwise_or(b),
    "bitwise_xor": lambda lib, a, b: lib.bitwise_xor(a, b), "bitwise_not": lambda lib, a, b: a.bitwise_not(),
    "bitwise_left_shift": lambda lib, a, b: lib.bitwise_left_shift(a, 1),
    "bitwise_right_shift": lambda lib, a, b: a.bitwise_right_shift(1),
}


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
    @pytest.mark.parametrize("op", list(COMPARE) + list(LOGICAL) + list(BITWISE))
    def test_same_dtype_like_torch(op, dtype):
        # Results or, for float bitwise and bool shifts, PyTorch's NotImplementedError.
        fn = {**COMPARE, **LOGICAL, **BITWISE}[op]
        check_like_torch(fn, _values(dtype), _values(dtype, (3,), seed=1), what=op)

    PAIRS = [(np.int32, np.int64), (np.uint8, np.int8), (np.int16, np.float32), (np.bool_, np.int32),
             (np.float16, np.float64), (np.float32, np.bool_), (np.uint8, np.bool_), (np.int64, np.float64)]

    @pytest.mark.parametrize("da, db", PAIRS, ids=[f"{np.dtype(a).name}-{np.dtype(b).name}" for a, b in PAIRS])
    @pytest.mark.parametrize("op", list(COMPARE)[:6] + ["logical_and", "logical_xor", "and", "or", "xor"])
    def test_mixed_dtypes_like_torch(op, da, db):
        fn = {**COMPARE, **LOGICAL, **BITWISE}[op]
        check_like_torch(fn, _values(da), _values(db, (2, 1), seed=2), what=op)

    SCALARS = [0, 2, -1, 2.5, True, False, 300, np.float64(0.5), np.int64(2)]

    @pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("scalar", SCALARS, ids=repr)
    @pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "lshift_s", "rshift_s"])
    def test_scalar_operand_like_torch(op, scalar, dtype):
        fns = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
               "ge": operator.ge, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
               "lshift_s": operator.lshift, "rshift_s": operator.rshift}
        f = fns[op]
        if op.endswith("shift_s") and not isinstance(scalar, (bool, np.bool_)) and scalar < 0:
            return  # a negative shift count is undefined behaviour in PyTorch's C++ kernel
        check_like_torch(lambda lib, a: f(a, scalar), _values(dtype), what=f"{op} {scalar!r}")
        check_like_torch(lambda lib, a: f(scalar, a), _values(dtype), what=f"reflected {op} {scalar!r}")

    def test_nan_and_inf_comparisons_like_torch():
        a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], np.float32)
        b = np.array([np.nan, np.inf, np.inf, -0.0, 0.0, np.nan], np.float32)
        for fn in COMPARE.values():
            check_forward(fn, a, b)
        for fn in LOGICAL.values():
            check_forward(fn, a, b)

    @pytest.mark.parametrize("sa, sb", [((3, 1), (4,)), ((2, 1, 3), (4, 1)), ((), (2, 2)), ((1,), (3, 1))])
    def test_broadcasting_like_torch(sa, sb):
        a, b = _values(np.int32, sa), _values(np.int32, sb, seed=3)
        for fn in list(COMPARE.values())[:6] + [LOGICAL["logical_or"], BITWISE["xor"]]:
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


@pytest.mark.parametrize("fn, kernel, dtype", [
    (lambda lib: lib.tensor([1.0, 2.0]) & 1, "bitwise_and_cpu", "Float"),
    (lambda lib: lib.tensor([1, 2]) | lib.tensor([1.0, 2.0]), "bitwise_or_cpu", "Float"),
    (lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64) ^ lib.tensor([1, 2]), "bitwise_xor_cpu", "Double"),
    (lambda lib: lib.tensor([1, 2]) & 2.5, "bitwise_and_cpu", "Float"),
    (lambda lib: lib.tensor([1.0]) << 1, "lshift_cpu", "Float"),
    (lambda lib: lib.tensor([1.0]) >> 1, "rshift_cpu", "Float"),
    (lambda lib: lib.tensor([True]) << lib.tensor([True]), "lshift_cpu", "Bool"),
    (lambda lib: lib.bitwise_not(lib.tensor([1.0], dtype=lib.float16)), "bitwise_not_cpu", "Half"),
])
def test_bitwise_on_floats_not_implemented(fn, kernel, dtype):
    check_error(fn, NotImplementedError, f"\"{kernel}\" not implemented for '{dtype}'")


def test_invert_of_float_tensor():
    check_error(lambda lib: ~lib.tensor([1.0]), TypeError,
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors")


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(3) == lib.ones(4), lambda lib: lib.ones(3) < lib.ones(2, 4),
    lambda lib: lib.logical_and(lib.ones(3), lib.ones(4)), lambda lib: lib.tensor([1, 2, 3]) & lib.tensor([1, 2]),
])
def test_shape_mismatch(fn):
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(\d\) must match the size of tensor b \(\d\) "
                                           r"at non-singleton dimension \d"):
        fn(npgrad)
    if HAS_TORCH:
        from _elementwise_parity import check_error_like_torch
        check_error_like_torch(fn)


def test_isclose_allclose_equal():
    a = npgrad.tensor([1.0, 2.0, float("nan")])
    b = npgrad.tensor([1.0 + 1e-9, 2.1, float("nan")])
    assert npgrad.isclose(a, b).tolist() == [True, False, False]
    assert npgrad.isclose(a, b, equal_nan=True).tolist() == [True, False, True]
    assert not npgrad.allclose(a, b) and npgrad.allclose(a[:1], b[:1])
    assert npgrad.equal(a[:2], a[:2].clone()) and not npgrad.equal(a[:2], a[:1])
