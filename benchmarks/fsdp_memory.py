"""Per-rank memory of sharded training: ``python -m benchmarks.fsdp_memory`` (needs mpi4py and mpiexec).

Trains a float32 MLP of ``--layers`` Linear(width, width) layers (default 8 x 2560: 52.5 M parameters) with
AdamW under FullyShardedDataParallel(FULL_SHARD, one unit per Linear) on 1, 2 and 3 processes (on one
process FSDP is NO_SHARD, i.e. plain training) and reports, per rank:

- model state: bytes of the live parameter shards + their gradients + AdamW's state (exp_avg, exp_avg_sq),
  counted from the arrays after a step; this is what falls as 1/N;
- gathered peak: the most bytes of full (unsharded) parameters resident at once during a step (FSDP's
  transient cost: about one or two units);
- traced peak: tracemalloc's peak over the measured steps (NumPy reports its allocations to it: shards,
  gradients, optimizer state, activations and the temporaries of the gradient reduce-scatter; not the
  gathered parameters, which live in their own mapping);
- peak RSS: the process's high-water mark over the measured steps (VmHWM, reset before them), everything;
- step time, the part of it spent in the all-gathers and reduce-scatters (this includes waiting for the
  slower rank to reach them), and the same all-gathers timed alone (after a barrier each).

``python -m benchmarks.distributed_scaling --fsdp-memory`` prints the same table.
"""
import argparse
import ctypes
import gc
import json
import os
import shutil
import subprocess
import sys
import time
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 2 ** 20


def _rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _trim():
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass


def worker(layers, width, batch, steps, strategy="FULL_SHARD"):
    import npgrad
    import npgrad.distributed as dist
    import npgrad.nn as nn
    from npgrad.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
    from npgrad.distributed.fsdp import _units
    from npgrad.distributed.fsdp.wrap import ModuleWrapPolicy
    from mpi4py import MPI  # optional

    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    npgrad.manual_seed(0)
    body = []
    for _ in range(layers):
        body += [nn.Linear(width, width), nn.Tanh()]
    model = nn.Sequential(*body)
    n_params = sum(p.numel() for p in model.parameters())
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one process: FSDP says it switches to NO_SHARD
        fsdp = FSDP(model, sharding_strategy=ShardingStrategy[strategy],
                    auto_wrap_policy=ModuleWrapPolicy({nn.Linear}))
    del model, body
    opt = npgrad.optim.AdamW(fsdp.parameters(), lr=1e-4)
    rng = np.random.default_rng(rank)
    x = npgrad.tensor(rng.standard_normal((batch, width)).astype(np.float32))

    def step():
        opt.zero_grad(set_to_none=False)
        fsdp(x).square().mean().backward()
        opt.step()

    step()  # creates the gradients and the optimizer state
    _trim()
    comm.Barrier()
    with open("/proc/self/clear_refs", "w") as f:  # reset VmHWM to the current RSS
        f.write("5")
    rss_before = _rss_kb("VmRSS")
    _units.STATS.update(peak=_units.STATS["live"], gather_s=0.0, reduce_s=0.0)
    tracemalloc.start()
    tracemalloc.reset_peak()
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = time.perf_counter() - t0
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    shards = [p for p in fsdp.parameters()]
    state = sum(v._data.nbytes for st in opt.state.values() for v in st.values()
                if isinstance(v, npgrad.Tensor) and v.ndim > 0)
    mine = dict(params=sum(p._data.nbytes for p in shards), grads=sum(p.grad._data.nbytes for p in shards),
                adam=state, gathered_peak=_units.STATS["peak"], traced_peak=traced_peak,
                rss_peak=_rss_kb("VmHWM") * 1024, rss_before=rss_before * 1024,
                step_s=seconds / steps, gather_s=_units.STATS["gather_s"] / steps,
                reduce_s=_units.STATS["reduce_s"] / steps)
    # The same all-gathers on their own, each after a barrier (no rank's compute in the way): what moving
    # the parameters costs when no rank waits for another. FULL_SHARD gathers every unit twice per step
    # (forward, backward), SHARD_GRAD_OP once.
    units = [m._unit for m in FSDP.fsdp_modules(fsdp) if m._unit is not None and m._unit.sharded]
    alone = 0.0
    for u in units:
        u.release()
        comm.Barrier()
        t = time.perf_counter()
        u.gather()
        alone += time.perf_counter() - t
        u.release()
    mine["gather_alone_s"] = (2 if strategy == "FULL_SHARD" else 1) * alone
    every = comm.gather(mine, root=0)
    if rank == 0:
        print("RESULT " + json.dumps({"processes": world, "parameters": n_params, "ranks": every}), flush=True)


def _launch(nproc, args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "src"), ROOT, env.get("PYTHONPATH", "")])
    cmd = [shutil.which("mpiexec"), "-n", str(nproc), sys.executable, "-m", "mpi4py", "-m", "benchmarks.fsdp_memory",
           "--worker", "--layers", str(args.layers), "--width", str(args.width), "--batch", str(args.batch),
           "--steps", str(args.steps), "--strategy", getattr(args, "strategy", "FULL_SHARD")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=1200)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode or not lines:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[0][7:])


def table(results):
    """The markdown table (one row per world size: the largest rank's numbers, which bound the job)."""
    out = ["| processes | parameters | model state per rank (params + grads + AdamW) | of 1 process | "
           "gathered peak | transient (traced) peak | peak RSS | step s | in all-gathers s | all-gathers alone s | "
           "in reduce-scatters s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    base = None
    for r in results:
        ranks = r["ranks"]
        state = max(x["params"] + x["grads"] + x["adam"] for x in ranks)
        base = base or state
        worst = {k: max(x[k] for x in ranks) for k in ranks[0]}
        out.append(f"| {r['processes']} | {r['parameters'] / 1e6:.1f} M | {state / MB:.0f} MB "
                   f"({worst['params'] / MB:.0f} + {worst['grads'] / MB:.0f} + {worst['adam'] / MB:.0f}) | "
                   f"{state / base:.2f} | {worst['gathered_peak'] / MB:.0f} MB | {worst['traced_peak'] / MB:.0f} MB | "
                   f"{worst['rss_peak'] / MB:.0f} MB | {worst['step_s']:.2f} | {worst['gather_s']:.2f} | "
                   f"{worst['gather_alone_s']:.2f} | {worst['reduce_s']:.2f} |")
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--nproc", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--width", type=int, default=2560)
    p.add_argument("--batch", type=int, default=8, help="samples per process")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--strategy", default="FULL_SHARD", choices=["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"])
    args = p.parse_args(argv)
    if args.worker:
        worker(args.layers, args.width, args.batch, args.steps, args.strategy)
        return
    if shutil.which("mpiexec") is None:
        raise SystemExit("benchmarks.fsdp_memory needs mpiexec (pip install mpi4py mpich)")
    print(f"{os.cpu_count()} cores, 1 BLAS thread per process, {args.strategy}, one unit per Linear, AdamW, "
          f"batch {args.batch} per process, {args.steps} steps measured after one")
    print(table([_launch(n, args) for n in args.nproc]), flush=True)


if __name__ == "__main__":
    main()
