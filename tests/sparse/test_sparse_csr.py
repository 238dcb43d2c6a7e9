"""Sparse CSR matrices: construction, components, conversions and the product with a dense matrix."""
import warnings

import numpy as np
import pytest

import npgrad

try:
    import torch
    HAS_TORCH = True
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
    HAS_TORCH = False

CROW, COL, VAL = [0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0]
DENSE = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 3.0, 0.0]])


def make(lib, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's "CSR support is in beta" notice
        return lib.sparse_csr_tensor(lib.tensor(CROW), lib.tensor(COL), lib.tensor(VAL, dtype=lib.float64), (3, 3),
                                     **kw)


def test_components_and_dense():
    c = make(npgrad)
    assert c.layout is npgrad.sparse_csr and c.is_sparse_csr and not c.is_sparse
    assert c.shape == (3, 3) and c._nnz() == 3 and c.dtype is npgrad.float64
    np.testing.assert_array_equal(c.crow_indices().numpy(), CROW)
    np.testing.assert_array_equal(c.col_indices().numpy(), COL)
    np.testing.assert_array_equal(c.values().numpy(), VAL)
    np.testing.assert_array_equal(c.to_dense().numpy(), DENSE)


def test_conversions_round_trip():
    c = npgrad.tensor(DENSE).to_sparse_csr()
    np.testing.assert_array_equal(c.crow_indices().numpy(), CROW)
    np.testing.assert_array_equal(c.col_indices().numpy(), COL)
    coo = c.to_sparse()
    assert coo.layout is npgrad.sparse_coo and coo.is_coalesced()
    np.testing.assert_array_equal(coo.to_dense().numpy(), DENSE)
    np.testing.assert_array_equal(coo.to_sparse_csr().crow_indices().numpy(), CROW)
    if HAS_TORCH:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = torch.tensor(DENSE).to_sparse_csr()
        np.testing.assert_array_equal(c.crow_indices().numpy(), t.crow_indices().numpy())
        np.testing.assert_array_equal(c.col_indices().numpy(), t.col_indices().numpy())


def test_csr_at_dense_and_gradients():
    d = np.arange(6.0).reshape(3, 2)
    c, x = make(npgrad, requires_grad=True), npgrad.tensor(d, requires_grad=True)
    out = c @ x
    assert out.layout is npgrad.strided
    np.testing.assert_allclose(out.detach().numpy(), DENSE @ d)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), DENSE.T @ np.ones((3, 2)))
    if HAS_TORCH:
        tc, tx = make(torch, requires_grad=True), torch.tensor(d, requires_grad=True)
        (tc @ tx).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
        assert (c.grad.layout is npgrad.strided) == (tc.grad.layout is torch.strided)
        np.testing.assert_allclose(c.grad.detach().numpy() if c.grad.layout is npgrad.strided else
                                   c.grad.to_dense().numpy(), tc.grad.to_dense().numpy())


@pytest.mark.parametrize("args, match", [
    (([0, 2, 1], [0, 1], [1.0, 2.0], (2, 2)), "crow_indices"),
    (([0, 1, 2], [0, 1], [1.0], (2, 2)), "same number of elements"),
    (([0, 1, 2], [0, 5], [1.0, 2.0], (2, 2)), "col_indices"),
])
def test_bad_components(args, match):
    with pytest.raises(RuntimeError, match=match):
        npgrad.sparse_csr_tensor(*args)
