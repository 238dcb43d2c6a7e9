"""deform_conv2d and DeformConv2d. torchvision's kernel is compiled (unusable here), so the checks are:
zero offsets give an ordinary convolution (npgrad's and PyTorch's conv2d), and a direct NumPy loop over
the definition (each tap read at its position plus its offset, zero-padded bilinear, times the mask) for
fractional offsets; every input's gradient by float64 finite differences."""
import math

import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.autograd import gradcheck
from npgrad.vision import ops
from tv_oracle import HAS_TORCH, HAS_TV, torch, tv


def T(a, **kw):
    return npgrad.tensor(np.asarray(a), **kw)


def bilinear_zero(img, y, x):
    h, w = img.shape
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * img[yy, xx]
    return total


def ref_deform(x, offset, weight, bias, stride, padding, dilation, mask):
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    groups, g_off = c // cg, offset.shape[1] // (2 * kh * kw)
    oh, ow = offset.shape[2:]
    out = np.zeros((n, o, oh, ow))
    for b, oc, i, j in np.ndindex(n, o, oh, ow):
        g = oc // (o // groups)
        acc = bias[oc] if bias is not None else 0.0
        for cc in range(cg):
            ch = g * cg + cc
            og = ch // (c // g_off)
            for ki, kj in np.ndindex(kh, kw):
                tap = ki * kw + kj
                dy, dx = offset[b, 2 * (og * kh * kw + tap)], offset[b, 2 * (og * kh * kw + tap) + 1]
                y = i * stride - padding + ki * dilation + dy[i, j]
                xx = j * stride - padding + kj * dilation + dx[i, j]
                v = bilinear_zero(x[b, ch], y, xx)
                if mask is not None:
                    v *= mask[b, og * kh * kw + tap, i, j]
                acc += weight[oc, cc, ki, kj] * v
        out[b, oc, i, j] = acc
    return out


@pytest.mark.parametrize("stride, padding, dilation, groups", [(1, 0, 1, 1), (2, 1, 1, 2), (1, 2, 2, 1)])
def test_zero_offsets_are_a_convolution(stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 7, 8))
    wt = rng.standard_normal((6, 4 // groups, 3, 3))
    b = rng.standard_normal(6)
    oh = (7 + 2 * padding - dilation * 2 - 1) // stride + 1
    ow = (8 + 2 * padding - dilation * 2 - 1) // stride + 1
    off = np.zeros((2, 18, oh, ow))
    got = ops.deform_conv2d(T(x), T(off), T(wt), T(b), stride, padding, dilation)
    want = F.conv2d(T(x), T(wt), T(b), stride, padding, dilation, groups)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    if HAS_TORCH:
        t = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(wt), torch.tensor(b), stride, padding, dilation,
                                       groups)
        np.testing.assert_allclose(got.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("use_mask, off_groups", [(False, 1), (True, 2)])
def test_fractional_offsets_match_definition_with_gradients(use_mask, off_groups):
    rng = np.random.default_rng(1 + off_groups)
    x = rng.standard_normal((1, 4, 5, 5))
    wt = rng.standard_normal((2, 2, 2, 3))  # groups = 2
    b = rng.standard_normal(2)
    off = rng.uniform(-2, 2, (1, 2 * off_groups * 6, 6, 5))
    mask = rng.uniform(0, 1, (1, off_groups * 6, 6, 5)) if use_mask else None
    args = dict(stride=1, padding=1, dilation=(1, 1))
    got = ops.deform_conv2d(T(x), T(off), T(wt), T(b), mask=None if mask is None else T(mask), **args)
    np.testing.assert_allclose(got.numpy(), ref_deform(x, off, wt, b, 1, 1, 1, mask), rtol=1e-10, atol=1e-12)
    inputs = [T(x, requires_grad=True), T(off, requires_grad=True), T(wt, requires_grad=True), T(b, requires_grad=True)]
    if use_mask:
        inputs.append(T(mask, requires_grad=True))
        fn = lambda a, o, w_, b_, m: ops.deform_conv2d(a, o, w_, b_, mask=m, **args)
    else:
        fn = lambda a, o, w_, b_: ops.deform_conv2d(a, o, w_, b_, **args)
    assert gradcheck(fn, tuple(inputs))


def test_integer_offsets_shift_the_input():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 2, 6, 6))
    wt = rng.standard_normal((3, 2, 1, 1))
    off = np.zeros((1, 2, 6, 6))
    off[:, 0], off[:, 1] = 1, -2  # every tap reads one row down and two columns left
    got = ops.deform_conv2d(T(x), T(off), T(wt)).numpy()
    shifted = np.zeros_like(x)
    shifted[:, :, :5, 2:] = x[:, :, 1:, :4]
    np.testing.assert_allclose(got, np.einsum("oc,nchw->nohw", wt[:, :, 0, 0], shifted), rtol=1e-12, atol=1e-12)


def test_module_and_errors():
    m = ops.DeformConv2d(4, 6, 3, padding=1, groups=2, bias=False)
    assert repr(m) == "DeformConv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=2, bias=False)"
    assert list(m.state_dict()) == ["weight"] and m.weight.shape == (6, 2, 3, 3)
    if HAS_TV:
        for a, kw in [((4, 6, 3), dict(padding=1, groups=2, bias=False)), ((4, 6, (3, 2)), {}),
                      ((4, 6, 3), dict(stride=2, dilation=2))]:
            ref, mine = tv.ops.DeformConv2d(*a, **kw), ops.DeformConv2d(*a, **kw)
            assert repr(mine) == repr(ref)
            assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == \
                [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    x = T(np.random.default_rng(4).standard_normal((1, 4, 5, 5)).astype(np.float32))
    off = T(np.zeros((1, 18, 5, 5), np.float32))
    np.testing.assert_allclose(m(x, off).detach().numpy(),
                               F.conv2d(x, m.weight, None, 1, 1, 1, 2).detach().numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        ops.DeformConv2d(4, 6, 3, groups=3)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        ops.DeformConv2d(4, 6, 3, groups=4)
    with pytest.raises(RuntimeError, match="the shape of the offset tensor at dimension 1 is not valid"):
        m(x, T(np.zeros((1, 4, 5, 5), np.float32)))
    with pytest.raises(RuntimeError, match="offset must have shape"):
        m(x, T(np.zeros((1, 18, 4, 5), np.float32)))
