"""The first gradient a leaf receives becomes its .grad without a copy when nothing but the engine references
that array (PyTorch's AccumulateGrad steals a gradient whose use count is 1); anything another holder could
see (a gradient routed to two leaves, the user's gradient, a view, a pre-hook's result) is copied, so a
later in-place accumulation into .grad never writes into someone else's array."""
import numpy as np
import pytest

import npgrad
from npgrad.autograd import engine as E


@pytest.fixture
def copies(monkeypatch):
    made = []
    orig = E._owned_copy

    def counting(g):
        made.append(g.shape)
        return orig(g)

    monkeypatch.setattr(E, "_owned_copy", counting)
    return made


def test_calibrated_count_is_measured_once_and_positive():
    x = npgrad.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    assert len(E._FRESH_REFS) == 1 and E._FRESH_REFS[0] > 1
    assert not E._PROBE


def test_linear_layer_gradients_are_kept_without_copies(copies):
    lin = npgrad.nn.Linear(5, 4)
    x = npgrad.randn(2, 5)
    lin(x).sum().backward()
    assert copies == []
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.tile(x.numpy().sum(0), (4, 1)), rtol=1e-6)
    np.testing.assert_allclose(lin.bias.grad.numpy(), np.full(4, 2.0))
    # a second backward accumulates in place into the kept arrays
    lin(x).sum().backward()
    np.testing.assert_allclose(lin.bias.grad.numpy(), np.full(4, 4.0))


def test_one_gradient_routed_to_two_leaves_is_not_shared(copies):
    a = npgrad.randn(3, requires_grad=True)
    b = npgrad.randn(3, requires_grad=True)
    (a * 1.0 + b).backward(npgrad.tensor([1.0, 2.0, 3.0]))
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.add_(10.0)
    np.testing.assert_array_equal(b.grad.numpy(), np.array([1.0, 2.0, 3.0], np.float32))


def test_users_gradient_is_copied(copies):
    y = npgrad.randn(3, requires_grad=True)
    g = npgrad.ones(3)
    y.backward(g)
    assert not np.shares_memory(y.grad.numpy(), g.numpy())
    y.grad.mul_(5.0)
    np.testing.assert_array_equal(g.numpy(), np.ones(3, np.float32))
    assert copies == [(3,)]


def test_a_view_gradient_is_copied(copies):
    w = npgrad.randn(4, 5, requires_grad=True)
    x = npgrad.randn(2, 5)
    (x @ w.T).sum().backward()  # the transpose's backward hands back a view
    assert copies == [(4, 5)]
    assert w.grad.numpy().base is None


def test_pre_hook_result_held_by_the_user_is_never_kept(copies):
    x = npgrad.randn(3, requires_grad=True)
    held = []

    def hook(g):
        r = g * 2
        held.append(r)
        held.append(r.numpy())  # a second holder of the same array
        return r

    x.register_hook(hook)
    (x * 3).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), held[1])
    x.grad.zero_()
    np.testing.assert_array_equal(held[1], np.full(3, 6.0, np.float32))


def test_retained_grad_and_captured_gradients_are_not_aliased():
    x = npgrad.randn(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * 1.5).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    (g,) = npgrad.autograd.grad((x * 4).sum(), x)
    assert x.grad is not None and not np.shares_memory(g.numpy(), x.grad.numpy())
