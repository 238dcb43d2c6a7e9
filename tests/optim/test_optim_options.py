"""The implementation switches PyTorch documents for the CPU (foreach, fused, capturable), tensor learning rates
and tensor betas give PyTorch's trajectory with every optimizer that takes them."""
import inspect

import numpy as np
import pytest

import npgrad
from _optim_harness import assert_close, run
from oracle import HAS_TORCH, torch

ALL = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop",
       "Adafactor"]
BASE = {"SGD": dict(lr=0.05, momentum=0.9, nesterov=True), "Adam": dict(lr=0.01, amsgrad=True),
        "AdamW": dict(lr=0.01, weight_decay=0.1), "RMSprop": dict(lr=0.01, momentum=0.5, centered=True),
        "Adagrad": dict(lr=0.1, lr_decay=0.01), "Adadelta": dict(weight_decay=0.01), "Adamax": dict(lr=0.05),
        "NAdam": dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1), "RAdam": dict(lr=0.01, betas=(0.9, 0.9)),
        "ASGD": dict(lr=0.05, t0=3), "Rprop": dict(lr=0.05), "Adafactor": dict(lr=0.05)}


def _switches(name):
    params = inspect.signature(getattr(npgrad.optim, name).__init__).parameters
    return [s for s in ("foreach", "fused", "capturable") if s in params]


def test_every_optimizer_accepts_its_switches():
    for name in ALL:
        for switch in _switches(name):
            p = npgrad.tensor([1.0, 2.0], requires_grad=True)
            opt = getattr(npgrad.optim, name)([p], **{**BASE[name], switch: True})
            opt.step()  # no gradients yet: nothing to do, nothing refused
            p.grad = npgrad.tensor([0.5, -0.5])
            if switch == "capturable":  # CUDA-graph capture: PyTorch refuses it on the CPU at the first real step
                with pytest.raises(AssertionError, match="If capturable=True, .* must be on supported devices"):
                    opt.step()
                assert p.tolist() == [1.0, 2.0]
                continue
            opt.step()
            assert opt.param_groups[0][switch] is True and p.tolist() != [1.0, 2.0]


def test_fused_and_foreach_together_is_refused():
    p = npgrad.tensor([1.0], requires_grad=True)
    for name in ("Adam", "AdamW", "Adagrad"):
        with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
            getattr(npgrad.optim, name)([p], fused=True, foreach=True)


if HAS_TORCH:
    SWITCH_CASES = [(name, s) for name in ALL for s in _switches(name)]

    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("name,switch", SWITCH_CASES, ids=[f"{n}-{s}" for n, s in SWITCH_CASES])
    def test_switch_matches_torch(name, switch, dtype):
        kw = {**BASE[name], switch: True}
        if switch == "capturable":
            for foreach in (None, True):
                with pytest.raises(AssertionError) as theirs:
                    run(torch, name, {**kw, "foreach": foreach}, dtype=dtype)
                with pytest.raises(AssertionError) as ours:
                    run(npgrad, name, {**kw, "foreach": foreach}, dtype=dtype)
                assert str(ours.value) == str(theirs.value)
            return
        ours, opt = run(npgrad, name, kw, dtype=dtype)
        theirs, topt = run(torch, name, kw, dtype=dtype)
        assert_close(ours, theirs, dtype)
        assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]

    @pytest.mark.parametrize("name", ALL)
    def test_tensor_lr_matches_torch(name):
        kw = dict(BASE[name])
        lr = kw.pop("lr", 1.0)
        ours, _ = run(npgrad, name, {**kw, "lr": npgrad.tensor(lr)})
        theirs, _ = run(torch, name, {**kw, "lr": torch.tensor(lr)})
        assert_close(ours, theirs)

    @pytest.mark.parametrize("name", ["Adam", "AdamW"])
    def test_tensor_betas_match_torch(name):
        ours, _ = run(npgrad, name, dict(lr=0.01, betas=(npgrad.tensor(0.8), npgrad.tensor(0.95))))
        theirs, _ = run(torch, name, dict(lr=0.01, betas=(torch.tensor(0.8), torch.tensor(0.95))))
        assert_close(ours, theirs)

    def test_adam_decoupled_weight_decay_equals_adamw_as_torch():
        ours, _ = run(npgrad, "Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True))
        theirs, _ = run(torch, "AdamW", dict(lr=0.01, weight_decay=0.1))
        assert_close(ours, theirs)
