"""Muon: momentum, bfloat16 Newton-Schulz orthogonalisation and lr adjustment as PyTorch's."""
import inspect

import numpy as np
import pytest

import npgrad
from _optim_harness import make, run, to_npgrad, train
from npgrad.optim._bfloat16 import round_bf16
from npgrad.optim.muon import orthogonalize
from oracle import HAS_TORCH, torch

SHAPES = [(3, 4), (6, 3), (4, 8)]
COEFS = (3.4445, -4.7750, 2.0315)
CONFIGS = [dict(), dict(lr=0.02, weight_decay=0.0), dict(lr=0.02, nesterov=False, momentum=0.8),
           dict(lr=0.02, adjust_lr_fn="match_rms_adamw"), dict(ns_steps=3, lr=0.05), dict(lr=0.01, eps=1e-3),
           dict(lr=0.02, adjust_lr_fn="original", ns_coefficients=(2.0, -1.5, 0.5))]


def test_round_bf16():
    x = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20, -2.5, np.inf], np.float32)
    # ties go to the even bfloat16 (1 + 2^-7 has an odd last bit, so 1 + 3 * 2^-8 goes up to 1 + 2^-6)
    np.testing.assert_array_equal(round_bf16(x), [1.0, 1.0, 1 + 2 ** -6, 1 + 2 ** -7, -2.5, np.inf])
    assert np.isnan(round_bf16(np.array([np.nan], np.float32)))[0]


def test_newton_schulz_orthogonalises():
    # The quintic iteration drives every singular value into roughly [0.5, 1.5] (not to exactly 1: its
    # coefficients trade accuracy for speed), keeping the singular vectors.
    rng = np.random.default_rng(0)
    g = (rng.normal(size=(6, 10)) * np.logspace(0, 2, 10)).astype(np.float32)
    out = orthogonalize(g, COEFS, 5, 1e-7)
    s = np.linalg.svd(out.astype(np.float64), compute_uv=False)
    assert out.shape == g.shape and s.min() > 0.5 and s.max() < 1.5
    u, _, vt = np.linalg.svd(g.astype(np.float64), full_matrices=False)
    core = u.T @ out @ vt.T  # diagonal when out has g's singular vectors
    assert np.abs(core - np.diag(np.diag(core))).max() < 0.05 and np.diag(core).min() > 0.5
    tall = orthogonalize(g.T.copy(), COEFS, 5, 1e-7)  # a tall matrix is processed transposed
    np.testing.assert_array_equal(tall, out.T)
    with pytest.raises(ValueError, match="Input tensor gradient must be a 2D matrix"):
        orthogonalize(np.ones(3, np.float32), COEFS, 5, 1e-7)


