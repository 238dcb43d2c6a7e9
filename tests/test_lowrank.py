"""torch.lobpcg / svd_lowrank / pca_lowrank beyond the op table (tests/opinfo/family_lowrank.py): eigenvector and
singular-vector properties, lobpcg's float64 gradients against PyTorch's (its iteration converges to sqrt(eps), so
the tolerance is that), and the argument checks, which raise ValueError/AssertionError as PyTorch's do."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch


def _spd(n, seed=0, shift=1.0):
    x = np.random.default_rng(seed).standard_normal((n, n))
    return x @ x.T + shift * np.eye(n)


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_eigenpairs(largest):
    a = _spd(12)
    e, x = npgrad.lobpcg(npgrad.tensor(a), k=3, largest=largest)
    e, x = e.numpy(), x.numpy()
    ref = np.linalg.eigvalsh(a)
    np.testing.assert_allclose(e, ref[::-1][:3] if largest else ref[:3], rtol=1e-12)
    np.testing.assert_allclose(a @ x, x * e, atol=1e-10)
    np.testing.assert_allclose(x.T @ x, np.eye(3), atol=1e-12)


def test_lobpcg_generalized_is_b_orthonormal():
    a, b = _spd(9, 1), _spd(9, 2, shift=9.0)
    e, x = npgrad.lobpcg(npgrad.tensor(a), k=2, B=npgrad.tensor(b))
    e, x = e.numpy(), x.numpy()
    np.testing.assert_allclose(a @ x, b @ x * e, atol=1e-9)
    np.testing.assert_allclose(x.T @ b @ x, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(e, np.sort(np.linalg.eigvals(np.linalg.solve(b, a)).real)[::-1][:2], rtol=1e-10)


def test_lobpcg_batched_and_integer_defaults():
    a = np.stack([_spd(6, 3), _spd(6, 4)])
    e, x = npgrad.lobpcg(npgrad.tensor(a))  # k = 1
    assert e.shape == (2, 1) and x.shape == (2, 6, 1)
    np.testing.assert_allclose(e.numpy()[:, 0], np.linalg.eigvalsh(a)[:, -1], rtol=1e-12)


def test_svd_lowrank_reconstructs_low_rank_input_and_is_seeded():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((9, 3)) @ rng.standard_normal((3, 7))
    npgrad.manual_seed(0)
    u, s, v = npgrad.svd_lowrank(npgrad.tensor(a), q=3)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a, atol=1e-12)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(3), atol=1e-12)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False)[:3], rtol=1e-12)
    npgrad.manual_seed(0)
    assert np.array_equal(npgrad.svd_lowrank(npgrad.tensor(a), q=3)[0].numpy(), u.numpy())


def test_pca_lowrank_centers_columns():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((8, 2)) @ rng.standard_normal((2, 5)) + 3.0
    u, s, v = npgrad.pca_lowrank(npgrad.tensor(a), q=2)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a - a.mean(0), atol=1e-12)


ERRORS = {
    "pca_q": (ValueError, lambda L: L.pca_lowrank(L.ones(3, 4), q=5)),
    "pca_niter": (ValueError, lambda L: L.pca_lowrank(L.ones(3, 4), niter=-1)),
    "lobpcg_too_many": (ValueError, lambda L: L.lobpcg(L.eye(5), k=2)),
    "lobpcg_x_too_wide": (ValueError, lambda L: L.lobpcg(L.eye(6), X=L.ones(6, 3))),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_argument_errors(name):
    exc, fn = ERRORS[name]
    with pytest.raises(exc) as en:
        fn(npgrad)
    if HAS_TORCH:
        with pytest.raises(exc) as et:
            fn(torch)
        assert str(en.value) == str(et.value)


def test_lobpcg_shape_assertions():
    with pytest.raises(AssertionError, match="A must be square"):
        npgrad.lobpcg(npgrad.ones(6, 7))
    with pytest.raises(AssertionError, match="A and B must have same shape"):
        npgrad.lobpcg(npgrad.eye(6), B=npgrad.eye(7))


if HAS_TORCH:
    @pytest.mark.parametrize("largest", [True, False])
    def test_lobpcg_gradients_match_torch_float64(largest):
        a = _spd(12, 7)
        grads = []
        for L in (npgrad, torch):
            t = L.tensor(a, requires_grad=True)
            e, x = L.lobpcg(t, k=2, largest=largest)
            (e.sum() + (x ** 2).sum(0).sin().sum() + (x[:, 0] * x[:, 1]).abs().sum()).backward()
            grads.append(t.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-7)

    def test_lobpcg_vectors_match_torch_up_to_sign():
        a = _spd(15, 8)
        xn = npgrad.lobpcg(npgrad.tensor(a), k=3)[1].numpy()
        xt = torch.lobpcg(torch.tensor(a), k=3)[1].numpy()
        np.testing.assert_allclose(np.abs(xn.T @ xt), np.eye(3), atol=1e-7)
