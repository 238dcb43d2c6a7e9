"""Arithmetic operators (+ - * / // % ** and negation) against PyTorch and finite differences.

The float table checks values, dtypes and every input's gradient (broadcast inputs get gradients of
their own shape); the integer/bool table checks forward values and result types; then the behaviour
the tables cannot express: in-place operators, integer division by zero, bool rules, shape errors.
"""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from opinfo import PARITY, raised, samples
from _elementwise_parity import check_error, check_error_like_torch, check_forward
from _table_tests import (double_backward_test, expected_errors_test, finite_difference_test, no_upcast_test,
                          torch_parity_test)

F64 = np.float64

CASES = [
    # Rows of the arithmetic operators live in the op table (tests/opinfo/family_arith.py); here the rows
    # that are not one operator: broadcasting by expand_as (its gradient sums back to the input's shape) and
    # compositions
    OpCase("expand_as_mul", lambda lib, x, y: x.expand_as(y) * y, [In((1, 4)), In((3, 4))]),
    OpCase("chain", lambda lib, x, y: (x * y + x / y - 1.5) ** 2, [In((2, 3)), In((3,), nonzero=True)]),
    OpCase("chain_reuse", lambda lib, x: (x * x * x) / (1 + x * x), [In((5,))]),
]
CASES += samples(PARITY, "arith")

GRAD_CASES = [c for c in CASES if c.fd and any(i.grad for i in c.inputs)]

if HAS_TORCH:  # without PyTorch the finite-difference test below is the oracle
    test_matches_torch = torch_parity_test(CASES)
    test_double_backward = double_backward_test(GRAD_CASES)
test_finite_differences = finite_difference_test(GRAD_CASES)
test_float32_gradients_stay_float32 = no_upcast_test(CASES)


# -- integer and bool arithmetic (forward: values and result type) ----------------------------------------

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8]


def _ints(dtype, shape=(2, 3), low=-5, high=6, nonzero=False, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        low = max(low, 0)
    a = rng.integers(low, high, size=shape)
    if nonzero:
        a[a == 0] = 1
    return a.astype(dtype)


INT_OPS = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "truediv": lambda lib, a, b: a / b,
    "floordiv": lambda lib, a, b: a // b,
    "remainder": lambda lib, a, b: a % b,
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "div_trunc": lambda lib, a, b: a.div(b, rounding_mode="trunc"),
    "div_floor": lambda lib, a, b: a.div(b, rounding_mode="floor"),
    "pow": lambda lib, a, b: a ** b,
    "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=3),
    "rsub": lambda lib, a, b: lib.rsub(a, b),
}

if HAS_TORCH:
    @pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("op", list(INT_OPS), ids=str)
    def test_integer_ops_match_torch(op, dtype):
        a = _ints(dtype)
        b = _ints(dtype, (3,), nonzero=True, seed=1)
        if op == "pow":
            b = _ints(dtype, (3,), 0, 4, seed=1)
        check_forward(INT_OPS[op], a, b, what=f"{op} {np.dtype(dtype).name}")

    @pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("expr", [
        lambda lib, a: a + 3, lambda lib, a: 3 - a, lambda lib, a: a * -2, lambda lib, a: a // 2,
        lambda lib, a: a % 3, lambda lib, a: -7 // a, lambda lib, a: 7 % a, lambda lib, a: a / 2,
        lambda lib, a: 2 / a, lambda lib, a: a + 2.5, lambda lib, a: 1.5 * a, lambda lib, a: a ** 2,
        lambda lib, a: 2 ** a.abs(), lambda lib, a: a ** 0.5, lambda lib, a: -a, lambda lib, a: a + True,
        lambda lib, a: a * 1000, lambda lib, a: a - 300,  # wrap around in small types, as PyTorch
    ])
    def test_integer_scalar_ops_match_torch(expr, dtype):
        a = _ints(dtype, nonzero=True)
        check_forward(expr, a, what=np.dtype(dtype).name)

    @pytest.mark.parametrize("expr", [
        lambda lib, a, b: a + b, lambda lib, a, b: a * b, lambda lib, a, b: a / b,
        lambda lib, a, b: a + 1, lambda lib, a, b: a * 2.5, lambda lib, a, b: a + True,
        lambda lib, a, b: a * True, lambda lib, a, b: 3 * a, lambda lib, a, b: a ** 2,
        lambda lib, a, b: 2 ** a, lambda lib, a, b: a % 2, lambda lib, a, b: a // 2,
        lambda lib, a, b: lib.add(a, b, alpha=True), lambda lib, a, b: lib.add(a, b, alpha=False),
    ])
    def test_bool_arithmetic_matches_torch(expr):
        a = np.array([True, False, True, False])
        b = np.array([True, True, False, False])
        check_forward(expr, a, b)

    def test_integer_power_with_negative_exponents():
        # PyTorch truncates: 2 ** -1 == 0, 1 ** -k == 1, (-1) ** -k == +-1 (NumPy refuses the call).
        base = np.array([-2, -1, 0, 1, 2, 3])
        check_forward(lambda lib, a, b: a ** b, base, np.array([-1, -3, 2, -2, -1, 2]))
        check_forward(lambda lib, b: (-1) ** b, np.array([-3, -2, 0, 1]))
        check_forward(lambda lib, a, b: a ** b, base.astype(np.int8), np.array([-1, -1, 3, -5, 3, 4], np.int8))

    def test_floor_and_remainder_signs_follow_python():
        a = np.array([-7, 7, -7, 7, 0])
        b = np.array([2, -2, -2, 2, 3])
        for fn in INT_OPS["floordiv"], INT_OPS["remainder"], INT_OPS["fmod"], INT_OPS["div_trunc"]:
            check_forward(fn, a, b)
            check_forward(fn, a.astype(np.float32), b.astype(np.float32))

    def test_float_division_by_zero_gives_inf_and_nan():
        a = np.array([-7.0, 7.0, 0.0], np.float32)
        for fn in (lambda lib, x: x / 0, lambda lib, x: x // 0.0, lambda lib, x: x % 0.0,
                   lambda lib, x: lib.fmod(x, 0.0), lambda lib, x: 1 / x, lambda lib, x: x.int() / 0):
            check_forward(fn, a)

    def test_reflected_operators_with_numpy_scalars():
        x = np.array([1.5, -2.0, 3.0], np.float32)
        for fn in (lambda lib, t: np.float64(2.0) * t, lambda lib, t: t - np.float32(1.5),
                   lambda lib, t: np.int64(3) + t, lambda lib, t: t / np.float64(4.0),
                   lambda lib, t: t ** np.int32(2), lambda lib, t: t.int() * np.int64(3)):
            check_forward(fn, x)


