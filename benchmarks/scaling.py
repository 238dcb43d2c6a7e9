"""How npgrad's cost against PyTorch's changes with problem size: ``python -m benchmarks.scaling``.

Three sweeps, each timing one training step (forward, backward, SGD update) at a range of sizes:

- ``width``: an MLP ``width -> width -> ReLU -> 10`` on a batch of 64, width 64 to 4096;
- ``batch``: the benchmark MLP (784-512-256-10) at batch 1 to 1024;
- ``channels``: conv3x3(3 -> C) - ReLU - conv3x3(C -> C) - ReLU - global mean - Linear(C, 10) on a batch
  of 8 images 16x16, C = 8 to 256.

Each framework runs alone in its own fresh process that imports only that framework (no BLAS/OpenMP
threads of the other one spinning beside it), one process per framework per round, all sizes of all
sweeps in it; the rounds alternate which framework goes first. BLAS threads are pinned with
OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS and ``torch.set_num_threads`` (``--threads``,
default 1: the ratio then compares the frameworks' code and kernels, not how many cores each manages to
use). A round's time for a size is its fastest step (after a warm-up step, at least ``--min-time``
seconds of steps: the step least disturbed by other work on the machine); the CSV has the median of
that over rounds, and the ratio is the median over rounds of npgrad/PyTorch. Both frameworks start from the same
weights and data and their step-0 losses are checked equal.

Writes a CSV (default benchmarks/scaling.csv; the lines starting with ``#`` are notes: machine, threads,
load) and, when matplotlib is installed, a PNG of the ratio against size, one panel per sweep (default
docs/img/scaling.png). ``--quick`` runs few sizes and one round, for a smoke test.
"""
import argparse
import csv
import datetime
import importlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWEEPS = {  # name: (x-axis label, default sizes)
    "width": ("MLP width (batch 64)", [64, 128, 256, 512, 1024, 2048, 4096]),
    "batch": ("batch size (MLP 784-512-256-10)", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]),
    "channels": ("conv channels (2 conv3x3, batch 8, 16x16)", [8, 16, 32, 64, 128, 256]),
}
QUICK = {"width": [64, 512, 2048], "batch": [1, 32, 1024], "channels": [8, 64, 256]}
COLUMNS = ["sweep", "size", "npgrad_s", "torch_s", "ratio", "loss0"]


# -- the workloads, written once against PyTorch's API ---------------------------------------------------

def _init(lib, model, seed):
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in model.parameters():
            a = rng.uniform(-1, 1, tuple(p.shape)) / np.sqrt(max(1, p[0].numel() if p.dim() > 1 else p.shape[0]))
            p.copy_(lib.tensor(a.astype(np.float32)))


def _train_step(lib, model, x, y):
    opt = lib.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def build(lib, sweep, size):
    nn = lib.nn
    rng = np.random.default_rng(size)
    if sweep == "width":
        model, x = nn.Sequential(nn.Linear(size, size), nn.ReLU(), nn.Linear(size, 10)), rng.standard_normal((64, size))
    elif sweep == "batch":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
        x = rng.standard_normal((size, 784))
    elif sweep == "channels":
        model = nn.Sequential(nn.Conv2d(3, size, 3, padding=1), nn.ReLU(), nn.Conv2d(size, size, 3, padding=1),
                              nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(size, 10))
        x = rng.standard_normal((8, 3, 16, 16))
    else:
        raise ValueError(f"unknown sweep {sweep!r}")
    _init(lib, model, 0)
    y = lib.tensor(rng.integers(0, 10, x.shape[0]))
    return _train_step(lib, model, lib.tensor(x.astype(np.float32)), y)


# -- one framework's process -----------------------------------------------------------------------------

