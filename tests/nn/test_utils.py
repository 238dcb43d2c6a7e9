"""nn.utils: clip_grad_norm_ (all norm types, error_if_nonfinite), clip_grad_value_, parameters <-> vector."""
import math

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from npgrad.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters
from oracle import HAS_TORCH, torch

R = np.random.default_rng(6)
GRADS = [R.standard_normal((3, 4)) * 3, R.standard_normal(5), R.standard_normal((2, 2, 2))]


def _params(lib, dtype):
    ps = []
    for g in GRADS:
        p = lib.nn.Parameter(lib.tensor(np.zeros_like(g)).to(dtype))
        p.grad = lib.tensor(g).to(dtype)
        ps.append(p)
    return ps


if HAS_TORCH:
    @pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0, 0.5])
    @pytest.mark.parametrize("max_norm", [0.5, 1e6])
    @pytest.mark.parametrize("dtype", ["float32", "float64"])
    def test_clip_grad_norm_matches_torch(norm_type, max_norm, dtype):
        pn, pt = _params(npgrad, getattr(npgrad, dtype)), _params(torch, getattr(torch, dtype))
        tn = clip_grad_norm_(pn, max_norm, norm_type)
        tt = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type)
        rtol = 1e-5 if dtype == "float32" else 1e-12
        assert str(tn.dtype).split(".")[-1] == str(tt.dtype).split(".")[-1] and tn.shape == ()
        np.testing.assert_allclose(tn.item(), tt.item(), rtol=rtol)
        for a, b in zip(pn, pt):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-7)


def test_clip_grad_norm_scales_to_max_norm():
    ps = _params(npgrad, npgrad.float64)
    total = clip_grad_norm_(ps, 1.0)
    expected = math.sqrt(sum((g ** 2).sum() for g in GRADS))
    np.testing.assert_allclose(total.item(), expected, rtol=1e-12)
    new = math.sqrt(sum((p.grad.numpy() ** 2).sum() for p in ps))
    np.testing.assert_allclose(new, 1.0, rtol=1e-5)
    single = nn.Parameter(npgrad.ones(3))
    single.grad = npgrad.full((3,), 2.0)
    clip_grad_norm_(single, 1.0, norm_type="inf")
    np.testing.assert_allclose(single.grad.numpy(), 1.0, rtol=1e-5)  # inf-norm 2 scaled down to 1
    assert clip_grad_norm_([nn.Parameter(npgrad.ones(2))], 1.0).item() == 0.0  # no gradients at all


def test_clip_grad_norm_nonfinite():
    p = nn.Parameter(npgrad.ones(2))
    p.grad = npgrad.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert math.isnan(clip_grad_norm_([p], 1.0).item())


def test_clip_grad_value():
    ps = _params(npgrad, npgrad.float32)
    clip_grad_value_(ps, 0.7)
    for p, g in zip(ps, GRADS):
        np.testing.assert_allclose(p.grad.numpy(), np.clip(g, -0.7, 0.7).astype(np.float32))


def test_parameters_to_vector_and_back():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    v = parameters_to_vector(m.parameters())
    assert v.shape == (11,)
    np.testing.assert_array_equal(v.detach().numpy()[:6], m[0].weight.detach().numpy().ravel())
    (v * 2).sum().backward()
    assert np.all(m[0].weight.grad.numpy() == 2)  # differentiable
    new = npgrad.arange(11, dtype=npgrad.float32)
    vector_to_parameters(new, m.parameters())
    np.testing.assert_array_equal(m[0].weight.detach().numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(m[1].bias.detach().numpy(), [10])
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], m.parameters())
