"""Errors of the core tensor API in PyTorch's words: a sweep of elementwise operators over shapes that do
not broadcast and dtypes without a kernel, plus the errors users meet first. The expected messages are
written out (so the tests mean something without PyTorch) and checked against PyTorch when installed."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH
from opinfo import call_forms
from _elementwise_parity import check_error, check_error_like_torch, check_like_torch

BINARY = dict(call_forms("errors"))  # the rows live in the op table (tests/opinfo)

SHAPE_PAIRS = [((3,), (4,)), ((2, 3), (3, 2)), ((5, 1, 3), (4, 2)), ((2, 3), (2, 3, 4))]
DTYPES = [np.float32, np.int64, np.bool_]


def _values(dtype, shape):
    a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape) % 3 + 1
    return a.astype(dtype)


if HAS_TORCH:
    @pytest.mark.parametrize("sa, sb", SHAPE_PAIRS, ids=str)
    @pytest.mark.parametrize("op", list(BINARY))
    def test_shape_mismatch_sweep_like_torch(op, sa, sb):
        # The first error PyTorch reports (the sizes, or a dtype it has no kernel for) is npgrad's too.
        check_like_torch(BINARY[op], _values(np.float32, sa), _values(np.float32, sb), what=op)

    @pytest.mark.parametrize("da", DTYPES, ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("db", DTYPES, ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("op", list(BINARY))
    def test_dtype_sweep_like_torch(op, da, db):
        # Either the same result as PyTorch or the same error (bool subtraction, float bitwise, bool pow ...).
        check_like_torch(BINARY[op], _values(da, (2, 3)), _values(db, (3,)), what=op)


def test_no_numpy_message_leaks_from_binary_operators():
    # Whatever the operator, a shape mismatch never surfaces as NumPy's "could not be broadcast" ValueError.
    for name, fn in BINARY.items():
        with pytest.raises(Exception) as info:
            fn(npgrad, npgrad.ones(2, 3), npgrad.ones(4, 3))
        assert not isinstance(info.value, ValueError) and "broadcast together" not in str(info.value), name


# -- the errors named in the acceptance criteria ----------------------------------------------------------------

def test_binary_shape_mismatch_message():
    check_error(lambda lib: lib.ones(3) + lib.ones(4), RuntimeError,
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0")
    check_error(lambda lib: lib.ones(2, 3, requires_grad=True) * lib.ones(2, 4), RuntimeError,
                "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1")
    check_error(lambda lib: lib.ones(5, 2, 3) - lib.ones(4, 3), RuntimeError,
                "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 1")


def test_requires_grad_on_integer_tensor():
    check_error(lambda lib: lib.tensor([1, 2], requires_grad=True), RuntimeError,
                "Only Tensors of floating point and complex dtype can require gradients")
    check_error(lambda lib: lib.tensor([1, 2]).requires_grad_(), RuntimeError,
                "only Tensors of floating point dtype can require gradients")
    check_error(lambda lib: lib.arange(3).requires_grad_(True), RuntimeError,
                "only Tensors of floating point dtype can require gradients")


def test_bool_of_multi_element_tensor():
    check_error(lambda lib: bool(lib.ones(2)), RuntimeError,
                "Boolean value of Tensor with more than one value is ambiguous")
    check_error(lambda lib: lib.ones(2) > 0 and 1, RuntimeError,
                "Boolean value of Tensor with more than one value is ambiguous")


def test_bitwise_on_float():
    check_error(lambda lib: lib.ones(2) & lib.ones(2), NotImplementedError,
                "\"bitwise_and_cpu\" not implemented for 'Float'")
    check_error(lambda lib: lib.ones(2, dtype=lib.float64) | 1, NotImplementedError,
                "\"bitwise_or_cpu\" not implemented for 'Double'")
    check_error(lambda lib: ~lib.ones(2), TypeError,
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors")


def test_integer_division_by_zero():
    check_error(lambda lib: lib.tensor([4, 5]) // 0, RuntimeError, "ZeroDivisionError")
    check_error(lambda lib: lib.tensor([4, 5]) % lib.tensor([1, 0]), RuntimeError, "ZeroDivisionError")


def test_item_of_many_and_scalar_conversions():
    check_error(lambda lib: lib.ones(3).item(), RuntimeError, "a Tensor with 3 elements cannot be converted to Scalar")
    check_error(lambda lib: float(lib.ones(3)), ValueError, "only one element tensors can be converted to Python scalars")


def test_dtype_errors_users_hit():
    check_error(lambda lib: lib.where(lib.tensor([1, 0]), 1.0, 0.0), RuntimeError,
                "where expected condition to be a boolean tensor, but got a tensor with dtype Long")
    check_error(lambda lib: -lib.tensor([True]), RuntimeError,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
                "use the `~` or `logical_not()` operator instead.")
    check_error(lambda lib: lib.tensor([1, 2]).__iadd__(0.5), RuntimeError,
                "result type Float can't be cast to the desired output type Long")
    check_error(lambda lib: lib.tensor([2, 3]) ** -1, RuntimeError, "Integers to negative integer powers are not allowed.")
    check_error(lambda lib: lib.set_default_dtype(lib.int32), TypeError,
                "only floating-point types are supported as the default type")


def test_unsupported_operand_types():
    for value in ("a", None, object()):
        with pytest.raises(TypeError):
            npgrad.ones(2) + value
        with pytest.raises(TypeError):
            value * npgrad.ones(2)
    if HAS_TORCH:
        check_error_like_torch(lambda lib: lib.ones(2) < "a")


@pytest.mark.parametrize("fn, message", [
    (lambda lib: lib.ones(2, 3).expand(3),
     "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the "
     "number of dimensions in the tensor (2)"),
    (lambda lib: lib.ones(2, 3).expand(-1, -1, 3),
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda lib: lib.ones(2, 3).expand(2, 4),
     "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
     "Target sizes: [2, 4].  Tensor sizes: [2, 3]"),
    (lambda lib: lib.broadcast_shapes((2, 3), (4, 3)),
     "Attempting to broadcast a dimension of length 4 at -2! Mismatching argument at index 1 had (4, 3); but "
     "expected shape should be broadcastable to [2, 3]"),
])
def test_broadcasting_helper_errors(fn, message):
    # (broadcast_to/broadcast_tensors: their errors are op-table rows, run by tests/ops/test_broadcast.py)
    check_error(fn, RuntimeError, message)


def test_broadcast_shapes_returns_size():
    s = npgrad.broadcast_shapes((2, 1), (1, 3), (5, 1, 1))
    assert s == (5, 2, 3) and isinstance(s, npgrad.Size)
    assert npgrad.broadcast_shapes(2, (3, 1)) == (3, 2) and npgrad.broadcast_shapes() == ()
