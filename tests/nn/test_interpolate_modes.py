"""F.interpolate's modes beyond nearest / linear / bilinear: bicubic, trilinear, area on 5-D input, nearest-exact
on every rank, antialiased bilinear / bicubic / lanczos, recompute_scale_factor, uint8 images, and PyTorch's
errors. Parity with PyTorch 2.13 (values and input gradients), plus NumPy oracles that need no torch: the
weights PyTorch's kernels are documented to use, and gradients against finite differences."""
import itertools
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")
RNG = np.random.default_rng(0)

FLOAT_CASES = [
    ((1, 2, 5, 6), "bicubic", False, {"size": (9, 4)}),
    ((1, 2, 5, 6), "bicubic", True, {"scale_factor": 2.5}),
    ((2, 1, 7, 5), "bicubic", False, {"scale_factor": (0.45, 1.7)}),
    ((2, 1, 7, 5), "bicubic", None, {"scale_factor": 1.7, "recompute_scale_factor": True}),
    ((1, 2, 3, 4, 5), "trilinear", False, {"size": (5, 2, 7)}),
    ((1, 2, 3, 4, 5), "trilinear", True, {"scale_factor": 1.5}),
    ((1, 2, 6, 4, 5), "area", None, {"size": (4, 3, 2)}),
    ((1, 2, 6, 4, 5), "area", None, {"scale_factor": 0.6}),
    ((1, 2, 6, 4, 5), "nearest-exact", None, {"scale_factor": 1.6}),
    ((2, 3, 7), "nearest-exact", None, {"size": 4}),
    ((1, 2, 5, 6), "nearest", None, {"scale_factor": (1.5, 0.7), "recompute_scale_factor": False}),
]
AA_CASES = [(mode, ac, size) for mode in ("bilinear", "bicubic") for ac in (False, True)
            for size in ((3, 2), (13, 4), (5, 6))] + [("lanczos", False, (3, 2)), ("lanczos", False, (12, 9))]


def _pair(shape, dtype, **kw):
    x = RNG.standard_normal(shape)
    xt = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    xn = npgrad.tensor(x, dtype=getattr(npgrad, dtype), requires_grad=True)
    yt, yn = torch.nn.functional.interpolate(xt, **kw), F.interpolate(xn, **kw)
    assert tuple(yn.shape) == tuple(yt.shape) and str(yn.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), **tol)
    g = RNG.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(g, dtype=yt.dtype))
    yn.backward(npgrad.tensor(g, dtype=yn.dtype))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), **tol)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,mode,ac,kw", FLOAT_CASES)
def test_float_modes_match_torch(shape, mode, ac, kw, dtype):
    _pair(shape, dtype, mode=mode, align_corners=ac, **kw)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode,ac,size", AA_CASES)
def test_antialias_matches_torch(mode, ac, size, dtype):
    _pair((2, 2, 7, 5), dtype, mode=mode, align_corners=ac, size=size, antialias=True)


UINT8_CASES = [(mode, aa, ac, kw)
               for mode, aa in [("nearest", False), ("nearest-exact", False), ("bilinear", False), ("bilinear", True),
                                ("bicubic", False), ("bicubic", True), ("lanczos", True)]
               # align_corners is given exactly for the interpolating modes, and lanczos refuses True
               for ac in ([None] if mode.startswith("nearest") else [False] if mode == "lanczos" else [False, True])
               for kw in [{"size": (13, 17)}, {"size": (3, 2)}, {"scale_factor": 2.5}, {"scale_factor": 0.45}]]


@needs_torch
@pytest.mark.parametrize("mode,aa,ac,kw", UINT8_CASES)
def test_uint8_matches_torch_exactly(mode, aa, ac, kw):
    x = RNG.integers(0, 256, (2, 3, 5, 6)).astype(np.uint8)
    yt = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, align_corners=ac, antialias=aa, **kw)
    yn = F.interpolate(npgrad.tensor(x), mode=mode, align_corners=ac, antialias=aa, **kw)
    assert yn.dtype == npgrad.uint8
    np.testing.assert_array_equal(yn.numpy(), yt.numpy())


