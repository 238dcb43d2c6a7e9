"""torch.testing: assert_close's verdicts, error types and message text against PyTorch's for the same inputs,
its default tolerances per dtype, and make_tensor's value ranges, dtypes, shapes and flags."""
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.testing import assert_allclose, assert_close, make_tensor
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def _outcome(lib, actual, expected, **kwargs):
    try:
        lib.testing.assert_close(actual, expected, **kwargs)
        return "OK"
    except Exception as e:  # the type and the text are what is compared
        # A dtype or class prints under its own library's name (npgrad's Tensor lives in npgrad.tensor).
        return f"{type(e).__name__}: {e}".replace("npgrad.tensor.Tensor", "torch.Tensor").replace("npgrad.", "torch.")


# Each case builds its inputs with either library (L is npgrad or torch) and names the keyword arguments.
CASES = {
    "one_mismatch": (lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])), {}),
    "within_float32_default": (lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2., 3.00001])), {}),
    "int_exact_2d": (lambda L: (L.tensor([[1, 2], [3, 4]]), L.tensor([[1, 2], [3, 5]])), {}),
    "int8_no_overflow": (lambda L: (L.tensor([1, 2], dtype=L.int8), L.tensor([100, -100], dtype=L.int8)), {}),
    "dtype_mismatch": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.], dtype=L.float64)), {}),
    "dtype_promoted": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.5], dtype=L.float64)), dict(check_dtype=False)),
    "shape_mismatch": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2., 3.])), {}),
    "zero_dim": (lambda L: (L.tensor(1.), L.tensor(1.5)), {}),
    "python_floats": (lambda L: (1.0, 1.1), {}),
    "python_ints": (lambda L: (1, 2), {}),
    "expected_zero": (lambda L: (1.0, 0.0), {}),
    "nan_scalars": (lambda L: (float("nan"), float("nan")), {}),
    "nan_scalars_equal_nan": (lambda L: (float("nan"), float("nan")), dict(equal_nan=True)),
    "bools": (lambda L: (True, False), {}),
    "none": (lambda L: (None, 1), {}),
    "nested_sequence": (lambda L: ([L.tensor([1.]), (2, 3.0)], [L.tensor([1.]), (2, 3.5)]), {}),
    "mapping": (lambda L: ({"a": L.tensor([1.]), "b": 2}, {"a": L.tensor([1.5]), "b": 2}), {}),
    "mapping_keys": (lambda L: ({"a": 1}, {"b": 1}), {}),
    "sequence_length": (lambda L: ([1, 2], [1]), {}),
    "numpy_arrays": (lambda L: (np.array([1., 2.]), np.array([1., 2.1])), {}),
    "numpy_vs_tensor": (lambda L: (np.array([1., 2.]), L.tensor([1., 2.], dtype=L.float64)), {}),
    "only_rtol": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), dict(rtol=0.01)),
    "loose_tolerances": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), dict(rtol=0.1, atol=0)),
    "zero_tolerances": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), dict(rtol=0., atol=0)),
    "msg_string": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), dict(msg="custom")),
    "msg_callable": (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), dict(msg=lambda m: f"H\n{m}\nF")),
    "subclass_refused": (lambda L: (L.nn.Parameter(L.tensor([1., 2.])), L.tensor([1., 2.])),
                         dict(allow_subclasses=False)),
    "subclass_allowed": (lambda L: (L.nn.Parameter(L.tensor([1., 2.])), L.tensor([1., 2.])), {}),
    "complex": (lambda L: (L.tensor([1. + 1j, 2.]), L.tensor([1. + 1j, 2. + 0.01j])), {}),
    "nan_tensor": (lambda L: (L.tensor([float("nan"), 2.]), L.tensor([float("nan"), 2.])), {}),
    "nan_tensor_equal_nan": (lambda L: (L.tensor([float("nan"), 2.]), L.tensor([float("nan"), 3.])),
                             dict(equal_nan=True)),
    "inf_tensor": (lambda L: (L.tensor([float("inf"), 2.]), L.tensor([float("inf"), 2.])), {}),
    "relative_inf": (lambda L: (L.tensor([0., 2.]), L.tensor([1., 0.])), {}),
    "float16": (lambda L: (L.tensor([1., 2.], dtype=L.float16), L.tensor([1., 2.01], dtype=L.float16)), {}),
    "bool_tensor": (lambda L: (L.tensor([True, False]), L.tensor([True, True])), {}),
    "numpy_scalars": (lambda L: (np.float32(1.0), np.float32(1.5)), {}),
    "scalar_types_checked": (lambda L: (1, 1.0), dict(check_dtype=True)),
    "strings": (lambda L: ("a", "a"), {}),
    "stride": (lambda L: (L.ones(2, 3).t(), L.ones(2, 3).t().contiguous()), dict(check_stride=True)),
    "requires_grad": (lambda L: (L.tensor([1., 2.], requires_grad=True), L.tensor([1., 2.5])), {}),
    "size_tuples": (lambda L: (L.ones(2, 3).shape, (2, 4)), {}),
    "bool_vs_int": (lambda L: ([0, True], [0, 1]), {}),  # no leaf kind takes the pair cleanly: RuntimeError
    "unsortable_keys_path": (lambda L: ({1: [L.tensor([1.])], "k": 2}, {1: [L.tensor([2.])], "k": 2}), {}),
    "second_of_two_mismatches": (lambda L: ([1.0, L.tensor([1, 2])], [1.0, L.tensor([1, 3])]), dict(msg=str.upper)),
    "only_atol_on_numbers": (lambda L: (1.0, 1.0), dict(atol=1e-3)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_assert_close_matches_torch(name):
    make, kwargs = CASES[name]
    assert _outcome(npgrad, *make(npgrad), **kwargs) == _outcome(torch, *make(torch), **kwargs)


def test_assert_close_message_text():
    with pytest.raises(AssertionError) as info:
        assert_close(npgrad.tensor([1., 2., 3.]), npgrad.tensor([1., 2.5, 3.]))
    assert str(info.value) == ("Tensor-likes are not close!\n\n"
                               "Mismatched elements: 1 / 3 (33.3%)\n"
                               "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                               "Greatest relative difference: 0.20000000298023224 at index (1,) "
                               "(up to 1.3e-06 allowed)")
    with pytest.raises(AssertionError, match=r"^The values for attribute 'shape' do not match"):
        assert_close(npgrad.ones(2), npgrad.ones(3))
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close(np.ones(2), npgrad.ones(2, dtype=npgrad.float64))


@pytest.mark.parametrize("dtype, rtol, atol", [
    ("float16", 1e-3, 1e-5), ("float32", 1.3e-6, 1e-5), ("float64", 1e-7, 1e-7),
    ("complex64", 1.3e-6, 1e-5), ("complex128", 1e-7, 1e-7), ("int64", 0, 0), ("uint8", 0, 0), ("bool", 0, 0)])
def test_default_tolerances(dtype, rtol, atol):
    dt = getattr(npgrad, dtype)
    if dtype == "bool":
        assert_close(npgrad.tensor([True]), npgrad.tensor([True]))
        with pytest.raises(AssertionError, match="are not equal!"):
            assert_close(npgrad.tensor([True]), npgrad.tensor([False]))
        return
    one = npgrad.ones(1, dtype=dt)
    if rtol == 0:
        with pytest.raises(AssertionError, match="are not equal!"):
            assert_close(one, one + 1)
        return
    # The bound is atol + rtol * |expected|; expected = 4 keeps both terms visible in float16.
    expected = npgrad.full((1,), 4.0, dtype=dt)
    bound = atol + rtol * 4
    assert_close(expected + 0.5 * bound, expected)
    with pytest.raises(AssertionError, match=rf"\(up to {atol} allowed\)"):
        assert_close(expected + 3 * bound, expected)


def test_assert_allclose_is_deprecated_and_looser():
    with pytest.warns(FutureWarning, match=r"assert_allclose\(\)` is deprecated since 1.12"):
        assert_allclose(npgrad.tensor([1., 2.]), [1., 2.00001])  # float32's rtol is 1e-4 here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(AssertionError, match="not close"):
            assert_allclose(npgrad.tensor([1., 2.]), [1., 2.1])
        assert_allclose(npgrad.tensor([float("nan")]), [float("nan")])  # equal_nan defaults to True here


@needs_torch
def test_assert_allclose_exists_in_torch():
    # Kept because PyTorch 2.13 still has it; remove along with PyTorch.
    assert hasattr(torch.testing, "assert_allclose")


_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
           "complex128"]
