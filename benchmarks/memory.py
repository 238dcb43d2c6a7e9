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
    print(f"{peak_kib() / 1024:.1f}")


def peak_kib():
    # VmHWM is this process image's own high-water mark. ru_maxrss is not: on Linux it keeps the
    # parent's resident size from before exec (the benchmark parent has torch loaded), so it can't be used.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
