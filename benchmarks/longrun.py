"""Long-run stability: does memory stay flat over thousands of training steps?

    python -m benchmarks.longrun                     # 10,000 steps with each optimizer, a table
    python -m benchmarks.longrun --steps 2000 --optimizer adam --json

A small but complete training loop (nn.Sequential with Linear, LayerNorm, ReLU, Dropout; a shuffling
DataLoader; cross-entropy; gradient clipping; an optimizer with state; an LR scheduler) runs in this
process with the cycle collector OFF, so anything kept alive by a reference cycle accumulates instead of
being collected. Every ``--every`` steps it records:

* resident memory (RSS, from /proc/self/statm, or ru_maxrss where /proc is missing),
* the number of objects the garbage collector tracks (tensors, graph nodes, dicts, lists ...),
* whether the previous step's graph is gone (a weak reference to its loss's grad_fn).

Growth is measured from the first sample after warm-up (``--warmup`` steps) to the end. A leak of a
single small object per step shows as thousands of objects over 10,000 steps.
"""
import argparse
import collections
import gc
import json
import os
import resource
import sys
import time
import weakref

import numpy as np


def rss_mib():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:  # not Linux: the peak is the best available
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(npgrad, optimizer):
    nn = npgrad.nn
    npgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.LayerNorm(64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 10))
    params = model.parameters()
    opt = {"sgd": lambda: npgrad.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4),
           "adam": lambda: npgrad.optim.Adam(params, lr=1e-3),
           "adamw": lambda: npgrad.optim.AdamW(params, lr=1e-3),
           "rmsprop": lambda: npgrad.optim.RMSprop(params, lr=1e-3)}[optimizer]()
    sched = npgrad.optim.lr_scheduler.StepLR(opt, step_size=1000, gamma=0.9)
    x = npgrad.randn(512, 32)
    y = (x[:, :10] * 3).argmax(1)
    loader = npgrad.utils.data.DataLoader(npgrad.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)
    return model, opt, sched, loader


def run(steps=10_000, optimizer="adam", every=1000, warmup=200):
    """Train for ``steps`` steps with the cycle collector off; return the measurements."""
    import npgrad
    import npgrad.nn.functional as F
    model, opt, sched, loader = build(npgrad, optimizer)
    # only the first and last 50 losses: a list of every loss would itself grow by ~32 bytes a step
    samples, alive_graphs, first_losses, last_losses = [], 0, [], collections.deque(maxlen=50)
    step = 0
    gc.collect()
    gc.disable()
    start = time.perf_counter()
    try:
        while step < steps:
            for xb, yb in loader:
                opt.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                npgrad.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
                graph = weakref.ref(loss.grad_fn)
                (first_losses if len(first_losses) < 50 else last_losses).append(loss.item())
                del loss
                alive_graphs += graph() is not None  # only reference counting can have freed it
                step += 1
                if step == warmup or step % every == 0 or step == steps:
                    samples.append({"step": step, "rss_mib": round(rss_mib(), 2),
                                    "gc_objects": len(gc.get_objects())})
                if step == steps:
                    break
    finally:
        gc.enable()
    elapsed = time.perf_counter() - start
    base = next(s for s in samples if s["step"] >= warmup)
    last = samples[-1]
    return {"optimizer": optimizer, "steps": steps, "seconds": round(elapsed, 2),
            "first_loss": round(float(np.mean(first_losses)), 4), "last_loss": round(float(np.mean(last_losses)), 4),
            "rss_start_mib": base["rss_mib"], "rss_end_mib": last["rss_mib"],
            "rss_growth_mib": round(last["rss_mib"] - base["rss_mib"], 2),
            "objects_start": base["gc_objects"], "objects_end": last["gc_objects"],
            "objects_growth": last["gc_objects"] - base["gc_objects"],
            "graphs_alive_after_step": alive_graphs, "samples": samples}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--optimizer", default="all", choices=["all", "sgd", "adam", "adamw", "rmsprop"])
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print one JSON object per run")
    ap.add_argument("--plot", metavar="PNG", help="also draw RSS and tracked objects against step (needs matplotlib)")
    args = ap.parse_args(argv)
    opts = ["sgd", "adam", "adamw", "rmsprop"] if args.optimizer == "all" else [args.optimizer]
    if args.plot:
        try:
            import matplotlib
        except ImportError:
            raise SystemExit("--plot needs matplotlib: pip install matplotlib") from None
        matplotlib.use("Agg")  # no screen needed
    results = []
    if not args.json:
        print(f"{'optimizer':<9} {'steps':>6} {'time s':>7} {'loss':>15} {'RSS MiB start->end':>20} "
              f"{'objects start->end':>20} {'graphs alive':>12}")
    for opt in opts:
        r = run(args.steps, opt, args.every, args.warmup)
        results.append(r)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"{opt:<9} {r['steps']:>6} {r['seconds']:>7} {r['first_loss']:>7}->{r['last_loss']:<7} "
                  f"{r['rss_start_mib']:>9}->{r['rss_end_mib']:<9} {r['objects_start']:>9}->{r['objects_end']:<9} "
                  f"{r['graphs_alive_after_step']:>12}")
            print("          RSS by step: " + ", ".join(f"{s['step']}:{s['rss_mib']}" for s in r["samples"]))
    if args.plot:
        plot(results, args.plot)
    return 0


def plot(results, path):
    """Two panels sharing the step axis: resident memory and the collector's object count, one line each."""
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    for r in results:
        steps = [s["step"] for s in r["samples"]]
        top.plot(steps, [s["rss_mib"] for s in r["samples"]], marker=".", label=r["optimizer"])
        bottom.plot(steps, [s["gc_objects"] for s in r["samples"]], marker=".", label=r["optimizer"])
    top.set_ylabel("resident memory (MiB)")
    bottom.set_ylabel("objects tracked by gc")
    bottom.set_xlabel("training step (cycle collector off)")
    top.set_ylim(bottom=0)
    bottom.set_ylim(bottom=0)
    top.legend(ncol=len(results), fontsize="small", loc="lower right")  # the lines run near the top
    top.set_title("npgrad: memory over a long training run")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
