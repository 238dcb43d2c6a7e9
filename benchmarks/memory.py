"""Peak resident memory of a workload, measured in a fresh process that imports one framework only.

    python -m benchmarks.memory npgrad mlp 20
prints the peak RSS in MiB after running that many steps.
"""
import importlib
import resource
import sys


def main(framework, workload, steps):
    lib = importlib.import_module(framework)
    if framework == "torch":
        import os
        lib.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
    from benchmarks import models
    builder = getattr(models, workload)
    _, step = builder(lib)
    for _ in range(steps):
        step()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(f"{peak_kib / 1024:.1f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