ERROR_CASES = [
    ((1, 1, 4, 4), "float32", dict(size=(2, 2), recompute_scale_factor=True)),
    ((1, 1, 4, 4), "float32", dict(size=(2.0, 2))),
    ((1, 1, 4, 4), "float32", dict(size=2, mode="nearest", antialias=True)),
    ((1, 1, 4, 4, 4), "float32", dict(size=2, mode="bilinear", antialias=True)),
    ((1, 1, 4, 4), "float32", dict(size=2, mode="lanczos")),
    ((1, 1, 4, 4), "float32", dict(size=2, mode="lanczos", antialias=True, align_corners=True)),
    ((1, 1, 4), "float32", dict(size=2, mode="bicubic")),
    ((1, 1, 4, 4, 4), "float32", dict(size=2, mode="bilinear")),
    ((4, 4), "float32", dict(size=2)),
    ((1, 1, 4, 4), "float32", dict(size=2, mode="bogus")),
    ((1, 1, 4, 4), "int32", dict(size=2)),
    ((1, 1, 4), "int64", dict(size=2)),
    ((1, 1, 4, 4), "int32", dict(size=2, mode="bicubic", align_corners=False)),
    ((1, 1, 4, 4), "uint8", dict(size=2, mode="area")),
    ((1, 1, 4, 4, 4), "uint8", dict(size=2, mode="area")),
    ((1, 1, 4, 4, 4), "uint8", dict(size=2, mode="trilinear")),
    ((1, 1, 4, 4), "bool", dict(size=2)),
    ((1, 1, 4, 4), "float16", dict(size=2, mode="bilinear", antialias=True)),
]


@needs_torch
@pytest.mark.parametrize("shape,dtype,kw", ERROR_CASES)
def test_errors_match_torch(shape, dtype, kw):
    with pytest.raises(Exception) as et:
        torch.nn.functional.interpolate(torch.zeros(shape, dtype=getattr(torch, dtype)), **kw)
    with pytest.raises(type(et.value)) as en:
        F.interpolate(npgrad.zeros(shape, dtype=getattr(npgrad, dtype)), **kw)
    assert str(en.value) == str(et.value).split("\n")[0]


@needs_torch
@pytest.mark.parametrize("shape,mode,ac", [((2, 3, 7), "linear", False), ((1, 2, 5, 6), "bilinear", True),
                                          ((1, 2, 5, 6), "bicubic", False), ((1, 2, 3, 4, 5), "trilinear", False)])
def test_float16_in_float32_arithmetic(shape, mode, ac):
    x = RNG.standard_normal(shape).astype(np.float16)
    xt, xn = torch.tensor(x, requires_grad=True), npgrad.tensor(x, requires_grad=True)
    yt = torch.nn.functional.interpolate(xt, scale_factor=1.7, mode=mode, align_corners=ac)
    yn = F.interpolate(xn, scale_factor=1.7, mode=mode, align_corners=ac)
    assert yn.dtype == npgrad.float16
    a, b = yn.detach().numpy(), yt.detach().numpy()
    # PyTorch rounds its weights to half first: the difference stays within one half ulp of the input's scale
    atol = float(np.spacing(np.abs(x).max()))
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=0, atol=atol)
    g = RNG.standard_normal(b.shape).astype(np.float16)
    yt.backward(torch.tensor(g))
    yn.backward(npgrad.tensor(g))
    gt = xt.grad.numpy()
    np.testing.assert_allclose(xn.grad.numpy(), gt, rtol=0, atol=float(np.spacing(np.abs(gt).max())))


