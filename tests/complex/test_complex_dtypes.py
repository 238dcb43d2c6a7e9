"""Complex dtypes: the dtype objects, creation from Python/NumPy complex data, the factories, PyTorch's
promotion table over every dtype pair, and repr of complex tensors as PyTorch 2.13 prints them."""
import itertools

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
         "complex128"]
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle for this comparison")


@pytest.fixture
def default_float64():
    npgrad.set_default_dtype(npgrad.float64)
    if HAS_TORCH:
        torch.set_default_dtype(torch.float64)
    yield
    npgrad.set_default_dtype(npgrad.float32)
    if HAS_TORCH:
        torch.set_default_dtype(torch.float32)


def test_dtype_objects():
    c64, c128 = npgrad.complex64, npgrad.complex128
    assert npgrad.cfloat is c64 and npgrad.cdouble is c128 and repr(c64) == "npgrad.complex64"
    assert c64.is_complex and not c64.is_floating_point and c64.is_signed and c64.itemsize == 8
    assert not npgrad.float32.is_complex and c128.itemsize == 16 and c64 == np.complex64
    assert npgrad.float32.to_complex() is c64 and npgrad.float64.to_complex() is c128 and c64.to_complex() is c64
    assert c64.to_real() is npgrad.float32 and c128.to_real() is npgrad.float64 and npgrad.int32.to_real() is npgrad.int32
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Int"):
        npgrad.int32.to_complex()


def test_creation_dtypes(default_float64=None):
    t = npgrad.tensor
    assert t(1 + 2j).dtype is npgrad.complex64 and t([1, 2j]).dtype is npgrad.complex64
    assert t([[1.5, 2], [3, 1j]]).tolist() == [[1.5, 2], [3, 1j]]
    assert t(np.array([1j], np.complex128)).dtype is npgrad.complex128
    assert t(np.array([1j], np.complex64)).dtype is npgrad.complex64
    assert t([np.complex64(1j)]).dtype is npgrad.complex64
    assert t(1j, dtype=npgrad.complex128).dtype is npgrad.complex128
    assert npgrad.zeros(2, dtype=complex).dtype is npgrad.complex128
    assert npgrad.full((2,), 1j).dtype is npgrad.complex64
    assert npgrad.ones(2).to(npgrad.complex64).dtype is npgrad.complex64
    assert npgrad.tensor([1, 2]).cfloat().tolist() == [1 + 0j, 2 + 0j]
    assert npgrad.tensor([1.5]).cdouble().dtype is npgrad.complex128
    assert npgrad.tensor([1j]).type() == "torch.ComplexFloatTensor"
    assert npgrad.is_complex(npgrad.ones(1, dtype=npgrad.cfloat)) and not npgrad.is_complex(npgrad.ones(1))
    assert npgrad.ones(1, dtype=npgrad.cfloat).is_complex() and npgrad.ones(1, dtype=npgrad.cfloat).is_signed()
    assert npgrad.ones(2, dtype=npgrad.complex64, requires_grad=True).requires_grad
    assert npgrad.zeros(2, dtype=npgrad.complex128).requires_grad_().requires_grad


def test_default_complex_follows_default_float(default_float64):
    assert npgrad.tensor(1 + 2j).dtype is npgrad.complex128
    assert (npgrad.ones(2, dtype=npgrad.int64) + 1j).dtype is npgrad.complex128
    assert repr(npgrad.tensor([1j])) == "tensor([0.+1.j])"


def test_randn_complex_has_unit_variance():
    npgrad.manual_seed(0)
    z = npgrad.randn(40000, dtype=npgrad.complex64)
    assert z.dtype is npgrad.complex64
    a = z.numpy()
    # PyTorch's convention: real and imaginary parts each N(0, 1/2), so E|z|^2 = 1
    assert abs(a.real.var() - 0.5) < 0.02 and abs(a.imag.var() - 0.5) < 0.02 and abs(np.mean(abs(a) ** 2) - 1) < 0.03
    assert abs(np.corrcoef(a.real, a.imag)[0, 1]) < 0.03
    u = npgrad.rand(1000, dtype=npgrad.complex128).numpy()
    assert u.dtype == np.complex128 and 0 <= u.real.min() and u.real.max() < 1 and 0 <= u.imag.min() < 0.1


