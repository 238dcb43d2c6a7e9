"""Winograd F(2x2, 3x3) (nn/_functional/_winograd.py) against the im2col formulas and finite differences, and
which convolutions take it. Small shapes here: the channel threshold is lowered so that they take the path."""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.nn._functional import _winograd as W
from npgrad.nn._functional import conv as C
from oracle import HAS_TORCH, torch

RNG = np.random.default_rng(5)

CASES = [  # (input shape, output channels, padding)
    ((2, 3, 8, 8), 4, 1),
    ((1, 2, 5, 5), 3, 0),  # padding 0, odd output (3x3: a half-empty last tile)
    ((3, 5, 7, 10), 2, 1),  # odd height, even width
    ((1, 1, 3, 3), 1, 0),  # a single output
    ((4, 6, 9, 6), 7, 2),
    ((2, 4, 6, 7), 5, (2, 0)),  # different padding per dim
]


@pytest.fixture
def low_threshold(monkeypatch):
    monkeypatch.setattr(W, "MIN_CHANNELS", 1)
    monkeypatch.setattr(W, "enabled", True)


def _direct(x, w, padding):
    """The im2col forward and its adjoints (dL/dx by col2im, dL/dW by the window GEMM), in x's dtype."""
    geo = C._conv_args(npgrad.tensor(x), npgrad.tensor(w), None, 1, padding, 1, 1, 2, "conv2d")[2]
    cols = C.im2col(x, geo)
    w3 = w.reshape(1, w.shape[0], -1)
    y = np.matmul(w3, cols).reshape((x.shape[0], w.shape[0]) + geo.out)

    def grads(up):
        g4 = up.reshape(x.shape[0], 1, w.shape[0], -1)
        gx = C.col2im(np.swapaxes(w3, 1, 2) @ g4, geo)
        gw = np.sum(g4 @ np.swapaxes(cols, 2, 3), axis=0).reshape(w.shape)
        return gx, gw
    return y, grads


def _through_npgrad(x, w, b, up, padding):
    xt, wt = npgrad.tensor(x, requires_grad=True), npgrad.tensor(w, requires_grad=True)
    bt = None if b is None else npgrad.tensor(b, requires_grad=True)
    y = F.conv2d(xt, wt, bt, padding=padding)
    y.backward(npgrad.tensor(up))
    return y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy(), None if b is None else bt.grad.numpy()


def _data(case, dtype):
    xs, o, padding = CASES[case]
    x = RNG.standard_normal(xs).astype(dtype)
    w = RNG.standard_normal((o, xs[1], 3, 3)).astype(dtype)
    return x, w, padding


@pytest.mark.parametrize("case", range(len(CASES)))
def test_float64_matches_im2col(case, low_threshold):
    x, w, padding = _data(case, np.float64)
    b = RNG.standard_normal(w.shape[0])
    y_ref, grads = _direct(x, w, padding)
    up = RNG.standard_normal(y_ref.shape)
    gx_ref, gw_ref = grads(up)
    taken = []
    real = W.backward
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(W, "backward", lambda *a: taken.append(1) or real(*a))
        y, gx, gw, gb = _through_npgrad(x, w, b, up, padding)
    assert taken, "the Winograd path was not taken"
    for got, ref in ((y, y_ref + b.reshape(1, -1, 1, 1)), (gx, gx_ref), (gw, gw_ref), (gb, up.sum((0, 2, 3)))):
        assert got.shape == ref.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * max(1.0, np.abs(ref).max()))


def _scale(x, w, padding):
    """Per output, the sum of |x| |w| over its taps (float64): the natural scale of its rounding error."""
    return _direct(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), padding)[0]


# Measured (one seed) on these cases and two 64/128-channel ones: max over outputs of |winograd - exact| / (sum |x||w|)
# 0.65-1.75 eps32, and 7.8 eps32 at the corners of the padding-2 case (few non-zero taps there, while the tile
# transform still adds and cancels its padded neighbours); the im2col GEMM's own error is 0.02-1.6 eps32.
BOUND_EPS = 32


