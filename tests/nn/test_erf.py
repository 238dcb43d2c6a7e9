"""erf/erfc in NumPy (W. J. Cody's rational approximations): float64 accuracy against math.erf over a wide
range, float32 against PyTorch, special values, and the gradient."""
import math

import numpy as np

import npgrad
from npgrad.ops._erf import erf_np, erfc_np, normal_cdf_np
from oracle import HAS_TORCH, torch

XS = np.concatenate([np.linspace(-30, 30, 60001), np.geomspace(1e-300, 1e-3, 400), -np.geomspace(1e-300, 1e-3, 400),
                     [0.0, -0.0, 0.46875, -0.46875, 4.0, -4.0, 26.5, 27.3, 5e-324]])


def test_erf_float64_relative_accuracy():
    got = erf_np(XS)
    ref = np.array([math.erf(v) for v in XS])
    nz = ref != 0
    rel = np.abs(got[nz] - ref[nz]) / np.abs(ref[nz])
    assert rel.max() < 2e-15, (rel.max(), XS[nz][rel.argmax()])
    assert np.all(got[~nz] == 0)


def test_erfc_float64_relative_accuracy():
    got = erfc_np(XS)
    ref = np.array([math.erfc(v) for v in XS])
    normal = ref > 1e-300  # subnormal results carry fewer significant bits in any implementation
    rel = np.abs(got[normal] - ref[normal]) / ref[normal]
    assert rel.max() < 2e-15, (rel.max(), XS[normal][rel.argmax()])
    assert np.all(np.abs(got[~normal]) < 1e-300)


def test_special_values_and_dtypes():
    out = erf_np(np.array([np.nan, np.inf, -np.inf, 0.0]))
    assert np.isnan(out[0]) and out[1] == 1.0 and out[2] == -1.0 and out[3] == 0.0
    assert erf_np(np.zeros(3, np.float32)).dtype == np.float32
    assert erfc_np(np.array([np.inf, -np.inf])).tolist() == [0.0, 2.0]
    assert npgrad.erf(npgrad.tensor([1, 2])).dtype == npgrad.float32  # integers promote to the default float


if HAS_TORCH:
    def test_erf_float32_matches_torch():
        x = (np.random.default_rng(0).standard_normal(100000) * 3).astype(np.float32)
        np.testing.assert_allclose(erf_np(x), torch.erf(torch.tensor(x)).numpy(), rtol=1e-6, atol=2e-7)
        np.testing.assert_allclose(erfc_np(x), torch.erfc(torch.tensor(x)).numpy(), rtol=2e-6, atol=1e-30)


def test_erf_gradient():
    x = npgrad.tensor([-2.0, -0.3, 0.0, 0.7, 3.0], dtype=npgrad.float64, requires_grad=True)
    npgrad.erf(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 / math.sqrt(math.pi) * np.exp(-x.detach().numpy() ** 2), rtol=1e-14)
    y = npgrad.tensor([0.5], dtype=npgrad.float64, requires_grad=True)
    (g,) = npgrad.autograd.grad(npgrad.erfc(y), y, create_graph=True)
    (h,) = npgrad.autograd.grad(g, y)
    np.testing.assert_allclose(h.numpy(), 4 / math.sqrt(math.pi) * 0.5 * math.exp(-0.25), rtol=1e-14)


def test_normal_cdf_both_tails():
    xs = np.linspace(-12, 12, 20001)
    ref = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in xs])
    np.testing.assert_allclose(normal_cdf_np(xs), ref, rtol=1e-13)
    x32 = xs.astype(np.float32)
    got32 = normal_cdf_np(x32)
    assert got32.dtype == np.float32
    ref = np.array([0.5 * math.erfc(-float(v) / math.sqrt(2)) for v in x32])  # at the rounded inputs
    # float32: 1.2e-7 from the fit plus float32 rounding of the exponent in the far tail.
    body = xs > -4
    np.testing.assert_allclose(got32[body], ref[body], rtol=2e-6)
    np.testing.assert_allclose(got32, ref, rtol=3e-5, atol=1e-37)
