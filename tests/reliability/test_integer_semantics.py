"""Integer overflow and division by zero follow PyTorch: two's-complement wraparound in + - * and in
sums (whose default result type is int64, as in PyTorch), RuntimeError("ZeroDivisionError") for integer
// % fmod and rounded division by zero, IEEE inf/NaN for float division by zero.

The expected values come from Python's exact integer arithmetic reduced modulo 2**bits, so the tests
mean something without PyTorch; with PyTorch installed each case is also compared with it.
"""
import operator

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

INTS = ["uint8", "int8", "int16", "int32", "int64"]


def wrap(value, dtype):
    """``value`` (a Python int) as the two's-complement ``dtype`` stores it."""
    info = np.iinfo(dtype)
    span = 1 << info.bits
    v = (value - info.min) % span + info.min
    return v


def extremes(dtype):
    info = np.iinfo(dtype)
    vals = [info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max]
    return np.array([v for v in vals if info.min <= v <= info.max], dtype=dtype)


def _lib_values(lib, fn, *arrays):
    out = fn(lib, *[lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    return out


def _check(fn, expected, *arrays):
    out = _lib_values(npgrad, fn, *arrays)
    assert str(out.dtype).split(".")[-1] == np.asarray(expected).dtype.name
    np.testing.assert_array_equal(out.numpy(), expected)
    if HAS_TORCH:
        t = _lib_values(torch, fn, *arrays)
        assert str(t.dtype).split(".")[-1] == np.asarray(expected).dtype.name, "the expectation is not PyTorch's"
        np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul], ids=["add", "sub", "mul"])
def test_elementwise_wraparound(dtype, op):
    x = extremes(dtype)
    a, b = np.repeat(x, len(x)), np.tile(x, len(x))  # every pair of extreme values
    expected = np.array([wrap(op(int(p), int(q)), dtype) for p, q in zip(a, b)], dtype=dtype)
    _check(lambda lib, s, t: op(s, t), expected, a, b)


@pytest.mark.parametrize("dtype", INTS)
def test_scalar_operands_wrap_into_the_tensor_type(dtype):
    x = extremes(dtype)
    for k in (1, 2, 100, -3):
        expected = np.array([wrap(int(v) + wrap(k, dtype), dtype) for v in x], dtype=dtype)
        _check(lambda lib, s: s + k, expected, x)
        expected = np.array([wrap(int(v) * wrap(k, dtype), dtype) for v in x], dtype=dtype)
        _check(lambda lib, s: s * k, expected, x)


@pytest.mark.parametrize("dtype", INTS)
def test_sum_and_cumsum_accumulate_in_int64_unless_told(dtype):
    x = np.array([np.iinfo(dtype).max] * 4 + [np.iinfo(dtype).min], dtype=dtype)
    total = sum(int(v) for v in x)
    _check(lambda lib, s: s.sum(), np.array(wrap(total, "int64"), dtype=np.int64), x)
    running = np.cumsum([int(v) for v in x])
    _check(lambda lib, s: s.cumsum(0), np.array([wrap(int(v), "int64") for v in running], dtype=np.int64), x)
    # asking for the input's own type wraps, as the hardware does
    tdt = getattr(npgrad, dtype)
    _check(lambda lib, s: s.sum(dtype=getattr(lib, dtype)), np.array(wrap(total, dtype), dtype=dtype), x)
    _check(lambda lib, s: s.cumsum(0, dtype=getattr(lib, dtype)),
           np.array([wrap(int(v), dtype) for v in running], dtype=dtype), x)
    assert tdt is not None


def test_int64_sum_overflow_wraps():
    x = np.array([2 ** 62, 2 ** 62, 2 ** 62], dtype=np.int64)
    _check(lambda lib, s: s.sum(), np.array(wrap(3 * 2 ** 62, "int64"), dtype=np.int64), x)
    _check(lambda lib, s: s.prod(), np.array(wrap(2 ** 186, "int64"), dtype=np.int64), x)


