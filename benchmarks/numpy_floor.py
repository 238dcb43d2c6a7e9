"""The hand-written NumPy floor of the inference workloads: ``python -m benchmarks.numpy_floor [--rounds 5]``.

``infer_mlp`` and ``infer_gpt`` (benchmarks/models.py) written directly in NumPy on the same weights: no
Tensors, no autograd, no module calls, in-place steps wherever NumPy allows, the causal mask as a
precomputed additive -inf matrix. This is what any NumPy implementation of the same forward pays, so a
target below ``floor / PyTorch`` cannot be met by a NumPy library on this machine, only approached. GELU is
the exact one (erf-based, as in the model: npgrad's float32 kernel ``ops._erf.gelu32_np``, the fastest exact
NumPy GELU here); the ``tanh`` row replaces it with the cheaper tanh approximation (a different function: a
lower bound on the floor, not a valid implementation of the model).

Each of npgrad, the floor and PyTorch runs alone in a fresh process (as ``benchmarks.isolated``), rounds
alternating; medians of per-step times. The floor's output is checked against npgrad's at step 0.
"""
import argparse
import statistics
import subprocess
import sys

import numpy as np


def _weights(workload):
    import npgrad
    from benchmarks import models
    model, step = getattr(models, workload)(npgrad)
    params = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    buffers = {k: v.numpy().copy() for k, v in model.named_buffers()}
    return params, buffers, models.check_value(step())


def _ln(x, w, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    xc = x - m
    v = np.einsum("ij,ij->i", xc, xc)[:, None]
    v *= 1.0 / x.shape[-1]
    v += eps
    np.sqrt(v, out=v)
    xc /= v
    xc *= w
    xc += b
    return xc


def _gelu_exact(h):
    from npgrad.ops._erf import gelu32_np
    return gelu32_np(h, False)[0]


def _gelu_tanh(h):
    t = h * h
    t *= 0.044715
    t += 1.0
    t *= h
    t *= 0.7978845608028654
    np.tanh(t, out=t)
    t += 1.0
    t *= h
    t *= 0.5
    return t


def infer_gpt_floor(gelu, heads=4, layers=4):
    p, buf, value = _weights("infer_gpt")
    idx = np.random.default_rng(13).integers(0, p["tok.weight"].shape[0], (1, 64))[0]  # models.infer_gpt's input
    T, C = idx.size, p["tok.weight"].shape[1]
    D = C // heads
    add_mask = np.where(buf["mask"][:T, :T], np.float32(-np.inf), np.float32(0))
    scale = np.float32(1.0 / D ** 0.5)
    wt = {k: np.ascontiguousarray(v.T) for k, v in p.items() if v.ndim == 2 and not k.startswith(("tok", "pos"))}
    pos = np.arange(T)

    def forward():
        x = p["tok.weight"][idx] + p["pos.weight"][pos]
        for i in range(layers):
            pre = f"blocks.{i}."
            h = _ln(x, p[pre + "ln1.weight"], p[pre + "ln1.bias"])
            qkv = h @ wt[pre + "qkv.weight"]
            qkv += p[pre + "qkv.bias"]
            q, k, v = (qkv[:, j * C:(j + 1) * C].reshape(T, heads, D).transpose(1, 0, 2) for j in range(3))
            att = q @ k.transpose(0, 2, 1)
            att *= scale
            att += add_mask
            att -= att.max(-1, keepdims=True)
            np.exp(att, out=att)
            att /= att.sum(-1, keepdims=True)
            y = (att @ v).transpose(1, 0, 2).reshape(T, C)
            o = y @ wt[pre + "proj.weight"]
            o += p[pre + "proj.bias"]
            x += o
            f = _ln(x, p[pre + "ln2.weight"], p[pre + "ln2.bias"]) @ wt[pre + "fc.weight"]
            f += p[pre + "fc.bias"]
            o = gelu(f) @ wt[pre + "out.weight"]
            o += p[pre + "out.bias"]
            x += o
        out = _ln(x, p["ln.weight"], p["ln.bias"]) @ wt["head.weight"]
        out += p["head.bias"]
        return out

    return forward, value


def infer_mlp_floor():
    p, _, value = _weights("infer_mlp")
    x = np.random.default_rng(12).standard_normal((1, 784)).astype(np.float32)  # models.infer_mlp's input
    ws = [np.ascontiguousarray(p[f"{i}.weight"].T) for i in (0, 2, 4)]
    bs = [p[f"{i}.bias"] for i in (0, 2, 4)]

    def forward():
        h = x
        for j, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w
            h += b
            if j < 2:
                np.maximum(h, 0, out=h)
        return h

    return forward, value


FLOORS = {"infer_mlp": lambda: infer_mlp_floor(), "infer_gpt": lambda: infer_gpt_floor(_gelu_exact),
          "infer_gpt_tanh": lambda: infer_gpt_floor(_gelu_tanh)}


def child(which, steps, warmup):
    import npgrad  # noqa: F401 - imported first, as a user of npgrad would (its process settings)
    forward, expected = FLOORS[which]()
    got = float(np.abs(forward().astype(np.float64)).sum())
    tol = 1e-2 if which.endswith("tanh") else 1e-4
    if abs(got - expected) > tol * abs(expected):
        raise SystemExit(f"{which}: the floor's output {got} is not npgrad's {expected}")
    from benchmarks.isolated import median_step_time
    print(median_step_time(forward, steps, warmup))


def _run(args):
    out = subprocess.run([sys.executable, "-m"] + args, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child[0], int(args.child[1]), int(args.child[2]))
    import importlib.util
    has_torch = importlib.util.find_spec("torch") is not None
    rows = {"infer_mlp": ["infer_mlp"], "infer_gpt": ["infer_gpt", "infer_gpt_tanh"]}
    print(f"each alone in a fresh process; {args.rounds} rounds x {args.steps} steps; medians in us; "
          f"ratios to PyTorch (2 threads)")
    print("| workload | NumPy floor | npgrad | PyTorch | floor/PyTorch | npgrad/PyTorch |\n|---|---|---|---|---|---|")
    for workload, floors in rows.items():
        got = {k: [] for k in floors + ["npgrad", "torch"]}
        for _ in range(args.rounds):
            for f in floors:
                got[f].append(_run(["benchmarks.numpy_floor", "--child", f, str(args.steps), "20"]))
            for lib in ("npgrad", "torch") if has_torch else ("npgrad",):
                got[lib].append(_run(["benchmarks.isolated", "--child", lib, workload, str(args.steps), "20", "2"]))
        med = {k: statistics.median(v) * 1e6 if v else float("nan") for k, v in got.items()}
        for f in floors:
            print(f"| {f} | {med[f]:.0f} | {med['npgrad']:.0f} | {med['torch']:.0f} | "
                  f"{med[f] / med['torch']:.2f} | {med['npgrad'] / med['torch']:.2f} |")


if __name__ == "__main__":
    main()
