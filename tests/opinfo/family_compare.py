"""Op table: comparisons, logical and bitwise operators and value tests (npgrad/ops/compare.py): bool (or
integer) results, no gradient.

The samples check values and result dtypes against PyTorch (forward only); ``dtype_forms`` are the call
forms tests/ops/test_compare.py sweeps over every dtype, mixed dtype pairs, NaN/inf and broadcast shapes
(ids as before the rows moved here); ``errors`` joins the shape and dtype error sweeps of
tests/test_errors_core.py, ``promotion`` the dtype-pair fuzz, ``raises`` the expected errors. The scalar
operand sweep (Python's operator module on both sides) stays in tests/ops/test_compare.py.
"""
import numpy as np

from oracle import In
from _record import PARITY, OpInfo, Sample

F = "float32"
_FORWARD = frozenset({PARITY})
MISMATCH = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}"


def _special(shape):
    """Finite values mixed with +-inf, NaN and +-0.0."""
    def make(rng):
        pool = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.5, -2.0, 1e30])
        return rng.choice(pool, size=shape)
    return In(shape, values=make, grad=False)


def _ties(shape):
    """Values on a coarse grid: many ties between two such inputs."""
    return In(shape, values=lambda r: r.integers(-2, 3, size=shape) * 0.5, grad=False)


def _ints(shape, low=-8, high=8, dtype=np.int64):
    return In(shape, low, high, dtype=dtype, grad=False)


def _bools(shape):
    return In(shape, dtype=np.bool_, grad=False)


def _not_implemented(id_, fn, kernel, dtype):
    return (id_, fn, NotImplementedError, f"\"{kernel}\" not implemented for '{dtype}'")


def _comparison(name, op, ref, method, aliases=(), forms=(), errors=(), promotion=None, raises=()):
    """A binary comparison: the operator form ``op`` is the entry's call; ``method`` its method name."""
    return OpInfo(name, "compare", op, ref, aliases=aliases, promotion=promotion, raises=raises,
                  samples=[Sample(name, inputs=[_ties((3, 4)), _ties((4,))], checks=_FORWARD),
                           Sample(f"{name}_fn", lambda lib, a, b: getattr(lib, name)(a, b),
                                  [_ints((2, 3), -2, 2), _ints((2, 1), -2, 2, np.int32)], checks=_FORWARD),
                           Sample(f"{name}_method_scalar", lambda lib, a: getattr(a, method)(0.5), [_ties((5,))],
                                  checks=_FORWARD)],
                  dtype_forms=forms, errors=errors)


def _logical(name, ref, forms, errors=(), promotion=None, raises=()):
    return OpInfo(name, "compare", lambda lib, a, b: getattr(lib, name)(a, b), ref, promotion=promotion, raises=raises,
                  samples=[Sample(name, inputs=[_ties((3, 4)), _ties((3, 4))], checks=_FORWARD),
                           Sample(f"{name}_mixed", inputs=[_bools((2, 3)), _ints((3,), -1, 2)], checks=_FORWARD)],
                  dtype_forms=forms, errors=errors)


def _bitwise(name, op, ref, forms, errors=(), promotion=None, empty=(), raises=()):
    return OpInfo(name, "compare", op, ref, promotion=promotion,
                  samples=[Sample(name, inputs=[_ints((3, 4)), _ints((4,))], checks=_FORWARD),
                           Sample(f"{name}_bool", inputs=[_bools((2, 3)), _bools((2, 3))], checks=_FORWARD),
                           Sample(f"{name}_uint8", lambda lib, a, b: getattr(lib, name)(a, b),
                                  [_ints((5,), 0, 200, np.uint8), _ints((5,), 0, 200, np.uint8)], checks=_FORWARD)],
                  dtype_forms=forms, errors=errors, empty=empty, raises=raises)


def _shift(name, op, ref, forms, errors=(), empty=(), raises=()):
    return OpInfo(name, "compare", op, ref,
                  samples=[Sample(name, inputs=[_ints((3, 4), -50, 50), _ints((4,), 0, 5)], checks=_FORWARD),
                           Sample(f"{name}_scalar", lambda lib, a: getattr(lib, name)(a, 2),
                                  [_ints((5,), 0, 100, np.uint8)], checks=_FORWARD)],
                  dtype_forms=forms, errors=errors, empty=empty, raises=raises)


