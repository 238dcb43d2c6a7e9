"""The Tensor's non-operator API against PyTorch: shape properties, conversions to Python/NumPy,
len/iter/bool, ``.data``, and ``repr`` (compared character for character with PyTorch's)."""
import numpy as np
import pytest

import npgrad
from npgrad import _tensor_str
from oracle import HAS_TORCH, torch
from _elementwise_parity import check_error, check_error_like_torch


def _both(fn):
    """``fn(lib)`` for npgrad and, when installed, PyTorch."""
    return [fn(lib) for lib in ((npgrad, torch) if HAS_TORCH else (npgrad,))]


def test_shape_properties():
    x = npgrad.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, npgrad.Size) and repr(x.shape) == "torch.Size([2, 3, 4])"
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.ndim == 3 and x.dim() == 3 and x.ndimension() == 3
    assert x.numel() == 24 and x.nelement() == 24 and x.shape.numel() == 24 and npgrad.numel(x) == 24
    assert x.dtype is npgrad.float32 and x.element_size() == 4 and x.is_floating_point() and x.is_signed()
    assert not npgrad.tensor([1], dtype=npgrad.uint8).is_signed() and npgrad.tensor([1]).is_signed()
    assert npgrad.tensor(3).shape == () and npgrad.tensor(3).numel() == 1 and npgrad.tensor(3).dim() == 0
    assert str(x.device) == "cpu" and x.is_leaf and not x.requires_grad and x.grad is None


