"""Layers with complex parameters (dtype=complex64/complex128): the parameters' gradients after a real loss
against PyTorch's, from the same weights, and against complex finite differences without it."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _complex_oracle import TOL, make_input


def _linear_grads(lib, w, b, x):
    m = lib.nn.Linear(w.shape[1], w.shape[0], dtype=lib.complex64 if w.dtype == np.complex64 else lib.complex128)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(w))
        m.bias.copy_(lib.tensor(b))
    out = m(lib.tensor(x))
    (out.abs() ** 2).sum().backward()
    return [t.detach().numpy() for t in (out, m.weight.grad, m.bias.grad)]


def _arrays(dtype):
    rng = np.random.default_rng(3)
    return make_input(rng, (2, 3), dtype), make_input(rng, (2,), dtype), make_input(rng, (4, 3), dtype)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle for the complex layer's gradients")
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["complex64", "complex128"])
def test_linear_module_matches_torch(dtype):
    for a, b in zip(_linear_grads(npgrad, *_arrays(dtype)), _linear_grads(torch, *_arrays(dtype))):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **TOL[dtype])


def test_linear_module_finite_differences():
    w, b, x = _arrays(np.complex128)
    _, gw, _ = _linear_grads(npgrad, w, b, x)

    def loss(w_):
        return float((np.abs(x @ w_.T + b) ** 2).sum())

    eps, num = 1e-6, np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        for unit in (1, 1j):
            d = np.zeros_like(w)
            d[idx] = eps * unit
            num[idx] += unit * (loss(w + d) - loss(w - d)) / (2 * eps)
    np.testing.assert_allclose(gw, num, rtol=1e-6, atol=1e-8)


def _conv_grads(lib, w, b, x):
    m = lib.nn.Conv2d(2, 3, 3, padding=1, dtype=lib.complex64 if w.dtype == np.complex64 else lib.complex128)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(w))
        m.bias.copy_(lib.tensor(b))
    out = m(lib.tensor(x))
    (out.abs() ** 2).sum().backward()
    return [t.detach().numpy() for t in (out, m.weight.grad, m.bias.grad)]


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle for the complex layer's gradients")
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["complex64", "complex128"])
def test_conv2d_module_matches_torch(dtype):
    rng = np.random.default_rng(5)
    arrays = make_input(rng, (3, 2, 3, 3), dtype), make_input(rng, (3,), dtype), make_input(rng, (1, 2, 4, 4), dtype)
    for a, b in zip(_conv_grads(npgrad, *arrays), _conv_grads(torch, *arrays)):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **TOL[dtype])
