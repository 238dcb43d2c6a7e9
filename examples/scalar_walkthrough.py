"""A walk through reverse-mode autograd on scalars (0-d tensors), one small expression at a time.

Each step builds an expression, calls backward(), and prints the gradients next to the values worked
out by hand with the chain rule, so you can check the engine against your own derivation.

    python examples/scalar_walkthrough.py
"""
import npgrad as torch


def leaf(value):
    return torch.tensor(float(value), requires_grad=True)


def show(title, out, **leaves):
    print(f"{title}: value {out.item():g}; " + ", ".join(f"d/d{k} = {v.grad.item():g}" for k, v in leaves.items()))


def main(argv=None):
    results = {}

    # 1. Product and square: L = a*b + a**2. By hand: dL/da = b + 2a = 10, dL/db = a = 3.
    a, b = leaf(3), leaf(4)
    L = a * b + a ** 2
    L.backward()
    show("L = a*b + a**2 at a=3, b=4", L, a=a, b=b)
    results["L"] = (L.item(), a.grad.item(), b.grad.item())

    # 2. A variable used twice: z = x*y + x. Both uses send gradient to x, and the two add up:
    #    dz/dx = y + 1 = 4, dz/dy = x = 2.
    x, y = leaf(2), leaf(3)
    z = x * y + x
    z.backward()
    show("z = x*y + x at x=2, y=3", z, x=x, y=y)
    results["z"] = (z.item(), x.grad.item(), y.grad.item())

    # 3. Division and subtraction: f = (p - q) / q. df/dp = 1/q = 0.5, df/dq = -p/q**2 = -1.5.
    p, q = leaf(6), leaf(2)
    f = (p - q) / q
    f.backward()
    show("f = (p - q) / q at p=6, q=2", f, p=p, q=q)
    results["f"] = (f.item(), p.grad.item(), q.grad.item())

    # 4. Through exp and log: g = log(exp(u) + 1) (softplus). dg/du = sigmoid(u) = 0.5 at u = 0.
    u = leaf(0)
    g = (u.exp() + 1).log()
    g.backward()
    show("g = log(exp(u) + 1) at u=0", g, u=u)
    results["g"] = (g.item(), u.grad.item())

    # 5. Gradients accumulate: a second backward adds to .grad until it is zeroed.
    w = leaf(5)
    for _ in range(2):
        (w * w).backward()  # d(w*w)/dw = 2w = 10, twice
    print(f"two backward passes of w*w at w=5 accumulate: w.grad = {w.grad.item():g}")
    results["accumulated"] = w.grad.item()
    return results


if __name__ == "__main__":
    main()
