"""Elementwise functions of one tensor against PyTorch and finite differences.

Each row samples inputs inside the function's domain and away from its kinks (log of positives, asin in
(-1, 1), abs/relu away from 0, floor away from integers), so the finite-difference gradient is
meaningful; the behaviour exactly at kinks, special values and non-float dtypes is checked against
PyTorch separately.
"""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import (BY_NAME, DOUBLE_BACKWARD, FD, FLOAT16_SWEEP, INTEGER_SWEEP, KINKS_SWEEP, NO_UPCAST, PARITY,
                    SPECIAL_SWEEP, Unary, grad_samples, samples, swept)
from _elementwise_parity import check_forward, check_like_torch
from _table_tests import double_backward_test, finite_difference_test, no_upcast_test, torch_parity_test

# The rows live in the op table: tests/opinfo/family_unary.py.
CASES = samples(PARITY, "unary")

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)
    test_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, "unary")))
test_finite_differences = finite_difference_test(grad_samples(samples(FD, "unary")))
test_float32_gradients_stay_float32 = no_upcast_test(samples(NO_UPCAST, "unary"))


# -- dtypes other than float32/float64: forward values and result types --------------------------------------

def _positive_domain(name):
    """The operator's property spec keeps to positive values (log, sqrt, acosh ...)."""
    return any(isinstance(p, Unary) and p.low > 0 for p in BY_NAME[name].properties)


def _int_values(dtype):
    if np.dtype(dtype).kind == "b":
        return np.array([[True, False, True], [False, False, True]])
    v = np.array([[0, 1, 2], [3, -1, -4]])
    return (np.abs(v) if np.dtype(dtype).kind == "u" else v).astype(dtype)


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_],
                             ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("name", swept(INTEGER_SWEEP))
    def test_integer_and_bool_inputs_like_torch(name, dtype):
        # Float functions promote to the default float type; abs/sign/square/floor... keep integers;
        # bool inputs follow PyTorch's kernels (some refuse bool with its NotImplementedError).
        check_like_torch(lambda lib, x: getattr(lib, name)(x), _int_values(dtype), what=name)

    @pytest.mark.parametrize("name", swept(FLOAT16_SWEEP))
    def test_float16_like_torch(name):
        x = np.array([[0.1, 0.5, 0.9], [-0.3, -0.7, 0.25]], np.float16)
        if _positive_domain(name):
            x = np.abs(x) + np.float16(1.0)
        check_like_torch(lambda lib, t: getattr(lib, name)(t), x, what=name)

    def test_float64_default_dtype_promotes_integers_to_float64():
        prev = npgrad.get_default_dtype()
        npgrad.set_default_dtype(npgrad.float64)
        torch.set_default_dtype(torch.float64)
        try:
            check_forward(lambda lib, x: x.exp() + x.sqrt(), np.array([1, 4, 9]))
        finally:
            npgrad.set_default_dtype(prev)
            torch.set_default_dtype(torch.float32)

    SPECIAL = np.array([0.0, -0.0, -1.0, 1.0, np.inf, -np.inf, np.nan, 1e-30, 88.0, -88.0, 1000.0, -1000.0],
                       np.float32)

    @pytest.mark.parametrize("name", swept(SPECIAL_SWEEP))
    def test_special_values_like_torch(name):
        # log(0) = -inf, sqrt(-1) = nan, exp(1000) = inf, sigmoid(-1000) = 0 ... exactly as PyTorch.
        check_forward(lambda lib, x: getattr(lib, name)(x), SPECIAL, what=name)

    def test_nan_to_num_arguments_like_torch():
        x = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0], np.float32)
        check_forward(lambda lib, t: lib.nan_to_num(t, nan=1.0, posinf=2.0, neginf=-3.0), x)
        check_forward(lambda lib, t: t.nan_to_num(posinf=9.0), x)
        check_forward(lambda lib, t: t.nan_to_num(), x.astype(np.float64))
        check_forward(lambda lib, t: t.nan_to_num(), x.astype(np.float16))

    def test_round_half_to_even_and_decimals_like_torch():
        x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.25, 1.35, -1.45, 123.456], np.float32)
        check_forward(lambda lib, t: t.round(), x)
        check_forward(lambda lib, t: lib.round(t, decimals=1), x)
        check_forward(lambda lib, t: t.round(decimals=2), x.astype(np.float64))
        check_forward(lambda lib, t: t.round(decimals=-1), x)

    @pytest.mark.parametrize("name", swept(KINKS_SWEEP))
    def test_gradient_at_kinks_and_domain_edges_like_torch(name):
        # PyTorch's one-sided conventions: abs'(0) = 0, relu'(0) = 0, sqrt'(0) = inf, asin'(1) = inf ...
        x = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, np.nan], np.float32)
        grads = []
        for lib in (npgrad, torch):
            t = lib.tensor(x, requires_grad=True)
            getattr(t, name)().backward(lib.ones(len(x)))
            grads.append(t.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1], err_msg=name)


def test_integer_input_gives_default_float_result():
    x = npgrad.tensor([1, 2, 3])
    for name in ("exp", "log", "sqrt", "sin", "sigmoid", "tanh", "reciprocal", "rsqrt"):
        r = getattr(x, name)()
        assert r.dtype is npgrad.float32, name
        np.testing.assert_allclose(r.numpy(), getattr(npgrad.tensor([1.0, 2.0, 3.0]), name)().numpy())
    for name in ("abs", "neg", "square", "sign", "floor", "round"):
        assert getattr(x, name)().dtype is npgrad.int64, name


def test_unary_results_are_new_tensors():
    # An integer floor/round is the identity but must still return a new tensor, as PyTorch's do.
    x = npgrad.tensor([1, 2, 3])
    for name in ("floor", "ceil", "trunc", "round"):
        r = getattr(x, name)()
        r += 1
        assert x.tolist() == [1, 2, 3], name


def test_sigmoid_extremes_are_exact():
    x = npgrad.tensor([-1000.0, 0.0, 1000.0], requires_grad=True)
    y = x.sigmoid()
    y.sum().backward()
    assert y.tolist() == [0.0, 0.5, 1.0]
    assert x.grad.tolist() == [0.0, 0.25, 0.0]