_DEFAULT_RANGES = {"bool": (0, 1), "uint8": (0, 9), **dict.fromkeys(["int8", "int16", "int32", "int64"], (-9, 9))}


@pytest.mark.parametrize("dtype", _DTYPES)
def test_make_tensor_default_ranges(dtype):
    npgrad.manual_seed(0)
    t = make_tensor(4000, dtype=getattr(npgrad, dtype), device="cpu")
    assert t.dtype == getattr(npgrad, dtype) and tuple(t.shape) == (4000,) and str(t.device) == "cpu"
    a = t.numpy()
    parts = [a.real, a.imag] if np.iscomplexobj(a) else [a]
    for part in parts:
        if dtype in _DEFAULT_RANGES:
            lo, hi = _DEFAULT_RANGES[dtype]  # integers: [low, high) with high exclusive, so every value appears
            assert set(np.unique(part).tolist()) == set(range(lo, hi + 1))
        else:
            assert part.min() >= -9 and part.max() < 9 and part.min() < -8 and part.max() > 8


@needs_torch
@pytest.mark.parametrize("dtype", _DTYPES)
def test_make_tensor_ranges_like_torch(dtype):
    # The values come from different generators; the set of integers reachable and the float bounds must agree.
    torch.manual_seed(0)
    npgrad.manual_seed(0)
    ours = make_tensor(3000, dtype=getattr(npgrad, dtype), device="cpu", low=-3, high=5).numpy()
    theirs = torch.testing.make_tensor(3000, dtype=getattr(torch, dtype), device="cpu", low=-3, high=5).numpy()
    assert ours.dtype == theirs.dtype
    if dtype in _DEFAULT_RANGES:
        assert set(np.unique(ours).tolist()) == set(np.unique(theirs).tolist())
    else:
        for a in ([ours.real, ours.imag] if np.iscomplexobj(ours) else [ours]):
            assert a.min() >= -3 and a.max() < 5


