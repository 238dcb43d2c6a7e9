"""Tensor.pin_memory / is_pinned / share_memory_ / is_shared as a CPU-only PyTorch has them: nothing can be
pinned (there is no accelerator), and share_memory_ really shares: a process forked afterwards writes in place."""
import multiprocessing
import sys
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])


@pytest.mark.filterwarnings("ignore:The argument 'device' of Tensor.is_pinned:DeprecationWarning")  # torch's inner
@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_nothing_is_pinned_without_an_accelerator(lib):
    t = lib.ones(3)
    assert t.is_pinned() is False
    with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
        t.pin_memory()
    with pytest.warns(DeprecationWarning, match="The argument 'device' of Tensor.pin_memory"):
        with pytest.raises(RuntimeError, match="^CPU device type not an accelerator.$"):
            t.pin_memory("cpu")
    with pytest.warns(DeprecationWarning, match="The argument 'device' of Tensor.is_pinned"):
        assert t.is_pinned("cpu") is False


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_share_memory_moves_the_data_and_keeps_the_values(lib):
    t = lib.tensor([[0.0, 1, 2], [3, 4, 5]], requires_grad=True)
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared() and t.requires_grad
    np.testing.assert_array_equal(t.detach().numpy(), np.arange(6.0).reshape(2, 3))
    assert t[0].is_shared() and not t.clone().is_shared()  # views of shared memory are shared; copies are not
    assert t.share_memory_() is t  # again: nothing to do


@pytest.mark.skipif(sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="needs the fork start method")
def test_a_forked_process_updates_shared_parameters_in_place():
    model = npgrad.nn.Linear(3, 2)
    model.share_memory()
    for p in model.parameters():
        p.share_memory_()
    before = model.weight.detach().clone()
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=_add_one, args=(model,))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    np.testing.assert_array_equal(model.weight.detach().numpy(), (before + 1).numpy())  # the child's update


def _add_one(model):
    with npgrad.no_grad():
        model.weight.add_(1)


def test_share_memory_refuses_a_tensor_whose_memory_others_hold():
    t = npgrad.ones(4)
    view = t[1:]
    with pytest.raises(RuntimeError, match="only while no other tensor"):
        t.share_memory_()  # the view would keep the old memory: refused, never silently split
    with pytest.raises(RuntimeError, match="only while no other tensor"):
        view.share_memory_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert npgrad.ones(0).share_memory_().is_shared()  # an empty tensor too
