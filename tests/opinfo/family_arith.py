"""Op table: arithmetic operators (npgrad/ops/arith.py): + - * / // % ** and their functions (add/sub/mul/div
with alpha and rounding modes, rsub, floor_divide, remainder, fmod, pow, float_power), negation and unary plus.

An entry's ``fn`` is the operator form (``a + b``): the dtype-pair fuzz calls it with Python scalars on either
side. The per-family table rows run in tests/ops/test_arith.py; the integer, bool and in-place behaviour the
rows cannot express stays there as tests of its own.
"""
import numpy as np

from oracle import In
from _inputs import POS, X
from _record import (EMPTY_INTEGER_SWEEP, FLOAT16_SWEEP, INTEGER_SWEEP, SECOND_ORDER, SPECIAL_SWEEP, Binary, OpInfo,
                     Sample, Unary)

F64 = np.float64
F = "float32"
BOOL_MASK = ("use the `~` or `logical_not()` operator instead.")
BOOL_SUB = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "


def _second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


def _no_huge_quotients(a, b):
    # PyTorch's remainder is a - b * floor(a / b): where a / b overflows (1e30 % 1e-30 in float32) it
    # gives NaN; NumPy's (and npgrad's) is exact
    with np.errstate(all="ignore"):
        huge = np.isfinite(b) & (np.abs(a) > 1e20 * np.abs(b))
    return a, np.where(huge, np.ones_like(b), b)


