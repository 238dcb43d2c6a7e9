"""Sparse COO tensors: construction, attributes, repr, coalescing, conversions, errors.

Values are checked against a NumPy dense oracle (always) and against PyTorch where it is installed.
"""
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

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")

# an uncoalesced tensor: (0, 2) appears twice, entries out of order
IDX = [[1, 0, 1, 0], [0, 2, 2, 2]]
VAL = [4.0, 3.0, 5.0, 1.0]


def oracle_dense(idx, val, shape):
    out = np.zeros(shape)
    np.add.at(out, tuple(np.asarray(idx)), np.asarray(val))
    return out


def make(lib, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's invariant-check notice
        return lib.sparse_coo_tensor(lib.tensor(IDX), lib.tensor(VAL), (2, 3), **kw)


def test_attributes_and_dense_values():
    s = make(npgrad)
    assert isinstance(s, npgrad.Tensor)
    assert s.is_sparse and s.layout is npgrad.sparse_coo and not s.is_sparse_csr
    assert s.shape == (2, 3) and s.size() == (2, 3) and s.size(1) == 3 and s.dim() == 2
    assert s.dtype is npgrad.float32 and s.sparse_dim() == 2 and s.dense_dim() == 0 and s._nnz() == 4
    assert not s.is_coalesced()
    np.testing.assert_allclose(s.to_dense().numpy(), oracle_dense(IDX, VAL, (2, 3)))
    assert npgrad.ones(2).is_sparse is False and npgrad.ones(2).layout is npgrad.strided


def test_coalesce_sums_duplicates_in_order():
    c = make(npgrad).coalesce()
    assert c.is_coalesced() and c._nnz() == 3
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 1, 1], [2, 0, 2]])
    np.testing.assert_allclose(c.values().numpy(), [4.0, 4.0, 5.0])
    assert c.coalesce() is c


def test_size_inferred_and_hybrid_values():
    s = npgrad.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]])
    assert s.shape == (3, 2) and s.sparse_dim() == 1 and s.dense_dim() == 1
    np.testing.assert_allclose(s.to_dense().numpy(), [[1, 2], [0, 0], [3, 4]])


@pytest.mark.parametrize("sparse_dim", [None, 1])
def test_to_sparse_round_trip(sparse_dim):
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    s = npgrad.tensor(x).to_sparse() if sparse_dim is None else npgrad.tensor(x).to_sparse(sparse_dim)
    assert s.is_coalesced() and s.sparse_dim() == (2 if sparse_dim is None else 1)
    assert s._nnz() == (2 if sparse_dim is None else 2)
    np.testing.assert_array_equal(s.to_dense().numpy(), x)
    if HAS_TORCH:
        t = torch.tensor(x).to_sparse() if sparse_dim is None else torch.tensor(x).to_sparse(sparse_dim)
        np.testing.assert_array_equal(s.indices().numpy(), t.indices().numpy())
        np.testing.assert_array_equal(s.values().numpy(), t.values().numpy())


def test_dtype_conversions_and_device():
    s = make(npgrad)
    assert s.double().dtype is npgrad.float64 and s.double().layout is npgrad.sparse_coo
    assert s.to(npgrad.float64).float().dtype is npgrad.float32
    assert s.to("cpu") is s and s.cpu() is s
    assert make(npgrad, dtype=npgrad.float64).dtype is npgrad.float64


@needs_torch
@pytest.mark.parametrize("build", [
    lambda lib: make(lib),
    lambda lib: make(lib).coalesce(),
    lambda lib: make(lib, dtype=lib.float64, requires_grad=True),
    lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(1),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 2)),
    lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr(),
], ids=["uncoalesced", "coalesced", "float64-grad", "hybrid", "empty", "csr"])
def test_repr_matches_pytorch(build):
    assert repr(build(npgrad)).replace("npgrad.", "torch.") == repr(build(torch))  # dtype spelt as npgrad names it


def test_legacy_float_tensor_constructor():
    with pytest.warns(UserWarning, match="deprecated"):
        s = npgrad.sparse.FloatTensor(npgrad.tensor(IDX), npgrad.tensor(VAL), npgrad.Size([2, 3]))
    assert s.layout is npgrad.sparse_coo and s.shape == (2, 3)
    np.testing.assert_allclose(s.to_dense().numpy(), oracle_dense(IDX, VAL, (2, 3)))
    with pytest.warns(UserWarning):
        e = npgrad.sparse.FloatTensor(2, 3)
    assert e._nnz() == 0 and e.shape == (2, 3) and e.dtype is npgrad.float32


@pytest.mark.parametrize("call, err, match", [
    (lambda: npgrad.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (1,)), RuntimeError, "size is inconsistent"),
    (lambda: npgrad.sparse_coo_tensor([[0, 1]], [1.0], (2,)), RuntimeError, "same nnz"),
    (lambda: make(npgrad).indices(), RuntimeError, "uncoalesced"),
    (lambda: make(npgrad).values(), RuntimeError, "uncoalesced"),
    (lambda: make(npgrad) + npgrad.ones(2, 3), RuntimeError, r"add\(sparse, dense\) is not supported"),
    (lambda: make(npgrad).exp(), NotImplementedError, "SparseCPU"),
    (lambda: make(npgrad).view(-1), NotImplementedError, "SparseCPU"),
    (lambda: make(npgrad).numpy(), TypeError, "to_dense"),
    (lambda: make(npgrad).crow_indices(), RuntimeError, "row compressed"),
])
def test_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


@needs_torch
@pytest.mark.parametrize("call", [
    # npgrad always checks what PyTorch checks with check_invariants=True (an invalid tensor is never made)
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (1,), check_invariants=True),
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0], (2,)),
    lambda lib: lib.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (2,), check_invariants=True),
    lambda lib: make(lib).indices(),
    lambda lib: make(lib) + lib.ones(2, 3),
])
def test_error_messages_match_pytorch(call):
    msgs = []
    for lib in (npgrad, torch):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_pickle_and_deepcopy(layout):
    import copy
    import pickle
    s = make(npgrad, requires_grad=True)
    s = s if layout == "coo" else s.detach().coalesce().to_sparse_csr()
    back = pickle.loads(pickle.dumps(s))
    assert back.layout is s.layout and back.requires_grad == s.requires_grad and back.is_leaf
    np.testing.assert_array_equal(back.to_dense().detach().numpy(), s.to_dense().detach().numpy())
    if layout == "coo":
        c = copy.deepcopy(s)
        assert c.requires_grad and c._nnz() == s._nnz()
        np.testing.assert_array_equal(c.to_dense().detach().numpy(), s.to_dense().detach().numpy())
    else:  # as PyTorch: a CSR tensor has no storage to copy
        with pytest.raises(NotImplementedError, match="SparseCsrTensorImpl"):
            copy.deepcopy(s)
