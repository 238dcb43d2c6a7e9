"""Sparse tensors of empty shapes and with no stored entries (the dense sweep of
tests/reliability/test_empty_tensors.py compares dense results, so sparse ones are checked here)."""
import pytest

import npgrad
from oracle import HAS_TORCH, torch

LIBS = [npgrad, torch] if HAS_TORCH else [npgrad]


@pytest.mark.parametrize("shape", [(2, 0), (0, 3), (0, 0)])
def test_empty_shapes_round_trip(shape):
    for lib in LIBS:
        x = lib.zeros(*shape)
        for s in (x.to_sparse(), x.to_sparse_coo(), x.to_sparse_csr()):
            assert tuple(s.shape) == shape and s.to_dense().tolist() == x.tolist()
        assert x.to_sparse()._nnz() == 0


def test_products_and_constructors_with_no_entries():
    for lib in LIBS:
        assert tuple(lib.spmm(lib.zeros(0, 3).to_sparse(), lib.zeros(3, 2)).shape) == (0, 2)
        coo = lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 2))
        assert coo.to_dense().tolist() == [[0.0, 0.0], [0.0, 0.0]]
        csr = lib.sparse_csr_tensor(lib.tensor([0, 0, 0]), lib.zeros(0, dtype=lib.int64), lib.zeros(0), (2, 2))
        assert (csr @ lib.ones(2, 3)).tolist() == [[0.0] * 3] * 2
