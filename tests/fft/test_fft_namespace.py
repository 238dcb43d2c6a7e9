"""The public torch.fft namespace and torch.stft/istft as npgrad exposes them (the op-table rows in
tests/opinfo/family_fft.py check values and gradients): loading, signatures, second-order gradients, forward AD,
vmap, out=, the once-differentiable stft backward, and where warnings point."""
import inspect
import subprocess
import sys
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

NEEDS_TORCH = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
REAL_IN = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
ALL = ONE_D + [n + "2" for n in ONE_D] + [n + "n" for n in ONE_D]


def _np(t):
    return t.detach().resolve_conj().resolve_neg().numpy()


def _input(name, rng):
    x = rng.standard_normal((3, 4, 6))
    return x if name in REAL_IN else x + 1j * rng.standard_normal(x.shape)


def test_import_npgrad_does_not_load_fft():
    code = "import sys, npgrad; print('npgrad.fft' in sys.modules, 'npgrad.ops.spectral' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_torch_fft_under_the_alias():
    code = ("import npgrad; npgrad.alias_torch(); import torch.fft; from torch.fft import rfft; "
            "print(torch.fft is npgrad.fft, rfft(npgrad.ones(4)).dtype)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "torch.complex64"]  # under the alias dtypes print as torch's


def test_signatures_are_pytorchs():
    assert str(inspect.signature(npgrad.fft.fft)) == "(input, n=None, dim=-1, norm=None, *, out=None)"
    assert str(inspect.signature(npgrad.fft.hfft2)) == "(input, s=None, dim=(-2, -1), norm=None, *, out=None)"
    assert str(inspect.signature(npgrad.fft.ihfftn)) == "(input, s=None, dim=None, norm=None, *, out=None)"
    assert npgrad.fft.rfftn.__name__ == "rfftn"


@NEEDS_TORCH
@pytest.mark.parametrize("name", ALL)
def test_second_order_gradient_matches_torch(name):
    """The gradient of the gradient with respect to the upstream gradient is the transform again (adjoint pair):
    it must equal PyTorch's, conjugation included."""
    rng = np.random.default_rng(len(name))
    x = _input(name, rng)
    shape = tuple(getattr(npgrad.fft, name)(npgrad.tensor(x), norm="ortho").shape)
    g0 = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if name not in ("irfft", "hfft", "irfft2",
                                                                                        "hfft2", "irfftn", "hfftn") else 0)
    res = []
    for L in (npgrad, torch):
        a = L.tensor(x, requires_grad=True)
        y = getattr(L.fft, name)(a, norm="ortho")
        g = L.tensor(g0, requires_grad=True)
        ga, = L.autograd.grad(y, a, g, create_graph=True)
        h = np.ones(tuple(ga.shape)) * (1 - 0.5j if ga.is_complex() else 1.0)
        gg, = L.autograd.grad(ga, g, L.tensor(h))
        res.append((_np(y), _np(ga), _np(gg), y.grad_fn.name()))
    for a, b in zip(res[0][:3], res[1][:3]):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    assert res[0][3] == res[1][3]


@NEEDS_TORCH
@pytest.mark.parametrize("name", ["rfft", "irfft", "fft2", "hfftn", "ihfft"])
def test_forward_ad_matches_torch(name):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(8)
    t = rng.standard_normal(8)
    f = {"rfft": lambda L, v: L.fft.rfft(v).imag,
         "irfft": lambda L, v: L.fft.irfft(L.fft.rfft(v), n=8),
         "fft2": lambda L, v: L.fft.fft2(v.reshape(2, 4)).real,
         "hfftn": lambda L, v: L.fft.hfftn(L.fft.ihfftn(v)),
         "ihfft": lambda L, v: L.fft.ihfft(v).imag}[name]
    outs = []
    for L in (npgrad, torch):
        try:
            _, tan = L.func.jvp(lambda v: f(L, v), (L.tensor(x),), (L.tensor(t),))
        except Exception as e:  # noqa: BLE001 - reported below with the library's name
            raise AssertionError(f"{L.__name__}: {e!r}") from e
        outs.append(_np(tan))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10, atol=1e-10)