def _value_test(name, ref, extra=(), float16=()):
    """A one-input value test (isnan, isinf ...): bool of the same shape."""
    return OpInfo(name, "compare", lambda lib, x: getattr(lib, name)(x), ref, float16=float16,
                  samples=[Sample(name, inputs=[_special((3, 4))], checks=_FORWARD),
                           Sample(f"{name}_method", lambda lib, x: getattr(x, name)(), [_special((5,))],
                                  checks=_FORWARD),
                           Sample(f"{name}_int", inputs=[_ints((4,), -5, 5)], checks=_FORWARD), *extra])


def _shift_count(lib, b):
    return b.abs() if b.dtype != lib.bool else b


OPS = [
    OpInfo("isposinf", "compare", lambda lib, x: lib.isposinf(x), np.isposinf,
           samples=[Sample("isposinf", inputs=[_special((3, 4))], checks=_FORWARD),
                    Sample("isposinf_method", lambda lib, x: x.isposinf(), [_special((5,))], checks=_FORWARD),
                    Sample("isposinf_int", inputs=[In((4,), -5, 5, dtype=np.int64, grad=False)], checks=_FORWARD)]),
    OpInfo("isneginf", "compare", lambda lib, x: lib.isneginf(x), np.isneginf,
           samples=[Sample("isneginf", inputs=[_special((3, 4))], checks=_FORWARD),
                    Sample("isneginf_method", lambda lib, x: x.isneginf(), [_special(())], checks=_FORWARD),
                    Sample("isneginf_int", inputs=[In((4,), -5, 5, dtype=np.int32, grad=False)], checks=_FORWARD)]),
    OpInfo("isreal", "compare", lambda lib, x: lib.isreal(x), np.isreal,
           samples=[Sample("isreal", inputs=[_special((2, 3))], checks=_FORWARD),
                    Sample("isreal_method", lambda lib, x: x.isreal(), [_special((4,))], checks=_FORWARD),
                    Sample("isreal_bool", inputs=[In((3,), dtype=np.bool_, grad=False)], checks=_FORWARD)]),
    # comparisons: operator, function and method forms; PyTorch's alias names (greater ...) on the same entry
    _comparison("eq", lambda lib, a, b: a == b, np.equal, "eq",
                forms=[("eq", None), ("eq_fn", lambda lib, a, b: lib.eq(a, b))],
                errors=[("eq", None), ("eq_fn", lambda lib, a, b: lib.eq(a, b))], promotion="both",
                raises=[("eq_shape_mismatch", lambda lib: lib.ones(3) == lib.ones(4), RuntimeError,
                         MISMATCH.format(3, 4, 0))]),
    _comparison("ne", lambda lib, a, b: a != b, np.not_equal, "ne", aliases=["not_equal"],
                forms=[("ne", None), ("ne_method", lambda lib, a, b: a.ne(b)),
                       ("not_equal", lambda lib, a, b: lib.not_equal(a, b))],
                errors=[("ne_method", lambda lib, a, b: a.ne(b))]),
    _comparison("lt", lambda lib, a, b: a < b, np.less, "lt", aliases=["less"],
                forms=[("lt", None), ("lt_fn", lambda lib, a, b: lib.lt(a, b))],
                errors=[("lt", None)], promotion="both",
                raises=[("lt_shape_mismatch", lambda lib: lib.ones(3) < lib.ones(2, 4), RuntimeError,
                         MISMATCH.format(3, 4, 1))]),
    _comparison("le", lambda lib, a, b: a <= b, np.less_equal, "le", aliases=["less_equal"],
                forms=[("le", None), ("le_method", lambda lib, a, b: a.le(b)),
                       ("less_equal", lambda lib, a, b: a.less_equal(b))]),
    _comparison("gt", lambda lib, a, b: a > b, np.greater, "gt", aliases=["greater"],
                forms=[("gt", None), ("gt_method", lambda lib, a, b: a.gt(b)),
                       ("greater", lambda lib, a, b: lib.greater(a, b))]),
    _comparison("ge", lambda lib, a, b: a >= b, np.greater_equal, "ge", aliases=["greater_equal"],
                forms=[("ge", None), ("ge_fn", lambda lib, a, b: lib.ge(a, b)),
                       ("greater_equal", lambda lib, a, b: a.greater_equal(b))],
                errors=[("ge", None)], promotion="both"),
    # logical operators: any dtype, bool result
    _logical("logical_and", np.logical_and, forms=[("logical_and", None)], errors=[("logical_and", None)],
             promotion="none",
             raises=[("logical_and_shape_mismatch", lambda lib: lib.logical_and(lib.ones(3), lib.ones(4)),
                      RuntimeError, MISMATCH.format(3, 4, 0))]),
    _logical("logical_or", np.logical_or, forms=[("logical_or", lambda lib, a, b: a.logical_or(b))]),
    _logical("logical_xor", np.logical_xor, forms=[("logical_xor", None)], errors=[("logical_xor", None)]),
    OpInfo("logical_not", "compare", lambda lib, x: lib.logical_not(x), np.logical_not,
           samples=[Sample("logical_not", inputs=[_ties((3, 4))], checks=_FORWARD),
                    Sample("logical_not_int", lambda lib, x: x.logical_not(), [_ints((5,), -2, 2)], checks=_FORWARD)],
           dtype_forms=[("logical_not", lambda lib, a, b: lib.logical_not(a)),
                        ("logical_not_method", lambda lib, a, b: b.logical_not())]),
    # bitwise operators: integers and bool; floats have no kernel (PyTorch's NotImplementedError)
    _bitwise("bitwise_and", lambda lib, a, b: a & b, np.bitwise_and,
             forms=[("and", None), ("bitwise_and", lambda lib, a, b: lib.bitwise_and(a, b))],
             errors=[("and", None), ("bitwise_and", lambda lib, a, b: lib.bitwise_and(a, b))], promotion="both",
             empty=[("int empties", lambda L, a, b: L.bitwise_and(a, b), ((0, 3), "int64"), ((1, 3), "int64"))],
             raises=[_not_implemented("and_float_scalar", lambda lib: lib.tensor([1.0, 2.0]) & 1, "bitwise_and_cpu",
                                      "Float"),
                     _not_implemented("and_int_float_scalar", lambda lib: lib.tensor([1, 2]) & 2.5, "bitwise_and_cpu",
                                      "Float"),
                     ("and_shape_mismatch", lambda lib: lib.tensor([1, 2, 3]) & lib.tensor([1, 2]), RuntimeError,
                      MISMATCH.format(3, 2, 0))]),
    _bitwise("bitwise_or", lambda lib, a, b: a | b, np.bitwise_or,
             forms=[("or", None), ("bitwise_or", lambda lib, a, b: a.bitwise_or(b))],
             errors=[("or", None)], promotion="both",
             empty=[("int empties", lambda L, a, b: L.bitwise_or(a, b), ((0, 3), "int64"), ((1, 3), "int64"))],
             raises=[_not_implemented("or_int_float", lambda lib: lib.tensor([1, 2]) | lib.tensor([1.0, 2.0]),
                                      "bitwise_or_cpu", "Float")]),
    _bitwise("bitwise_xor", lambda lib, a, b: a ^ b, np.bitwise_xor,
             forms=[("xor", None), ("bitwise_xor", lambda lib, a, b: lib.bitwise_xor(a, b))],
             errors=[("xor", None)], promotion="both",
             empty=[("bool empties", lambda L, a, b: L.bitwise_xor(a, b), ((0,), "bool"), ((0,), "bool"))],
             raises=[_not_implemented("xor_double_int",
                                      lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64) ^ lib.tensor([1, 2]),
                                      "bitwise_xor_cpu", "Double")]),
    OpInfo("bitwise_not", "compare", lambda lib, x: ~x, np.invert,
           samples=[Sample("bitwise_not", inputs=[_ints((3, 4))], checks=_FORWARD),
                    Sample("bitwise_not_bool", lambda lib, x: lib.bitwise_not(x), [_bools((5,))], checks=_FORWARD),
                    Sample("bitwise_not_uint8", lambda lib, x: x.bitwise_not(), [_ints((5,), 0, 200, np.uint8)],
                           checks=_FORWARD)],
           dtype_forms=[("invert", lambda lib, a, b: ~a), ("bitwise_not", lambda lib, a, b: a.bitwise_not())],
           empty=[("int empty", lambda L, a: L.bitwise_not(a), ((2, 0), "int32"))],
           raises=[_not_implemented("bitwise_not_half", lambda lib: lib.bitwise_not(lib.tensor([1.0], dtype=lib.float16)),
                                    "bitwise_not_cpu", "Half"),
                   ("invert_float", lambda lib: ~lib.tensor([1.0]), TypeError,
                    "~ (operator.invert) is only implemented on integer and Boolean-type tensors")]),
    _shift("bitwise_left_shift", lambda lib, a, b: a << b, np.left_shift,
           forms=[("lshift", lambda lib, a, b: a << _shift_count(lib, b)),
                  ("bitwise_left_shift", lambda lib, a, b: lib.bitwise_left_shift(a, 1))],
           errors=[("lshift", None)],
           empty=[("int empties", lambda L, a, b: L.bitwise_left_shift(a, b), ((0, 3), "int64"), ((1, 3), "int64"))],
           raises=[_not_implemented("lshift_float", lambda lib: lib.tensor([1.0]) << 1, "lshift_cpu", "Float"),
                   _not_implemented("lshift_bool", lambda lib: lib.tensor([True]) << lib.tensor([True]), "lshift_cpu",
                                    "Bool")]),
    _shift("bitwise_right_shift", lambda lib, a, b: a >> b, np.right_shift,
           forms=[("rshift", lambda lib, a, b: a >> _shift_count(lib, b)),
                  ("bitwise_right_shift", lambda lib, a, b: a.bitwise_right_shift(1))],
           empty=[("uint8 empty", lambda L, a: L.bitwise_right_shift(a, 1), ((0,), "uint8"))],
           raises=[_not_implemented("rshift_float", lambda lib: lib.tensor([1.0]) >> 1, "rshift_cpu", "Float")]),
    # value tests
    _value_test("isnan", np.isnan, float16=[("isnan", lambda lib, x, y: x.isnan())]),
    _value_test("isinf", np.isinf),
    _value_test("isfinite", np.isfinite, float16=[("isfinite", lambda lib, x, y: x.isfinite())]),
    _value_test("signbit", np.signbit, extra=[Sample("signbit_uint8", inputs=[_ints((4,), 0, 9, np.uint8)],
                                                     checks=_FORWARD)]),
    OpInfo("isclose", "compare", lambda lib, a, b: lib.isclose(a, b), np.isclose,
           samples=[Sample("isclose", inputs=[_special((3, 4)), _special((4,))], checks=_FORWARD),
                    Sample("isclose_equal_nan", lambda lib, a, b: a.isclose(b, equal_nan=True),
                           [_special((2, 3)), _special((2, 3))], checks=_FORWARD),
                    Sample("isclose_tolerances", lambda lib, a, b: lib.isclose(a, a + b, rtol=0.1, atol=0.05),
                           [In((6,), grad=False), In((6,), -0.2, 0.2, grad=False)], checks=_FORWARD)],
           empty=[("empty", lambda L, a, b: L.isclose(a, b), ((0, 3), F), ((0, 3), F))]),
    # allclose and equal answer a Python bool: the samples compare it as a 0-d tensor
    OpInfo("allclose", "compare", lambda lib, a, b: lib.tensor(lib.allclose(a, b)), np.allclose,
           samples=[Sample("allclose", inputs=[_ties((3, 4)), _ties((4,))], checks=_FORWARD),
                    Sample("allclose_near", lambda lib, a, b: lib.tensor(a.allclose(a + b * 1e-7)),
                           [In((2, 3), grad=False), In((2, 3), grad=False)], checks=_FORWARD),
                    Sample("allclose_equal_nan", lambda lib, a: lib.tensor(lib.allclose(a, a, equal_nan=True)),
                           [_special((4,))], checks=_FORWARD)],
           empty=[("empty", lambda L, a, b: L.allclose(a, b), ((0, 3), F), ((0, 3), F))]),
    OpInfo("equal", "compare", lambda lib, a, b: lib.tensor(lib.equal(a, b)), np.array_equal,
           samples=[Sample("equal", inputs=[_ties((2, 2)), _ties((2, 2))], checks=_FORWARD),
                    Sample("equal_self", lambda lib, a: lib.tensor(a.equal(a.clone())), [In((3,), grad=False)],
                           checks=_FORWARD),
                    Sample("equal_shapes_differ", lambda lib, a, b: lib.tensor(lib.equal(a, b)),
                           [In((2, 3), grad=False), In((3,), grad=False)], checks=_FORWARD)],
           empty=[("empty vs empty", lambda L, a, b: L.equal(a, b), ((0, 3), F), ((0, 3), F)),
                  ("(0,3) vs (3,0)", lambda L, a, b: L.equal(a, b), ((0, 3), F), ((3, 0), F))]),
]
