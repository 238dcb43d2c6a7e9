"""torch.func.functional_call and stack_module_state: against PyTorch, and (without it) against calling
the module with its own parameters set to the same values; an ensemble through vmap."""
import numpy as np
import pytest

import npgrad
from npgrad import func as F
from oracle import HAS_TORCH, assert_close, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
pytestmark = pytest.mark.filterwarnings("ignore:npgrad runs torch.func.vmap as a Python loop")
RNG = np.random.default_rng(1)
W, BIAS = RNG.standard_normal((2, 3)), RNG.standard_normal(2)


def _linear(lib, seed):
    lib.manual_seed(seed)
    return lib.nn.Linear(3, 2).double()


def test_functional_call_equals_the_module_with_those_parameters():
    m = _linear(npgrad, 0)
    w, b = RNG.standard_normal((2, 3)), RNG.standard_normal(2)
    x = npgrad.tensor(RNG.standard_normal((4, 3)))
    out = F.functional_call(m, {"weight": npgrad.tensor(w), "bias": npgrad.tensor(b)}, (x,))
    np.testing.assert_allclose(out.numpy(), x.numpy() @ w.T + b, rtol=1e-12)
    # the module keeps its own parameters
    assert m.weight.shape == (2, 3) and not np.allclose(m.weight.detach().numpy(), w)
    # a sequence of dicts, one of them for buffers-or-parameters, is merged
    out2 = F.functional_call(m, ({"weight": npgrad.tensor(w)}, {"bias": npgrad.tensor(b)}), x)
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-12)


@needs_torch
def test_functional_call_errors_match_torch():
    def err(lib, F_):
        m = _linear(lib, 0)
        w = lib.zeros(2, 3, dtype=lib.float64)
        msgs = []
        for call in (lambda: F_.functional_call(m, ({"weight": w}, {"weight": w}), (lib.ones(1, 3),)),
                     lambda: F_.functional_call(m, [1], (lib.ones(1, 3),)),
                     lambda: F_.functional_call(m, {"weight": w}, (lib.ones(1, 3),), strict=True)):
            try:
                call()
            except Exception as e:  # noqa: BLE001 - compared with the oracle's
                msgs.append((type(e).__name__, str(e).replace("torch.", "npgrad.")))
        return msgs
    assert err(npgrad, F) == err(torch, torch.func)


@needs_torch
def test_grad_through_functional_call_matches_torch():
    x = RNG.standard_normal((4, 3))

    def run(lib, F_):
        m = _linear(lib, 0)
        params = {"weight": lib.tensor(W), "bias": lib.tensor(BIAS)}
        return F_.grad(lambda p: (F_.functional_call(m, p, (lib.tensor(x),)) ** 2).sum())(params)
    ours, theirs = run(npgrad, F), run(torch, torch.func)
    assert list(ours) == list(theirs)
    for k in ours:
        assert_close(ours[k].numpy(), theirs[k].numpy(), rtol=1e-10, atol=1e-12)


def test_stack_module_state_and_ensemble_through_vmap():
    models = [_linear(npgrad, s) for s in range(3)]
    params, buffers = F.stack_module_state(models)
    assert list(params) == ["weight", "bias"] and buffers == {}
    assert params["weight"].shape == (3, 2, 3) and params["weight"].is_leaf and params["weight"].requires_grad
    x = npgrad.tensor(RNG.standard_normal((5, 3)))
    out = F.vmap(lambda p, b, d: F.functional_call(models[0], (p, b), (d,)), in_dims=(0, 0, None))(params, buffers, x)
    expected = np.stack([m(x).detach().numpy() for m in models])
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)


@needs_torch
def test_stack_module_state_errors_match_torch():
    def err(lib, F_):
        msgs = []
        a, b = _linear(lib, 0), _linear(lib, 1)
        b.weight.requires_grad_(False)
        c = _linear(lib, 2).eval()
        for models in ([], [a, b], [a, c], [a, lib.nn.Tanh()]):
            try:
                F_.stack_module_state(models)
            except RuntimeError as e:
                msgs.append(str(e))
        return msgs
    assert err(npgrad, F) == err(torch, torch.func)
