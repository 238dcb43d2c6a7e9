"""differentiable=True: the optimizer step is recorded by autograd, so gradients flow from the updated
parameters back to the old parameters, the gradients and tensor learning rates, as in PyTorch."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

CASES = [("SGD", dict(momentum=0.9)), ("SGD", dict(momentum=0.5, nesterov=True, weight_decay=0.1)), ("SGD", {}),
         ("SGD", dict(maximize=True, momentum=0.3, dampening=0.2)), ("Adam", dict(lr=0.05)),
         ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)), ("AdamW", dict(lr=0.05, weight_decay=0.1)),
         ("RMSprop", dict(momentum=0.5, centered=True)), ("RMSprop", dict(weight_decay=0.1)),
         ("Adagrad", dict(lr_decay=0.1, weight_decay=0.1)), ("Adadelta", dict(weight_decay=0.1)),
         ("Adamax", dict(lr=0.05)), ("NAdam", dict(lr=0.05)), ("NAdam", dict(decoupled_weight_decay=True,
                                                                             weight_decay=0.1)),
         ("RAdam", dict(lr=0.05, betas=(0.5, 0.6))), ("RAdam", dict(lr=0.05)), ("ASGD", dict(t0=1)),
         ("Rprop", dict(lr=0.05))]
TENSOR_LR = ("SGD", "Adam", "AdamW")  # where PyTorch's update keeps the graph to a tensor lr


def _steps(lib, name, kw, steps=3):
    """``steps`` differentiable steps on f(p) = sum(c (p - 0.3)^2) + 0.1 sum(p^3); before each step the
    parameter and the state are cloned (the step's in-place updates would overwrite tensors the graph
    saved), as one must with PyTorch. Returns the final parameter and the gradients of sum(p^2) w.r.t. w,
    the extra gradient term and the learning rate."""
    w = lib.tensor(np.array([0.5, -1.2, 2.0]), requires_grad=True)
    bump = lib.tensor(np.array([0.1, 0.0, -0.2]), requires_grad=True)
    c = lib.tensor(np.array([1.0, 2.0, 3.0]))
    kw = dict(kw)
    lr = kw.pop("lr", 0.1 if name not in ("Adadelta",) else 1.0)
    if name in TENSOR_LR:
        lr = lib.tensor(lr, dtype=lib.float64, requires_grad=True)
    p = w.clone()
    opt = getattr(lib.optim, name)([p], lr=lr, differentiable=True, **kw)
    for t in range(steps):
        if t:
            q = p.clone()
            opt.param_groups[0]["params"] = [q]
            opt.state[q] = {k: v.clone() for k, v in opt.state.pop(p, {}).items()}
            p = q
        pc = p.clone()  # the loss's graph saves this copy, which the in-place step leaves alone
        loss = (c * (pc - 0.3) ** 2).sum() + 0.1 * (pc ** 3).sum()
        g, = lib.autograd.grad(loss, pc, create_graph=True)
        p.grad = g + bump
        opt.step()
    (p ** 2).sum().backward()
    grads = [w.grad.numpy().copy(), bump.grad.numpy().copy()]
    if name in TENSOR_LR:
        grads.append(lr.grad.numpy().copy())
    return p.detach().numpy().copy(), grads


# PyTorch starts SGD's momentum buffer as a detached copy of the first gradient, so with momentum the
# recorded graph is deliberately not the full derivative of the run: those cases are compared with PyTorch only.
FD_CASES = [(n, k) for n, k in CASES if not (n == "SGD" and k.get("momentum"))]


@pytest.mark.parametrize("name,kw", FD_CASES, ids=[f"{n}-{k}" for n, k in FD_CASES])
def test_step_gradient_matches_finite_differences(name, kw):
    # d sum(p_final^2) / d w by central differences of the (non-differentiable) optimizer run
    _, (gw, _, *_) = _steps(npgrad, name, kw)

    def final(w0):
        w = npgrad.tensor(w0, requires_grad=True)
        p = w.clone().detach().requires_grad_()
        lr = kw.get("lr", 0.1 if name != "Adadelta" else 1.0)
        opt = getattr(npgrad.optim, name)([p], **{**kw, "lr": lr})
        c = np.array([1.0, 2.0, 3.0])
        for _ in range(3):
            x = p._data
            p.grad = npgrad.tensor(2 * c * (x - 0.3) + 0.3 * x ** 2 + np.array([0.1, 0.0, -0.2]))
            opt.step()
        return float((p._data ** 2).sum())
    w0, h = np.array([0.5, -1.2, 2.0]), 1e-6
    fd = [(final(w0 + h * e) - final(w0 - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(gw, fd, rtol=2e-5, atol=1e-6)


def test_parameters_keep_their_identity_and_graph():
    w = npgrad.tensor([1.0, 2.0], requires_grad=True)
    p = w.clone()
    opt = npgrad.optim.Adam([p], lr=0.1, differentiable=True)
    p.grad = npgrad.tensor([0.5, -0.5])
    before = p
    opt.step()
    assert opt.param_groups[0]["params"][0] is before and p.grad_fn is not None
    p.sum().backward()  # the update does not depend on w (constant gradient, no weight decay): d p / d w = 1
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 2.1], rtol=1e-6)


if HAS_TORCH:
    @pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{k}" for n, k in CASES])
    def test_matches_torch(name, kw):
        ours, ours_grads = _steps(npgrad, name, kw)
        theirs, their_grads = _steps(torch, name, kw)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
        for a, b in zip(ours_grads, their_grads):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
