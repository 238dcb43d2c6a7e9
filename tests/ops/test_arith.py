"""Arithmetic operators (+ - * / // % ** and negation) against PyTorch and finite differences.

The float table checks values, dtypes and every input's gradient (broadcast inputs get gradients of
their own shape); the integer/bool table checks forward values and result types; then the behaviour
the tables cannot express: in-place operators, integer division by zero, bool rules, shape errors.
"""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from opinfo import PARITY, samples
from _elementwise_parity import check_error, check_error_like_torch, check_forward
from _table_tests import double_backward_test, finite_difference_test, no_upcast_test, torch_parity_test

F64 = np.float64

CASES = [
    # add / sub (alpha, reflected, broadcasting both ways, 0-d)
    OpCase("add", lambda lib, x, y: x + y, [In((3, 4)), In((3, 4))]),
    OpCase("add_broadcast", lambda lib, x, y: x + y, [In((2, 3, 4)), In((3, 1))]),
    OpCase("add_broadcast_both", lambda lib, x, y: x + y, [In((3, 1)), In((1, 4))]),
    OpCase("add_0d_0d", lambda lib, x, y: x + y, [In(()), In(())]),
    OpCase("add_0d_tensor", lambda lib, x, y: lib.add(x, y), [In(()), In((2, 3))]),
    OpCase("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), [In((3,)), In((3,))]),
    OpCase("add_alpha_scalar", lambda lib, x: x.add(2, alpha=-3), [In((3,))]),
    OpCase("add_int_scalar", lambda lib, x: x + 3, [In((4,))]),
    OpCase("radd_scalar", lambda lib, x: 2.5 + x, [In((4,))]),
    OpCase("add_self", lambda lib, x: x + x, [In((4,))]),
    OpCase("add_float64_other", lambda lib, x, y: x + y, [In((3,)), In((3,), dtype=F64)]),
    OpCase("add_0d_float64", lambda lib, x, y: x + y, [In((3,)), In((), dtype=F64)]),
    OpCase("add_int_tensor", lambda lib, x, k: x + k, [In((3,)), In((3,), -5, 5, dtype=np.int64)]),
    OpCase("sub", lambda lib, x, y: x - y, [In((3, 4)), In((3, 4))]),
    OpCase("sub_broadcast", lambda lib, x, y: x - y, [In((4, 1)), In((3,))]),
    OpCase("sub_alpha", lambda lib, x, y: lib.sub(x, y, alpha=0.5), [In((2, 3)), In((3,))]),
    OpCase("subtract_alias", lambda lib, x, y: x.subtract(y), [In((3,)), In((3,))]),
    OpCase("rsub_scalar", lambda lib, x: 2 - x, [In((4,))]),
    OpCase("rsub_fn", lambda lib, x, y: lib.rsub(x, y, alpha=2), [In((3,)), In((2, 3))]),
    # mul
    OpCase("mul", lambda lib, x, y: x * y, [In((3, 4)), In((3, 4))]),
    OpCase("mul_broadcast", lambda lib, x, y: x * y, [In((2, 1, 4)), In((3, 1))]),
    OpCase("mul_0d", lambda lib, x, y: x * y, [In((3, 2)), In(())]),
    OpCase("mul_scalar", lambda lib, x: x * 1.5, [In((3,))]),
    OpCase("rmul_int", lambda lib, x: 3 * x, [In((3,))]),
    OpCase("mul_self", lambda lib, x: x * x, [In((2, 3))]),
    OpCase("mul_bool_mask", lambda lib, x, m: x * m, [In((2, 3)), In((2, 3), dtype=np.bool_)]),
    OpCase("multiply_alias", lambda lib, x, y: lib.multiply(x, y), [In((3,)), In((1,))]),
    # true division
    OpCase("div", lambda lib, x, y: x / y, [In((3, 4)), In((4,), nonzero=True)]),
    OpCase("div_broadcast_both", lambda lib, x, y: x / y, [In((3, 1)), In((1, 4), nonzero=True)]),
    OpCase("div_scalar", lambda lib, x: x / 4, [In((3,))]),
    OpCase("rdiv_scalar", lambda lib, x: 1.5 / x, [In((4,), nonzero=True)]),
    OpCase("rdiv_int", lambda lib, x: 2 / x, [In((4,), nonzero=True)]),
    OpCase("div_0d_divisor", lambda lib, x, y: lib.div(x, y), [In((2, 3)), In((), 0.5, 2.0)]),
    OpCase("true_divide", lambda lib, x, y: x.true_divide(y), [In((3,)), In((3,), nonzero=True)]),
    OpCase("div_by_int_tensor", lambda lib, x, k: x / k, [In((3,)), In((3,), 1, 5, dtype=np.int32)]),
    # rounded division: piecewise constant, PyTorch gives both inputs a zero gradient
    OpCase("div_floor", lambda lib, x, y: x.div(y, rounding_mode="floor"),
           [In((5,), -5, 5), In((5,), 0.6, 2.0)], fd=False),
    OpCase("div_trunc", lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
           [In((5,), -5, 5), In((5,), 0.6, 2.0)], fd=False),
    # powers: scalar and tensor exponents, reflected base, gradient to the exponent
    OpCase("pow_scalar", lambda lib, x: x ** 3, [In((5,))]),
    OpCase("pow_two", lambda lib, x: x.pow(2), [In((2, 3))]),
    OpCase("pow_zero", lambda lib, x: x ** 0, [In((5,))]),
    OpCase("pow_one", lambda lib, x: x ** 1, [In((5,))]),
    OpCase("pow_negative", lambda lib, x: x ** -2, [In((5,), nonzero=True)]),
    OpCase("pow_fractional", lambda lib, x: x ** 1.5, [In((5,), 0.5, 2.0)]),
    OpCase("pow_sqrt", lambda lib, x: x ** 0.5, [In((5,), 0.5, 2.0)]),
    OpCase("pow_tensor", lambda lib, x, y: x ** y, [In((3, 4), 0.5, 2.0), In((4,))]),
    OpCase("pow_tensor_base_broadcast", lambda lib, x, y: lib.pow(x, y), [In((4,), 0.5, 2.0), In((3, 4))]),
    OpCase("pow_tensor_0d_exponent", lambda lib, x, y: x.pow(y), [In((2, 3), 0.5, 2.0), In(())]),
    OpCase("pow_int_exponent_tensor", lambda lib, x, k: x ** k, [In((4,)), In((4,), 0, 4, dtype=np.int64)]),
    OpCase("rpow", lambda lib, x: 2 ** x, [In((5,))]),
    OpCase("rpow_float", lambda lib, x: 0.5 ** x, [In((5,))]),
    OpCase("pow_fn_scalar_base", lambda lib, x: lib.pow(3.0, x), [In((2, 2))]),
    OpCase("float_power", lambda lib, x: x.float_power(2), [In((4,))]),
    OpCase("float_power_tensor", lambda lib, x, y: lib.float_power(x, y), [In((4,), 0.5, 2), In((4,))]),
    # remainder / fmod (away from their jumps)
    OpCase("remainder", lambda lib, x, y: x % y, [In((6,), -5, 5), In((6,), 0.5, 2.0)]),
    OpCase("remainder_neg_divisor", lambda lib, x, y: lib.remainder(x, y), [In((6,), -5, 5), In((6,), -2.0, -0.5)]),
    OpCase("remainder_scalar", lambda lib, x: x % 1.5, [In((2, 3), -5, 5)]),
    OpCase("rmod", lambda lib, x: 5.5 % x, [In((6,), 0.7, 2.0, grad=False)]),  # torch: no derivative
    OpCase("fmod", lambda lib, x, y: lib.fmod(x, y), [In((6,), -5, 5), In((6,), 0.5, 2.0)]),
    OpCase("fmod_broadcast", lambda lib, x, y: x.fmod(y), [In((2, 3), -5, 5), In((3,), -2.0, -0.5)]),
    # floor division has no derivative: forward only
    OpCase("floordiv", lambda lib, x, y: x // y, [In((6,), -5, 5, grad=False), In((6,), 0.5, 2.0, grad=False)]),
    OpCase("rfloordiv", lambda lib, x: 7 // x, [In((6,), 0.5, 2.0, grad=False)]),
    # broadcasting by expand_as (its gradient sums back to the input's shape)
    # (broadcast_to/broadcast_tensors: tests/opinfo/family_broadcast.py, run by tests/ops/test_broadcast.py)
    OpCase("expand_as_mul", lambda lib, x, y: x.expand_as(y) * y, [In((1, 4)), In((3, 4))]),
    # compositions
    OpCase("chain", lambda lib, x, y: (x * y + x / y - 1.5) ** 2, [In((2, 3)), In((3,), nonzero=True)]),
    OpCase("chain_reuse", lambda lib, x: (x * x * x) / (1 + x * x), [In((5,))]),
]
CASES += samples(PARITY, "arith")  # the operators already in the op table (tests/opinfo/family_arith.py)

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


@pytest.mark.parametrize("fn, message", [
    (lambda lib: lib.tensor([True, False]) - lib.tensor([True, True]),
     "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
     "operator instead."),
    (lambda lib: lib.tensor([True, False]) - 1,
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
     "use the `~` or `logical_not()` operator instead."),
    (lambda lib: 1 - lib.tensor([True, False]),
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
     "use the `~` or `logical_not()` operator instead."),
    (lambda lib: lib.tensor([1.0]) - lib.tensor([True]),
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
     "use the `~` or `logical_not()` operator instead."),
    (lambda lib: -lib.tensor([True, False]),
     "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
     "`~` or `logical_not()` operator instead."),
    (lambda lib: +lib.tensor([True]), "The `+` operator, on a bool tensor is not supported."),
    (lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([1, 2]), alpha=2.5),
     "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda lib: lib.add(lib.tensor([1.0]), 2, alpha=True), "Boolean alpha only supported for Boolean results."),
    (lambda lib: lib.tensor([1, 2]).div(2, rounding_mode="round"),
     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"),
])
def test_arithmetic_errors(fn, message):
    check_error(fn, RuntimeError, message)


@pytest.mark.parametrize("fn, message", [
    (lambda lib: lib.tensor([True]) // lib.tensor([False]), "\"div_floor_cpu\" not implemented for 'Bool'"),
    (lambda lib: lib.tensor([True]) % lib.tensor([True]), "\"remainder_cpu\" not implemented for 'Bool'"),
    (lambda lib: lib.tensor([True]) ** lib.tensor([True]), "\"pow\" not implemented for 'Bool'"),
])
def test_bool_kernels_not_implemented(fn, message):
    check_error(fn, NotImplementedError, message)


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
