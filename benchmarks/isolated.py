"""Each framework timed alone, in its own fresh process: ``python -m benchmarks.isolated [workloads]``.

The main table (``benchmarks.run``) interleaves npgrad and PyTorch steps in one process, as the
performance issue asks, so machine noise hits both alike. Its cost: both frameworks' BLAS/OpenMP worker
threads live in that process and keep spinning after their own step, taking cycles from the other's
(on 2 cores this slowed PyTorch's LeNet step from ~10-15 ms alone to ~22 ms interleaved). This runner
removes that: every (framework, workload) runs in a new process that imports one framework only, and
the processes alternate over several rounds; the ratio is the median of the per-round ratios. The
step-0 losses of the two frameworks are checked equal, as in the main table.

``best/best`` is each framework's fastest round over the other's: on a shared VM whose host moves a
workload's time by 20-100% between runs, noise only ever adds time, so the minimum is the steadier
estimate of what the code itself costs. The ``met`` column still reads the median ratio.
"""
import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time


def child(framework, workload, steps, warmup, threads):
    lib = importlib.import_module(framework)
    if framework == "torch":
        lib.set_num_threads(threads)
    from benchmarks import models
    _, step = getattr(models, workload)(lib)
    loss0 = models.check_value(step())
    print(loss0, median_step_time(step, steps, warmup))


def median_step_time(step, steps, warmup):
    """The median of ``steps`` timed calls of ``step()`` after ``warmup`` untimed ones (benchmarks.numpy_floor's
    children time their NumPy forwards with it too)."""
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _run_child(framework, workload, steps, warmup, threads):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-m", "benchmarks.isolated", "--child", framework, workload, str(steps),
                          str(warmup), str(threads)], capture_output=True, text=True, cwd=root, check=True)
    loss0, median = out.stdout.split()[-2:]
    return float(loss0), float(median)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workloads", nargs="*", default=["overhead", "mlp", "cnn", "gpt", "resnet", "infer_mlp", "infer_gpt"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args(argv)
    from benchmarks.run import TARGETS, blas_info, fmt_time
    from benchmarks.models import OVERHEAD_OPS
    blas, threads = blas_info()
    import importlib.util
    frameworks = ["npgrad"] + (["torch"] if importlib.util.find_spec("torch") else [])
    print(f"each framework alone in a fresh process; {args.rounds} rounds x {args.steps} steps; BLAS {blas}, "
          f"{threads} threads (torch.set_num_threads({threads}))")
    print("| workload | npgrad | PyTorch | npgrad/PyTorch | best/best | target | met |\n"
          "|---|---|---|---|---|---|---|")
    for w in args.workloads:
        tn, tt, ratios = [], [], []
        for r in range(args.rounds):
            order = frameworks if r % 2 == 0 else frameworks[::-1]
            res = {f: _run_child(f, w, args.steps, args.warmup, threads) for f in order}
            ln, n = res["npgrad"]
            tn.append(n)
            if "torch" in res:
                lt, t = res["torch"]
                if abs(ln - lt) > 1e-4 * abs(lt) + 1e-5:
                    raise AssertionError(f"{w}: step-0 loss differs: npgrad {ln} vs torch {lt}")
                tt.append(t)
                ratios.append(n / t)
        unit = (lambda s: f"{s / OVERHEAD_OPS * 1e6:.2f} us/op") if w == "overhead" else fmt_time
        if not ratios:  # PyTorch not installed: npgrad's times alone
            print(f"| {w} | {unit(statistics.median(tn))} |  |  |  |  |  |", flush=True)
            continue
        ratio = statistics.median(ratios)
        target = TARGETS.get(w)
        print(f"| {w} | {unit(statistics.median(tn))} | {unit(statistics.median(tt))} | {ratio:.2f} | "
              f"{min(tn) / min(tt):.2f} | "
              f"{'' if target is None else f'<= {target}'} | "
              f"{'' if target is None else ('yes' if ratio <= target else 'no')} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        main()
