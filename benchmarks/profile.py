"""Where a workload's time goes in npgrad: ``python -m benchmarks.profile WORKLOAD [--steps 10]``.

Builds the workload from benchmarks/models.py with npgrad, runs one untimed warm-up step (first-use
costs such as lazy imports and buffer allocation), then profiles ``--steps`` steps with cProfile and
prints the top entries, by default sorted by own time (``tottime``: time inside the function itself,
which is where NumPy kernels and Python overhead show up), with the total per step.

``--ops`` instead times each operator and backward node with the framework's own profiler
(``npgrad.profiler`` or, with ``--framework torch``, PyTorch's, on ``--threads`` threads) and prints a
markdown table of the operators taking the most time per step: the two frameworks side by side, op by op.
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
    ap.add_argument("--ops", action="store_true", help="per-operator self time with the framework's profiler")
    ap.add_argument("--framework", default="npgrad", choices=["npgrad", "torch"])
    ap.add_argument("--threads", type=int, default=2, help="PyTorch's threads (--ops --framework torch)")
    args = ap.parse_args(argv)
    if args.ops:
        return ops_table(args)
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


def ops_table(args):
    import importlib
    lib = importlib.import_module(args.framework)
    if args.framework == "torch":
        lib.set_num_threads(args.threads)
    _, step = getattr(models, args.workload)(lib)
    for _ in range(3):  # warm-up, not profiled
        step()
    with lib.profiler.profile() as prof:
        for _ in range(args.steps):
            step()
    rows = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)
    total = sum(e.self_cpu_time_total for e in rows) / args.steps / 1e3
    print(f"{args.framework} `{args.workload}`: {total:.2f} ms/step of operator self time over {args.steps} steps")
    print("\n| operator | calls/step | self ms/step | share |\n|---|---|---|---|")
    for e in rows[:args.top]:
        ms = e.self_cpu_time_total / args.steps / 1e3
        print(f"| {e.key} | {e.count / args.steps:g} | {ms:.2f} | {ms / total:.0%} |")


if __name__ == "__main__":
    main()