def _promotion_table(lib):
    out = {}
    for a, b in itertools.product(NAMES, NAMES):
        da, db = getattr(lib, a), getattr(lib, b)
        row = [lib.promote_types(da, db), lib.can_cast(da, db)]
        for sa, sb in itertools.product((0, 1), (0, 1)):
            row.append(lib.result_type(lib.ones((2,) * sa, dtype=da), lib.ones((2,) * sb, dtype=db)))
        for s in (1, 1.5, True, 1j):
            row.append(lib.result_type(lib.ones(2, dtype=da), s))
        out[a, b] = [str(x).split(".")[-1].replace("complex32", "complex64") for x in row]
    return out


@needs_torch
def test_promotion_table_matches_torch():
    # PyTorch's complex32 (half-precision complex) has no NumPy type: npgrad widens it to complex64
    assert _promotion_table(npgrad) == _promotion_table(torch)


def test_promotion_rules_without_torch():
    p = npgrad.promote_types
    assert p(npgrad.float32, npgrad.complex64) is npgrad.complex64
    assert p(npgrad.float64, npgrad.complex64) is npgrad.complex128
    assert p(npgrad.int64, npgrad.complex64) is npgrad.complex64
    assert p(npgrad.complex64, npgrad.complex128) is npgrad.complex128
    assert (npgrad.ones(2) + 1j).dtype is npgrad.complex64
    assert (npgrad.ones(2, dtype=npgrad.float64) + 1j).dtype is npgrad.complex128
    assert (npgrad.ones(2, dtype=npgrad.int64) * npgrad.tensor(1j)).dtype is npgrad.complex64
    assert (npgrad.ones(2, dtype=npgrad.float64) + npgrad.tensor(1j)).dtype is npgrad.complex128
    assert not npgrad.can_cast(npgrad.complex64, npgrad.float64) and npgrad.can_cast(npgrad.float64, npgrad.complex64)


REPRS = [
    (lambda t: t.tensor([1 + 2j, -3.5 - 0.25j, 1e-5j]),
     "tensor([ 1.0000+2.0000e+00j, -3.5000-2.5000e-01j,  0.0000+1.0000e-05j])"),
    (lambda t: t.tensor([[1 + 2j, 3], [4, 5j]], dtype=t.complex128),
     "tensor([[1.+2.j, 3.+0.j],\n        [4.+0.j, 0.+5.j]], dtype=torch.complex128)"),
    (lambda t: t.tensor(1 + 2j), "tensor(1.+2.j)"),
    (lambda t: t.tensor([1e10 + 1j, 2]), "tensor([1.0000e+10+1.j, 2.0000e+00+0.j])"),
    (lambda t: t.tensor([1 + 2j], requires_grad=True), "tensor([1.+2.j], requires_grad=True)"),
    (lambda t: t.tensor([float("nan") + 1j, complex(0, float("inf"))]), "tensor([nan+1.j, 0.+infj])"),
    (lambda t: t.zeros(0, dtype=t.complex64), "tensor([], dtype=torch.complex64)"),
    (lambda t: t.tensor([complex(-0.0, -0.0), 0j]), "tensor([-0.-0.j, 0.+0.j])"),
    (lambda t: t.tensor(np.arange(6).reshape(2, 3) * (1 - 0.5j)).to(t.complex64),
     "tensor([[0.+0.0000j, 1.-0.5000j, 2.-1.0000j],\n        [3.-1.5000j, 4.-2.0000j, 5.-2.5000j]])"),
]


@pytest.mark.parametrize("make,expected", REPRS)
def test_repr(make, expected):
    assert repr(make(npgrad)).replace("npgrad.", "torch.") == expected
    if HAS_TORCH:
        assert repr(make(torch)) == expected


def test_repr_summarised_matches_torch():
    if not HAS_TORCH:
        pytest.skip("PyTorch is the oracle for the summarised layout")
    a = np.arange(2000).reshape(40, 50) * (1 + 0.5j)
    assert repr(npgrad.tensor(a)).replace("npgrad.", "torch.") == repr(torch.tensor(a))
