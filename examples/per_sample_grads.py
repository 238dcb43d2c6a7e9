"""Per-sample gradients of a small MLP with torch.func: ``vmap(grad(loss), in_dims=(None, 0, 0))``.

``grad(loss)`` is the gradient of one example's loss with respect to the parameters (a dict, as
``functional_call`` takes them); ``vmap`` maps it over the batch, giving one gradient per example. The script
checks the result against the plain way (one ``backward()`` per example) and times both: vmap runs the
batching rules (one batched forward and backward for the whole batch), the loop one pass per example. The
first vmap call also builds vmap's dispatch tables (once per process); the times are medians of warm calls.

    python examples/per_sample_grads.py             # batch 64
    python examples/per_sample_grads.py --batch 8
"""
import argparse
import statistics
import time

import npgrad as torch
import npgrad.nn as nn
from npgrad.func import functional_call, grad, vmap


def make_model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 3)).double()


def per_sample_grads(model, x, y):
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        # one example: add the batch dimension the model expects
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yi.unsqueeze(0))
    return vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)


def loop_grads(model, x, y):
    grads = {k: [] for k, _ in model.named_parameters()}
    for i in range(len(x)):
        model.zero_grad()
        nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        for k, p in model.named_parameters():
            grads[k].append(p.grad.clone())
    return {k: torch.stack(v) for k, v in grads.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    model = make_model()
    x = torch.randn(args.batch, 10, dtype=torch.float64)
    y = torch.randint(0, 3, (args.batch,))
    t0 = time.perf_counter()
    ours = per_sample_grads(model, x, y)
    t_first = time.perf_counter() - t0
    t_vmap = _median_time(lambda: per_sample_grads(model, x, y), args.repeats)
    ref = loop_grads(model, x, y)
    t_loop = _median_time(lambda: loop_grads(model, x, y), args.repeats)
    err = max(float((ours[k] - ref[k]).abs().max()) for k in ref)
    for k in ref:
        print(f"{k:10s} per-sample grads {tuple(ours[k].shape)}")
    print(f"max |vmap(grad) - loop of backward()| = {err:.3g}")
    print(f"vmap(grad): {t_vmap * 1e3:.2f} ms   loop of backward(): {t_loop * 1e3:.2f} ms   "
          f"speed-up {t_loop / t_vmap:.1f}x   (batch {args.batch}; first vmap call {t_first * 1e3:.1f} ms)")
    return {"max_error": err, "t_vmap": t_vmap, "t_loop": t_loop, "speedup": t_loop / t_vmap, "grads": ours,
            "reference": ref}


def _median_time(fn, repeats):
    times = []
    for _ in range(max(repeats, 1)):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


if __name__ == "__main__":
    main()
