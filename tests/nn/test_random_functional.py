"""nn.functional's random functions (no value parity with PyTorch: the draws differ): the feature dropouts' masks,
alpha_dropout's preserved statistics, and gumbel_softmax's distribution (the Gumbel-max trick) and
straight-through gradient. Their deterministic calls and errors are op-table rows (tests/opinfo/family_nn_misc.py);
dropout's and dropout2d's statistics are in tests/nn/test_dropout_embedding.py."""
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from oracle import HAS_TORCH, torch


@pytest.mark.parametrize("name,shape", [("dropout1d", (40, 30, 6)), ("dropout1d", (300, 6)),
                                        ("dropout3d", (10, 40, 2, 3, 2)), ("dropout3d", (300, 2, 3, 2))])
def test_feature_dropout_drops_whole_channels(name, shape):
    npgrad.manual_seed(0)
    x = npgrad.ones(*shape, requires_grad=True)
    y = getattr(F, name)(x, 0.25)
    lead = 2 if len(shape) == {"dropout1d": 3, "dropout3d": 5}[name] else 1
    per_channel = y.detach().numpy().reshape(shape[:lead] + (-1,))
    assert np.all((per_channel == 0).all(-1) | (per_channel == np.float32(1 / 0.75)).all(-1))
    assert abs((per_channel[..., 0] == 0).mean() - 0.25) < 0.04
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())  # the gradient goes through the same mask


def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    npgrad.manual_seed(0)
    x = npgrad.randn(400, 500, dtype=npgrad.float64)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1.0) < 0.01
    # the dropped elements all take the one value alpha' = -lambda * alpha, moved by the affine correction
    _, counts = np.unique(y, return_counts=True)
    assert abs(counts.max() / y.size - 0.2) < 0.01
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False
    assert np.all(F.alpha_dropout(x, 1.0, training=True).numpy() == 0)


def test_feature_dropout_rank_checks_match_torch():
    with pytest.raises(RuntimeError, match=r"^dropout1d: Expected 2D or 3D input, but received a 4D input\. Note "):
        F.dropout1d(npgrad.ones(2, 3, 4, 4), 0.5, training=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.dropout3d(npgrad.ones(2, 3), 0.5, training=False)
    assert [str(w.message) for w in caught] == [
        "dropout3d: Received a 2-D input to dropout3d, which is deprecated and will result in an error in a future "
        "release. To retain the behavior and silence this warning, please use dropout instead. Note that dropout3d "
        "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and an "
        "optional batch dimension (i.e. 4D or 5D inputs)."]


if HAS_TORCH:
    @pytest.mark.parametrize("name,shape", [("dropout1d", (2, 3, 4, 4)), ("dropout1d", (3,)),
                                            ("dropout2d", (2, 3, 4, 4, 4)), ("dropout3d", (2, 3))])
    @pytest.mark.parametrize("training", [True, False])
    def test_feature_dropout_wrong_rank_like_torch(name, shape, training):
        got = []
        for lib in (npgrad, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    getattr(lib.nn.functional, name)(lib.ones(shape), 0.5, training=training)
                    got.append(("ok", [str(w.message) for w in caught]))
                except RuntimeError as e:
                    got.append(("error", str(e)))
        assert got[0] == got[1]


def test_gumbel_softmax_soft_samples_are_distributions():
    npgrad.manual_seed(0)
    logits = npgrad.tensor(np.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]), dtype=npgrad.float32, requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    assert y.dtype == npgrad.float32 and y.shape == (2, 3)
    np.testing.assert_allclose(y.detach().numpy().sum(-1), 1.0, rtol=1e-6)
    assert np.all(y.detach().numpy() > 0)
    y.sum().backward()  # the rows sum to 1 whatever the logits: zero gradient
    np.testing.assert_allclose(logits.grad.numpy(), 0.0, atol=1e-6)


def test_gumbel_softmax_argmax_follows_softmax_of_the_logits():
    # The Gumbel-max trick: argmax(logits + Gumbel noise) is distributed as softmax(logits), whatever tau
    npgrad.manual_seed(1)
    p = np.array([0.1, 0.2, 0.7])
    logits = npgrad.tensor(np.log(np.tile(p, (20000, 1))), dtype=npgrad.float64)
    hard = F.gumbel_softmax(logits, tau=2.0, hard=True).numpy()
    assert set(np.unique(hard)) == {0.0, 1.0} and np.all(hard.sum(-1) == 1)
    np.testing.assert_allclose(hard.mean(0), p, atol=0.01)


def test_gumbel_softmax_hard_passes_the_soft_gradient_along_dim():
    npgrad.manual_seed(2)
    logits = npgrad.randn(3, 4, 5, requires_grad=True)
    w = npgrad.randn(3, 4, 5)
    npgrad.manual_seed(3)
    hard = F.gumbel_softmax(logits, tau=0.7, hard=True, dim=1)
    assert np.all(hard.detach().numpy().sum(1) == 1)
    (hard * w).sum().backward()
    g_hard = logits.grad.numpy().copy()
    logits.grad = None
    npgrad.manual_seed(3)
    soft = F.gumbel_softmax(logits, tau=0.7, dim=1)  # the same noise: the straight-through estimator's gradient
    np.testing.assert_array_equal(hard.detach().numpy(), (soft.detach().numpy() == soft.detach().numpy().max(
        1, keepdims=True)).astype(np.float32))
    (soft * w).sum().backward()
    np.testing.assert_allclose(g_hard, logits.grad.numpy(), rtol=1e-6, atol=1e-7)
