"""nn leftovers: F.feature_alpha_dropout / nn.FeatureAlphaDropout, F.rrelu_ in training mode, F.assert_int_or_pair,
nn.Container, nn.init.dirac / nn.init.eye (deprecated spellings). celu_/selu_/rrelu_ (evaluation) are op-table rows
(tests/opinfo/family_activation_inplace.py).

feature_alpha_dropout draws its masks from NumPy's generator, so values cannot match PyTorch's; checked instead:
one draw per (sample, channel), the two values an element can take (as PyTorch computes them), the moments it
preserves for standard normal input, the gradient, and PyTorch's errors and special cases."""
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
import npgrad.nn.functional as F
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")
ALPHA = 1.7580993408473766


def _affine(p):
    a = 1.0 / np.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    return a, ALPHA * a * p, -ALPHA * a + ALPHA * a * p  # kept: a*x + b_keep; dropped: the constant


@pytest.mark.parametrize("shape", [(4, 6), (3, 5, 7), (2, 3, 4, 5)])
def test_feature_alpha_dropout_masks_whole_channels(shape):
    p = 0.3
    x = npgrad.randn(*shape, dtype=npgrad.float64)
    y = F.feature_alpha_dropout(x, p, training=True).numpy()
    a, b_keep, dropped = _affine(p)
    xn = x.numpy()
    kept = np.isclose(y, a * xn + b_keep, rtol=0, atol=1e-12)
    drop = np.isclose(y, dropped, rtol=0, atol=1e-12)
    assert np.all(kept | drop)
    per_channel = kept.reshape(shape[0], shape[1], -1)
    assert np.all(per_channel.all(-1) | (~per_channel).all(-1))  # whole channels kept or dropped


def test_feature_alpha_dropout_preserves_moments_and_rate():
    npgrad.manual_seed(0)
    p = 0.4
    x = npgrad.randn(4000, 50, 1, dtype=npgrad.float64)
    y = F.feature_alpha_dropout(x, p, training=True).numpy()
    a, b_keep, dropped = _affine(p)
    rate = np.isclose(y[..., 0], dropped, atol=1e-12).mean()
    assert abs(rate - p) < 0.01
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


def test_feature_alpha_dropout_gradient_and_special_cases():
    p = 0.5
    x = npgrad.randn(6, 4, 3, dtype=npgrad.float64, requires_grad=True)
    y = F.feature_alpha_dropout(x, p, training=True)
    y.backward(npgrad.ones_like(y))
    a, b_keep, dropped = _affine(p)
    kept = np.isclose(y.detach().numpy(), a * x.detach().numpy() + b_keep, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0), atol=1e-15)
    z = npgrad.randn(2, 3)
    assert F.feature_alpha_dropout(z, 0.5) is z  # training=False by default: the input itself
    assert F.feature_alpha_dropout(z, 0.0, True) is z
    np.testing.assert_array_equal(F.feature_alpha_dropout(z, 1.0, True).numpy(), np.zeros((2, 3)))
    assert F.feature_alpha_dropout(npgrad.ones(0, 3), 0.5, True).shape == (0, 3)
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        F.feature_alpha_dropout(npgrad.ones(3), 0.5, True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.feature_alpha_dropout(z, 1.5, True)
    w = npgrad.randn(3, 4, requires_grad=True) * 1
    r = F.feature_alpha_dropout(w, 0.3, True, inplace=True)
    assert r is w and r.grad_fn is not None


def test_feature_alpha_dropout_module():
    m = nn.FeatureAlphaDropout(0.2)
    assert repr(m) == "FeatureAlphaDropout(p=0.2, inplace=False)"
    x = npgrad.randn(3, 4, 5)
    m.eval()
    assert m(x) is x
    m.train()
    y = m(x).numpy()
    assert y.shape == (3, 4, 5) and not np.array_equal(y, x.numpy())


@needs_torch
def test_feature_alpha_dropout_matches_torch_where_deterministic():
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    for p, train in [(0.5, False), (0.0, True), (1.0, True)]:
        yt = torch.nn.functional.feature_alpha_dropout(torch.tensor(x), p, train)
        yn = F.feature_alpha_dropout(npgrad.tensor(x), p, train)
        np.testing.assert_array_equal(yn.numpy(), yt.numpy())
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        torch.nn.functional.feature_alpha_dropout(torch.ones(3), 0.5, True)
    # with torch's mask copied in, the kept/dropped values agree: the same affine map
    yt = torch.nn.functional.feature_alpha_dropout(torch.tensor(x, dtype=torch.float64), 0.3, True).numpy()
    a, b_keep, dropped = _affine(0.3)
    kept = np.isclose(yt, a * x + b_keep, atol=1e-6)
    assert np.all(kept | np.isclose(yt, dropped, atol=1e-6))


def test_rrelu_inplace_training():
    npgrad.manual_seed(0)
    base = npgrad.randn(200, dtype=npgrad.float64, requires_grad=True)
    x = base * 1
    y = F.rrelu_(x, 0.1, 0.3, training=True)
    assert y is x
    xn = base.detach().numpy()
    yn = y.detach().numpy()
    slope = yn[xn < 0] / xn[xn < 0]
    assert np.all((slope >= 0.1) & (slope <= 0.3)) and slope.std() > 0.01
    np.testing.assert_array_equal(yn[xn >= 0], xn[xn >= 0])
    y.sum().backward()
    np.testing.assert_allclose(base.grad.numpy()[xn < 0], slope, rtol=1e-12)
    z = npgrad.randn(50, dtype=npgrad.float64) * 1
    zn = z.numpy().copy()
    r = F.rrelu(z, training=True, inplace=True)
    assert r is z and not np.array_equal(z.numpy()[zn < 0], zn[zn < 0])
    leaf = npgrad.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        F.celu_(leaf)


def test_assert_int_or_pair():
    F.assert_int_or_pair(3, "kernel_size", "{} must be int or pair")
    F.assert_int_or_pair((1, 2), "kernel_size", "{} must be int or pair")
    with pytest.raises(AssertionError, match="^stride must be int or pair$"):
        F.assert_int_or_pair((1, 2, 3), "stride", "{} must be int or pair")


def test_container_deprecated():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated. All of its functionality is now "
                                           "implemented in `nn.Module`. Subclass that instead."):
        c = nn.Container(a=nn.Linear(2, 3), b=nn.ReLU())
    assert isinstance(c, nn.Module) and list(dict(c.named_children())) == ["a", "b"]
    assert [n for n, _ in c.named_parameters()] == ["a.weight", "a.bias"]


@pytest.mark.parametrize("name,shape,kw", [("dirac", (4, 2, 3, 3), {"groups": 2}), ("eye", (3, 5), {})])
def test_init_deprecated_spellings(name, shape, kw):
    t = npgrad.full(shape, 7.0)
    with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."):
        out = getattr(nn.init, name)(t, **kw)
    assert out is t
    ref = getattr(nn.init, name + "_")(npgrad.full(shape, 7.0), **kw)
    np.testing.assert_array_equal(t.numpy(), ref.numpy())
    if name == "eye":
        np.testing.assert_array_equal(t.numpy(), np.eye(3, 5))
    if HAS_TORCH:
        tt = torch.full(shape, 7.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            getattr(torch.nn.init, name)(tt, **kw)
        np.testing.assert_array_equal(t.numpy(), tt.numpy())
