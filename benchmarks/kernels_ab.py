"""npgrad's step with the compiled kernels on against off, in ONE process: ``python -m benchmarks.kernels_ab [W...]``.

The switch (``npgrad.backends.kernels.enabled``) is flipped between alternating timing rounds of the same model,
so a slow phase of a shared host hits both settings alike (``benchmarks.isolated`` compares against PyTorch, in
separate processes, and on a loaded 2-core VM PyTorch's spinning OpenMP threads swing its times by 2-10x). The
ratio is the median over rounds of on/off (below 1: the kernels are faster).
"""
import argparse
import statistics


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workloads", nargs="*",
                    default=["gpt", "infer_gpt", "mlp", "cnn", "resnet", "lstm", "overhead"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    args = ap.parse_args(argv)
    import npgrad
    from benchmarks import models
    from benchmarks.isolated import median_step_time
    from benchmarks.run import blas_info
    print(f"npgrad alone, kernels on and off alternating in one process; {args.rounds} rounds x {args.steps} steps; "
          f"BLAS {blas_info()[0]}, {blas_info()[1]} threads; {npgrad.kernels.status()}")
    print("| workload | kernels off | kernels on | on/off (median of rounds) | best on / best off |\n|---|---|---|---|---|")
    for w in args.workloads:
        _, step = getattr(models, w)(npgrad)
        times = {True: [], False: []}
        for r in range(args.rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                npgrad.backends.kernels.enabled = on
                times[on].append(median_step_time(step, args.steps, args.warmup))
        npgrad.backends.kernels.enabled = True
        ratios = [a / b for a, b in zip(times[True], times[False])]
        off, on = statistics.median(times[False]), statistics.median(times[True])
        print(f"| {w} | {off * 1e3:.2f} ms | {on * 1e3:.2f} ms | {statistics.median(ratios):.2f} | "
              f"{min(times[True]) / min(times[False]):.2f} |", flush=True)


if __name__ == "__main__":
    main()