OPS = [
    OpInfo("neg", "arith", lambda lib, x: lib.neg(x), np.negative, aliases=["negative"],
           samples=[
               Sample("neg", lambda lib, x: -x, [In((2, 3))]),
               Sample("neg_fn", lambda lib, x: lib.neg(x), [In(())]),
               Sample("negative", lambda lib, x: x.negative(), [In((3,))]),
               Sample("neg_method", lambda lib, x: x.neg(), [In((3, 4))]),
               Sample("neg_0d", lambda lib, x: x.neg(), [In(())]),
               Sample("neg", lambda lib, x: -x, [X], checks=frozenset({SECOND_ORDER})),
           ],
           properties=[Unary("neg", lambda lib, x: -x, np.negative)],
           float16=[("neg", lambda lib, x, y: x.neg())],
           sweeps=frozenset({INTEGER_SWEEP, FLOAT16_SWEEP, SPECIAL_SWEEP, EMPTY_INTEGER_SWEEP}),
           raises=[("neg_bool", lambda lib: -lib.tensor([True, False]), RuntimeError,
                    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                    "mask, use the `~` or `logical_not()` operator instead.")]),
    OpInfo("positive", "arith", lambda lib, x: lib.positive(x), lambda x: x,
           samples=[Sample("positive", lambda lib, x: +x * 2, [In((3,))])],
           sweeps=frozenset({INTEGER_SWEEP, FLOAT16_SWEEP}),
           raises=[("positive_bool", lambda lib: +lib.tensor([True]), RuntimeError,
                    "The `+` operator, on a bool tensor is not supported.")]),
    OpInfo("add", "arith", lambda lib, a, b: a + b, np.add,
           samples=[
               Sample("add", lambda lib, x, y: x + y, [In((3, 4)), In((3, 4))]),
               Sample("add_broadcast", lambda lib, x, y: x + y, [In((2, 3, 4)), In((3, 1))]),
               Sample("add_broadcast_both", lambda lib, x, y: x + y, [In((3, 1)), In((1, 4))]),
               Sample("add_0d_0d", lambda lib, x, y: x + y, [In(()), In(())]),
               Sample("add_0d_tensor", lambda lib, x, y: lib.add(x, y), [In(()), In((2, 3))]),
               Sample("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), [In((3,)), In((3,))]),
               Sample("add_alpha_scalar", lambda lib, x: x.add(2, alpha=-3), [In((3,))]),
               Sample("add_int_scalar", lambda lib, x: x + 3, [In((4,))]),
               Sample("radd_scalar", lambda lib, x: 2.5 + x, [In((4,))]),
               Sample("add_self", lambda lib, x: x + x, [In((4,))]),
               Sample("add_float64_other", lambda lib, x, y: x + y, [In((3,)), In((3,), dtype=F64)]),
               Sample("add_0d_float64", lambda lib, x, y: x + y, [In((3,)), In((), dtype=F64)]),
               Sample("add_int_tensor", lambda lib, x, k: x + k, [In((3,)), In((3,), -5, 5, dtype=np.int64)]),
               _second("add", lambda lib, x, y: x + y, [X, In((3,))]),
               _second("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), [X, X]),
           ],
           properties=[Binary("add"), Binary("add_alpha", lambda lib, a, b: lib.add(a, b, alpha=-2),
                                             lambda a, b: a - 2 * b)],
           float16=[("add", None)],
           errors=[("add", None), ("torch.add", lambda lib, a, b: lib.add(a, b, alpha=2))], promotion="both",
           raises=[("add_int_float_alpha", lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([1, 2]), alpha=2.5),
                    RuntimeError, "For integral input tensors, argument alpha must not be a floating point number."),
                   ("add_bool_alpha", lambda lib: lib.add(lib.tensor([1.0]), 2, alpha=True), RuntimeError,
                    "Boolean alpha only supported for Boolean results.")]),
    OpInfo("sub", "arith", lambda lib, a, b: a - b, np.subtract, aliases=["subtract"],
           samples=[
               Sample("sub", lambda lib, x, y: x - y, [In((3, 4)), In((3, 4))]),
               Sample("sub_broadcast", lambda lib, x, y: x - y, [In((4, 1)), In((3,))]),
               Sample("sub_alpha", lambda lib, x, y: lib.sub(x, y, alpha=0.5), [In((2, 3)), In((3,))]),
               Sample("subtract_alias", lambda lib, x, y: x.subtract(y), [In((3,)), In((3,))]),
               Sample("rsub_scalar", lambda lib, x: 2 - x, [In((4,))]),
               _second("sub", lambda lib, x, y: x - y, [In((2, 1)), X]),
               _second("rsub", lambda lib, x: 2.0 - x, [X]),
           ],
           properties=[Binary("sub")],
           float16=[("sub_scalar", lambda lib, x, y: x - 0.3)],
           errors=[("sub", None), ("torch.sub", lambda lib, a, b: lib.sub(a, b))], promotion="both",
           raises=[("sub_bool_tensors", lambda lib: lib.tensor([True, False]) - lib.tensor([True, True]), RuntimeError,
                    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                    "`logical_xor()` operator instead."),
                   ("sub_bool_scalar", lambda lib: lib.tensor([True, False]) - 1, RuntimeError, BOOL_SUB + BOOL_MASK),
                   ("rsub_scalar_bool", lambda lib: 1 - lib.tensor([True, False]), RuntimeError, BOOL_SUB + BOOL_MASK),
                   ("sub_float_bool", lambda lib: lib.tensor([1.0]) - lib.tensor([True]), RuntimeError,
                    BOOL_SUB + BOOL_MASK)]),
    OpInfo("rsub", "arith", lambda lib, a, b: lib.rsub(a, b), lambda a, b: b - a,
           samples=[
               Sample("rsub_fn", lambda lib, x, y: lib.rsub(x, y, alpha=2), [In((3,)), In((2, 3))]),
           ],
           properties=[Binary("rsub")],
           empty=[("empty", lambda L, x: L.rsub(x, 1.0), ((0, 3), F))]),
    OpInfo("mul", "arith", lambda lib, a, b: a * b, np.multiply, aliases=["multiply"],
           samples=[
               Sample("mul", lambda lib, x, y: x * y, [In((3, 4)), In((3, 4))]),
               Sample("mul_broadcast", lambda lib, x, y: x * y, [In((2, 1, 4)), In((3, 1))]),
               Sample("mul_0d", lambda lib, x, y: x * y, [In((3, 2)), In(())]),
               Sample("mul_scalar", lambda lib, x: x * 1.5, [In((3,))]),
               Sample("rmul_int", lambda lib, x: 3 * x, [In((3,))]),
               Sample("mul_self", lambda lib, x: x * x, [In((2, 3))]),
               Sample("mul_bool_mask", lambda lib, x, m: x * m, [In((2, 3)), In((2, 3), dtype=np.bool_)]),
               Sample("multiply_alias", lambda lib, x, y: lib.multiply(x, y), [In((3,)), In((1,))]),
               _second("mul", lambda lib, x, y: x * y, [X, In((2, 1))]),
               _second("mul_self", lambda lib, x: x * x * x, [X]),
           ],
           properties=[Binary("mul"), Unary("mul_scalar", lambda lib, x: x * -1.5 + 0.25, lambda x: x * -1.5 + 0.25)],
           float16=[("mul", None)],
           errors=[("mul", None), ("torch.mul", lambda lib, a, b: lib.mul(a, b))], promotion="both"),
    OpInfo("div", "arith", lambda lib, a, b: a / b, np.divide, aliases=["divide", "true_divide"],
           samples=[
               Sample("div", lambda lib, x, y: x / y, [In((3, 4)), In((4,), nonzero=True)]),
               Sample("div_broadcast_both", lambda lib, x, y: x / y, [In((3, 1)), In((1, 4), nonzero=True)]),
               Sample("div_scalar", lambda lib, x: x / 4, [In((3,))]),
               Sample("rdiv_scalar", lambda lib, x: 1.5 / x, [In((4,), nonzero=True)]),
               Sample("rdiv_int", lambda lib, x: 2 / x, [In((4,), nonzero=True)]),
               Sample("div_0d_divisor", lambda lib, x, y: lib.div(x, y), [In((2, 3)), In((), 0.5, 2.0)]),
               Sample("true_divide", lambda lib, x, y: x.true_divide(y), [In((3,)), In((3,), nonzero=True)]),
               Sample("div_by_int_tensor", lambda lib, x, k: x / k, [In((3,)), In((3,), 1, 5, dtype=np.int32)]),
               Sample("div_floor", lambda lib, x, y: x.div(y, rounding_mode="floor"),
                      [In((5,), -5, 5), In((5,), 0.6, 2.0)], fd=False),
               Sample("div_trunc", lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
                      [In((5,), -5, 5), In((5,), 0.6, 2.0)], fd=False),
               _second("div", lambda lib, x, y: x / y, [X, In((3,), nonzero=True)]),
               _second("rdiv", lambda lib, x: 1.5 / x, [In((2, 3), nonzero=True)]),
           ],
           properties=[Binary("div", b_away=(0,)),
                       Unary("div_scalar", lambda lib, x: 3 / x, lambda x: 3 / x, away=(0,))],
           float16=[("div", None)],
           errors=[("div", None), ("torch.div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor")),
                   ("torch.div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"))], promotion="both",
           raises=[("div_bad_rounding_mode", lambda lib: lib.tensor([1, 2]).div(2, rounding_mode="round"), RuntimeError,
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'")]),
    # floor division has no derivative: forward only
    OpInfo("floor_divide", "arith", lambda lib, a, b: a // b, np.floor_divide,
           samples=[
               Sample("floordiv", lambda lib, x, y: x // y, [In((6,), -5, 5, grad=False),
                                                                In((6,), 0.5, 2.0, grad=False)]),
               Sample("rfloordiv", lambda lib, x: 7 // x, [In((6,), 0.5, 2.0, grad=False)]),
           ],
           float16=[("floor_divide", None)], errors=[("floordiv", None)], promotion="both",
           raises=[("floor_divide_bool", lambda lib: lib.tensor([True]) // lib.tensor([False]), NotImplementedError,
                    "\"div_floor_cpu\" not implemented for 'Bool'")]),
    # remainder / fmod (away from their jumps)
    OpInfo("remainder", "arith", lambda lib, a, b: a % b, np.remainder,
           samples=[
               Sample("remainder", lambda lib, x, y: x % y, [In((6,), -5, 5), In((6,), 0.5, 2.0)]),
               Sample("remainder_neg_divisor", lambda lib, x, y: lib.remainder(x, y),
                      [In((6,), -5, 5), In((6,), -2.0, -0.5)]),
               Sample("remainder_scalar", lambda lib, x: x % 1.5, [In((2, 3), -5, 5)]),
               Sample("rmod", lambda lib, x: 5.5 % x, [In((6,), 0.7, 2.0, grad=False)]),  # torch: no derivative
               _second("remainder", lambda lib, x, y: x % y, [In((2, 3), -5, 5), In((2, 3), 0.7, 2.0)]),
           ],
           properties=[Binary("remainder", a=(0.1, 1.9), b=(2.0, 3.0), special_filter=_no_huge_quotients)],
           float16=[("remainder", None)],
           errors=[("mod", None), ("remainder", lambda lib, a, b: lib.remainder(a, b))], promotion="both",
           raises=[("remainder_bool", lambda lib: lib.tensor([True]) % lib.tensor([True]), NotImplementedError,
                    "\"remainder_cpu\" not implemented for 'Bool'")]),
    OpInfo("fmod", "arith", lambda lib, a, b: lib.fmod(a, b), np.fmod,
           samples=[
               Sample("fmod", lambda lib, x, y: lib.fmod(x, y), [In((6,), -5, 5), In((6,), 0.5, 2.0)]),
               Sample("fmod_broadcast", lambda lib, x, y: x.fmod(y), [In((2, 3), -5, 5), In((3,), -2.0, -0.5)]),
               _second("fmod", lambda lib, x, y: lib.fmod(x, y), [In((2, 3), -5, 5), In((2, 3), 0.7, 2.0)]),
           ],
           properties=[Binary("fmod", a=(-1.9, 1.9), b=(2.0, 3.0), special_filter=_no_huge_quotients)],
           float16=[("fmod", None)], errors=[("fmod", None)], promotion="second"),
    # powers: scalar and tensor exponents, reflected base, gradient to the exponent
    OpInfo("pow", "arith", lambda lib, a, b: a ** b, np.power,
           samples=[
               Sample("pow_scalar", lambda lib, x: x ** 3, [In((5,))]),
               Sample("pow_two", lambda lib, x: x.pow(2), [In((2, 3))]),
               Sample("pow_zero", lambda lib, x: x ** 0, [In((5,))]),
               Sample("pow_one", lambda lib, x: x ** 1, [In((5,))]),
               Sample("pow_negative", lambda lib, x: x ** -2, [In((5,), nonzero=True)]),
               Sample("pow_fractional", lambda lib, x: x ** 1.5, [In((5,), 0.5, 2.0)]),
               Sample("pow_sqrt", lambda lib, x: x ** 0.5, [In((5,), 0.5, 2.0)]),
               Sample("pow_tensor", lambda lib, x, y: x ** y, [In((3, 4), 0.5, 2.0), In((4,))]),
               Sample("pow_tensor_base_broadcast", lambda lib, x, y: lib.pow(x, y), [In((4,), 0.5, 2.0), In((3, 4))]),
               Sample("pow_tensor_0d_exponent", lambda lib, x, y: x.pow(y), [In((2, 3), 0.5, 2.0), In(())]),
               Sample("pow_int_exponent_tensor", lambda lib, x, k: x ** k, [In((4,)), In((4,), 0, 4, dtype=np.int64)]),
               Sample("rpow", lambda lib, x: 2 ** x, [In((5,))]),
               Sample("rpow_float", lambda lib, x: 0.5 ** x, [In((5,))]),
               Sample("pow_fn_scalar_base", lambda lib, x: lib.pow(3.0, x), [In((2, 2))]),
               _second("pow_int", lambda lib, x: x ** 3, [X]),
               _second("pow_frac", lambda lib, x: x ** 2.5, [POS]),
               _second("pow_neg", lambda lib, x: x ** -1.5, [POS]),
               _second("pow_tensor", lambda lib, x, y: x ** y, [POS, In((3,))]),
               _second("rpow", lambda lib, x: 2.0 ** x, [X]),
           ],
           properties=[
               Binary("pow", a=(0.2, 3.0)),
               Unary("pow2", lambda lib, x: x ** 2, np.square),
               Unary("pow3", lambda lib, x: x.pow(3), lambda x: x ** 3),
               Unary("pow_half", lambda lib, x: x ** 0.5, np.sqrt, 0.1, 4, special_negatives=False),
               Unary("pow_neg", lambda lib, x: x ** -1.5, lambda x: x ** -1.5, 0.2, 4, special_negatives=False),
               Unary("rpow", lambda lib, x: 2.5 ** x, lambda x: 2.5 ** x),
           ],
           float16=[("pow", None), ("pow_scalar", lambda lib, x, y: x ** 2.5)],
           errors=[("pow", None)], promotion="both",
           empty=[("scalar base", lambda L, x: L.pow(2.0, x), ((0, 3), F))],
           raises=[("pow_bool", lambda lib: lib.tensor([True]) ** lib.tensor([True]), NotImplementedError,
                    "\"pow\" not implemented for 'Bool'")]),
    OpInfo("float_power", "arith", lambda lib, a, b: lib.float_power(a, b), lambda a, b: np.power(a, b, dtype=F64),
           samples=[
               Sample("float_power", lambda lib, x: x.float_power(2), [In((4,))]),
               Sample("float_power_tensor", lambda lib, x, y: lib.float_power(x, y), [In((4,), 0.5, 2), In((4,))]),
           ],
           errors=[("float_power", None)],
           empty=[("empty", lambda L, x: L.float_power(x, 2), ((0, 3), F))]),
]
