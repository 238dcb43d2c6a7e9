"""Stride-1 convolutions on the "wide" grid (conv._forward_wide, _backward_wide, _weight_grad_wide) against PyTorch
and against the general im2col / col2im formulas in float64; and which convolutions take that path."""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.nn._functional import conv as C
from oracle import HAS_TORCH, torch

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def numpy_paths(monkeypatch):
    """The NumPy paths; the compiled direct 3x3 convolution (the [kernels] extra) that takes the resnet geometry
    when it runs agrees within rounding: tests/kernels/test_conv3x3.py."""
    monkeypatch.setattr(npgrad.backends.kernels, "enabled", False)

CASES = [  # (input shape, weight shape, padding, dilation, groups); all stride 1, O <= C, depth >= 64
    ((3, 16, 12, 10), (16, 16, 3, 3), 1, 1, 1),  # the resnet block's geometry, smaller
    ((2, 8, 7, 9), (8, 8, 3, 3), 2, 2, 1),
    ((1, 8, 5, 6), (4, 8, 5, 5), "same", 1, 1),  # batch 1, C != O, 'same' padding
    ((2, 8, 6, 7), (8, 8, 4, 3), "same", (1, 2), 1),  # uneven 'same' padding before and after
    ((2, 64, 6, 5), (3, 64, 1, 1), 0, 1, 1),  # kernel 1
    ((5, 16, 9, 11), (8, 16, 5, 3), (0, 2), 1, 1),  # odd sizes, a batch spanning chunks
    ((2, 16, 7, 9), (6, 8, 3, 3), 1, (1, 2), 2),  # groups 2
    ((3, 16, 11), (5, 16, 5), 2, 2, 1),  # conv1d
    ((2, 8, 5, 6, 4), (3, 8, 3, 3, 2), 1, (2, 1, 1), 1),  # conv3d
    ((2, 12, 4, 5, 6), (6, 4, 3, 3, 2), (1, 0, 1), 1, 3),  # conv3d, groups 3
]


def _conv(xs):
    return (F.conv1d, F.conv2d, F.conv3d)[len(xs) - 3]


def _npgrad_grads(x, w, b, up, padding, dilation, groups):
    xt, wt = npgrad.tensor(x, requires_grad=True), npgrad.tensor(w, requires_grad=True)
    bt = None if b is None else npgrad.tensor(b, requires_grad=True)
    y = _conv(x.shape)(xt, wt, bt, 1, padding, dilation, groups)
    y.backward(npgrad.tensor(up))
    return y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy(), None if b is None else bt.grad.numpy()


def _reference(x, w, b, up, padding, dilation, groups):
    """The general formulas: im2col + GEMM forward, col2im of the window gradients, window GEMM for dW."""
    geo = C._conv_args(npgrad.tensor(x), npgrad.tensor(w), None, 1, padding, dilation, groups, x.ndim - 2, "c")[2]
    G, O = groups, w.shape[0]
    cols = C.im2col(x, geo)
    w3 = w.reshape(G, O // G, -1)
    y = np.matmul(w3, cols).reshape((x.shape[0], O) + geo.out)
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * (x.ndim - 2))
    g4 = up.reshape(x.shape[0], G, O // G, -1)
    gx = C.col2im(np.swapaxes(w3, 1, 2) @ g4, geo)
    gw = np.sum(g4 @ np.swapaxes(cols, 2, 3), axis=0).reshape(w.shape)
    gb = None if b is None else up.sum(axis=(0,) + tuple(range(2, x.ndim)))
    return y, gx, gw, gb


def _data(case, dtype, bias):
    xs, ws, padding, dilation, groups = CASES[case]
    x, w = RNG.standard_normal(xs).astype(dtype), RNG.standard_normal(ws).astype(dtype)
    b = RNG.standard_normal(ws[0]).astype(dtype) if bias else None
    y = _conv(xs)(npgrad.tensor(x), npgrad.tensor(w), None, 1, padding, dilation, groups)
    up = RNG.standard_normal(tuple(y.shape)).astype(dtype)
    return x, w, b, up, padding, dilation, groups


def _close(got, expected, dtype):
    # a different summation order: float rounding only, relative to the result's scale
    tol = 1e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * np.abs(expected).max())