def test_size_dim_errors():
    check_error(lambda lib: lib.zeros(2, 3).size(2), IndexError,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    check_error(lambda lib: lib.zeros(2, 3).size(-3), IndexError,
                "Dimension out of range (expected to be in range of [-2, 1], but got -3)")
    check_error(lambda lib: lib.tensor(1.0).size(0), IndexError, "Dimension specified as 0 but tensor has no dimensions")


def test_transposes():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = npgrad.tensor(a)
    np.testing.assert_array_equal(x[0].T.numpy(), a[0].T)
    np.testing.assert_array_equal(x.mT.numpy(), a.transpose(0, 2, 1))
    assert x.mT.shape == (2, 4, 3) and x[0].mT.shape == (4, 3)
    assert npgrad.tensor(1.5).T.item() == 1.5 and npgrad.ones(3).T.shape == (3,)


def test_item_tolist_numpy():
    assert npgrad.tensor([[2.5]]).item() == 2.5 and isinstance(npgrad.tensor([[2.5]]).item(), float)
    assert npgrad.tensor(3).item() == 3 and isinstance(npgrad.tensor(3).item(), int)
    assert npgrad.tensor(True).item() is True
    assert npgrad.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert npgrad.tensor(1.5).tolist() == 1.5
    assert npgrad.tensor([1.5, 2.0]).tolist() == [1.5, 2.0] and isinstance(npgrad.tensor([1.5]).tolist()[0], float)
    a = np.array([1.0, 2.0], np.float32)
    t = npgrad.from_numpy(a)
    assert t.numpy() is a or np.shares_memory(t.numpy(), a)  # numpy() shares memory, as in PyTorch
    t.numpy()[0] = 7.0
    assert t[0].item() == 7.0
    assert np.asarray(t).dtype == np.float32 and np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(npgrad.tensor([1, 2])).tolist() == [1, 2]


def test_item_and_numpy_errors():
    check_error(lambda lib: lib.tensor([1.0, 2.0]).item(), RuntimeError,
                "a Tensor with 2 elements cannot be converted to Scalar")
    check_error(lambda lib: lib.tensor([]).item(), RuntimeError, "a Tensor with 0 elements cannot be converted to Scalar")
    check_error(lambda lib: lib.tensor([1.0], requires_grad=True).numpy(), RuntimeError,
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    x = npgrad.tensor([1.0], requires_grad=True)
    assert x.numpy(force=True).tolist() == [1.0] and x.detach().numpy().tolist() == [1.0]


def test_python_number_conversions():
    assert float(npgrad.tensor([2.5])) == 2.5 and int(npgrad.tensor([[2.7]])) == 2 and int(npgrad.tensor(-2.7)) == -2
    assert complex(npgrad.tensor(1.5)) == 1.5 + 0j
    assert [10, 20, 30][npgrad.tensor(1)] == 20  # __index__
    assert f"{npgrad.tensor(2.5):.2f}" == "2.50"
    for conv in (float, int, complex):
        check_error(lambda lib: conv(lib.tensor([1.0, 2.0])), ValueError,
                    "only one element tensors can be converted to Python scalars")
    check_error(lambda lib: float(lib.tensor([])), ValueError,
                "only one element tensors can be converted to Python scalars")
    check_error(lambda lib: [1, 2][lib.tensor(0.0)], TypeError,
                "only integer tensors of a single element can be converted to an index")


def test_len_and_iteration():
    x = npgrad.tensor([[1, 2], [3, 4], [5, 6]])
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3 and all(isinstance(r, npgrad.Tensor) for r in rows) and rows[1].tolist() == [3, 4]
    assert [v.item() for v in npgrad.tensor([1.5, 2.5])] == [1.5, 2.5]
    a, b = npgrad.tensor([7, 8])
    assert (a.item(), b.item()) == (7, 8)
    check_error(lambda lib: len(lib.tensor(1.0)), TypeError, "len() of a 0-d tensor")
    check_error(lambda lib: list(lib.tensor(1.0)), TypeError, "iteration over a 0-d tensor")


def test_iteration_is_differentiable():
    x = npgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    total = sum(v * v for v in x)
    total.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_bool():
    assert bool(npgrad.tensor([3.0])) and not bool(npgrad.tensor([[0]])) and bool(npgrad.tensor(True))
    assert (1 if npgrad.tensor(0.5) > 0 else 0) == 1
    check_error(lambda lib: bool(lib.tensor([1.0, 2.0])), RuntimeError,
                "Boolean value of Tensor with more than one value is ambiguous")
    check_error(lambda lib: bool(lib.tensor([])), RuntimeError, "Boolean value of Tensor with no values is ambiguous")
    check_error(lambda lib: 1 if lib.tensor([1, 2]) == lib.tensor([1, 2]) else 0, RuntimeError,
                "Boolean value of Tensor with more than one value is ambiguous")


def test_requires_grad_only_on_floats():
    for dt in (npgrad.float16, npgrad.float32, npgrad.float64):
        assert npgrad.zeros(2, dtype=dt, requires_grad=True).requires_grad
    msg = "Only Tensors of floating point and complex dtype can require gradients"
    check_error(lambda lib: lib.tensor([1, 2], requires_grad=True), RuntimeError, msg)
    check_error(lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True), RuntimeError, msg)
    check_error(lambda lib: lib.ones(2, dtype=lib.bool, requires_grad=True), RuntimeError, msg)
    check_error(lambda lib: lib.tensor([1, 2]).requires_grad_(), RuntimeError,
                "only Tensors of floating point dtype can require gradients")


def test_data_is_a_detached_alias():
    p = npgrad.tensor([1.0, 2.0], requires_grad=True)
    d = p.data
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d[0] = 10.0                      # same storage: the change shows in p
    assert p[0].item() == 10.0
    y = (p * 2).sum()
    y.backward()
    p.data -= 0.5 * p.grad           # the classic SGD step
    assert p.tolist() == [9.0, 1.0] and p.requires_grad and p.is_leaf
    p.data = npgrad.tensor([5.0, 6.0])
    assert p.tolist() == [5.0, 6.0] and p.requires_grad
    nl = p * 1
    assert nl.data.grad_fn is None and nl.data.tolist() == [5.0, 6.0]


def test_data_matches_torch_semantics():
    results = []
    for lib in (npgrad, torch) if HAS_TORCH else (npgrad,):
        p = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (p ** 2).sum().backward()
        p.data -= 0.1 * p.grad
        p.data.mul_(2)
        p.data[1] = 0.0
        results.append(p.detach().numpy().copy())
    assert results[0].tolist() == [1.6, 0.0, 4.8] or np.allclose(results[0], [1.6, 0.0, 4.8])
    if HAS_TORCH:
        np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


# -- repr -----------------------------------------------------------------------------------------------------

def _assigned(lib):
    # A base changed through a view: its node prints as CopySlices (no namespace, no Backward0).
    y = lib.ones(3, requires_grad=True).clone()
    y[0:2].mul_(2)
    return y


REPRS = [
    lambda lib: lib.tensor([1.0, 2.5]),
    lambda lib: lib.tensor([1.0, 2.0]),
    lambda lib: lib.tensor(1.0),
    lambda lib: lib.tensor(-1.5),
    lambda lib: lib.tensor(1e-8),
    lambda lib: lib.tensor([1e-8, 1.0]),
    lambda lib: lib.tensor([1e8, 1.0]),
    lambda lib: lib.tensor([1e9, 1.0]),
    lambda lib: lib.tensor([1e10, 1.5]),
    lambda lib: lib.tensor([123456.5, 1.0]),
    lambda lib: lib.tensor([0.001, 1.0]),
    lambda lib: lib.tensor([1e-4, 1.0]),
    lambda lib: lib.tensor([1000.5, 1.0]),
    lambda lib: lib.tensor([1001.0, 1.5]),
    lambda lib: lib.tensor([-1.0, 2.5, -300.25]),
    lambda lib: lib.tensor([float("nan"), 1.5, float("inf")]),
    lambda lib: lib.tensor([float("nan"), 1.0, float("-inf")]),
    lambda lib: lib.tensor([float("nan")]),
    lambda lib: lib.tensor([float("inf"), -float("inf")]),
    lambda lib: lib.tensor([0.0, -0.0]),
    lambda lib: lib.tensor([0.0, 100.0]),
    lambda lib: lib.tensor([[1.0, 2.5], [3.0, 4.0]]),
    lambda lib: lib.tensor([[[1.0, 2.5], [3.0, 4.0]], [[1.0, 2.5], [3.0, 4.0]]]),
    lambda lib: lib.arange(12.0).reshape(3, 4),
    lambda lib: lib.arange(30.0).reshape(3, 10) / 7,
    lambda lib: lib.arange(24.0).reshape(2, 3, 4) - 11.5,
    lambda lib: lib.arange(2000.0),
    lambda lib: lib.arange(2000),
    lambda lib: lib.arange(1001) % 7 == 0,
    lambda lib: lib.arange(3000.0).reshape(30, 100),
    lambda lib: lib.arange(3000.0).reshape(10, 3, 100) / 3,
    lambda lib: lib.arange(1500).reshape(30, 50) - 700,
    lambda lib: lib.linspace(-1, 1, 50),
    lambda lib: lib.linspace(0, 1e-3, 40, dtype=lib.float64),
    lambda lib: lib.tensor([1, -2, 300]),
    lambda lib: lib.tensor([[1, -2, 300], [4, 5, 6]]),
    lambda lib: lib.tensor([True, False]),
    lambda lib: lib.tensor([[True, False], [False, True]]),
    lambda lib: lib.tensor(True),
    lambda lib: lib.tensor(3),
    lambda lib: lib.tensor([]),
    lambda lib: lib.tensor([], dtype=lib.int64),
    lambda lib: lib.tensor([], dtype=lib.float64),
    lambda lib: lib.tensor([], dtype=lib.bool),
    lambda lib: lib.zeros(0, 3),
    lambda lib: lib.zeros(2, 0, dtype=lib.int32),
    lambda lib: lib.zeros(0, dtype=lib.int32),
    lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64),
    lambda lib: lib.tensor([1.0, 2.25], dtype=lib.float16),
    lambda lib: lib.tensor([[0.1, 2.0], [3.0, 4.0]], dtype=lib.float16),
    lambda lib: lib.tensor(2.5, dtype=lib.float16),
    lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    lambda lib: lib.tensor([[1, 2], [3, 4]], dtype=lib.int8),
    lambda lib: lib.tensor([1, 200], dtype=lib.uint8),
    lambda lib: lib.tensor(2, dtype=lib.int16),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    lambda lib: lib.tensor(2.0, requires_grad=True),
    lambda lib: lib.tensor([[1.0, 2.5], [3.0, 4.0]], requires_grad=True),
    lambda lib: lib.tensor([[1.0, 2.5], [3.0, 4.0]], dtype=lib.float64, requires_grad=True),
    lambda lib: lib.zeros(0, requires_grad=True),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) + 2,
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) / 3,
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).exp(),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).sum(),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).double(),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).tanh() - 1,
    lambda lib: (lib.arange(30.0).reshape(3, 10) / 7).requires_grad_() * 1,
    lambda lib: _assigned(lib),
    lambda lib: lib.arange(60.0).reshape(3, 20).double().requires_grad_() * 1,
]


