"""The ops the compiled kernels cover, one at a time at the gpt workload's sizes: ``python -m benchmarks.kernels_ops``.

For each op, forward + backward (and the forward under no_grad) through npgrad with the kernels off (the NumPy
path), with them on, and through PyTorch (``--threads`` threads), in one process, each timed best of ``--repeats``
calls, the three alternating so noise falls on all alike. Milliseconds per call (wall clock, or with ``--cpu-time``
the process's CPU time).
"""
import argparse
import time

import numpy as np


def _cases(lib, F):
    rng = np.random.default_rng(0)

    def t(shape, grad=True):
        return lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=grad)
    act, ln_x, sc, logits = t((32, 64, 512)), t((32, 64, 128)), t((32, 4, 64, 64)), t((2048, 65))
    w, b = t((128,)), t((128,))
    lin_x, lin_w, lin_b = t((2048, 128)), t((512, 128)), t((512,))
    target = lib.tensor(rng.integers(0, 65, 2048))
    q = t((32, 4, 64, 32))
    return [
        ("GELU 32x64x512", act, lambda: F.gelu(act)),
        ("tanh GELU 32x64x512", act, lambda: F.gelu(act, approximate="tanh")),
        ("SiLU 32x64x512", act, lambda: F.silu(act)),
        ("LayerNorm 32x64x128", ln_x, lambda: F.layer_norm(ln_x, (128,), w, b)),
        ("RMSNorm 32x64x128", ln_x, lambda: F.rms_norm(ln_x, (128,), w)),
        ("softmax 32x4x64x64", sc, lambda: F.softmax(sc, -1)),
        ("log_softmax 32x4x64x64", sc, lambda: F.log_softmax(sc, -1)),
        ("cross_entropy 2048x65", logits, lambda: F.cross_entropy(logits, target)),
        ("linear 2048x128 -> 512 (bias)", lin_x, lambda: F.linear(lin_x, lin_w, lin_b)),
        ("SDPA causal 32x4x64x32", q, lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True)),
    ]


def _best(fn, repeats, clock=time.perf_counter):
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best * 1e3


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cpu-time", action="store_true",
                    help="time with the process's CPU time (steadier on a loaded machine; fair with --threads 1 and "
                         "OPENBLAS_NUM_THREADS=1, since spinning worker threads count too)")
    args = ap.parse_args(argv)
    clock = time.process_time if args.cpu_time else time.perf_counter
    import npgrad
    frameworks = [("numpy", npgrad, npgrad.nn.functional), ("kernels", npgrad, npgrad.nn.functional)]
    try:
        import torch
        torch.set_num_threads(args.threads)
        frameworks.append(("torch", torch, torch.nn.functional))
    except ImportError:
        pass
    cases = {name: [c for c in _cases(lib, F)] for name, lib, F in frameworks}
    print("| op | fwd+bwd: NumPy path | kernels | PyTorch | no_grad fwd: NumPy path | kernels | PyTorch |\n"
          "|---|---|---|---|---|---|---|")
    for i in range(len(cases["numpy"])):
        row = {}
        for _ in range(2):  # two passes: the first compiles/loads and warms caches
            for name, lib, _F in frameworks:
                label, x, fn = cases[name][i]
                if lib is npgrad:
                    npgrad.backends.kernels.enabled = name == "kernels"

                y0 = fn()  # the upstream gradient: a dense random array, as a real backward hands down
                up = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y0.shape)).astype(np.float32))

                def train():
                    x.grad = None
                    y = fn()
                    y.backward(up)

                def infer():
                    with lib.no_grad():
                        fn()
                row[name] = (_best(train, args.repeats, clock), _best(infer, args.repeats, clock))
        cells = [f"{row[n][0]:.2f}" for n, _, _ in frameworks] + [f"{row[n][1]:.2f}" for n, _, _ in frameworks]
        print(f"| {label} | " + " | ".join(cells) + " |")
    npgrad.backends.kernels.enabled = True


if __name__ == "__main__":
    main()
