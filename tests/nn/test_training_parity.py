"""End to end: small models trained for a few steps with plain SGD (written with p.data / p.grad, so it
needs no optimizer) follow PyTorch's loss curve and end at the same weights."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from nn._parity import copy_state, to_np

R = np.random.default_rng(7)


def _cnn(l):
    return l.nn.Sequential(l.nn.Conv2d(1, 4, 3, padding=1), l.nn.BatchNorm2d(4), l.nn.ReLU(), l.nn.MaxPool2d(2),
                           l.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), l.nn.GELU(), l.nn.Dropout(0.0),
                           l.nn.AdaptiveAvgPool2d(1), l.nn.Flatten(), l.nn.Linear(6, 3))


def _mlp(l):
    return l.nn.Sequential(l.nn.Linear(5, 16), l.nn.LayerNorm(16), l.nn.SiLU(), l.nn.Linear(16, 16), l.nn.Tanh(),
                           l.nn.Linear(16, 3))


def _tiny_transformer(l):
    class TinyLM(l.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = l.nn.Embedding(11, 8)
            self.layer = l.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
            self.head = l.nn.Linear(8, 11)

        def forward(self, idx):
            h = self.layer(self.emb(idx), src_mask=l.nn.Transformer.generate_square_subsequent_mask(idx.shape[1]),
                           is_causal=True)
            return self.head(h)
    return TinyLM()


MODELS = [("cnn", _cnn, lambda: R.standard_normal((4, 1, 8, 8)), lambda: R.integers(0, 3, 4)),
          ("mlp", _mlp, lambda: R.standard_normal((6, 5)), lambda: R.integers(0, 3, 6)),
          ("transformer", _tiny_transformer, lambda: R.integers(0, 11, (2, 5)), lambda: R.integers(0, 11, (2, 5)))]

if HAS_TORCH:
    @pytest.mark.parametrize("name,make,xs,ys", MODELS, ids=[m[0] for m in MODELS])
    def test_sgd_training_follows_torch(name, make, xs, ys):
        tm, nm = make(torch).double(), make(npgrad).double()
        copy_state(tm, nm)
        data = [(xs(), ys()) for _ in range(4)]
        curves = []
        for lib, m in ((npgrad, nm), (torch, tm)):
            losses = []
            for x, y in data:
                out = m(lib.tensor(x))
                loss = lib.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), lib.tensor(y).reshape(-1))
                m.zero_grad()
                loss.backward()
                with lib.no_grad():
                    for p in m.parameters():
                        p -= 0.1 * p.grad
                losses.append(loss.item())
            curves.append(losses)
        np.testing.assert_allclose(curves[0], curves[1], rtol=1e-9)
        for (k, a), (_, b) in zip(nm.state_dict().items(), tm.state_dict().items()):
            np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-8, atol=1e-10, err_msg=k)


def test_training_reduces_loss_without_torch():
    npgrad.manual_seed(0)
    m = _mlp(npgrad)
    xa = R.standard_normal((32, 5)).astype(np.float32)
    x = npgrad.tensor(xa)
    y = npgrad.tensor((xa[:, 0] + xa[:, 1] > 0).astype(np.int64))  # a learnable rule
    first = None
    for _ in range(30):
        loss = npgrad.nn.functional.cross_entropy(m(x), y)
        first = first if first is not None else loss.item()
        m.zero_grad()
        loss.backward()
        with npgrad.no_grad():
            for p in m.parameters():
                p -= 0.2 * p.grad
    assert loss.item() < 0.5 * first
