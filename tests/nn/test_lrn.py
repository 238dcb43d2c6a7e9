"""local_response_norm against PyTorch and finite differences (rows: tests/opinfo/family_lrn.py); the
LocalResponseNorm and CrossMapLRN2d modules against PyTorch and against NumPy transcriptions of their
definitions."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import DOUBLE_BACKWARD, FD, NO_UPCAST, PARITY, grad_samples, raised, samples
from _table_tests import (double_backward_test, expected_errors_test, finite_difference_test, no_upcast_test,
                          torch_parity_test)
from nn._parity import check_module

if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "lrn"))
    test_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, "lrn")))
test_finite_differences = finite_difference_test(grad_samples(samples(FD, "lrn")))
test_no_upcast = no_upcast_test(grad_samples(samples(NO_UPCAST, "lrn")))
test_expected_errors = expected_errors_test(raised("lrn"))

R = np.random.default_rng(4)
X4 = R.standard_normal((2, 6, 3, 2))

MODULES = [
    ("LocalResponseNorm", lambda l: l.nn.LocalResponseNorm(3, alpha=0.5, beta=0.75, k=1.5), [R.standard_normal((2, 5, 3))]),
    ("LocalResponseNorm_defaults", lambda l: l.nn.LocalResponseNorm(2), [X4]),
] + [(f"CrossMapLRN2d_size{s}", lambda l, s=s: l.nn.CrossMapLRN2d(s, alpha=0.5, beta=0.75, k=1.5), [X4])
     for s in (2, 3, 4, 5, 7)]

if HAS_TORCH:
    @pytest.mark.parametrize("name,make,inputs", MODULES, ids=[m[0] for m in MODULES])
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    def test_module_matches_torch(name, make, inputs, dtype):
        check_module(make, inputs, dtype=dtype, what=name)

    @pytest.mark.parametrize("name,make,inputs", MODULES, ids=[m[0] for m in MODULES])
    def test_module_repr(name, make, inputs):
        assert repr(make(npgrad)) == repr(make(torch))


def _lrn_reference(x, size, alpha, beta, k):
    C = x.shape[1]
    sq = x * x
    out = np.empty_like(x)
    for c in range(C):
        lo, hi = c - size // 2, c + (size - 1) // 2
        window = sq[:, max(lo, 0):min(hi, C - 1) + 1].sum(1)
        out[:, c] = x[:, c] / (k + alpha * window / size) ** beta
    return out


def test_local_response_norm_matches_numpy_definition():
    x = R.standard_normal((2, 6, 4))
    out = npgrad.nn.functional.local_response_norm(npgrad.tensor(x), 4, alpha=0.7, beta=0.6, k=1.3).numpy()
    np.testing.assert_allclose(out, _lrn_reference(x, 4, 0.7, 0.6, 1.3), rtol=1e-12)


def _cross_map_reference(x, g, size, alpha, beta, k):
    """PyTorch's legacy CrossMapLRN2d kernel transcribed loop for loop (a running window sum that keeps the
    first channel), and its backward formula."""
    N, C = x.shape[:2]
    sq = x * x
    pre_pad = int((size - 1) / 2 + 1)
    scale = np.zeros_like(x)
    for c in range(min(pre_pad, C)):
        scale[:, 0] += sq[:, c]
    for c in range(1, C):
        scale[:, c] = scale[:, c - 1]
        if c < C - pre_pad + 1:
            scale[:, c] += sq[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= sq[:, c - pre_pad]
    scale = scale * (alpha / size) + k
    out = x * scale ** -beta
    grad = scale ** -beta * g
    start = int(size - (size - 1) / 2)
    padded = np.zeros((N, C + size - 1) + x.shape[2:])
    padded[:, start:start + C] = (g * out / scale)[:, :C + size - 1 - start]
    for c in range(C):
        grad[:, c] -= 2 * alpha * beta / size * x[:, c] * padded[:, c:c + size].sum(1)
    return out, grad


@pytest.mark.parametrize("size", [2, 3, 4, 5, 7])
def test_cross_map_lrn2d_matches_legacy_kernel(size):
    g = R.standard_normal(X4.shape)
    x = npgrad.tensor(X4, requires_grad=True)
    out = npgrad.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)(x)
    out.backward(npgrad.tensor(g))
    ref_out, ref_grad = _cross_map_reference(X4, g, size, 0.5, 0.75, 1.5)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), ref_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("lib", [npgrad] + ([torch] if HAS_TORCH else []), ids=lambda l: l.__name__)
def test_cross_map_lrn2d_wants_4d(lib):
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        lib.nn.CrossMapLRN2d(3)(lib.zeros(2, 3, 4))
