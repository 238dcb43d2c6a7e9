"""What the compiled kernels cost at start-up: ``python -m benchmarks.kernels_startup``.

Runs, in fresh processes sharing one empty numba cache directory, a forward and backward through every op the
kernels cover (float32 and float64): the first process compiles everything and writes the cache (the first-use
cost a user pays once), the next ones load it (the warm start every later process pays). Each line: the time to
``import npgrad``, then the time of the first covered op (numba's import included), then of all the rest.
"""
import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import time
t0 = time.perf_counter()
import numpy as np
import npgrad
from npgrad.nn import functional as F
t1 = time.perf_counter()
x = npgrad.randn(64, 128, requires_grad=True)
F.gelu(x).sum().backward()
t2 = time.perf_counter()
for dt in (npgrad.float32, npgrad.float64):
    x = npgrad.randn(64, 128, dtype=dt, requires_grad=True)
    w = npgrad.randn(128, dtype=dt, requires_grad=True)
    lw = npgrad.randn(32, 128, dtype=dt, requires_grad=True)
    for y in (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.softmax(x, -1), F.log_softmax(x, -1),
              F.layer_norm(x, (128,), w, w), F.rms_norm(x, (128,), w), F.linear(x, lw, w[:32]),
              F.cross_entropy(x, npgrad.tensor(np.arange(64))),
              F.scaled_dot_product_attention(*[x.reshape(2, 2, 16, 128)] * 3, is_causal=True)):
        y.sum().backward()
    for rnn in (npgrad.nn.LSTM(16, 32).to(dt), npgrad.nn.GRU(16, 32).to(dt)):
        rnn(npgrad.randn(5, 3, 16, dtype=dt))[0].sum().backward()
t3 = time.perf_counter()
print(f"{(t1 - t0) * 1e3:.0f} {(t2 - t1) * 1e3:.0f} {(t3 - t2) * 1e3:.0f} {npgrad.kernels.status()}")
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warm", type=int, default=3, help="warm-start processes after the compiling one")
    args = ap.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        print("| process | import npgrad (ms) | first covered op, numba's import included (ms) | "
              "every other kernel, float32 and float64 (ms) |\n|---|---|---|---|")
        for i in range(1 + args.warm):
            out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, cwd=root,
                                 check=True).stdout.split(maxsplit=3)
            print(f"| {'first (compiles, fills the cache)' if i == 0 else f'warm {i} (loads the cache)'} | "
                  f"{out[0]} | {out[1]} | {out[2]} |")
        print(f"\nkernels: {out[3].strip()}")


if __name__ == "__main__":
    main()