@needs_torch
@pytest.mark.parametrize("kwargs", [
    dict(dtype="int64", requires_grad=True), dict(dtype="float32", low=2, high=1),
    dict(dtype="float32", low=float("nan")), dict(dtype="uint8", low=-5, high=-1),
    dict(dtype="float32", noncontiguous=True, memory_format="contiguous_format")])
def test_make_tensor_errors_like_torch(kwargs):
    def call(lib):
        kw = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
        if "memory_format" in kw:
            kw["memory_format"] = lib.contiguous_format if lib is torch else "contiguous_format"
        with pytest.raises(ValueError) as info:
            lib.testing.make_tensor(2, 3, device="cpu", **kw)
        return str(info.value).replace("npgrad.", "torch.")

    got, want = call(npgrad), call(torch)
    if "memory_format" in kwargs:  # npgrad has no memory formats to print; the start of the message agrees
        got, want = got.split("memory_format=")[0], want.split("memory_format=")[0]
    assert got == want


def test_make_tensor_flags():
    t = make_tensor((2, 3), dtype=npgrad.float32, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf and tuple(t.shape) == (2, 3)
    assert tuple(make_tensor([4, 1], dtype=npgrad.int32, device="cpu").shape) == (4, 1)
    assert tuple(make_tensor(dtype=npgrad.float64, device="cpu").shape) == ()
    nc = make_tensor(3, 4, dtype=npgrad.float32, device="cpu", noncontiguous=True)
    assert tuple(nc.shape) == (3, 4) and not nc.is_contiguous()
    assert make_tensor(1, dtype=npgrad.float32, device="cpu", noncontiguous=True).is_contiguous()
    for dt in (npgrad.int8, npgrad.bool, npgrad.float32, npgrad.complex64):
        z = make_tensor(500, dtype=dt, device="cpu", low=0, high=1 if dt in (npgrad.int8, npgrad.bool) else 1e-30,
                        exclude_zero=True)
        assert (z != 0).all()
    with pytest.warns(FutureWarning, match="low==high"):
        make_tensor(2, dtype=npgrad.float32, device="cpu", low=1, high=1)
    big = make_tensor(1000, dtype=npgrad.float16, device="cpu", low=-1e6, high=1e6)
    assert np.isfinite(big.numpy()).all() and np.abs(big.numpy()).max() > 30000  # clamped to float16's range


def test_lazy_and_reachable_as_torch_testing():
    import subprocess
    import sys
    code = """
import sys, npgrad
assert 'npgrad.testing' not in sys.modules
npgrad.alias_torch()
import torch.testing
from torch.testing import assert_close, make_tensor
assert torch.testing is npgrad.testing and assert_close is npgrad.testing.assert_close
assert_close(make_tensor(3, dtype=torch.float32, device='cpu', low=1, high=2).sum() > 0, torch.tensor(True))
"""
    subprocess.run([sys.executable, "-c", code], check=True)
