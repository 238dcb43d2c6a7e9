"""Dropout's statistics and masks, Embedding's padding/max_norm/from_pretrained and its weight gradient,
and the Tensor methods nn provides (x.softmax, torch.erf ...)."""
import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
import npgrad.nn.functional as F
from oracle import HAS_TORCH, torch


def test_dropout_zeroes_and_scales():
    npgrad.manual_seed(0)
    x = npgrad.ones(200, 500, requires_grad=True)
    y = F.dropout(x, 0.3)
    v = y.detach().numpy()
    kept = v != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(v[kept], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), v)  # the gradient goes through the same mask
    assert F.dropout(x, 0.3, training=False) is x and F.dropout(x, 0.0) is x
    assert np.all(F.dropout(x, 1.0).detach().numpy() == 0)
    assert y.dtype == npgrad.float32


def test_dropout_module_train_eval_and_inplace():
    npgrad.manual_seed(0)
    d = nn.Dropout(0.5)
    x = npgrad.ones(1000)
    assert (d(x).numpy() == 0).any()
    d.eval()
    assert d(x) is x
    t = npgrad.ones(1000)
    out = F.dropout(t, 0.5, inplace=True)
    assert out is t and (t.numpy() == 0).any()


def test_dropout2d_drops_whole_channels():
    npgrad.manual_seed(0)
    x = npgrad.ones(8, 16, 5, 5)
    y = nn.Dropout2d(0.5)(x).numpy()
    per_channel = y.reshape(8, 16, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert 0.2 < (per_channel[..., 0] == 0).mean() < 0.8


def test_embedding_padding_row_gets_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert np.all(emb.weight.detach().numpy()[1] == 0)
    idx = npgrad.tensor([[1, 2, 1], [4, 2, 0]])
    out = emb(idx)
    assert np.all(out.detach().numpy()[0, 0] == 0)
    g = np.random.default_rng(0).standard_normal((2, 3, 3)).astype(np.float32)
    out.backward(npgrad.tensor(g))
    grad = emb.weight.grad.numpy()
    assert np.all(grad[1] == 0) and np.all(grad[3] == 0)
    np.testing.assert_allclose(grad[2], g[0, 1] + g[1, 1], rtol=1e-6)
    np.testing.assert_allclose(grad[4], g[1, 0])


@pytest.mark.parametrize("vocab", [7, 300, 5000])  # long runs of repeats / a few repeats / mostly distinct rows
@pytest.mark.parametrize("freq", [False, True])
def test_embedding_gradient_accumulates_repeats(vocab, freq):
    rng = np.random.default_rng(1)
    idx = rng.integers(0, vocab, (50, 40))
    w = rng.standard_normal((vocab, 4))
    g = rng.standard_normal((50, 40, 4))
    weight = npgrad.tensor(w, requires_grad=True)
    F.embedding(npgrad.tensor(idx), weight, scale_grad_by_freq=freq).backward(npgrad.tensor(g))
    expected = np.zeros_like(w)
    np.add.at(expected, idx.ravel(), g.reshape(-1, 4))
    if freq:
        counts = np.bincount(idx.ravel(), minlength=vocab)
        expected /= np.maximum(counts, 1)[:, None]
    np.testing.assert_allclose(weight.grad.numpy(), expected, rtol=1e-12, atol=1e-14)


def test_embedding_from_pretrained_and_max_norm():
    w = npgrad.tensor([[1.0, 2.0], [3.0, 4.0], [0.1, 0.1]])
    emb = nn.Embedding.from_pretrained(w)
    assert not emb.weight.requires_grad and emb.num_embeddings == 3 and emb.embedding_dim == 2
    assert emb.weight.data_ptr() == w.data_ptr()
    np.testing.assert_array_equal(emb(npgrad.tensor([1])).numpy(), [[3.0, 4.0]])
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    m = nn.Embedding.from_pretrained(npgrad.tensor([[3.0, 4.0], [0.3, 0.4]]), max_norm=1.0)
    m(npgrad.tensor([0, 1]))
    norms = np.linalg.norm(m.weight.numpy(), axis=1)
    np.testing.assert_allclose(norms, [1.0, 0.5], rtol=1e-5)  # only the row over max_norm is rescaled


if HAS_TORCH:
    def test_embedding_max_norm_matches_torch():
        w = np.random.default_rng(2).standard_normal((6, 3)) * 2
        idx = np.array([[0, 2, 2], [5, 1, 0]])
        outs = []
        for lib in (npgrad, torch):
            e = lib.nn.Embedding.from_pretrained(lib.tensor(w), freeze=False, max_norm=1.5, norm_type=3.0)
            y = e(lib.tensor(idx))
            y.sum().backward()
            outs.append((y.detach().numpy(), e.weight.detach().numpy(), e.weight.grad.numpy()))
        for a, b in zip(*outs):
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_tensor_methods_from_nn():
    x = npgrad.randn(3, 4)
    np.testing.assert_allclose(x.softmax(-1).numpy(), F.softmax(x, -1).numpy())
    np.testing.assert_allclose(x.log_softmax(dim=0).numpy(), F.log_softmax(x, 0).numpy())
    np.testing.assert_allclose(npgrad.softmax(x, 1).numpy(), F.softmax(x, 1).numpy())
    assert npgrad.erf(npgrad.zeros(2)).tolist() == [0.0, 0.0]
    y = npgrad.tensor([0.5, -0.5])
    y.erf_()
    np.testing.assert_allclose(y.numpy(), [0.5204999, -0.5204999], rtol=1e-6)


def test_conv_transpose_output_size_argument():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = npgrad.randn(1, 2, 4, 4)
    assert m(x).shape == (1, 3, 7, 7)
    assert m(x, output_size=[8, 8]).shape == (1, 3, 8, 8)
    assert m(x, output_size=(1, 3, 8, 7)).shape == (1, 3, 8, 7)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(x, output_size=[10, 10])


def _embedding_modules(L):
    n = L.nn
    return [n.Embedding(5, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True),
            n.Embedding(5, 3), n.EmbeddingBag(5, 3, mode="sum", padding_idx=2, max_norm=2.0), n.EmbeddingBag(5, 3),
            n.Embedding.from_pretrained(L.ones(5, 3), padding_idx=0, freeze=False),
            n.EmbeddingBag(4, 2, _weight=L.ones(4, 2))]


def test_embedding_padding_row_and_pretrained_without_torch():
    mods = _embedding_modules(npgrad)
    assert mods[0].padding_idx == 4 and (mods[0].weight.detach().numpy()[4] == 0).all()
    assert mods[4].weight.requires_grad and (mods[4].weight.detach().numpy() == 1).all()  # no padding zeroing
    assert npgrad.nn.Embedding.from_pretrained(npgrad.ones(2, 2)).weight.requires_grad is False


if HAS_TORCH:
    def test_embedding_reprs_match_torch():
        assert [repr(m) for m in _embedding_modules(npgrad)] == [repr(m) for m in _embedding_modules(torch)]