@pytest.fixture(params=[1, 1 << 19], ids=["one_image_chunks", "default_chunks"])
def chunks(request, monkeypatch):
    monkeypatch.setattr(C, "_WIDE_FLOATS", request.param)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_wide_path_matches_general_formulas(case, dtype, bias, chunks, monkeypatch):
    taken = []
    monkeypatch.setattr(C, "_backward_wide", lambda *a, f=C._backward_wide: taken.append(1) or f(*a))
    args = _data(case, dtype, bias)
    got = _npgrad_grads(*args)
    assert taken, "the wide path was not taken"
    expected = _reference(*[a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args])
    for g, e in zip(got, expected):
        if e is not None:
            assert g.dtype == dtype
            _close(g, e, dtype)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_wide_path_matches_pytorch(case, dtype, bias):
    x, w, b, up, padding, dilation, groups = _data(case, dtype, bias)
    got = _npgrad_grads(x, w, b, up, padding, dilation, groups)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    tb = None if b is None else torch.tensor(b, requires_grad=True)
    tconv = (torch.nn.functional.conv1d, torch.nn.functional.conv2d, torch.nn.functional.conv3d)[x.ndim - 3]
    ty = tconv(tx, tw, tb, 1, padding, dilation, groups)
    ty.backward(torch.tensor(up))
    for g, e in zip(got, (ty, tx.grad, tw.grad, tb.grad if b is not None else None)):
        if e is not None:
            _close(g, e.detach().numpy(), dtype)


def test_wide_path_finite_differences():
    """Independent of both references: central differences in float64 on a few entries of x and w."""
    x, w, b, up, padding, dilation, groups = _data(6, np.float64, True)

    def loss(x_, w_):
        y = _conv(x.shape)(npgrad.tensor(x_), npgrad.tensor(w_), npgrad.tensor(b), 1, padding, dilation, groups)
        return float((y.numpy() * up).sum())

    _, gx, gw, _ = _npgrad_grads(x, w, b, up, padding, dilation, groups)
    eps = 1e-6
    for arr, grad, which in ((x, gx, 0), (w, gw, 1)):
        for idx in [tuple(RNG.integers(0, s) for s in arr.shape) for _ in range(6)] + [(0,) * arr.ndim]:
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            num = (loss(*((plus, w) if which == 0 else (x, plus))) - loss(*((minus, w) if which == 0 else (x, minus))))
            assert abs(num / (2 * eps) - grad[idx]) < 1e-6 * max(1.0, abs(grad[idx]))


def test_only_the_input_gradient_or_only_the_weight_gradient():
    x, w, b, up, padding, dilation, groups = _data(0, np.float64, False)
    _, gx, gw, _ = _reference(x, w, None, up, padding, dilation, groups)
    for need_x in (True, False):
        xt, wt = npgrad.tensor(x, requires_grad=need_x), npgrad.tensor(w, requires_grad=not need_x)
        F.conv2d(xt, wt, None, 1, padding, dilation, groups).backward(npgrad.tensor(up))
        _close(xt.grad.numpy() if need_x else wt.grad.numpy(), gx if need_x else gw, np.float64)
        assert (wt.grad if need_x else xt.grad) is None


def test_create_graph_still_differentiable():
    x, w, b, up, padding, dilation, groups = _data(0, np.float64, False)
    xt, wt = npgrad.tensor(x, requires_grad=True), npgrad.tensor(w, requires_grad=True)
    y = F.conv2d(xt, wt, None, 1, padding, dilation, groups)
    gx, gw = npgrad.autograd.grad(y, (xt, wt), npgrad.tensor(up), create_graph=True)
    assert gx.requires_grad and gw.requires_grad
    _, ex, ew, _ = _reference(x, w, None, up, padding, dilation, groups)
    _close(gx.detach().numpy(), ex, np.float64)
    _close(gw.detach().numpy(), ew, np.float64)


@pytest.mark.parametrize("xs, ws, padding, wide", [
    ((32, 16, 32, 32), (16, 16, 3, 3), 1, True),  # benchmarks.models.resnet's block convolutions
    ((32, 3, 32, 32), (16, 3, 3, 3), 1, False),  # its stem: GEMM depth 27, im2col
    ((64, 1, 28, 28), (16, 1, 5, 5), 2, False),  # LeNet's first convolution: depth 25
    ((64, 16, 14, 14), (32, 16, 5, 5), 0, False),  # LeNet's second: O > C, channel-major im2col + col2im
])
def test_which_convolutions_take_the_wide_path(xs, ws, padding, wide, monkeypatch):
    calls = []
    for name in ("_forward_wide", "_backward_wide"):
        monkeypatch.setattr(C, name, lambda *a, f=getattr(C, name), n=name: calls.append(n) or f(*a))
    x = npgrad.tensor(RNG.standard_normal(xs).astype(np.float32), requires_grad=True)
    w = npgrad.tensor(RNG.standard_normal(ws).astype(np.float32), requires_grad=True)
    F.conv2d(x, w, padding=padding).sum().backward()
    assert calls == (["_forward_wide", "_backward_wide"] if wide else [])
