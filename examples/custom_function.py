"""Custom autograd Functions: a numerically stable softplus, and a straight-through estimator.

A ``torch.autograd.Function`` pairs a forward computation with a hand-written backward. Two reasons
to write one: the autograd-derived gradient is numerically poor (softplus), or you want a gradient
that is not the true one at all (the straight-through estimator for a step function).

    python examples/custom_function.py
"""
import argparse

import npgrad as torch
from npgrad.autograd import gradcheck, gradgradcheck


class SoftPlus(torch.autograd.Function):
    """softplus(x) = log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so exp never overflows."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # d/dx log(1 + e^x) = sigmoid(x), which is bounded: no inf/inf for large x. Written with tensor
        # ops, so it can itself be differentiated (gradgradcheck below).
        return grad_output * torch.sigmoid(x)


class BinarizeSTE(torch.autograd.Function):
    """sign(x) forward; backward passes the gradient straight through where |x| <= 1 (zero elsewhere).

    The true derivative of sign is 0 almost everywhere, which would stop all learning; the
    straight-through estimator pretends the step was the identity (clipped), as in binarised networks.
    """

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).to(grad_output.dtype)


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    softplus = SoftPlus.apply

    # 1. Where the naive formula fails: exp(100) overflows float32, so log(1 + exp(x)) is inf and its
    #    autograd gradient exp(x) / (1 + exp(x)) is inf / inf = nan.
    x = torch.tensor([-100.0, -1.0, 0.0, 1.0, 100.0], requires_grad=True)
    naive = torch.log(1 + torch.exp(x))
    naive.sum().backward()
    print("naive   ", naive.tolist(), "grad", x.grad.tolist())
    x.grad = None
    y = softplus(x)
    y.sum().backward()
    stable_grad = x.grad.tolist()
    print("stable  ", y.tolist(), "grad", stable_grad)
    stable_ok = bool(torch.isfinite(y).all() and torch.isfinite(x.grad).all())

    # 2. gradcheck compares the hand-written backward with finite differences (float64 for precision);
    #    gradgradcheck does the same for the gradient of the gradient.
    xd = (torch.randn(6, dtype=torch.float64) * 3).requires_grad_()
    ok1 = gradcheck(softplus, (xd,), eps=1e-6, atol=1e-6)
    ok2 = gradgradcheck(softplus, (xd,), eps=1e-6, atol=1e-6)
    print(f"gradcheck: {ok1}, gradgradcheck: {ok2}")

    # 3. The straight-through estimator: the forward is a hard step, yet gradients flow.
    w = torch.tensor([-2.0, -0.5, 0.3, 1.5], requires_grad=True)
    b = BinarizeSTE.apply(w)
    (b * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    print("binarised", b.tolist(), "grad", w.grad.tolist())
    return {"naive": naive.tolist(), "stable": y.tolist(), "stable_grad": stable_grad,
            "stable_ok": stable_ok, "gradcheck": ok1, "gradgradcheck": ok2, "ste_out": b.tolist(),
            "ste_grad": w.grad.tolist()}


if __name__ == "__main__":
    main()