def test_jvp_is_the_transform_of_the_tangent():
    """Without PyTorch: a transform is R-linear, so its JVP is the transform applied to the tangent."""
    rng = np.random.default_rng(2)
    x, t = rng.standard_normal(8), rng.standard_normal(8)
    _, tan = npgrad.func.jvp(lambda v: npgrad.fft.irfft(npgrad.fft.rfft(v), n=8) * 2, (npgrad.tensor(x),),
                             (npgrad.tensor(t),))
    np.testing.assert_allclose(tan.numpy(), 2 * t, rtol=1e-12, atol=1e-12)


def test_vmap_matches_the_loop():
    x = npgrad.randn(3, 2, 8, dtype=npgrad.float64)
    f = lambda v: npgrad.fft.irfft(npgrad.fft.rfft(v, dim=-1) * 2j, n=8).sum(0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = npgrad.func.vmap(f)(x)
    want = npgrad.stack([f(x[i]) for i in range(3)])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_out_and_grad_refusal():
    x = npgrad.arange(4.0)
    out = npgrad.empty(3, dtype=npgrad.complex64)
    r = npgrad.fft.rfft(x, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), np.fft.rfft(np.arange(4.0)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        npgrad.fft.fft(npgrad.ones(4, requires_grad=True), out=npgrad.empty(4, dtype=npgrad.complex64))


def test_fftfreq_factory_arguments():
    f = npgrad.fft.fftfreq(4, 0.5, dtype=npgrad.float64, requires_grad=True)
    assert f.requires_grad and f.dtype == npgrad.float64
    np.testing.assert_array_equal(f.detach().numpy(), [0.0, 0.5, -1.0, -0.5])
    with pytest.raises(AssertionError, match="not compiled with CUDA"):  # PyTorch's CPU build says so too
        npgrad.fft.rfftfreq(4, device="cuda")


def test_stft_backward_is_differentiable_once():
    x = npgrad.randn(32, dtype=npgrad.float64, requires_grad=True)
    w = npgrad.rand(8, dtype=npgrad.float64, requires_grad=True)
    y = npgrad.stft(x, 8, window=w, return_complex=True)
    gx, gw = npgrad.autograd.grad(y.abs().sum(), (x, w), create_graph=True)
    assert gx.requires_grad and gw.requires_grad
    with pytest.raises(RuntimeError, match="differentiate twice"):
        gx.sum().backward()


def test_stft_istft_round_trip_and_methods():
    x = npgrad.randn(2, 40, dtype=npgrad.float64)
    w = npgrad.ones(16, dtype=npgrad.float64)
    z = x.stft(16, 4, window=w, return_complex=True)
    assert z.shape == (2, 9, 11) and z.dtype == npgrad.complex128
    back = z.istft(16, 4, window=w, length=40)
    np.testing.assert_allclose(back.numpy(), x.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [lambda x: npgrad.stft(x, 8, return_complex=True),
                                  lambda x: x.stft(8, return_complex=True),
                                  lambda x: npgrad.istft(npgrad.stft(x, 8, window=npgrad.ones(8),
                                                                     return_complex=True), 8)])
def test_warnings_point_at_the_caller(call):
    x = npgrad.randn(32)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        call(x)
    assert rec and all(r.filename == __file__ for r in rec), [(r.filename, r.lineno) for r in rec]


@pytest.mark.parametrize("fn", [lambda x: npgrad.fft.irfft(npgrad.fft.rfft(x), n=8),
                                lambda x: npgrad.stft(x, 4, window=npgrad.ones(4), return_complex=True).abs()])
def test_onnx_export_refuses_the_transforms_cleanly(fn):
    import io
    pytest.importorskip("onnx", reason="npgrad.onnx.export writes through the optional onnx package")
    with pytest.raises(RuntimeError, match="^npgrad.onnx.export: no ONNX mapping for operator"):
        npgrad.onnx.export(fn, (npgrad.randn(2, 8),), io.BytesIO())