def test_integer_division_by_zero_raises():
    for fn in (lambda lib: lib.tensor([5, 6]) // 0, lambda lib: lib.tensor([5, 6]) % 0,
               lambda lib: lib.tensor([5, 6]) // lib.tensor([1, 0]), lambda lib: 5 // lib.tensor([0, 1]),
               lambda lib: lib.fmod(lib.tensor([5, 6], dtype=lib.uint8), 0),
               lambda lib: lib.tensor([5, 6]).div(0, rounding_mode="trunc"),
               lambda lib: lib.tensor([5, 6], dtype=lib.int8).div(0, rounding_mode="floor")):
        check_error(fn, RuntimeError, "ZeroDivisionError")


def test_integer_true_division_by_zero_is_inf():
    r = npgrad.tensor([5, -5, 0]) / 0
    assert r.dtype is npgrad.float32
    assert r[0].item() == np.inf and r[1].item() == -np.inf and np.isnan(r[2].item())


def test_integer_to_negative_scalar_power_raises():
    check_error(lambda lib: lib.tensor([2, 3]) ** -1, RuntimeError,
                "Integers to negative integer powers are not allowed.")


# Errors of the arithmetic operators (bool operands, alpha, rounding modes): op-table rows
test_expected_errors = expected_errors_test(raised("arith"))


# -- shapes that do not broadcast --------------------------------------------------------------------------

MISMATCH = [
    ((3,), (4,), 3, 4, 0),
    ((2, 3), (4, 3), 2, 4, 0),
    ((2, 3), (2, 4), 3, 4, 1),
    ((5, 2, 3), (4, 3), 2, 4, 1),
    ((3,), (2, 4), 3, 4, 1),
]

BINARY = [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a // b,
    lambda a, b: a % b, lambda a, b: a ** b, lambda a, b: a.add(b, alpha=2), lambda a, b: a.sub(b),
    lambda a, b: a.div(b, rounding_mode="floor"), lambda a, b: a.fmod(b), lambda a, b: a.float_power(b),
]


@pytest.mark.parametrize("sa, sb, p, q, dim", MISMATCH)
@pytest.mark.parametrize("op", range(len(BINARY)))
@pytest.mark.parametrize("grad", [False, True], ids=["plain", "recorded"])
def test_shape_mismatch_names_both_sizes(op, sa, sb, p, q, dim, grad):
    msg = f"The size of tensor a ({p}) must match the size of tensor b ({q}) at non-singleton dimension {dim}"
    check_error(lambda lib: BINARY[op](lib.ones(sa, requires_grad=grad), lib.ones(sb)), RuntimeError, msg)


def test_shape_mismatch_of_integer_tensors():
    msg = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"
    check_error(lambda lib: lib.tensor([1, 2, 3]) + lib.tensor([1, 2, 3, 4]), RuntimeError, msg)
    check_error(lambda lib: lib.tensor([1, 2, 3]) * lib.tensor([1.0, 2.0, 3.0, 4.0]), RuntimeError, msg)


# -- in-place operators: values and dtypes (the graph side is tested with the in-place machinery) ----------

