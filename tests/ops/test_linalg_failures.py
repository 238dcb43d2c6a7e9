"""Linear algebra on matrices where the factorization or solve fails, answered as PyTorch answers: cholesky_ex's
info (the order of the first failing leading minor) and LAPACK's partial factor; solve_triangular's inf/NaN for a
zero on the diagonal (substitution, as LAPACK's trtrs), not an error."""
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


TRI = np.array([[1.0, 0.0], [2.0, 0.0]])
RHS = np.array([[1.0], [1.0]])
TRIANGULAR = [  # (id, call(L, A, B), expected)
    ("lower", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=False), [[1.0], [-np.inf]]),
    ("upper", lambda L, A, B: L.linalg.solve_triangular(A.mT, B, upper=True), [[-np.inf], [np.inf]]),
    ("right", lambda L, A, B: L.linalg.solve_triangular(A, B.mT, upper=False, left=False), [[-np.inf, np.inf]]),
    ("unit_diagonal_is_fine", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=False, unitriangular=True),
     [[1.0], [-1.0]]),
]


@pytest.mark.parametrize("call, expected", [c[1:] for c in TRIANGULAR], ids=[c[0] for c in TRIANGULAR])
def test_solve_triangular_with_a_zero_pivot(call, expected):
    got = call(npgrad, npgrad.tensor(TRI), npgrad.tensor(RHS)).numpy()
    np.testing.assert_array_equal(got, np.array(expected))
    if HAS_TORCH:
        np.testing.assert_array_equal(got, call(torch, torch.tensor(TRI), torch.tensor(RHS)).numpy())
