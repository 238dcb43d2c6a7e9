"""Elementwise functions of one tensor against PyTorch and finite differences.

Each row samples inputs inside the function's domain and away from its kinks (log of positives, asin in
(-1, 1), abs/relu away from 0, floor away from integers), so the finite-difference gradient is
meaningful; the behaviour exactly at kinks, special values and non-float dtypes is checked against
PyTorch separately.
"""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from _elementwise_parity import check_forward, check_like_torch
from _table_tests import double_backward_test, finite_difference_test, no_upcast_test, torch_parity_test


def _away_from_integers(shape, low=-3.0, high=3.0):
    """Values at least 0.1 away from any integer (and from any .5 for round), so floor/round are flat."""
    def make(rng):
        whole = rng.integers(int(low), int(high), size=shape)
        frac = rng.choice([0.15, 0.3, 0.7, 0.85], size=shape)
        return whole + frac
    return make


def _m(name):
    """``x.name()``: the Tensor method form."""
    return lambda lib, x: getattr(x, name)()


def _f(name):
    """``lib.name(x)``: the function form."""
    return lambda lib, x: getattr(lib, name)(x)


POS = dict(low=0.2, high=3.0)
UNIT = dict(low=-0.9, high=0.9)
NZ = dict(nonzero=True)
FRAC = _away_from_integers((3, 4))

# name, form, input spec kwargs (shape (3, 4) unless given)
ROWS = [
    ("abs", _m, NZ), ("abs", _f, NZ), ("absolute", _f, NZ),
    ("exp", _m, {}), ("exp", _f, {}), ("exp2", _m, {}), ("expm1", _f, {}),
    ("log", _m, POS), ("log", _f, POS), ("log2", _m, POS), ("log10", _f, POS), ("log1p", _m, dict(low=-0.5, high=2.0)),
    ("sqrt", _m, POS), ("sqrt", _f, POS), ("rsqrt", _m, POS), ("square", _m, {}), ("square", _f, {}),
    ("reciprocal", _m, NZ),
    ("sin", _m, {}), ("cos", _f, {}), ("tan", _m, dict(low=-1.2, high=1.2)),
    ("asin", _m, UNIT), ("acos", _f, UNIT), ("atan", _m, {}), ("arcsin", _f, UNIT), ("arccos", _m, UNIT),
    ("arctan", _f, {}),
    ("sinh", _m, {}), ("cosh", _f, {}), ("tanh", _m, {}), ("tanh", _f, {}),
    ("asinh", _m, {}), ("acosh", _f, dict(low=1.1, high=3.0)), ("atanh", _m, UNIT),
    ("arcsinh", _f, {}), ("arccosh", _m, dict(low=1.1, high=3.0)), ("arctanh", _f, UNIT),
    ("sigmoid", _m, {}), ("sigmoid", _f, dict(low=-30.0, high=30.0)),
    ("relu", _m, NZ), ("relu", _f, NZ),
    ("sign", _m, NZ), ("sign", _f, NZ),
    ("floor", _m, dict(values=FRAC)), ("ceil", _f, dict(values=FRAC)), ("round", _m, dict(values=FRAC)),
    ("trunc", _f, dict(values=FRAC)), ("frac", _m, dict(values=FRAC)),
    ("neg", _m, {}), ("nan_to_num", _m, {}),
]

CASES = [OpCase(f"{name}_{'method' if form is _m else 'fn'}", form(name), [In((3, 4), **spec)])
         for name, form, spec in ROWS]
# Every function once on a 0-d tensor (NumPy hands back scalars there, which formulas must survive).
CASES += [OpCase(f"{name}_0d", _m(name), [In((), **spec)]) for name, form, spec in ROWS
          if form is _m and "values" not in spec]