@pytest.mark.parametrize("case", range(len(CASES)))
def test_float32_within_rounding(case, low_threshold):
    x, w, padding = _data(case, np.float32)
    exact, grads64 = _direct(x.astype(np.float64), w.astype(np.float64), padding)
    up = RNG.standard_normal(exact.shape).astype(np.float32)
    y, gx, gw, _ = _through_npgrad(x, w, None, up, padding)
    assert y.dtype == gx.dtype == gw.dtype == np.float32
    eps = np.finfo(np.float32).eps
    assert np.all(np.abs(y - exact) <= BOUND_EPS * eps * _scale(x, w, padding) + 1e-30)
    gx64, gw64 = grads64(up.astype(np.float64))
    # the gradients are sums of more terms (over outputs, or over the whole batch for dW): relative to their scale
    sx = np.abs(grads64(np.abs(up).astype(np.float64))[0]).max()  # not exact |.| sums, a per-tensor scale
    np.testing.assert_allclose(gx, gx64, rtol=0, atol=BOUND_EPS * eps * max(sx, 1.0) * 3)
    sw = np.abs(_direct(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), padding)[1](
        np.abs(up).astype(np.float64))[1]).max()
    np.testing.assert_allclose(gw, gw64, rtol=0, atol=BOUND_EPS * eps * sw * 3)


def test_finite_differences_and_double_backward(low_threshold):
    x = npgrad.tensor(RNG.standard_normal((2, 2, 5, 6)), requires_grad=True)
    w = npgrad.tensor(RNG.standard_normal((3, 2, 3, 3)), requires_grad=True)
    b = npgrad.tensor(RNG.standard_normal(3), requires_grad=True)
    for padding in (0, 1):
        f = lambda a, k, c: F.conv2d(a, k, c, padding=padding)  # noqa: E731
        assert npgrad.autograd.gradcheck(f, (x, w, b))
        assert npgrad.autograd.gradgradcheck(f, (x, w, b))


def test_only_grad_wrt_one_input(low_threshold):
    x, w, padding = _data(0, np.float64)
    y_ref, grads = _direct(x, w, padding)
    up = RNG.standard_normal(y_ref.shape)
    gx_ref, gw_ref = grads(up)
    xt, wt = npgrad.tensor(x, requires_grad=True), npgrad.tensor(w)
    F.conv2d(xt, wt, padding=padding).backward(npgrad.tensor(up))
    np.testing.assert_allclose(xt.grad.numpy(), gx_ref, atol=1e-12)
    xt, wt = npgrad.tensor(x), npgrad.tensor(w, requires_grad=True)
    F.conv2d(xt, wt, padding=padding).backward(npgrad.tensor(up))
    np.testing.assert_allclose(wt.grad.numpy(), gw_ref, atol=1e-12)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_matches_torch(low_threshold):
    x, w, padding = _data(4, np.float32)
    b = RNG.standard_normal(w.shape[0]).astype(np.float32)
    ys = F.conv2d(npgrad.tensor(x), npgrad.tensor(w), npgrad.tensor(b), padding=padding).numpy()
    yt = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), padding=padding).numpy()
    np.testing.assert_allclose(ys, yt, rtol=1e-5, atol=1e-5 * np.abs(yt).max())


def _geo(xs, ws, stride=1, padding=1, dilation=1, groups=1):
    x, w = npgrad.zeros(xs), npgrad.zeros(ws)
    return x.numpy(), w.numpy(), C._conv_args(x, w, None, stride, padding, dilation, groups, 2, "conv2d")[2]


def test_which_convolutions_take_it(monkeypatch):
    monkeypatch.setattr(W, "enabled", True)
    big = W.MIN_CHANNELS
    assert W.fits(*_geo((1, big, 8, 8), (big, big, 3, 3)))
    assert not W.fits(*_geo((1, big // 4, 8, 8), (big // 4, big // 4, 3, 3)))  # few channels: im2col is faster
    assert not W.fits(*_geo((1, big, 8, 8), (big, big, 3, 3), stride=2))
    assert not W.fits(*_geo((1, big, 8, 8), (big, big, 3, 3), dilation=2))
    assert not W.fits(*_geo((1, 2 * big, 8, 8), (2 * big, big, 3, 3), groups=2))
    assert not W.fits(*_geo((1, big, 8, 8), (big, big, 5, 5)))
    x, w, geo = _geo((1, big, 8, 8), (big, big, 3, 3))
    assert not W.fits(x.astype(np.float16), w.astype(np.float16), geo)
    monkeypatch.setattr(W, "enabled", False)  # the A/B switch (NPGRAD_WINOGRAD=0 at startup)
    assert not W.fits(x, w, geo)
