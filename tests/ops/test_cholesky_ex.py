"""linalg.cholesky_ex on matrices that are not positive-definite: info is the order of the first failing leading
minor and L is LAPACK's partial factor, as PyTorch returns them; check_errors raises PyTorch's error."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

RNG = np.random.default_rng(0)
_M = RNG.standard_normal((4, 5, 5))
SPD = _M @ _M.transpose(0, 2, 1)
MIXED = SPD.copy()
MIXED[1, 3, 3] -= 50.0      # fails at order 4
MIXED[2] *= -1.0            # fails at order 1
CASES = {"single": np.array([[1.0, 2.0], [2.0, 1.0]]), "batch": MIXED, "all_fine": SPD, "nan": np.full((2, 2), np.nan)}


def _partial_reference(a):
    """The unblocked Cholesky written out: where it stops, and what it leaves."""
    L = np.tril(a).copy()
    for j in range(len(a)):
        pivot = L[j, j] - L[j, :j] @ L[j, :j]
        if not pivot > 0:
            L[j, j] = pivot
            return L, j + 1
        L[j, j] = np.sqrt(pivot)
        L[j + 1:, j] = (L[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L, 0


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_info_and_partial_factor(name, upper):
    a = CASES[name]
    got = npgrad.linalg.cholesky_ex(npgrad.tensor(a), upper=upper)
    assert got.info.dtype == npgrad.int32 and tuple(got.info.shape) == a.shape[:-2]
    flat = a.reshape((-1,) + a.shape[-2:])
    ref = [_partial_reference(m) for m in flat]
    np.testing.assert_array_equal(got.info.numpy().reshape(-1), [r[1] for r in ref])
    L = np.stack([r[0] for r in ref]).reshape(a.shape)
    np.testing.assert_allclose(got.L.numpy(), np.swapaxes(L, -1, -2) if upper else L, rtol=1e-12, atol=1e-12)
    if HAS_TORCH:
        want = torch.linalg.cholesky_ex(torch.tensor(a), upper=upper)
        np.testing.assert_array_equal(got.info.numpy(), want.info.numpy())
        np.testing.assert_allclose(got.L.numpy(), want.L.numpy(), rtol=1e-12, atol=1e-12)


def test_check_errors_raises_pytorchs_error():
    msg = ("linalg.cholesky_ex: The factorization could not be completed because the input is not positive-definite "
           "(the leading minor of order 2 is not positive-definite).")
    with pytest.raises(RuntimeError) as ours:
        npgrad.linalg.cholesky_ex(npgrad.tensor(CASES["single"]), check_errors=True)
    assert str(ours.value) == msg
    if HAS_TORCH:
        with pytest.raises(RuntimeError) as theirs:
            torch.linalg.cholesky_ex(torch.tensor(CASES["single"]), check_errors=True)
        assert str(theirs.value) == msg


def test_positive_definite_input_stays_differentiable():
    a = npgrad.tensor(SPD[0], requires_grad=True)
    L, info = npgrad.linalg.cholesky_ex(a)
    assert info.item() == 0 and L.grad_fn is not None
    L.sum().backward()
    assert a.grad is not None