CASES += [
    OpCase("floor_0d", lambda lib, x: x.floor(), [In((), values=lambda r: np.array(1.3))]),
    OpCase("log_0d", lambda lib, x: lib.log(x), [In((), 0.5, 2.0)]),
    OpCase("tanh_1elem", lambda lib, x: x.tanh(), [In((1,))]),
    OpCase("sqrt_3d", lambda lib, x: x.sqrt(), [In((2, 3, 2), 0.2, 3.0)]),
    OpCase("round_decimals", lambda lib, x: x.round(decimals=1) * x, [In((3, 4), values=lambda r: r.uniform(-3, 3, (3, 4)).round(3) + 0.0004)]),
    OpCase("chain_unary", lambda lib, x: (x.sin() * x.exp()).tanh().sigmoid().log(), [In((2, 3))]),
    OpCase("softplus_by_hand", lambda lib, x: (1 + (-x.abs()).exp()).log() + x.relu(), [In((5,), nonzero=True)]),
    OpCase("rsqrt_of_square_plus", lambda lib, x: (x.square() + 1).rsqrt(), [In((4,))]),
    OpCase("reciprocal_fn", lambda lib, x: lib.reciprocal(x) * 2, [In((4,), nonzero=True)]),
    OpCase("abs_operator", lambda lib, x: abs(x), [In((4,), nonzero=True)]),
]

GRAD_CASES = [c for c in CASES if c.fd]

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)
    test_double_backward = double_backward_test(GRAD_CASES)
test_finite_differences = finite_difference_test(GRAD_CASES)
test_float32_gradients_stay_float32 = no_upcast_test(CASES)


# -- dtypes other than float32/float64: forward values and result types --------------------------------------

UNARY_NAMES = ["abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
               "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
               "acosh", "atanh", "sigmoid", "relu", "floor", "ceil", "round", "trunc", "frac", "neg",
               "nan_to_num", "positive"]


def _int_values(dtype):
    if np.dtype(dtype).kind == "b":
        return np.array([[True, False, True], [False, False, True]])
    v = np.array([[0, 1, 2], [3, -1, -4]])
    return (np.abs(v) if np.dtype(dtype).kind == "u" else v).astype(dtype)


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_],
                             ids=lambda d: np.dtype(d).name)
    @pytest.mark.parametrize("name", UNARY_NAMES)
    def test_integer_and_bool_inputs_like_torch(name, dtype):
        # Float functions promote to the default float type; abs/sign/square/floor... keep integers;
        # bool inputs follow PyTorch's kernels (some refuse bool with its NotImplementedError).
        check_like_torch(lambda lib, x: getattr(lib, name)(x), _int_values(dtype), what=name)

    @pytest.mark.parametrize("name", UNARY_NAMES)
    def test_float16_like_torch(name):
        x = np.array([[0.1, 0.5, 0.9], [-0.3, -0.7, 0.25]], np.float16)
        if name in ("log", "log2", "log10", "sqrt", "rsqrt", "acosh"):
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

    @pytest.mark.parametrize("name", [n for n in UNARY_NAMES if n not in ("positive",)])
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

    KINKS = [
        ("abs", lambda lib, x: x.abs()), ("relu", lambda lib, x: x.relu()), ("sign", lambda lib, x: x.sign()),
        ("floor", lambda lib, x: x.floor()), ("ceil", lambda lib, x: x.ceil()), ("round", lambda lib, x: x.round()),
        ("trunc", lambda lib, x: x.trunc()), ("frac", lambda lib, x: x.frac()), ("sqrt", lambda lib, x: x.sqrt()),
        ("rsqrt", lambda lib, x: x.rsqrt()), ("log", lambda lib, x: x.log()), ("reciprocal", lambda lib, x: x.reciprocal()),
        ("asin", lambda lib, x: x.asin()), ("acos", lambda lib, x: x.acos()), ("atanh", lambda lib, x: x.atanh()),
        ("nan_to_num", lambda lib, x: x.nan_to_num()),
    ]

    @pytest.mark.parametrize("name, fn", KINKS, ids=[k for k, _ in KINKS])
    def test_gradient_at_kinks_and_domain_edges_like_torch(name, fn):
        # PyTorch's one-sided conventions: abs'(0) = 0, relu'(0) = 0, sqrt'(0) = inf, asin'(1) = inf ...
        x = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, np.nan], np.float32)
        grads = []
        for lib in (npgrad, torch):
            t = lib.tensor(x, requires_grad=True)
            fn(lib, t).backward(lib.ones(len(x)))
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