# -- oracles without torch -------------------------------------------------------------------------------------
def _cubic(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def _bicubic_1d(v, n_out, align_corners):
    n = len(v)
    s = (n - 1) / (n_out - 1) if align_corners else n / n_out
    out = []
    for i in range(n_out):
        src = i * s if align_corners else s * (i + 0.5) - 0.5
        f = int(np.floor(src))
        out.append(sum(v[min(max(f + k, 0), n - 1)] * _cubic(src - (f + k)) for k in range(-1, 3)))
    return np.array(out)


@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_oracle(align_corners):
    x = RNG.standard_normal((1, 1, 5, 6))
    y = F.interpolate(npgrad.tensor(x), size=(8, 9), mode="bicubic", align_corners=align_corners).numpy()
    rows = np.stack([_bicubic_1d(r, 9, align_corners) for r in x[0, 0]])
    ref = np.stack([_bicubic_1d(c, 8, align_corners) for c in rows.T]).T
    np.testing.assert_allclose(y[0, 0], ref, rtol=1e-12, atol=1e-12)
    const = F.interpolate(npgrad.full((1, 1, 4, 4), 3.0, dtype=npgrad.float64), scale_factor=2.5, mode="bicubic")
    np.testing.assert_allclose(const.numpy(), 3.0, rtol=1e-12)


def test_antialias_halving_is_the_1_3_3_1_filter():
    x = RNG.standard_normal((1, 1, 1, 12))
    y = F.interpolate(npgrad.tensor(x), size=(1, 6), mode="bilinear", antialias=True).numpy()[0, 0, 0]
    v = x[0, 0, 0]
    ref = []
    for i in range(6):
        taps = [(2 * i - 1, 1), (2 * i, 3), (2 * i + 1, 3), (2 * i + 2, 1)]
        taps = [(j, w) for j, w in taps if 0 <= j < 12]  # the window is cut at the borders, then normalised
        ref.append(sum(v[j] * w for j, w in taps) / sum(w for _, w in taps))
    np.testing.assert_allclose(y, ref, rtol=1e-12)


def test_area_5d_is_block_mean_and_trilinear_reproduces_linear_functions():
    x = RNG.standard_normal((2, 3, 4, 6, 8))
    y = F.interpolate(npgrad.tensor(x), size=(2, 3, 2), mode="area").numpy()
    np.testing.assert_allclose(y, x.reshape(2, 3, 2, 2, 3, 2, 2, 4).mean(axis=(3, 5, 7)), rtol=1e-12)
    d, h, w = np.meshgrid(np.arange(3.0), np.arange(4.0), np.arange(5.0), indexing="ij")
    lin = (2 * d - h + 0.5 * w)[None, None]
    out = F.interpolate(npgrad.tensor(lin), size=(5, 7, 9), mode="trilinear", align_corners=True).numpy()[0, 0]
    dd, hh, ww = np.meshgrid(np.linspace(0, 2, 5), np.linspace(0, 3, 7), np.linspace(0, 4, 9), indexing="ij")
    np.testing.assert_allclose(out, 2 * dd - hh + 0.5 * ww, atol=1e-12)


@pytest.mark.parametrize("kw", [dict(mode="bicubic", size=(7, 3)), dict(mode="bilinear", size=(3, 2), antialias=True),
                                dict(mode="bicubic", size=(9, 2), antialias=True),
                                dict(mode="lanczos", size=(3, 7), antialias=True),
                                dict(mode="area", size=(3, 2))])
def test_gradients_match_finite_differences(kw):
    x = RNG.standard_normal((1, 1, 5, 4))
    g = RNG.standard_normal(tuple(F.interpolate(npgrad.tensor(x), **kw).shape))
    xt = npgrad.tensor(x, requires_grad=True)
    F.interpolate(xt, **kw).backward(npgrad.tensor(g))
    fd = np.zeros_like(x)
    for idx in itertools.product(*map(range, x.shape)):
        e = np.zeros_like(x)
        e[idx] = 1e-6
        up = (F.interpolate(npgrad.tensor(x + e), **kw).numpy() * g).sum()
        dn = (F.interpolate(npgrad.tensor(x - e), **kw).numpy() * g).sum()
        fd[idx] = (up - dn) / 2e-6
    np.testing.assert_allclose(xt.grad.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_inf_stays_local():
    x = np.zeros((1, 1, 6, 6))
    x[0, 0, 0, 0] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = F.interpolate(npgrad.tensor(x), size=(3, 3), mode="bilinear", antialias=True).numpy()
    assert np.isinf(y[0, 0, 0, 0]) and np.isfinite(y[0, 0, 1:, :]).all() and np.isfinite(y[0, 0, :, 1:]).all()


def test_uint8_constant_and_nearest():
    x = np.full((1, 1, 4, 5), 200, np.uint8)
    for mode, aa in (("bilinear", False), ("bicubic", False), ("bicubic", True), ("lanczos", True)):
        y = F.interpolate(npgrad.tensor(x), size=(7, 3), mode=mode, antialias=aa)
        assert y.dtype == npgrad.uint8
        np.testing.assert_array_equal(y.numpy(), 200)
    z = RNG.integers(0, 256, (1, 2, 2, 3, 4)).astype(np.uint8)
    y = F.interpolate(npgrad.tensor(z), scale_factor=2, mode="nearest").numpy()
    np.testing.assert_array_equal(y, z.repeat(2, 2).repeat(2, 3).repeat(2, 4))


@needs_torch
@pytest.mark.parametrize("shape", [(2, 3, 7), (1, 2, 5, 6), (1, 2, 3, 4, 5)])
def test_sweep_every_mode_option_against_torch(shape):
    """Every mode x align_corners x antialias x size form on one rank: values and gradients where PyTorch
    computes, the same error (class and message) where it refuses."""
    rank = len(shape) - 2
    sizes = [{"scale_factor": 2.5}, {"scale_factor": 0.45}, {"scale_factor": 1.7, "recompute_scale_factor": True},
             {"size": (3,) * rank}, {"size": (11,) * rank}, {"size": tuple(shape[2:])}]
    modes = ["nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area", "lanczos"]
    x = RNG.standard_normal(shape)
    for mode, ac, aa, kw in itertools.product(modes, [None, False, True], [False, True], sizes):
        args = dict(mode=mode, align_corners=ac, antialias=aa, **kw)
        xt, xn = torch.tensor(x, requires_grad=True), npgrad.tensor(x, requires_grad=True)
        try:
            yt = torch.nn.functional.interpolate(xt, **args)
        except Exception as e:  # PyTorch refuses: npgrad must refuse the same way
            with pytest.raises(type(e)) as got:
                F.interpolate(xn, **args)
            assert str(got.value) == str(e).split("\n")[0], args
            continue
        yn = F.interpolate(xn, **args)
        np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12, err_msg=str(args))
        g = RNG.standard_normal(tuple(yt.shape))
        yt.backward(torch.tensor(g))
        yn.backward(npgrad.tensor(g))
        np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12, err_msg=str(args))