def test_one_step_and_errors_without_torch():
    p = npgrad.tensor(np.ones((2, 2)), requires_grad=True)
    opt = npgrad.optim.Muon([p], lr=0.1, weight_decay=0.5, momentum=0.5, nesterov=False)
    p.grad = npgrad.tensor(np.eye(2) * 4.0)
    opt.step()
    # buffer 0.5 * 4 I = 2 I; its orthogonalisation is close to I; the parameter is first decayed by 1 - 0.05
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"]._data, 2 * np.eye(2))
    np.testing.assert_allclose(p._data, 0.95 - 0.1 * np.eye(2), atol=0.1 * 0.3)
    with pytest.raises(ValueError, match=r"Muon only supports 2D parameters whereas we found a parameter with size: "
                                         r"torch.Size\(\[3\]\)"):
        npgrad.optim.Muon([npgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)])
    with pytest.raises(ValueError, match="Adjust learning rate function exp is not supported"):
        npgrad.optim.Muon([p], adjust_lr_fn="exp")
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is: -1"):
        npgrad.optim.Muon([p], lr=-1)


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("kw", CONFIGS, ids=[str(k) for k in CONFIGS])
    def test_matches_torch(kw, dtype):
        # The update is computed in bfloat16 whatever the parameters' dtype; with the fused lerp/add and one
        # rounding per bfloat16 op the iterates agree to the bit for these shapes (rtol 1e-5 bounds a rare
        # one-bfloat16-ulp difference in a float32 accumulation order).
        ours, opt = run(npgrad, "Muon", kw, dtype=dtype, shapes=SHAPES)
        theirs, topt = run(torch, "Muon", kw, dtype=dtype, shapes=SHAPES)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
        for p, tp in zip(opt.param_groups[0]["params"], topt.param_groups[0]["params"]):
            np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(),
                                       topt.state[tp]["momentum_buffer"].numpy(), rtol=1e-5, atol=1e-7)

    def test_newton_schulz_matches_torch_bitwise():
        from torch.optim._muon import _zeropower_via_newtonschulz  # PyTorch's own iteration, the oracle
        rng = np.random.default_rng(1)
        for shape in [(3, 4), (6, 3), (8, 8), (5, 16)]:
            g = rng.normal(size=shape).astype(np.float32)
            theirs = _zeropower_via_newtonschulz(torch.tensor(g), COEFS, 5, 1e-7).float().numpy()
            np.testing.assert_array_equal(orthogonalize(g, COEFS, 5, 1e-7), theirs)

    def test_larger_matrices_within_a_bfloat16_ulp_per_step():
        # For long inner dimensions the bfloat16 GEMM's float32 accumulation order differs from NumPy's, so
        # an element of an update can round to the neighbouring bfloat16 (relative 2^-8): bound by that.
        kw = dict(lr=0.02)
        ours, _ = run(npgrad, "Muon", kw, shapes=[(32, 48)])
        theirs, _ = run(torch, "Muon", kw, shapes=[(32, 48)])
        np.testing.assert_allclose(ours[0], theirs[0], atol=20 * 0.02 * 2 ** -8)

    def test_groups_tensor_lr_and_torch_state_dict():
        # Here one update element, at one step, rounds to the neighbouring bfloat16 (in a reduction whose
        # float32 order differs): the bound is a few bfloat16 ulps (2^-8 relative) of the update times lr.
        groups = [((0,), dict(lr=0.03)), ((1, 2), dict(weight_decay=0.2))]
        ours, _ = run(npgrad, "Muon", dict(lr=npgrad.tensor(0.02)), groups=groups, shapes=SHAPES)
        theirs, _ = run(torch, "Muon", dict(lr=torch.tensor(0.02)), groups=groups, shapes=SHAPES)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=4 * 0.03 * 2 ** -8)
        tparams, topt = make(torch, "Muon", dict(lr=0.05), shapes=SHAPES)
        train(torch, tparams, topt, 0, 10)
        params = [npgrad.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tparams]
        opt = npgrad.optim.Muon(params, lr=0.05)
        opt.load_state_dict(to_npgrad(topt.state_dict()))
        for a, b in zip(train(npgrad, params, opt, 10, 20), train(torch, tparams, topt, 10, 20)):
            np.testing.assert_allclose(a, b, rtol=1e-5)

    def test_signature_errors_repr_match_torch():
        sig, tsig = inspect.signature(npgrad.optim.Muon.__init__), inspect.signature(torch.optim.Muon.__init__)
        assert [(p.name, p.default) for p in sig.parameters.values()] == \
            [(p.name, p.default) for p in tsig.parameters.values()]
        for kw in [dict(lr=-1), dict(momentum=-1), dict(weight_decay=-1), dict(adjust_lr_fn="x")]:
            with pytest.raises(ValueError) as theirs:
                torch.optim.Muon([torch.ones(2, 2, requires_grad=True)], **kw)
            with pytest.raises(ValueError) as ours:
                npgrad.optim.Muon([npgrad.ones(2, 2, requires_grad=True)], **kw)
            assert str(ours.value) == str(theirs.value)
        assert repr(npgrad.optim.Muon([npgrad.ones(2, 2, requires_grad=True)])) == \
            repr(torch.optim.Muon([torch.ones(2, 2, requires_grad=True)]))