INPLACE = [
    ("iadd", lambda a, b: a.__iadd__(b)), ("isub", lambda a, b: a.__isub__(b)),
    ("imul", lambda a, b: a.__imul__(b)), ("itruediv", lambda a, b: a.__itruediv__(b)),
    ("ifloordiv", lambda a, b: a.__ifloordiv__(b)), ("imod", lambda a, b: a.__imod__(b)),
    ("ipow", lambda a, b: a.__ipow__(b)),
]

if HAS_TORCH:
    def _inplace_both(op, a, b):
        results = []
        for lib in (npgrad, torch):
            x = lib.tensor(a)
            other = lib.tensor(b) if isinstance(b, np.ndarray) else b
            r = op(x, other)
            assert r is x, "an in-place operator returns the tensor itself"
            results.append(x)
        return results

    # Integer `/=` is an error (test_inplace_int_true_division_refused), so it is not in this grid.
    @pytest.mark.parametrize("name, op, dtype", [(n, op, d) for n, op in INPLACE
                                                 for d in (np.float32, np.float64, np.int64, np.int32)
                                                 if not (n == "itruediv" and np.dtype(d).kind == "i")],
                             ids=lambda v: v if isinstance(v, str) else getattr(v, "__name__", ""))
    @pytest.mark.parametrize("other", ["tensor", "broadcast", "int", "0d"])
    def test_inplace_operators_match_torch(name, op, dtype, other):
        a = np.random.default_rng(0).uniform(0.5, 3, (2, 3)).astype(dtype)
        b = {"tensor": np.full((2, 3), 2, dtype), "broadcast": np.array([1, 2, 3], dtype),
             "int": 2, "0d": np.array(2, dtype)}[other]
        n, t = _inplace_both(op, a, b)
        assert str(n.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(n.numpy(), t.numpy(), rtol=1e-6)

    def test_inplace_float_into_float32_keeps_float32():
        n, t = _inplace_both(lambda a, b: a.__imul__(b), np.ones(3, np.float32), np.full(3, 2.5))
        assert n.dtype is npgrad.float32 and t.dtype is torch.float32
        np.testing.assert_array_equal(n.numpy(), t.numpy())

    def test_inplace_views_and_data_alias_see_the_change():
        x = npgrad.arange(6.0).reshape(2, 3)
        row = x[0]
        alias = x.data
        x += 1
        x *= 2
        expected = (torch.arange(6.0).reshape(2, 3) + 1) * 2
        np.testing.assert_array_equal(x.numpy(), expected.numpy())
        np.testing.assert_array_equal(row.numpy(), expected[0].numpy())
        np.testing.assert_array_equal(alias.numpy(), expected.numpy())


def test_inplace_int_true_division_refused():
    check_error(lambda lib: lib.tensor([1, 2]).__itruediv__(2), RuntimeError,
                "result type Float can't be cast to the desired output type Long")
    check_error(lambda lib: lib.tensor([1, 2]).__iadd__(1.5), RuntimeError,
                "result type Float can't be cast to the desired output type Long")


def test_inplace_cannot_broadcast_the_target():
    check_error(lambda lib: lib.ones(3).__iadd__(lib.ones(2, 3)), RuntimeError,
                "output with shape [3] doesn't match the broadcast shape [2, 3]")


def test_parameter_update_through_data():
    # The optimiser idiom: p.data -= lr * p.grad changes p itself, outside the graph.
    p = npgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (p * p).sum().backward()
    p.data -= 0.1 * p.grad
    np.testing.assert_allclose(p.detach().numpy(), np.array([0.8, 1.6, 2.4], np.float32), rtol=1e-6)
    assert p.requires_grad and p.is_leaf and p.dtype is npgrad.float32


def test_pow_gradient_reaches_the_exponent():
    x = npgrad.tensor([0.5, 1.5, 2.0], dtype=npgrad.float64, requires_grad=True)
    y = npgrad.tensor([2.0, -1.0, 0.5], dtype=npgrad.float64, requires_grad=True)
    (x ** y).sum().backward()
    xv, yv = x.detach().numpy(), y.detach().numpy()
    np.testing.assert_allclose(y.grad.numpy(), xv ** yv * np.log(xv), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), yv * xv ** (yv - 1), rtol=1e-12)


if HAS_TORCH:
    def test_pow_at_zero_base_matches_torch():
        # 0 ** y: the exponent's gradient is 0 where y >= 0 (not nan from 0 * log 0).
        def fn(lib):
            x = lib.tensor([0.0, 0.0, 2.0, 0.0], requires_grad=True)
            y = lib.tensor([2.0, 0.0, 1.5, 1.0], requires_grad=True)
            (x ** y).sum().backward()
            return x.grad, y.grad
        for a, b in zip(fn(npgrad), fn(torch)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())

    def test_floor_divide_gradient_not_implemented_like_torch():
        check_error_like_torch(lambda lib: (lib.ones(2, requires_grad=True) // 2).sum().backward())