def child(framework, plan, min_time, max_steps, threads):
    lib = importlib.import_module(framework)
    if framework == "torch":
        lib.set_num_threads(threads)
    out = {}
    for sweep, sizes in plan.items():
        for size in sizes:
            step = build(lib, sweep, size)
            loss0 = float(step().item())  # also the warm-up step
            times, t_end = [], time.perf_counter() + min_time
            while len(times) < 3 or (time.perf_counter() < t_end and len(times) < max_steps):
                t0 = time.perf_counter()
                step()
                times.append(time.perf_counter() - t0)
            # The best step, not the median: on a shared machine other processes' work lands in some
            # steps (seen here: 3 to 13 ms for the same 3 ms conv step at load 5 on 2 cores), and the
            # fastest step is the one least disturbed, for both frameworks alike.
            out[f"{sweep}:{size}"] = [loss0, min(times)]
    print(json.dumps(out))


def _run_child(framework, plan, args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.threads), OMP_NUM_THREADS=str(args.threads),
               MKL_NUM_THREADS=str(args.threads))
    out = subprocess.run([sys.executable, "-m", "benchmarks.scaling", "--child", framework, json.dumps(plan),
                          str(args.min_time), str(args.max_steps), str(args.threads)],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    if out.returncode:
        raise SystemExit(f"{framework} child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the parent: rounds, the CSV, the picture --------------------------------------------------------------

def _sizes(text):
    return [int(v) for v in text.split(",") if v]


def _notes(args, started, seconds):
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    import torch  # noqa: F401 - for its version only; the parent times nothing
    return [
        f"npgrad/PyTorch step-time ratio by size; python -m benchmarks.scaling {' '.join(args.argv)}".rstrip(),
        f"started {started} UTC, took {seconds:.0f} s; {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, NumPy {np.__version__}, PyTorch {torch.__version__}",
        f"each framework alone in a fresh process, {args.rounds} round(s) alternating order; {args.threads} BLAS "
        f"thread(s) (OPENBLAS/OMP/MKL_NUM_THREADS, torch.set_num_threads); fastest of >= {args.min_time} s of "
        "steps per size and round; times in seconds, ratio = median over rounds of npgrad/PyTorch",
        "load average (1/5/15 min) at the end: " + (" ".join(f"{v:.1f}" for v in load) if load else "unknown")
        + " -- a load above the core count means other work shared the CPU while this ran",
    ]


def plot(rows, path, title):
    try:
        import matplotlib  # optional
    except ImportError:
        print("matplotlib is not installed: wrote the CSV only (pip install matplotlib for the picture)")
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional
    from matplotlib.ticker import FuncFormatter, NullFormatter  # optional
    sweeps = [s for s in SWEEPS if any(r["sweep"] == s for r in rows)]
    fig, axes = plt.subplots(1, len(sweeps), figsize=(4.6 * len(sweeps), 4.0), squeeze=False)
    ratios = [r["ratio"] for r in rows]
    lo, hi = min(min(ratios), 0.5) / 1.15, max(max(ratios), 2.0) * 1.15
    for ax, sweep in zip(axes[0], sweeps):
        pts = sorted((r["size"], r["ratio"], r.get("torch_s", 0.0)) for r in rows if r["sweep"] == sweep)
        ax.axhspan(lo, 1.0, color="tab:green", alpha=0.08)
        ax.axhline(1.0, color="black", lw=1)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color="tab:blue")
        label = SWEEPS[sweep][0]
        if len(pts) > 1 and pts[0][2]:
            # PyTorch's own step time at the ends of the sweep: which regime (overhead or BLAS) a size is in.
            label += f"\nPyTorch step: {pts[0][2] * 1e3:.3g} ms at {pts[0][0]}, {pts[-1][2] * 1e3:.3g} ms at {pts[-1][0]}"
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_yticks([t for t in (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8) if lo <= t <= hi])
        ax.set_xlabel(label)
        ax.grid(True, which="major", alpha=0.3)
        ax.text(0.03, 0.04, "npgrad faster", transform=ax.transAxes, color="tab:green", fontsize=9)
        ax.text(0.03, 0.93, "PyTorch faster", transform=ax.transAxes, color="gray", fontsize=9)
    axes[0][0].set_ylabel("npgrad time / PyTorch time (one training step)")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweeps", default=",".join(SWEEPS), help="comma-separated subset of: " + ", ".join(SWEEPS))
    for name in SWEEPS:
        ap.add_argument(f"--{name}", type=_sizes, metavar="N,N,...", help=f"sizes of the {name} sweep")
    ap.add_argument("--quick", action="store_true", help="3 sizes per sweep, 1 round, short timing")
    ap.add_argument("--rounds", type=int, help="processes per framework, alternating order (default 3; quick 1)")
    ap.add_argument("--min-time", type=float, help="seconds of timed steps per size (default 0.5; quick 0.05)")
    ap.add_argument("--max-steps", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for both frameworks (default 1)")
    ap.add_argument("--csv", default=os.path.join(ROOT, "benchmarks", "scaling.csv"))
    ap.add_argument("--png", default=os.path.join(ROOT, "docs", "img", "scaling.png"))
    args = ap.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)
    if importlib.util.find_spec("torch") is None:
        print("PyTorch is not installed: the scaling sweep measures npgrad against PyTorch, so there is "
              "nothing to compare (pip install torch). Nothing written.")
        return 0
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.min_time = args.min_time if args.min_time is not None else (0.05 if args.quick else 0.5)
    plan = {}
    for name in args.sweeps.split(","):
        if name not in SWEEPS:
            ap.error(f"unknown sweep {name!r} (choose from {', '.join(SWEEPS)})")
        plan[name] = getattr(args, name) or (QUICK if args.quick else {k: v[1] for k, v in SWEEPS.items()})[name]

    started, t0 = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), time.perf_counter()
    per_round = []
    for r in range(args.rounds):
        order = ["npgrad", "torch"] if r % 2 == 0 else ["torch", "npgrad"]
        per_round.append({f: _run_child(f, plan, args) for f in order})
        print(f"round {r + 1}/{args.rounds} done", flush=True)

    rows = []
    for sweep, sizes in plan.items():
        for size in sizes:
            key = f"{sweep}:{size}"
            (ln, _), (lt, _) = per_round[0]["npgrad"][key], per_round[0]["torch"][key]
            if abs(ln - lt) > 1e-4 * abs(lt) + 1e-5:
                raise AssertionError(f"{key}: step-0 loss differs: npgrad {ln} vs torch {lt}")
            tn = [res["npgrad"][key][1] for res in per_round]
            tt = [res["torch"][key][1] for res in per_round]
            rows.append({"sweep": sweep, "size": size, "npgrad_s": statistics.median(tn),
                         "torch_s": statistics.median(tt),
                         "ratio": statistics.median(a / b for a, b in zip(tn, tt)), "loss0": ln})
    notes = _notes(args, started, time.perf_counter() - t0)

    os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
    with open(args.csv, "w", newline="", encoding="utf-8") as f:
        f.writelines(f"# {n}\n" for n in notes)
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r["sweep"], r["size"], f"{r['npgrad_s']:.6g}", f"{r['torch_s']:.6g}", f"{r['ratio']:.3f}",
                        f"{r['loss0']:.6g}"])
    print("\n".join(notes))
    print(f"| sweep | size | npgrad | PyTorch | npgrad/PyTorch |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['sweep']} | {r['size']} | {r['npgrad_s'] * 1e3:.3f} ms | {r['torch_s'] * 1e3:.3f} ms | "
              f"{r['ratio']:.2f} |")
    print(f"wrote {args.csv}")
    title = (f"npgrad vs PyTorch on CPU, one training step, by problem size "
             f"({args.threads} BLAS thread{'s' if args.threads > 1 else ''}, each framework alone)")
    if plot(rows, args.png, title):
        print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        sys.exit(main())
