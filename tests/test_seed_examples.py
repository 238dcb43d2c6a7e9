"""The worked examples of the reference documents, as tests (values from the documents)."""
import math

import numpy as np

import npgrad as torch


def test_l_equals_ab_plus_a_squared():
    a = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(4.0, requires_grad=True)
    L = a * b + a ** 2
    L.backward()
    assert L.item() == 21.0
    assert a.grad.item() == 10.0
    assert b.grad.item() == 3.0


def test_elementwise_product_with_weights():
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([4.0, 5.0], requires_grad=True)
    w = torch.tensor([3.0, 2.0])
    d = a * b * w
    d.backward(torch.ones(2))
    assert a.grad.tolist() == [12.0, 10.0]
    assert b.grad.tolist() == [6.0, 6.0]


def test_z_equals_xy_plus_x():
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    z = x * y + x
    z.backward()
    assert x.grad.item() == 4.0
    assert y.grad.item() == 2.0


def test_single_neuron():
    x1, x2 = torch.tensor(2.0, requires_grad=True), torch.tensor(0.0, requires_grad=True)
    w1, w2 = torch.tensor(-3.0, requires_grad=True), torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(6.8813735870195432, requires_grad=True)
    o = (x1 * w1 + x2 * w2 + b).tanh()
    o.backward()
    assert math.isclose(o.item(), 0.7071, abs_tol=1e-4)
    assert math.isclose(x1.grad.item(), -1.5, abs_tol=1e-4)
    assert math.isclose(w1.grad.item(), 1.0, abs_tol=1e-4)
    assert math.isclose(x2.grad.item(), 0.5, abs_tol=1e-4)
    assert math.isclose(w2.grad.item(), 0.0, abs_tol=1e-4)
    assert math.isclose(b.grad.item(), 0.5, abs_tol=1e-4)


def test_gradients_accumulate_across_backward_calls():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * 2 * np.array([1.0, 2.0]))
