"""Per-sample gradients of a small MLP: vmap(grad(loss), in_dims=(None, 0, 0)) equals a loop of
single-example backward passes (no torch needed) and torch.func's result on the same weights; and
examples/per_sample_grads.py runs and reports agreement."""
import importlib.util
import pathlib

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
pytestmark = pytest.mark.filterwarnings("ignore:npgrad runs torch.func.vmap as a Python loop")
RNG = np.random.default_rng(3)
SHAPES = {"0.weight": (5, 4), "0.bias": (5,), "2.weight": (3, 5), "2.bias": (3,)}
PARAMS = {k: RNG.standard_normal(s) * 0.5 for k, s in SHAPES.items()}
X = RNG.standard_normal((6, 4))
Y = np.array([0, 2, 1, 1, 0, 2])


def _model(lib):
    model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 3)).double()
    with lib.no_grad():
        for k, p in model.named_parameters():
            p.copy_(lib.tensor(PARAMS[k]))
    return model


def _per_sample(lib, F):
    model = _model(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        return lib.nn.functional.cross_entropy(F.functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))
    return F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, lib.tensor(X), lib.tensor(Y))


def test_vmap_grad_equals_a_loop_of_backward_passes():
    got = _per_sample(npgrad, npgrad.func)
    model = _model(npgrad)
    for i in range(len(X)):
        model.zero_grad()
        npgrad.nn.functional.cross_entropy(model(npgrad.tensor(X[i:i + 1])), npgrad.tensor(Y[i:i + 1])).backward()
        for k, p in model.named_parameters():
            np.testing.assert_allclose(got[k][i].numpy(), p.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert list(got) == list(SHAPES) and all(got[k].shape == (6,) + SHAPES[k] for k in SHAPES)


@needs_torch
def test_vmap_grad_matches_torch_func():
    ours, theirs = _per_sample(npgrad, npgrad.func), _per_sample(torch, torch.func)
    assert list(ours) == list(theirs)
    for k in ours:
        assert_close(ours[k].numpy(), theirs[k].numpy(), rtol=1e-10, atol=1e-12, what=k)


def test_example_script_reports_agreement(capsys):
    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "per_sample_grads.py"
    spec = importlib.util.spec_from_file_location("example_per_sample_grads", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.main(["--batch", "5"])
    assert out["max_error"] < 1e-12
    assert out["grads"]["0.weight"].shape == (5, 32, 10)
    assert "max |vmap(grad) - loop of backward()|" in capsys.readouterr().out
