"""where, maximum/minimum, fmax/fmin, clamp/clip, atan2, lerp, addcmul/addcdiv, hypot, xlogy against
PyTorch and finite differences; ties, NaN and boundary gradients follow PyTorch's conventions."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import DOUBLE_BACKWARD, FD, NO_UPCAST, PARITY, call_forms, grad_samples, samples
from _elementwise_parity import check_error, check_forward, check_like_torch
from _table_tests import double_backward_test, finite_difference_test, no_upcast_test, torch_parity_test


# The rows (samples, integer-dtype call forms) live in the op table: tests/opinfo/family_pointwise.py.
CASES = samples(PARITY, "pointwise")
GRAD_CASES = grad_samples(samples(FD, "pointwise"))
DB_CASES = grad_samples(samples(DOUBLE_BACKWARD, "pointwise"))

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)
    test_double_backward = double_backward_test(DB_CASES)
test_finite_differences = finite_difference_test(GRAD_CASES)
test_float32_gradients_stay_float32 = no_upcast_test(samples(NO_UPCAST, "pointwise"))


if HAS_TORCH:
    def _grads(lib, fn, *arrays):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *ts)
        out.backward(lib.ones_like(out))
        return [t.grad.numpy() for t in ts]

    TIES = [
        ("maximum", lambda lib, a, b: lib.maximum(a, b)), ("minimum", lambda lib, a, b: lib.minimum(a, b)),
        ("fmax", lambda lib, a, b: lib.fmax(a, b)), ("fmin", lambda lib, a, b: lib.fmin(a, b)),
        ("clamp_tensors", lambda lib, a, b: a.clamp(min=b)), ("clamp_max_tensor", lambda lib, a, b: a.clamp(max=b)),
        ("max_binary", lambda lib, a, b: lib.max(a, b)), ("min_binary", lambda lib, a, b: lib.min(a, b)),
    ]

    @pytest.mark.parametrize("name, fn", TIES, ids=[n for n, _ in TIES])
    def test_ties_and_nan_gradients_like_torch(name, fn):
        # Ties split the gradient (maximum/minimum) or go to the first input (fmax/fmin); NaN propagates.
        a = np.array([1.0, 2.0, 3.0, np.nan, 1.0, np.nan], np.float32)
        b = np.array([1.0, 1.0, 4.0, 2.0, np.nan, np.nan], np.float32)
        check_forward(fn, a, b, what=name)
        for gn, gt in zip(_grads(npgrad, fn, a, b), _grads(torch, fn, a, b)):
            np.testing.assert_array_equal(gn, gt, err_msg=name)

    @pytest.mark.parametrize("bounds", [(-1.0, 1.0), (None, 0.5), (0.5, None), (1.0, -1.0), (-1, 1)])
    def test_clamp_gradient_on_the_bounds_like_torch(bounds):
        # The bounds themselves are inside: x == min or x == max passes its gradient.
        x = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, np.nan], np.float32)
        fn = lambda lib, t: t.clamp(*bounds)  # noqa: E731
        check_forward(fn, x)
        np.testing.assert_array_equal(_grads(npgrad, fn, x)[0], _grads(torch, fn, x)[0])

    def test_where_gradient_of_unused_branch_is_zero_not_nan():
        # The classic: where(x > 0, sqrt(x), 0) has a finite gradient only if the masked branch is kept out.
        x = np.array([-1.0, 0.0, 4.0], np.float32)
        fn = lambda lib, t: lib.where(t > 0, t, lib.zeros_like(t)) * 2  # noqa: E731
        np.testing.assert_array_equal(_grads(npgrad, fn, x)[0], _grads(torch, fn, x)[0])

    DTYPE_EXPRS = call_forms("integer", "pointwise")

    @pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("name, fn", DTYPE_EXPRS, ids=[n for n, _ in DTYPE_EXPRS])
    def test_non_float_inputs_like_torch(name, fn, dtype):
        c = np.array([[True, False, True], [False, True, False]])
        a = np.array([[0, 1, 2], [3, 1, 4]]).astype(dtype)
        b = np.array([2, 1, 0]).astype(dtype)
        check_like_torch(fn, c, a, b, what=name)

    def test_clamp_wraps_a_negative_bound_of_an_unsigned_tensor_like_torch():
        check_forward(lambda lib, t: t.clamp(-1, 3), np.array([1, 5, 200], np.uint8))


MISMATCH_MSG = "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}"


@pytest.mark.parametrize("fn, sizes", [
    (lambda lib: lib.maximum(lib.ones(2, 3), lib.ones(4, 3)), (2, 4, 0)),
    (lambda lib: lib.minimum(lib.ones(3), lib.ones(4, requires_grad=True)), (3, 4, 0)),
    (lambda lib: lib.fmax(lib.ones(2, 3), lib.ones(2, 4)), (3, 4, 1)),
    (lambda lib: lib.atan2(lib.ones(2, 3), lib.ones(4, 3)), (2, 4, 0)),
    (lambda lib: lib.ones(2).clamp(min=lib.ones(3)), (2, 3, 0)),
    (lambda lib: lib.where(lib.ones(2, 3) > 0, lib.ones(4, 3), 0.0), (2, 4, 0)),
    (lambda lib: lib.where(lib.ones(3) > 0, lib.ones(2, 3), lib.ones(4, 1)), (2, 4, 0)),
    (lambda lib: lib.where(lib.ones(2, 3) > 0, lib.ones(3, 1), lib.ones(4, 1, 1)), (2, 3, 0)),
])
def test_shape_mismatch_errors(fn, sizes):
    check_error(fn, RuntimeError, MISMATCH_MSG.format(*sizes))


def test_where_condition_must_be_bool():
    check_error(lambda lib: lib.where(lib.tensor([1, 0]), 1.0, 0.0), RuntimeError,
                "where expected condition to be a boolean tensor, but got a tensor with dtype Long")
    check_error(lambda lib: lib.where(lib.tensor([1.0, 0.0]), 1.0, 0.0), RuntimeError,
                "where expected condition to be a boolean tensor, but got a tensor with dtype Float")


def test_clamp_needs_a_bound():
    check_error(lambda lib: lib.clamp(lib.ones(2)), RuntimeError,
                "torch.clamp: At least one of 'min' or 'max' must not be None")


def test_where_with_one_argument_is_nonzero():
    idx = npgrad.where(npgrad.tensor([[0, 1], [2, 0]]))
    assert [t.tolist() for t in idx] == [[0, 1], [1, 0]]


GRAD_FN_NAMES = {
    "maximum": (lambda lib, x, y: lib.maximum(x, y), "MaximumBackward0"),
    "minimum": (lambda lib, x, y: lib.minimum(x, y), "MinimumBackward0"),
    "fmax": (lambda lib, x, y: lib.fmax(x, y), "FmaxBackward0"),
    "fmin": (lambda lib, x, y: lib.fmin(x, y), "FminBackward0"),
    "clamp_numbers": (lambda lib, x, y: x.clamp(0, 1), "ClampBackward1"),
    "clamp_tensors": (lambda lib, x, y: x.clamp(y, y + 1), "ClampBackward0"),
    "clamp_min_number": (lambda lib, x, y: x.clamp_min(0), "ClampMinBackward0"),
    "clamp_max_number": (lambda lib, x, y: x.clamp_max(0), "ClampMaxBackward0"),
    "clamp_min_tensor": (lambda lib, x, y: x.clamp_min(y), "ClampMinBackward1"),
    "atan2": (lambda lib, x, y: lib.atan2(x, y), "Atan2Backward0"),
    "where": (lambda lib, x, y: lib.where(x > 0, x, y), "WhereBackward0"),
    "round_decimals": (lambda lib, x, y: x.round(decimals=1), "RoundBackward1"),
    "cast": (lambda lib, x, y: x.double(), "ToCopyBackward0"),
    "rounded_div": (lambda lib, x, y: x.div(y, rounding_mode="floor"), "DivBackward2"),
}


@pytest.mark.parametrize("name", list(GRAD_FN_NAMES))
def test_grad_fn_names_are_pytorch_names(name):
    fn, expected = GRAD_FN_NAMES[name]
    for lib in (npgrad, torch) if HAS_TORCH else (npgrad,):
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        assert fn(lib, x, y).grad_fn.name() == expected, lib.__name__
