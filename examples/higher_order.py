"""Higher-order gradients: a physics-informed network solving the ODE u''(x) = f(x) on [0, 1].

The network u(x) is trained so that its own second derivative matches f, with u(0) = u(1) = 0.
u'' comes from differentiating twice with ``torch.autograd.grad(..., create_graph=True)``; the loss
then contains u'', so the optimiser differentiates a third time (through the second derivative to the
weights). With f(x) = -pi^2 sin(pi x) the exact solution is u(x) = sin(pi x), so the error is known.

    python examples/higher_order.py               # 2000 Adam steps, max error about 1e-4
    python examples/higher_order.py --steps 50    # a quick smoke run
"""
import argparse
import math

import npgrad as torch
import npgrad.nn as nn


def f(x):
    return -math.pi ** 2 * torch.sin(math.pi * x)


def exact(x):
    return torch.sin(math.pi * x)


def second_derivative(model, x):
    """u(x) and u''(x) at every point of x (N, 1), keeping the graph so a loss can use them."""
    x = x.detach().requires_grad_()
    u = model(x)
    # Each point's u depends only on its own x, so the gradient of u.sum() is du/dx pointwise.
    (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
    (d2u,) = torch.autograd.grad(du.sum(), x, create_graph=True)
    return u, d2u


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--points", type=int, default=64, help="collocation points in (0, 1)")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    # tanh, not ReLU: a ReLU network's second derivative is zero almost everywhere.
    model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.steps)
    x = torch.linspace(0, 1, args.points + 2)[1:-1].unsqueeze(1)
    boundary = torch.tensor([[0.0], [1.0]])

    losses = []
    for step in range(args.steps):
        _, d2u = second_derivative(model, x)
        residual = ((d2u - f(x)) ** 2).mean()             # the ODE, at every collocation point
        bc = (model(boundary) ** 2).mean()                  # u(0) = u(1) = 0
        loss = residual + 100 * bc
        opt.zero_grad()
        loss.backward()                                     # through u'' to the weights
        opt.step()
        sched.step()
        losses.append(loss.item())
        if not args.quiet and (step % 250 == 0 or step == args.steps - 1):
            print(f"step {step:5d}  loss {loss.item():.3e}  (residual {residual.item():.2e}, boundary {bc.item():.2e})")

    xs = torch.linspace(0, 1, 101).unsqueeze(1)
    with torch.no_grad():
        err = (model(xs) - exact(xs)).abs().max().item()
    if not args.quiet:
        print(f"max |u - sin(pi x)| on [0, 1]: {err:.2e}")
    return {"losses": losses, "max_error": err}


if __name__ == "__main__":
    main()
