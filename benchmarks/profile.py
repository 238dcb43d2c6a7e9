"""Where a workload's time goes in npgrad: ``python -m benchmarks.profile WORKLOAD [--steps 10]``.

Builds the workload from benchmarks/models.py with npgrad, runs one untimed warm-up step (first-use
costs such as lazy imports and buffer allocation), then profiles ``--steps`` steps with cProfile and
prints the top entries, by default sorted by own time (``tottime``: time inside the function itself,
which is where NumPy kernels and Python overhead show up), with the total per step.
"""
import argparse
import cProfile
import io
import pstats
import time

from benchmarks import models

WORKLOADS = ("overhead", "mlp", "cnn", "gpt", "resnet", "infer_mlp", "infer_gpt", "lstm", "deep", "residual")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workload", choices=WORKLOADS)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--top", type=int, default=25, help="how many entries to print")
    ap.add_argument("--sort", default="tottime", choices=["tottime", "cumulative", "ncalls"])
    args = ap.parse_args(argv)
    import npgrad
    _, step = getattr(models, args.workload)(npgrad)
    step()  # warm-up, not profiled
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    plain = (time.perf_counter() - t0) / args.steps
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.steps):
        step()
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(args.sort)
    stats.print_stats(args.top)
    print(f"{args.workload}: {args.steps} steps, {plain * 1e3:.2f} ms/step unprofiled, "
          f"{stats.total_tt / args.steps * 1e3:.2f} ms/step under cProfile (its per-call cost inflates "
          f"Python-heavy code); top {args.top} by {args.sort}:")
    print(buf.getvalue())


if __name__ == "__main__":
    main()
