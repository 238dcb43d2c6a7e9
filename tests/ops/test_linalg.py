"""Products (matmul and friends, einsum, cross, tensordot ...) against PyTorch and finite differences, plus
their shape errors with PyTorch's wording and zero-size dims."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import DOUBLE_BACKWARD, FD, PARITY, RAISES_LIKE_TORCH, grad_samples, samples
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test, torch_parity_test

# The rows live in the op table: tests/opinfo/family_products.py.
CASES = samples(PARITY, "linalg")

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)
    test_double_backward_matches_torch = double_backward_test(samples(DOUBLE_BACKWARD, "linalg"))


test_finite_differences = finite_difference_test(grad_samples(samples(FD, "linalg")))


# -- zero-size dims --------------------------------------------------------------------------------------------

ZERO_SIZE = {
    "matmul_k0": ((2, 0), (0, 3)),
    "matmul_n0": ((0, 4), (4, 3)),
    "matmul_m0": ((2, 4), (4, 0)),
    "matmul_batch0": ((0, 2, 3), (0, 3, 4)),
    "matmul_1d_k0": ((0,), (0,)),
    "matmul_bcast_batch0": ((0, 1, 2, 3), (5, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(ZERO_SIZE))
def test_matmul_zero_size_dims(name):
    sa, sb = ZERO_SIZE[name]
    a = npgrad.ones(*sa, requires_grad=True)
    b = npgrad.ones(*sb, requires_grad=True)
    out = a @ b
    expected = np.ones(sa) @ np.ones(sb)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.detach().numpy(), expected)  # a k=0 product is all zeros
    out.sum().backward()
    assert a.grad.shape == sa and b.grad.shape == sb
    assert not a.grad.numpy().any() and not b.grad.numpy().any()
    if HAS_TORCH:
        t = torch.ones(*sa) @ torch.ones(*sb)
        assert tuple(t.shape) == out.shape


# -- errors with PyTorch's wording --------------------------------------------------------------------------------

def test_matmul_error_wording():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(3x2 and 3x2\)$"):
        npgrad.ones(3, 2) @ npgrad.ones(3, 2)


if HAS_TORCH:
    ERRORS = {c.name: c.fn for c in samples(RAISES_LIKE_TORCH, "linalg")}

    test_errors_match_torch = errors_like_torch_test(ERRORS)


    def test_addmm_beta_zero_ignores_nan_but_gives_zero_grad():
        got = []
        for lib in (npgrad, torch):
            c = lib.tensor([[float("nan"), 1.0], [float("inf"), 2.0]], requires_grad=True)
            a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
            out = lib.addmm(c, a, a, beta=0, alpha=2.0)
            out.sum().backward()
            got.append((out.detach().numpy(), c.grad.numpy(), a.grad.numpy()))
        for x, y in zip(*got):
            np.testing.assert_array_equal(x, y)

    def test_integer_products_match_torch():
        a = np.arange(6).reshape(2, 3)
        for expr in (lambda L, x: x @ x.T, lambda L, x: L.einsum("ij,kj->ik", x, x), lambda L, x: L.mv(x, x[0])):
            n, t = expr(npgrad, npgrad.tensor(a)), expr(torch, torch.tensor(a))
            assert n.dtype == npgrad.int64
            np.testing.assert_array_equal(n.numpy(), t.numpy())



def test_ndarray_at_tensor_is_differentiable():
    x = npgrad.ones(3, 2, requires_grad=True)
    out = np.arange(6.0, dtype=np.float32).reshape(2, 3) @ x  # NumPy hands the product to Tensor.__rmatmul__
    assert isinstance(out, npgrad.Tensor) and out.shape == (2, 2)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.repeat([[3.0], [5.0], [7.0]], 2, axis=1))
