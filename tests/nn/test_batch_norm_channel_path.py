"""Training-mode batch norm on a contiguous (N, C, *spatial) input takes its own path (block sums by BLAS,
the centred input saved, per-channel folded backward). A non-contiguous copy of the same input takes the
general Normalize path: the two must agree within float rounding, and both with float64 formulas."""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.nn._functional import normalization as N
from oracle import HAS_TORCH, torch

R = np.random.default_rng(11)


def _run(x, w, b, g, contiguous):
    # The general path's input: every other element of a leaf twice as long in the last axis.
    wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
    wide[..., ::2] = x
    leaf = npgrad.tensor(x if contiguous else wide, requires_grad=True)
    xt = leaf if contiguous else leaf[..., ::2]
    assert xt.is_contiguous() == contiguous
    wt = None if w is None else npgrad.tensor(w, requires_grad=True)
    bt = None if b is None else npgrad.tensor(b, requires_grad=True)
    rm, rv = npgrad.zeros(x.shape[1], dtype=xt.dtype), npgrad.ones(x.shape[1], dtype=xt.dtype)
    y = F.batch_norm(xt, rm, rv, wt, bt, training=True, momentum=0.25, eps=1e-3)
    y.backward(npgrad.tensor(g))
    grads = [leaf.grad.numpy() if contiguous else leaf.grad.numpy()[..., ::2]] + [t.grad.numpy() for t in (wt, bt) if t is not None]
    return [y.detach().numpy(), rm.numpy(), rv.numpy()] + grads


def _formula(x, w, b, g, eps=1e-3, m=0.25):
    x, g = x.astype(np.float64), g.astype(np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    view = (1, -1) + (1,) * (x.ndim - 2)
    n = x.size // x.shape[1]
    mean = x.mean(axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axes, keepdims=True)
    xhat = (x - mean) / np.sqrt(var + eps)
    wv = np.ones(x.shape[1]).reshape(view) if w is None else w.astype(np.float64).reshape(view)
    y = xhat * wv + (0 if b is None else b.astype(np.float64).reshape(view))
    gh = g * wv
    gx = (gh - gh.mean(axes, keepdims=True) - xhat * (gh * xhat).mean(axes, keepdims=True)) / np.sqrt(var + eps)
    out = [y, m * mean.ravel(), (1 - m) + m * var.ravel() * n / (n - 1), gx]
    if w is not None:
        out.append((g * xhat).sum(axes))
    if b is not None:
        out.append(g.sum(axes))
    return out


@pytest.mark.parametrize("shape", [(8, 4, 6, 6), (3, 5, 7), (2, 3, 2, 3, 4), (1, 2, 1, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", [True, False])
def test_channel_path_matches_general_path_and_formula(shape, dtype, affine):
    x = (R.standard_normal(shape) * 2 + 3).astype(dtype)
    g = R.standard_normal(shape).astype(dtype)
    w = R.uniform(0.5, 1.5, shape[1]).astype(dtype) if affine else None
    b = R.standard_normal(shape[1]).astype(dtype) if affine else None
    fast, general, exact = _run(x, w, b, g, True), _run(x, w, b, g, False), _formula(x, w, b, g)
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-11)
    for a, c, e in zip(fast, general, exact):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, e, **tol)
        np.testing.assert_allclose(a, c, **tol)


def test_channel_path_is_taken_only_for_contiguous_channel_layouts():
    x = np.zeros((2, 3, 4), np.float32)
    assert N._channel_layout(x, (0, 2))
    assert not N._channel_layout(x, (2,))  # instance norm's axes
    assert not N._channel_layout(np.zeros((4, 3), np.float32), (0,))  # BatchNorm1d on (N, C): rows layout
    assert not N._channel_layout(np.swapaxes(np.zeros((3, 2, 4), np.float32), 0, 1), (0, 2))
    assert not N._channel_layout(x.astype(np.float16), (0, 2))  # float16 widens to float32 first


def test_channel_path_second_order_gradient_uses_the_differentiable_formula():
    x = npgrad.tensor(R.standard_normal((4, 3, 5)), requires_grad=True)
    w = npgrad.tensor(R.uniform(0.5, 1.5, 3), requires_grad=True)

    def first_grad(a):
        y = F.batch_norm(a, None, None, w, None, training=True)
        return npgrad.autograd.grad((y ** 3).sum(), a, create_graph=True)[0]

    assert npgrad.autograd.gradcheck(first_grad, (x,))


if HAS_TORCH:
    @pytest.mark.parametrize("shape", [(16, 8, 10, 10), (4, 6, 9)])
    def test_channel_path_matches_torch_float32(shape):
        x = (R.standard_normal(shape) * 3 - 1).astype(np.float32)
        g = R.standard_normal(shape).astype(np.float32)
        w, b = R.uniform(0.5, 1.5, shape[1]).astype(np.float32), R.standard_normal(shape[1]).astype(np.float32)
        ours = _run(x, w, b, g, True)
        xt = torch.tensor(x, requires_grad=True)
        wt, bt = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
        rm, rv = torch.zeros(shape[1]), torch.ones(shape[1])
        y = torch.nn.functional.batch_norm(xt, rm, rv, wt, bt, training=True, momentum=0.25, eps=1e-3)
        y.backward(torch.tensor(g))
        theirs = [y.detach().numpy(), rm.numpy(), rv.numpy(), xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()]
        for a, t in zip(ours, theirs):
            np.testing.assert_allclose(a, t, rtol=1e-4, atol=1e-5)
