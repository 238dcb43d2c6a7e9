"""Adafactor (factored second moments for matrices and batches of matrices) follows PyTorch's trajectory."""
import inspect

import numpy as np
import pytest

import npgrad
from _optim_harness import assert_close, make, run, to_npgrad, train
from oracle import HAS_TORCH, torch

SHAPES = [(3, 4), (2, 3, 5), (5,), ()]
CONFIGS = [dict(), dict(lr=0.05, weight_decay=0.1), dict(d=1.5, beta2_decay=-0.5), dict(eps=(1e-4, 1e-2)),
           dict(maximize=True), dict(foreach=True), dict(lr=0.5, eps=(None, 1e-5))]


def test_first_step_closed_form():
    # Step 1 forgets nothing (beta2 complement 1): a rank-one |g| = u v^T is rebuilt exactly from its row and
    # column means, so the update is sign(g), of RMS 1, scaled by max(eps2, RMS(p)) * min(lr, 1).
    u, v = np.array([1.0, 2.0, 0.5]), np.array([0.3, -1.0, 2.0, 0.7])
    g = np.outer(u, v)
    p0 = np.arange(12.0).reshape(3, 4) / 10
    p = npgrad.tensor(p0.copy(), requires_grad=True)
    opt = npgrad.optim.Adafactor([p], lr=0.1)
    p.grad = npgrad.tensor(g)
    opt.step()
    rms = np.sqrt((p0 ** 2).mean())
    np.testing.assert_allclose(p._data, p0 - 0.1 * rms * np.sign(g), rtol=1e-13)
    st = opt.state[p]
    np.testing.assert_allclose(st["row_var"]._data[:, 0], (g ** 2).mean(1), rtol=1e-14)
    np.testing.assert_allclose(st["col_var"]._data[0], (g ** 2).mean(0), rtol=1e-14)


def test_update_clipping_and_vector_state():
    p = npgrad.tensor(np.zeros(4), requires_grad=True)
    opt = npgrad.optim.Adafactor([p], lr=1.0, eps=(None, 0.5), d=1.0)
    p.grad = npgrad.tensor(np.array([1.0, -2.0, 3.0, 0.0]))
    opt.step()
    # p = 0: alpha = eps2 * min(1, 1) = 0.5; update sign(g) (0 where g = 0, after eps1 clamping) has RMS < 1
    np.testing.assert_allclose(p._data, [-0.5, 0.5, -0.5, 0.0], atol=1e-15)
    assert list(opt.state[p]) == ["step", "variance"]


def test_descends_and_resumes(tmp_path):
    straight, _ = run(npgrad, "Adafactor", dict(lr=0.05), shapes=SHAPES)
    params, opt = make(npgrad, "Adafactor", dict(lr=0.05), shapes=SHAPES)
    train(npgrad, params, opt, 0, 10)
    npgrad.save(opt.state_dict(), tmp_path / "af.pt")
    params2 = [npgrad.tensor(p._data.copy(), requires_grad=True) for p in params]
    opt2 = npgrad.optim.Adafactor(params2, lr=0.05)
    opt2.load_state_dict(npgrad.load(tmp_path / "af.pt"))
    for a, b in zip(straight, train(npgrad, params2, opt2, 10, 20)):
        np.testing.assert_array_equal(a, b)


BAD = [dict(lr=-1), dict(beta2_decay=0.5), dict(eps=(-1, 1e-3)), dict(eps=(None, -1)), dict(d=0.5),
       dict(weight_decay=-1)]


def test_errors():
    p = npgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is: -1"):
        npgrad.optim.Adafactor([p], lr=-1)
    with pytest.raises(ValueError, match="Clipping threshold d should be >= 1 but is: 0.5"):
        npgrad.optim.Adafactor([p], d=0.5)


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("kw", CONFIGS, ids=[str(k) for k in CONFIGS])
    def test_matches_torch(kw, dtype):
        ours, opt = run(npgrad, "Adafactor", kw, dtype=dtype, shapes=SHAPES)
        theirs, topt = run(torch, "Adafactor", kw, dtype=dtype, shapes=SHAPES)
        assert_close(ours, theirs, dtype)
        for p, tp in zip(opt.param_groups[0]["params"], topt.param_groups[0]["params"]):
            st, tst = opt.state[p], topt.state[tp]
            assert list(st) == list(tst)
            for k in st:
                assert st[k].shape == tuple(tst[k].shape)
                assert str(st[k].dtype).split(".")[-1] == str(tst[k].dtype).split(".")[-1]
                np.testing.assert_allclose(st[k].numpy(), tst[k].numpy(), rtol=1e-4)

    def test_groups_tensor_lr_and_torch_state_dict():
        groups = [((0, 1), dict(lr=0.03)), ((2, 3), dict(weight_decay=0.2))]
        ours, _ = run(npgrad, "Adafactor", dict(lr=npgrad.tensor(0.02)), groups=groups, shapes=SHAPES)
        theirs, _ = run(torch, "Adafactor", dict(lr=torch.tensor(0.02)), groups=groups, shapes=SHAPES)
        assert_close(ours, theirs)
        tparams, topt = make(torch, "Adafactor", dict(lr=0.05), shapes=SHAPES)
        train(torch, tparams, topt, 0, 10)
        params = [npgrad.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tparams]
        opt = npgrad.optim.Adafactor(params, lr=0.05)
        opt.load_state_dict(to_npgrad(topt.state_dict()))
        assert_close(train(npgrad, params, opt, 10, 20), train(torch, tparams, topt, 10, 20))

    def test_errors_signature_repr_match_torch():
        for kw in BAD:
            with pytest.raises(ValueError) as theirs:
                torch.optim.Adafactor([torch.tensor([1.0], requires_grad=True)], **kw)
            with pytest.raises(ValueError) as ours:
                npgrad.optim.Adafactor([npgrad.tensor([1.0], requires_grad=True)], **kw)
            assert str(ours.value) == str(theirs.value)
        sig = inspect.signature(npgrad.optim.Adafactor.__init__)
        tsig = inspect.signature(torch.optim.Adafactor.__init__)
        assert [(p.name, p.default, p.kind) for p in sig.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in tsig.parameters.values()]
        assert repr(npgrad.optim.Adafactor([npgrad.tensor([1.0], requires_grad=True)])) == \
            repr(torch.optim.Adafactor([torch.tensor([1.0], requires_grad=True)]))