@pytest.mark.parametrize("dtype", INTS)
def test_truncated_and_floored_division_without_overflow(dtype):
    """div(rounding_mode=...) and // on every pair of extreme values (INT_MIN / -1 aside: it traps in
    PyTorch's 32- and 64-bit kernels), including the divisor INT_MIN, whose absolute value overflows."""
    x = extremes(dtype)
    pairs = [(int(p), int(q)) for p in x for q in x if q != 0 and not (q == -1 and p == np.iinfo(dtype).min)]
    a = np.array([p for p, _ in pairs], dtype=dtype)
    b = np.array([q for _, q in pairs], dtype=dtype)
    trunc = np.array([wrap(abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1), dtype) for p, q in pairs], dtype)
    floor = np.array([wrap(p // q, dtype) for p, q in pairs], dtype=dtype)
    _check(lambda lib, s, t: lib.div(s, t, rounding_mode="trunc"), trunc, a, b)
    _check(lambda lib, s, t: lib.div(s, t, rounding_mode="floor"), floor, a, b)
    _check(lambda lib, s, t: s // t, floor, a, b)
    _check(lambda lib, s, t: s % t, np.array([wrap(p % q, dtype) for p, q in pairs], dtype=dtype), a, b)
    fmod = np.array([wrap(p - q * int(abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1)), dtype)
                     for p, q in pairs], dtype=dtype)
    _check(lambda lib, s, t: lib.fmod(s, t), fmod, a, b)


INT_ZERO_DIVISIONS = [
    ("floordiv", lambda lib, a, b: a // b),
    ("remainder", lambda lib, a, b: a % b),
    ("fmod", lambda lib, a, b: lib.fmod(a, b)),
    ("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc")),
    ("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor")),
    ("floor_divide", lambda lib, a, b: lib.floor_divide(a, b)),
]


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name,fn", INT_ZERO_DIVISIONS, ids=[c[0] for c in INT_ZERO_DIVISIONS])
def test_integer_division_by_zero_raises(name, fn, dtype):
    a = np.array([5, 0, 3], dtype=dtype)
    for divisor in (np.array([1, 2, 0], dtype=dtype), 0, np.array(0, dtype=dtype)):
        for lib in (npgrad, torch) if HAS_TORCH else (npgrad,):
            d = lib.tensor(divisor) if isinstance(divisor, np.ndarray) else divisor
            with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
                fn(lib, lib.tensor(a), d)
    # the kernel never meets the zero when the result is empty: no error, as in PyTorch
    t = getattr(npgrad, dtype)
    empty = fn(npgrad, npgrad.zeros((0, 1), dtype=t), npgrad.zeros(3, dtype=t))
    assert empty.shape == (0, 3)


def test_integer_true_division_by_zero_is_float():
    a = np.array([1, -1, 0], dtype=np.int64)
    expected = np.array([np.inf, -np.inf, np.nan], dtype=np.float32)
    out = npgrad.tensor(a) / 0
    assert out.dtype == npgrad.float32
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal((npgrad.tensor(a) / npgrad.zeros(3, dtype=npgrad.int32)).numpy(), expected)


FLOAT_ZERO_DIVISIONS = [
    ("div", lambda lib, a, b: a / b, lambda p, q: _ieee_div(p, q)),
    ("floordiv", lambda lib, a, b: a // b, lambda p, q: _ieee_div(p, q) if p == p and p != 0 else np.nan),
    ("remainder", lambda lib, a, b: a % b, lambda p, q: np.nan),
    ("fmod", lambda lib, a, b: lib.fmod(a, b), lambda p, q: np.nan),
    ("reciprocal", lambda lib, a, b: b.reciprocal(), lambda p, q: _ieee_div(1.0, q)),
]


def _ieee_div(p, q):
    if p != p or p == 0:
        return np.nan
    return np.copysign(np.inf, p) * np.copysign(1.0, q)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name,fn,rule", FLOAT_ZERO_DIVISIONS, ids=[c[0] for c in FLOAT_ZERO_DIVISIONS])
def test_float_division_by_zero_gives_inf_and_nan(name, fn, rule, dtype):
    a = np.array([1.0, -1.0, 0.0, -0.0, np.inf, np.nan, 3.5], dtype=dtype)
    for zero in (0.0, -0.0):
        b = np.full_like(a, zero)
        expected = np.array([rule(float(p), float(q)) for p, q in zip(a, b)], dtype=dtype)
        _check(fn, expected, a, b)


def test_float_division_by_zero_backward_propagates_inf():
    for lib in (npgrad, torch) if HAS_TORCH else (npgrad,):
        x = lib.tensor([1.0, 0.0, -2.0], requires_grad=True)
        y = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        (x / y).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [np.inf, np.inf, np.inf])
        np.testing.assert_array_equal(y.grad.numpy(), [-np.inf, np.nan, np.inf])
