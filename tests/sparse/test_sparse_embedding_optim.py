"""nn.Embedding(sparse=True)'s sparse weight gradient, SparseAdam, and which optimizers take sparse gradients.

The NumPy oracle replays each update rule on the dense arrays; PyTorch, where installed, runs the same steps.
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

W0 = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
BATCHES = ([1, 2, 2, 0], [3, 1], [5, 5, 4])


def embedding(lib, **kw):
    e = lib.nn.Embedding(6, 3, sparse=True, **kw)
    with lib.no_grad():
        e.weight.copy_(lib.tensor(W0))
    return e


def test_sparse_weight_gradient():
    e = embedding(npgrad, padding_idx=0)
    idx = np.array([[1, 0], [3, 1]])
    w = np.arange(12.0, dtype=np.float32).reshape(2, 2, 3)
    (e(npgrad.tensor(idx)) * npgrad.tensor(w)).sum().backward()
    g = e.weight.grad
    assert g.layout is npgrad.sparse_coo and g.shape == (6, 3) and g._nnz() == 3  # the padding lookup left out
    want = np.zeros((6, 3), np.float32)
    np.add.at(want, idx.ravel(), w.reshape(-1, 3))
    want[0] = 0
    np.testing.assert_allclose(g.to_dense().numpy(), want)
    e(npgrad.tensor([3])).sum().backward()  # a second backward accumulates into the sparse gradient
    want[3] += 1
    np.testing.assert_allclose(e.weight.grad.to_dense().numpy(), want)


def test_scale_grad_by_freq_refused_with_sparse():
    e = npgrad.nn.Embedding(4, 2, sparse=True, scale_grad_by_freq=True)
    with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
        e(npgrad.tensor([1, 1]))


def sparse_adam_oracle(lr, betas, eps, maximize):
    w = W0.astype(np.float64).copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, idx in enumerate(BATCHES, 1):
        g = np.zeros_like(w)
        np.add.at(g, idx, 2 * w[idx])
        rows = np.unique(idx)
        gr = -g[rows] if maximize else g[rows]
        m[rows] = betas[0] * m[rows] + (1 - betas[0]) * gr
        v[rows] = betas[1] * v[rows] + (1 - betas[1]) * gr * gr
        w[rows] -= lr * np.sqrt(1 - betas[1] ** t) / (1 - betas[0] ** t) * m[rows] / (np.sqrt(v[rows]) + eps)
    return w


def train(lib, name, **kw):
    e = embedding(lib)
    opt = getattr(lib.optim, name)(e.parameters(), **kw)
    for idx in BATCHES:
        opt.zero_grad()
        (e(lib.tensor(idx)) ** 2).sum().backward()
        opt.step()
    return e.weight.detach().numpy()


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.05, betas=(0.8, 0.9), eps=1e-3, maximize=True)])
def test_sparse_adam(kw):
    got = train(npgrad, "SparseAdam", **kw)
    full = dict(dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False), **kw)
    np.testing.assert_allclose(got, sparse_adam_oracle(**full), rtol=1e-5, atol=1e-6)
    if HAS_TORCH:
        np.testing.assert_allclose(got, train(torch, "SparseAdam", **kw), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, kw", [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                      ("Adagrad", dict(lr=0.1))])
def test_optimizers_taking_sparse_gradients_match_their_dense_update(name, kw):
    got = train(npgrad, name, **kw)
    # the same steps with a dense embedding: the update rule does not depend on the gradient's layout
    e = npgrad.nn.Embedding(6, 3)
    with npgrad.no_grad():
        e.weight.copy_(npgrad.tensor(W0))
    opt = getattr(npgrad.optim, name)(e.parameters(), **kw)
    for idx in BATCHES:
        opt.zero_grad()
        (e(npgrad.tensor(idx)) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(got, e.weight.detach().numpy(), rtol=1e-6)
    if HAS_TORCH:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(got, train(torch, name, **kw), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, kw, match", [
    ("Adam", {}, "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("AdamW", {}, "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("RMSprop", {}, "RMSprop does not support sparse gradients"),
    ("SGD", dict(weight_decay=0.1), r"add\(sparse, dense\) is not supported"),
    ("Adagrad", dict(weight_decay=0.1), "weight_decay option is not compatible with sparse gradients"),
])
def test_optimizers_refusing_sparse_gradients(name, kw, match):
    e = embedding(npgrad)
    opt = getattr(npgrad.optim, name)(e.parameters(), lr=0.1, **kw)
    e(npgrad.tensor([1])).sum().backward()
    with pytest.raises(RuntimeError, match=match):
        opt.step()


def test_sparse_adam_refuses_dense_gradients_and_sparse_params():
    p = npgrad.zeros(2, requires_grad=True)
    opt = npgrad.optim.SparseAdam([p])
    p.sum().backward()
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
        opt.step()
    s = npgrad.sparse_coo_tensor([[0]], [1.0], (2,), requires_grad=True)
    with pytest.raises(ValueError, match=r"Sparse params at indices \[\[0, 0\]\]"):
        npgrad.optim.SparseAdam([s])
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0"):
        npgrad.optim.SparseAdam([p], betas=(1.0, 0.9))


@pytest.mark.parametrize("sparse_first", [True, False])
@pytest.mark.parametrize("one_backward", [True, False])
def test_sparse_and_dense_gradients_of_one_weight_add_up(sparse_first, one_backward):
    e = embedding(npgrad)
    parts = [lambda: e(npgrad.tensor([1, 1])).sum(), lambda: (e.weight * 2).sum()]
    if not sparse_first:
        parts.reverse()
    if one_backward:
        (parts[0]() + parts[1]()).backward()
    else:
        parts[0]().backward()
        parts[1]().backward()
    want = np.full((6, 3), 2.0, np.float32)
    want[1] += 2
    g = e.weight.grad
    assert g.layout is npgrad.strided  # dense once a dense part joins, as in PyTorch
    np.testing.assert_allclose(g.numpy(), want)
