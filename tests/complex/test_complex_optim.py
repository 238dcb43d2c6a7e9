"""Optimizers on complex parameters: as PyTorch's, each update treats a complex parameter as view_as_real of itself
(so Adam's second moment is per real and imaginary part). Compared with PyTorch, and without it with the same
optimizer run on the real view of the parameter."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

CONFIGS = [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True)),
           ("Adam", dict(lr=0.1)), ("Adam", dict(lr=0.1, amsgrad=True, weight_decay=0.1)), ("AdamW", dict(lr=0.1)),
           ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)), ("Adagrad", dict(lr=0.1)),
           ("Adamax", dict(lr=0.1)), ("NAdam", dict(lr=0.1)), ("RAdam", dict(lr=0.1)), ("Adadelta", dict(lr=1.0)),
           ("Rprop", dict(lr=0.1))]
Z0 = np.array([1 + 2j, -0.5 + 0.3j, 0.2 - 1j], np.complex64)
TARGET = np.array([0.3 - 0.1j, 1 + 1j, -1j], np.complex64)


def _loss(L, p):
    return ((p - L.tensor(TARGET)).abs() ** 2).sum() + (p * p).real.sum() * 0.1


def _run(L, name, kw, as_real=False):
    p = L.tensor(Z0.copy(), requires_grad=True)
    if as_real:
        p = L.tensor(np.stack([Z0.real, Z0.imag], -1), requires_grad=True)
    opt = getattr(L.optim, name)([p], **kw)
    for _ in range(6):
        opt.zero_grad()
        _loss(L, L.view_as_complex(p) if as_real else p).backward()
        opt.step()
    out = p.detach().numpy()
    return out[..., 0] + 1j * out[..., 1] if as_real else out


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_complex_parameter_is_updated_as_its_real_view(name, kw):
    got = _run(npgrad, name, kw)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, _run(npgrad, name, kw, as_real=True), rtol=1e-5, atol=1e-6)
    if HAS_TORCH:
        np.testing.assert_allclose(got, _run(torch, name, kw), rtol=1e-5, atol=1e-6)


def test_gradient_descent_reaches_the_minimum():
    # the gradient of a real loss points in the steepest-ascent direction, so plain descent converges
    p = npgrad.tensor(Z0.copy(), requires_grad=True)
    opt = npgrad.optim.SGD([p], lr=0.2)
    for _ in range(200):
        opt.zero_grad()
        ((p - npgrad.tensor(TARGET)).abs() ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), TARGET, atol=1e-5)
