"""The hook-based nn.utils.weight_norm / spectral_norm and their remove_* functions.

Parity: same initial weights (and torch's random u/v loaded through the state dict), then forward values,
gradients and the power-iteration buffers must agree over several steps. Oracles: g * v / ||v|| and the
largest singular value of the normalised weight.
"""
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def _np(t):
    return t.detach().numpy()


def test_weight_norm_hook_oracle_and_remove():
    m = nn.Linear(4, 3)
    w0 = _np(m.weight).copy()
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated"):
        nn.utils.weight_norm(m)
    assert sorted(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert m.weight_g.shape == (3, 1)
    np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-6)
    with npgrad.no_grad():
        m.weight_g.mul_(2)
    m(npgrad.randn(2, 4))  # the pre-hook recomputes weight
    np.testing.assert_allclose(_np(m.weight), 2 * w0, rtol=1e-6)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nn.utils.weight_norm(m)
    nn.utils.remove_weight_norm(m)
    assert sorted(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    assert not m._forward_pre_hooks
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(m)


def test_spectral_norm_hook_oracle_and_remove():
    npgrad.manual_seed(0)
    m = nn.utils.spectral_norm(nn.Linear(6, 4), n_power_iterations=20)
    assert sorted(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert m.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    m(npgrad.randn(2, 6))
    s = np.linalg.svd(_np(m.weight).astype(np.float64), compute_uv=False)[0]
    assert abs(s - 1) < 1e-4
    u = _np(m.weight_u).copy()
    m.eval()
    m(npgrad.randn(2, 6))
    np.testing.assert_array_equal(_np(m.weight_u), u)  # eval mode: no power iteration
    w = _np(m.weight).copy()
    nn.utils.remove_spectral_norm(m)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    assert not m._forward_pre_hooks and not m._state_dict_hooks and not m._load_state_dict_pre_hooks
    np.testing.assert_allclose(_np(m.weight), w, rtol=1e-6)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nn.utils.remove_spectral_norm(m)


def test_spectral_norm_loads_version_0_checkpoint():
    # Before version 1 the state dict held weight (normalised) instead of weight_v: v is rebuilt from it.
    npgrad.manual_seed(1)
    m = nn.utils.spectral_norm(nn.Linear(4, 3))
    m.eval()
    m(npgrad.randn(1, 4))
    sd = dict(m.state_dict())
    old = {"weight_orig": sd["weight_orig"], "weight_u": sd["weight_u"], "bias": sd["bias"], "weight": m.weight}
    fresh = nn.utils.spectral_norm(nn.Linear(4, 3))
    fresh.load_state_dict(old)
    fresh.eval()
    fresh(npgrad.randn(1, 4))
    np.testing.assert_allclose(_np(fresh.weight), _np(m.weight), rtol=1e-4, atol=1e-6)


@needs_torch
@pytest.mark.parametrize("kind", ["weight_norm", "spectral_norm"])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("make", [lambda lib: lib.nn.Conv2d(2, 3, 3), lambda lib: lib.nn.ConvTranspose1d(2, 3, 2),
                                  lambda lib: lib.nn.Linear(5, 4)])
def test_hooks_match_torch(kind, train, make):
    torch.manual_seed(0)
    mt, mn = make(torch).double(), make(npgrad).double()
    mn.load_state_dict({k: npgrad.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        getattr(torch.nn.utils, kind)(mt)
        getattr(nn.utils, kind)(mn)
    sd = mt.state_dict()
    assert list(sd) == list(mn.state_dict())
    assert sd._metadata[""] == mn.state_dict()._metadata[""]
    mn.load_state_dict({k: npgrad.tensor(v.numpy().copy()) for k, v in sd.items()})
    mt.train(train)
    mn.train(train)
    rng = np.random.default_rng(0)
    shape = {"Conv2d": (2, 2, 5, 5), "ConvTranspose1d": (2, 2, 4), "Linear": (3, 5)}[type(mt).__name__]
    for _ in range(3):
        x = rng.standard_normal(shape)
        yt, yn = mt(torch.tensor(x)), mn(npgrad.tensor(x))
        np.testing.assert_allclose(_np(yn), yt.detach().numpy(), rtol=1e-10, atol=1e-10)
        (yt ** 2).sum().backward()
        (yn ** 2).sum().backward()
        for (kt, pt), (kn, pn) in zip(mt.named_parameters(), mn.named_parameters()):
            assert kt == kn
            np.testing.assert_allclose(pn.grad.numpy(), pt.grad.numpy(), rtol=1e-9, atol=1e-9)
        for k, v in mt.state_dict().items():
            np.testing.assert_allclose(mn.state_dict()[k].numpy(), v.numpy(), rtol=1e-10, atol=1e-12)
    getattr(torch.nn.utils, "remove_" + kind)(mt)
    getattr(nn.utils, "remove_" + kind)(mn)
    assert list(mt.state_dict()) == list(mn.state_dict())
    np.testing.assert_allclose(_np(mn.weight), mt.weight.detach().numpy(), rtol=1e-10, atol=1e-12)