if HAS_TORCH:
    @pytest.mark.parametrize("i", range(len(REPRS)))
    def test_repr_matches_torch(i):
        expected = repr(REPRS[i](torch)).replace("torch.", "npgrad.")
        got = repr(REPRS[i](npgrad))
        assert got == expected, f"\nnpgrad:\n{got}\ntorch:\n{expected}"
        assert str(REPRS[i](npgrad)) == got

    @pytest.mark.parametrize("i", [0, 2, 12, 36, 41, 45, 47, 50, 55, 59])
    def test_repr_with_float64_default_matches_torch(i):
        npgrad.set_default_dtype(npgrad.float64)
        torch.set_default_dtype(torch.float64)
        try:
            expected = repr(REPRS[i](torch)).replace("torch.", "npgrad.")
            assert repr(REPRS[i](npgrad)) == expected
        finally:
            npgrad.set_default_dtype(npgrad.float32)
            torch.set_default_dtype(torch.float32)

    @pytest.mark.parametrize("opts", [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False),
                                      dict(threshold=5, edgeitems=1), dict(linewidth=40), dict(profile="full")])
    def test_printoptions_match_torch(opts):
        cases = [lambda lib: lib.arange(30.0).reshape(3, 10) / 7, lambda lib: lib.tensor([1e-8, 1.0, 3.5]),
                 lambda lib: lib.arange(2000.0), lambda lib: lib.arange(12).reshape(3, 4)]
        try:
            _tensor_str.set_printoptions(**opts)
            torch.set_printoptions(**opts)
            for fn in cases:
                assert repr(fn(npgrad)) == repr(fn(torch)).replace("torch.", "npgrad."), opts
        finally:
            _tensor_str.set_printoptions(profile="default")
            torch.set_printoptions(profile="default")


def test_repr_shape_without_torch():
    # The layout rules, stated independently of PyTorch: 4 decimals, integers as "1.", right alignment.
    assert repr(npgrad.tensor([1.0, 2.5])) == "tensor([1.0000, 2.5000])"
    assert repr(npgrad.tensor([1.0, -20.0])) == "tensor([  1., -20.])"
    assert repr(npgrad.tensor([1e-8, 1.0])) == "tensor([1.0000e-08, 1.0000e+00])"
    assert repr(npgrad.tensor([True, False])) == "tensor([ True, False])"
    assert repr(npgrad.tensor([1.0], requires_grad=True) * 2) == "tensor([2.], grad_fn=<MulBackward0>)"
    assert repr(npgrad.tensor([1, 2], dtype=npgrad.int32)) == "tensor([1, 2], dtype=npgrad.int32)"
    assert repr(npgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)) == \
        "tensor([[1., 2.],\n        [3., 4.]], requires_grad=True)"
