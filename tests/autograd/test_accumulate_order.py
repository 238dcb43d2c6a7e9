"""When a leaf's post-accumulate-grad hook fires: as soon as its gradient is complete, not at the end of
backward (DistributedDataParallel starts its bucket allreduces from these hooks)."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch


def _events(lib, shared=False):
    lib.manual_seed(0)
    l1, l2 = lib.nn.Linear(3, 4), lib.nn.Linear(4, 4 if shared else 2)
    ev = []
    for name, p in (("l1.weight", l1.weight), ("l2.weight", l2.weight)):
        p.register_post_accumulate_grad_hook(lambda p, name=name: ev.append((name, p.grad.numpy().copy())))
    h = l1(lib.ones(5, 3))
    h.register_hook(lambda g: ev.append(("h", None)))
    out = l2(lib.tanh(h))
    if shared:  # l2's weight used twice: its hook waits for both contributions
        out = lib.nn.functional.linear(lib.tanh(out), l2.weight)
    out.sum().backward()
    return ev, l1, l2


def test_a_late_layers_hook_fires_before_earlier_layers_backward():
    ev, _, _ = _events(npgrad)
    assert [n for n, _ in ev] == ["l2.weight", "h", "l1.weight"]


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("shared", [False, True])
def test_hook_order_matches_pytorch(shared):
    assert [n for n, _ in _events(npgrad, shared)[0]] == [n for n, _ in _events(torch, shared)[0]]


def test_a_shared_leaf_hook_fires_once_with_its_whole_gradient():
    ev, _, l2 = _events(npgrad, shared=True)
    fired = [g for n, g in ev if n == "l2.weight"]
    assert len(fired) == 1
    np.testing.assert_array_equal(fired[0], l2.weight.grad.numpy())
    # the same gradient as a backward without any hook
    npgrad.manual_seed(0)
    l1, m2 = npgrad.nn.Linear(3, 4), npgrad.nn.Linear(4, 4)
    out = m2(npgrad.tanh(l1(npgrad.ones(5, 3))))
    npgrad.nn.functional.linear(npgrad.tanh(out), m2.weight).sum().backward()
    np.testing.assert_allclose(fired[0], m2.weight.grad.numpy(), rtol=1e-6, atol=1e-7)
