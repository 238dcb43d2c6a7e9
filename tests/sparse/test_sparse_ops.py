"""Sparse products, sums, softmax and arithmetic, and the gradients PyTorch gives through them.

The NumPy oracle is the dense computation (a linear loss's gradients are closed-form); where PyTorch is
installed, every value and gradient, and whether a sparse leaf's gradient is sparse or dense, is
compared with it.
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

IDX = [[1, 0, 1, 0], [0, 2, 2, 2]]   # (0, 2) twice: uncoalesced
VAL = [4.0, 3.0, 5.0, 1.0]
DENSE = np.array([[0.0, 0.0, 4.0], [4.0, 0.0, 5.0]])
RNG = np.random.default_rng(0)
D = RNG.standard_normal((3, 2))
W = RNG.standard_normal((2, 2))      # the loss is sum(W * out): d loss / d out = W


def leaf(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.sparse_coo_tensor(lib.tensor(IDX), lib.tensor(VAL, dtype=lib.float64), (2, 3),
                                     requires_grad=True)


def dense_grad(g, lib):
    return (g.to_dense() if g.layout is not lib.strided else g).detach().numpy()


PRODUCTS = {
    "sparse.mm": (lambda lib, s, d: lib.sparse.mm(s, d), False),
    "mm": (lambda lib, s, d: lib.mm(s, d), True),
    "matmul": (lambda lib, s, d: lib.matmul(s, d), True),
    "@": (lambda lib, s, d: s @ d, True),
    "spmm": (lambda lib, s, d: lib.spmm(s, d), True),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_sparse_dense_product_and_gradients(name):
    fn, dense_leaf_grad = PRODUCTS[name]
    s, d = leaf(npgrad), npgrad.tensor(D, requires_grad=True)
    out = fn(npgrad, s, d)
    assert out.layout is npgrad.strided
    np.testing.assert_allclose(out.detach().numpy(), DENSE @ D)
    (out * npgrad.tensor(W)).sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), DENSE.T @ W)
    full = W @ D.T
    assert (s.grad.layout is npgrad.strided) is dense_leaf_grad
    np.testing.assert_allclose(dense_grad(s.grad, npgrad), full if dense_leaf_grad else full * (DENSE != 0))
    if HAS_TORCH:
        ts, td = leaf(torch), torch.tensor(D, requires_grad=True)
        (fn(torch, ts, td) * torch.tensor(W)).sum().backward()
        assert (ts.grad.layout is torch.strided) is dense_leaf_grad
        np.testing.assert_allclose(dense_grad(s.grad, npgrad), dense_grad(ts.grad, torch))


def test_dense_at_sparse():
    x = RNG.standard_normal((4, 2))
    s = leaf(npgrad)
    out = npgrad.tensor(x) @ s
    np.testing.assert_allclose(out.detach().numpy(), x @ DENSE)
    out.sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), x.T @ np.ones((4, 3)))  # dense, as torch's


# (function on a sparse leaf giving a dense result or a sparse one, its dense NumPy oracle)
UNARY = {
    "to_dense": (lambda lib, s: s.to_dense(), lambda a: a),
    "coalesce": (lambda lib, s: s.coalesce().to_dense(), lambda a: a),
    "sum_dim": (lambda lib, s: lib.sparse.sum(s, 1).to_dense(), lambda a: a.sum(1)),
    "torch.sum_dim": (lambda lib, s: lib.sum(s, dim=0).to_dense(), lambda a: a.sum(0)),
    "sum_all": (lambda lib, s: lib.sparse.sum(s) * lib.ones(1, dtype=lib.float64), lambda a: a.sum()[None]),
    "mul_scalar": (lambda lib, s: (s * 3).to_dense(), lambda a: a * 3),
    "rmul_div": (lambda lib, s: (2 * s / 4).to_dense(), lambda a: a / 2),
    "dense_plus": (lambda lib, s: lib.eye(3, dtype=lib.float64)[:2] + s, lambda a: np.eye(3)[:2] + a),
    "dense_minus": (lambda lib, s: lib.ones(2, 3, dtype=lib.float64) - s, lambda a: 1 - a),
    "sparse_plus": (lambda lib, s: (s + s * 2).to_dense(), lambda a: 3 * a),
    "diag_left": (lambda lib, s: (lib.diag(lib.tensor([1.0, 2.0], dtype=lib.float64)).to_sparse() @ s).to_dense(),
                  lambda a: np.diag([1.0, 2.0]) @ a),
    "diag_both": (lambda lib, s: (lib.diag(lib.tensor([1.0, 2.0], dtype=lib.float64)).to_sparse() @ s @
                                  lib.diag(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).to_sparse()).to_dense(),
                  lambda a: np.diag([1.0, 2.0]) @ a @ np.diag([1.0, 2.0, 3.0])),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_values_and_gradients(name):
    fn, oracle = UNARY[name]
    s = leaf(npgrad)
    out = fn(npgrad, s)
    assert out.layout is npgrad.strided
    np.testing.assert_allclose(out.detach().numpy(), oracle(DENSE))
    w = np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)) + 1
    (out * npgrad.tensor(w)).sum().backward()
    # a linear f: the gradient with respect to entry (i, j) is f's adjoint applied to w, read at (i, j)
    basis = np.zeros((6,) + DENSE.shape)
    basis[np.arange(6), *np.unravel_index(np.arange(6), DENSE.shape)] = 1
    lin = np.array([(oracle(DENSE + b) - oracle(DENSE)).ravel() @ w.ravel() for b in basis]).reshape(DENSE.shape)
    got = dense_grad(s.grad, npgrad)
    if s.grad.layout is npgrad.strided:
        np.testing.assert_allclose(got, lin, atol=1e-12)
    else:
        np.testing.assert_allclose(got, lin * (DENSE != 0), atol=1e-12)
    # PyTorch 2.13 cannot differentiate torch.sum(sparse, dim) ("expand is unsupported for Sparse tensors")
    if HAS_TORCH and name != "torch.sum_dim":
        ts = leaf(torch)
        (fn(torch, ts) * torch.tensor(w)).sum().backward()
        assert (ts.grad.layout is torch.strided) == (s.grad.layout is npgrad.strided)
        np.testing.assert_allclose(got, dense_grad(ts.grad, torch), atol=1e-12)


def test_sum_results_are_sparse_or_dense_as_pytorch():
    s = leaf(npgrad)
    assert npgrad.sum(s, dim=1).layout is npgrad.sparse_coo and s.sum(0).shape == (3,)
    assert npgrad.sparse.sum(s).layout is npgrad.strided and npgrad.sparse.sum(s).item() == pytest.approx(DENSE.sum())
    np.testing.assert_allclose(npgrad.sparse.sum(s, (0, 1)).detach().numpy(), DENSE.sum())


@pytest.mark.parametrize("log", [False, True])
def test_sparse_softmax_over_present_entries(log):
    s = leaf(npgrad)
    fn = npgrad.sparse.log_softmax if log else npgrad.sparse.softmax
    out = fn(s, 1)
    assert out.layout is npgrad.sparse_coo and out.is_coalesced()
    # the oracle: a softmax over each row's present entries only
    rows = {0: [4.0], 1: [4.0, 5.0]}
    want = []
    for r in (0, 1):
        v = np.array(rows[r])
        p = np.exp(v - v.max()) / np.exp(v - v.max()).sum()
        want += list(np.log(p) if log else p)
    np.testing.assert_allclose(out.values().detach().numpy(), want)
    w = np.array([1.0, 2.0, -1.0])
    (out.values() * npgrad.tensor(w)).sum().backward()
    if HAS_TORCH:
        ts = leaf(torch)
        tout = (torch.sparse.log_softmax if log else torch.sparse.softmax)(ts, 1)
        np.testing.assert_allclose(out.values().detach().numpy(), tout.coalesce().values().detach().numpy())
        (tout.coalesce().values() * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(s.grad.to_dense().numpy(), ts.grad.to_dense().numpy(), atol=1e-12)


def test_sparse_addmm():
    s, d, m = leaf(npgrad), npgrad.tensor(D), npgrad.tensor(W)
    out = npgrad.sparse.addmm(m, s, d, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.detach().numpy(), 0.5 * W + 2.0 * DENSE @ D)


def test_gradient_reaches_values_and_dense_source():
    v = npgrad.tensor(VAL, dtype=npgrad.float64, requires_grad=True)
    s = npgrad.sparse_coo_tensor(npgrad.tensor(IDX), v, (2, 3))
    assert not s.is_leaf and s.requires_grad
    npgrad.mm(s, npgrad.tensor(D)).sum().backward()
    rows, cols = np.array(IDX)
    np.testing.assert_allclose(v.grad.numpy(), (np.ones((2, 2)) @ D.T)[rows, cols])
    x = npgrad.tensor(DENSE, requires_grad=True)
    (x.to_sparse() @ npgrad.tensor(D)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)) @ D.T)  # dense: all of it, as torch


def test_requires_grad_on_a_sparse_tensor_leaves_the_values_alone():
    v = npgrad.tensor(VAL)
    s = npgrad.sparse_coo_tensor(npgrad.tensor(IDX), v, (2, 3)).coalesce().requires_grad_()
    assert s.requires_grad and s.is_leaf and not v.requires_grad
    npgrad.sparse.mm(s, npgrad.ones(3, 1)).sum().backward()
    assert s.grad.layout is npgrad.sparse_coo
    np.testing.assert_allclose(s.grad.to_dense().numpy(), (DENSE != 0).astype(float))
    s.grad = None
    assert s.grad is None


@pytest.mark.parametrize("call, err, match", [
    (lambda s: npgrad.sparse.mm(s, npgrad.ones(2, 2, dtype=npgrad.float64)), RuntimeError, "Expected dim 0 size 3"),
    (lambda s: s * s, RuntimeError, "sparse"),
    (lambda s: s.mean(), NotImplementedError, "SparseCPU"),
    (lambda s: npgrad.softmax(s, 1), NotImplementedError, "SparseCPU"),
])
def test_product_errors(call, err, match):
    with pytest.raises(err, match=match):
        call(leaf(npgrad))


@pytest.mark.parametrize("order", ["sparse*dense", "dense*sparse"])
def test_sparse_times_dense_is_sparse_with_sparse_gradients(order):
    def run(lib):
        s, d = leaf(lib), lib.tensor(np.arange(6.0).reshape(2, 3) + 1, requires_grad=True)
        out = s * d if order == "sparse*dense" else d * s
        (out.to_dense() * lib.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
        return out, s.grad, d.grad
    out, gs, gd = run(npgrad)
    assert out.layout is npgrad.sparse_coo and gs.layout is npgrad.sparse_coo and gd.layout is npgrad.sparse_coo
    dd, w = np.arange(6.0).reshape(2, 3) + 1, np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(out.to_dense().detach().numpy(), DENSE * dd)
    np.testing.assert_allclose(gs.to_dense().numpy(), (w * dd) * (DENSE != 0))
    np.testing.assert_allclose(gd.to_dense().numpy(), w * DENSE)
    if HAS_TORCH:
        tout, tgs, tgd = run(torch)
        np.testing.assert_allclose(gd.to_dense().numpy(), tgd.to_dense().numpy())
        np.testing.assert_allclose(gs.to_dense().numpy(), tgs.to_dense().numpy())
