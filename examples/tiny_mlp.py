"""A 3-4-4-1 multilayer perceptron fitted to four points by plain gradient descent.

Everything is written with core tensor operations: the layers are a matmul plus a bias followed by
tanh, the loss is the mean squared error, and the update is ``p -= lr * p.grad`` under ``no_grad``
(npgrad.nn and npgrad.optim package exactly these steps up).

    python examples/tiny_mlp.py              # 200 steps
    python examples/tiny_mlp.py --steps 20   # a quick smoke run
"""
import argparse

import npgrad as torch

# Four inputs with three features each, and the target for each (+1 or -1).
XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]
SIZES = [3, 4, 4, 1]


def init_params(sizes, generator=None):
    """One (weight, bias) pair per layer, every entry uniform in [-1, 1)."""
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        w = (torch.rand(n_in, n_out, generator=generator) * 2 - 1).requires_grad_()
        b = (torch.rand(n_out, generator=generator) * 2 - 1).requires_grad_()
        params += [w, b]
    return params


def forward(params, x):
    for i in range(0, len(params), 2):
        x = (x @ params[i] + params[i + 1]).tanh()  # every layer, the last too, squashes to (-1, 1)
    return x.squeeze(1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    g = torch.Generator().manual_seed(args.seed)
    params = init_params(SIZES, g)
    x, y = torch.tensor(XS), torch.tensor(YS)

    losses = []
    for step in range(args.steps):
        pred = forward(params, x)
        loss = ((pred - y) ** 2).mean()

        for p in params:  # gradients accumulate, so clear last step's first
            p.grad = None
        loss.backward()

        with torch.no_grad():  # the update itself must not be recorded in the graph
            for p in params:
                p -= args.lr * p.grad

        losses.append(loss.item())
        if not args.quiet and (step % 20 == 0 or step == args.steps - 1):
            print(f"step {step:4d}  loss {loss.item():.6f}")

    with torch.no_grad():
        pred = forward(params, x)
    if not args.quiet:
        print("predictions:", [round(v, 4) for v in pred.tolist()], "targets:", YS)
    return {"losses": losses, "predictions": pred.tolist()}


if __name__ == "__main__":
    main()
