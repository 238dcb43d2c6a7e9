"""Window functions (hann, hamming, blackman, bartlett, kaiser): values and dtypes against PyTorch over lengths,
periodic and symmetric forms and parameters, its errors, and NumPy's symmetric windows as the oracle without it."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _table_tests import errors_like_torch_test

NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
PARAMS = {"hamming_window": [(), (0.5,), (0.6, 0.3)], "kaiser_window": [(), (3.0,), (8.5,)]}
LENGTHS = list(range(0, 12)) + [31, 64, 257, 1000]
# float32: one rounding of the cosine apart (PyTorch's vectorised cosine and a correctly rounded one differ in the
# last bit), which the atol covers where a window nears zero
TOL = {"float32": dict(rtol=1e-6, atol=1e-7), "float64": dict(rtol=1e-12, atol=0), "float16": dict(rtol=1e-3, atol=0)}


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle for the windows' values")
@pytest.mark.parametrize("dtype", sorted(TOL))
@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch(name, dtype):
    for n in LENGTHS:
        for periodic in (True, False):
            for extra in PARAMS.get(name, [()]):
                want = getattr(torch, name)(n, periodic, *extra, dtype=getattr(torch, dtype)).numpy()
                got = getattr(npgrad, name)(n, periodic, *extra, dtype=getattr(npgrad, dtype)).numpy()
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_allclose(got, want, **TOL[dtype], err_msg=f"{name}({n}, {periodic}, {extra})")


NUMPY = {"hann_window": np.hanning, "hamming_window": np.hamming, "blackman_window": np.blackman,
         "bartlett_window": np.bartlett, "kaiser_window": lambda n: np.kaiser(n, 12.0)}


@pytest.mark.parametrize("name", NAMES)
def test_numpy_oracle(name):
    """The symmetric window is NumPy's; the periodic one of length n is the symmetric one of n + 1 cut short."""
    for n in (2, 3, 8, 33):
        sym = getattr(npgrad, name)(n, periodic=False, dtype=npgrad.float64).numpy()
        np.testing.assert_allclose(sym, NUMPY[name](n), rtol=1e-12, atol=1e-15)
        per = getattr(npgrad, name)(n, dtype=npgrad.float64).numpy()
        np.testing.assert_allclose(per, NUMPY[name](n + 1)[:n], rtol=1e-12, atol=1e-15)


def test_defaults_and_flags():
    w = npgrad.hann_window(4, requires_grad=True)
    assert w.dtype == npgrad.float32 and w.requires_grad and w.is_leaf and w.is_contiguous()
    npgrad.set_default_dtype(npgrad.float64)
    try:
        assert npgrad.kaiser_window(3).dtype == npgrad.float64
    finally:
        npgrad.set_default_dtype(npgrad.float32)
    assert npgrad.bartlett_window(0).shape == (0,) and npgrad.blackman_window(1).tolist() == [1.0]
    assert npgrad.hann_window(1, dtype=npgrad.cfloat).tolist() == [1 + 0j]


def test_stft_with_window():
    x = npgrad.tensor(np.sin(np.arange(64) * 0.3))
    spec = npgrad.stft(x, 16, window=npgrad.hann_window(16, dtype=npgrad.float64), return_complex=True)
    if HAS_TORCH:
        want = torch.stft(torch.tensor(x.numpy()), 16, window=torch.hann_window(16, dtype=torch.float64),
                          return_complex=True)
        np.testing.assert_allclose(spec.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    assert spec.shape == (9, 17)


if HAS_TORCH:
    test_errors_match_torch = errors_like_torch_test({
        "negative_length": lambda L: L.hann_window(-1),
        "hamming_negative": lambda L: L.hamming_window(-1),
        "blackman_negative": lambda L: L.blackman_window(-3),
        "bartlett_negative": lambda L: L.bartlett_window(-1),
        "kaiser_negative": lambda L: L.kaiser_window(-2),
        "int_dtype": lambda L: L.hann_window(5, dtype=L.int64),
        "int_dtype_before_length": lambda L: L.hann_window(-1, dtype=L.int64),
        "uint8_dtype": lambda L: L.hamming_window(5, dtype=L.uint8),
        "int32_dtype": lambda L: L.kaiser_window(5, dtype=L.int32),
        "bool_dtype": lambda L: L.bartlett_window(5, dtype=L.bool),
        "complex_dtype": lambda L: L.blackman_window(5, dtype=L.cfloat),
        "float_length": lambda L: L.hann_window(3.0),
        "bool_length": lambda L: L.kaiser_window(True),
    })


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_device_is_checked_as_by_other_factories(name):
    assert getattr(npgrad, name)(4, device="cpu").shape == (4,)
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        getattr(npgrad, name)(4, device="cuda")
