"""One small test per bug the property-based tests found (see /work/notes/reliability_bugs.md), so each
stays fixed even when a CI run's examples do not reach it. Expected values come from the definition (with
PyTorch installed they are checked against PyTorch too).
"""
import math

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

LIBS = (npgrad, torch) if HAS_TORCH else (npgrad,)


def grads_of(lib, fn, *values, dtype="float64"):
    ts = [lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True) for v in values]
    out = fn(lib, *ts)
    out.backward(lib.ones_like(out))
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_hypot_does_not_overflow_and_inf_beats_nan(lib):
    out = lib.hypot(lib.tensor([1e30, np.nan, 3.0]), lib.tensor([1e30, np.inf, 4.0]))
    assert out.dtype == lib.float32
    np.testing.assert_allclose(out.numpy(), [math.sqrt(2) * 1e30, np.inf, 5.0], rtol=1e-6)
    _, (ga, gb) = grads_of(lib, lambda L, a, b: L.hypot(a, b), [3.0], [4.0])
    np.testing.assert_allclose([ga[0], gb[0]], [0.6, 0.8])


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_xlogy_gradients_where_x_is_zero(lib):
    # d/dx x*log(y) = log(y) even at x = 0 (while y > 0); where y <= 0 too it is 0; d/dy = x/y (0/0 = NaN)
    _, (gx, gy) = grads_of(lib, lambda L, x, y: L.xlogy(x, y), [0.0, 0.0, 0.0, 2.0], [1e-30, 0.0, -1.0, np.e])
    np.testing.assert_allclose(gx, [math.log(1e-30), 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(np.isnan(gy), [False, True, False, False])
    out = lib.xlogy(lib.tensor([0.0, 0.0]), lib.tensor([np.nan, 0.0]))
    np.testing.assert_array_equal(out.numpy(), [np.nan, 0.0])


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_integer_operands_go_straight_to_float(lib):
    # uint8 with a 0-d int8 promotes to uint8, but atan2/xlogy compute in float: -1 must stay -1, not 255
    out = lib.atan2(lib.tensor([8], dtype=lib.uint8), lib.tensor(-1, dtype=lib.int8))
    np.testing.assert_allclose(out.numpy(), [math.atan2(8, -1)], rtol=1e-6)
    np.testing.assert_allclose(lib.xlogy(lib.tensor([1, 2]), 2.5).numpy(), [math.log(2.5), 2 * math.log(2.5)],
                               rtol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_atan2_gradient_at_the_origin_is_zero(lib):
    _, (ga, gb) = grads_of(lib, lambda L, a, b: L.atan2(a, b), [0.0, 1.0], [0.0, 1.0])
    np.testing.assert_allclose(ga, [0.0, 0.5])
    np.testing.assert_allclose(gb, [0.0, -0.5])


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_division_gradient_does_not_square_a_tiny_divisor(lib):
    # float32: 1e-30 ** 2 underflows to 0; -g * (a / b) / b does not
    _, (ga, gb) = grads_of(lib, lambda L, a, b: a / b, [-0.0, 1e-20], [1e-30, 1e-10], dtype="float32")
    assert np.isfinite(gb).all()
    np.testing.assert_allclose(gb, [0.0, -1.0], rtol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_composites_compute_in_the_result_type(lib):
    a = lib.tensor(0.1, dtype=lib.float64)
    t = lib.tensor(np.float32(0.3))  # 0-d float32: the result is float64
    exact = 0.1 + 0.5 * float(np.float32(0.3)) ** 2
    assert lib.addcmul(a, t, t, value=0.5).item() == pytest.approx(exact, rel=1e-15)
    assert lib.addcdiv(a, t, t * 0 + 7, value=0.5).item() == pytest.approx(0.1 + 0.5 * float(np.float32(0.3)) / 7,
                                                                         rel=1e-15)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_empty_max_reductions_raise_pytorch_errors(lib):
    x = lib.zeros(1, 0)
    with pytest.raises(IndexError, match=r"^amax\(\): Expected reduction dim -1 to have non-zero size\.$"):
        x.amax((0, -1))
    with pytest.raises(RuntimeError, match=r"^amin\(\): Expected reduction dim to be specified"):
        lib.zeros(0).amin()
    with pytest.raises(RuntimeError, match=r"^aminmax\(\): cannot compute aminmax over an empty dimension"):
        lib.aminmax(lib.zeros(0))
    with pytest.raises(IndexError, match=r"^aminmax: Expected reduction dim 1 to have non-zero size\.$"):
        lib.aminmax(lib.zeros(2, 0), dim=-1)
    with pytest.raises(RuntimeError, match=r"cannot compute the inf norm on the dimension 0because"):
        lib.zeros(0, 3).norm(float("inf"), dim=0)
    with pytest.raises(RuntimeError, match=r"cannot compute the -1 norm on an empty tensor"):
        lib.zeros(0).norm(-1)
    assert lib.zeros(0, 3).norm(float("inf"), dim=1).shape == (0,)
    assert lib.zeros(0, 3).norm(2).item() == 0.0


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_norm_gradients_at_nan_follow_sign_of_nan_is_zero(lib):
    _, (g1,) = grads_of(lib, lambda L, x: x.norm(1), [1.0, -2.0, np.nan])
    np.testing.assert_array_equal(g1, [1.0, -1.0, 0.0])
    _, (ginf,) = grads_of(lib, lambda L, x: x.norm(float("inf")), [1e30, np.nan])
    np.testing.assert_array_equal(ginf, [0.0, 0.0])


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_integer_pow_scalar_checks(lib):
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        lib.tensor([2], dtype=lib.uint8) ** 256
    assert (lib.tensor([2], dtype=lib.int16) ** 256).tolist() == [0]  # fits int16: wraps (2**256 mod 2**16)
    out = 0 ** lib.tensor(-1, dtype=lib.int8)
    assert out.dtype == lib.int8 and out.item() == 0


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_nan_gradient_does_not_reach_inputs_that_lost(lib):
    """maximum/relu/max() select their gradient: an input that did not influence the result gets an exact 0
    even when the upstream gradient is NaN (found by a chain: maximum(x, y) -> acosh)."""
    up = np.array([np.nan, 1.0, 2.0])
    cases = [(lambda L, x: L.maximum(x, L.full((3,), 0.5, dtype=x.dtype)), [0.0, 1.0, 0.0]),
             (lambda L, x: L.fmin(x, L.full((3,), 0.5, dtype=x.dtype)), [np.nan, 0.0, 2.0]),
             (lambda L, x: (x - 0.5).relu(), [0.0, 1.0, 0.0]),
             (lambda L, x: x.max().expand(3), [0.0, np.nan, 0.0]),
             (lambda L, x: x.median().expand(3), [0.0, 0.0, np.nan])]
    for fn, expected in cases:
        x = lib.tensor([0.2, 0.9, 0.4], dtype=lib.float64, requires_grad=True)
        fn(lib, x).backward(lib.tensor(up))
        np.testing.assert_array_equal(x.grad.numpy(), expected)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_bool_tensor_to_a_bool_power(lib):
    t = lib.tensor([True, False])
    assert (t ** False).dtype == lib.bool and (t ** False).tolist() == [True, True]
    assert (t ** True).tolist() == [True, False]
    with pytest.raises(NotImplementedError, match="\"pow\" not implemented for 'Bool'"):
        True ** t
    assert (lib.pow(lib.tensor(-np.inf), lib.tensor(0.5))).item() == np.inf  # C's pow(-inf, 0.5)


def test_variance_of_equal_huge_values_is_zero():
    # corrected two-pass: the mean's own rounding error is removed (the plain two-pass gave 2.97e28)
    x = npgrad.tensor([-1e30] * 3, dtype=npgrad.float64)
    assert x.var().item() == 0.0 and x.std().item() == 0.0
    y = npgrad.tensor(np.full((3, 2), 7.3e25))
    assert y.var(0).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_lerp_keeps_an_infinite_gradient_infinite(lib):
    # the composite a + w * (b - a) gave a the gradient inf - 0.3 * inf = NaN; PyTorch's is (1 - w) * inf
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([4.0, 0.0], requires_grad=True)
    out = lib.lerp(a, b, 0.3)
    out.backward(lib.tensor([np.inf, 1.0]))
    np.testing.assert_array_equal(a.grad.numpy(), [np.inf, np.float32(0.7)])
    np.testing.assert_array_equal(b.grad.numpy(), [np.inf, np.float32(0.3)])
    # both of PyTorch's formulas: exact at the ends
    assert lib.lerp(lib.tensor([0.1]), lib.tensor([0.7]), 1.0).item() == np.float32(0.7)


BAD_ARGUMENTS = [  # (call, exception): found by the empty-tensor sweep's generic calls; each used to fail deep
    (lambda L: L.repeat_interleave(L.ones(3), L.ones(3)), NotImplementedError),  # in NumPy, or not at all
    (lambda L: L.repeat_interleave(L.ones(3), -1), RuntimeError),
    (lambda L: L.repeat_interleave(L.ones(3), L.tensor([1, -1, 2])), RuntimeError),
    (lambda L: L.repeat_interleave(L.ones(3), L.tensor([1, 2])), RuntimeError),
    (lambda L: L.bernoulli(L.ones(3), -1), RuntimeError),
    (lambda L: L.bernoulli(L.tensor([1.5])), RuntimeError),
    (lambda L: L.tensor_split(L.ones(3), 0), RuntimeError),
    (lambda L: L.tensor_split(L.ones(3), L.tensor([1.0])), RuntimeError),
    (lambda L: L.einsum(L.ones(2), L.ones(2)), TypeError),
    (lambda L: L.fmod(2, L.ones(2)), TypeError),
    (lambda L: L.fliplr(L.ones(3)), RuntimeError),
    (lambda L: L.flipud(L.ones(())), RuntimeError),
]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("case", range(len(BAD_ARGUMENTS)))
def test_bad_arguments_raise_pytorchs_exception(lib, case):
    call, exc = BAD_ARGUMENTS[case]
    with pytest.raises(exc):
        call(lib)


def test_tensor_split_and_repeat_interleave_still_work():
    assert [t.shape for t in npgrad.tensor_split(npgrad.ones(5), npgrad.tensor([1, 3]))] == [(1,), (2,), (2,)]
    assert npgrad.repeat_interleave(npgrad.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    assert npgrad.repeat_interleave(npgrad.tensor([1.0, 2.0]), npgrad.tensor([0, 2])).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_half_pow_exponent_must_fit_half(lib):
    with pytest.raises(RuntimeError, match="^value cannot be converted to type c10::Half without overflow$"):
        lib.tensor([0.5], dtype=lib.float16) ** 70000
    assert (lib.tensor([0.5], dtype=lib.float16) ** 65504).item() == 0.0
