"""Data-parallel scaling on MPI: ``python -m benchmarks.distributed_scaling`` (needs mpi4py and mpiexec).

For the MLP and CNN training steps of benchmarks/models.py, runs the step on 1 process (plain npgrad, no
DDP) and on 2 processes (DistributedDataParallel, one BLAS thread per process, each process its own
batch of the same size: the usual data-parallel setting, in which the job's samples/s should double),
and reports samples/s, the speed-up, the time per step backward spent waiting on communication (the
allreduces not yet finished when backward ends; this includes waiting for the slower process to reach
them), the time the same allreduces take on their own, the overlap: the fraction of that allreduce time
hidden behind backward (1 - wait / allreduce alone), the same with the wait of the process that reached the
end of backward last (per step the smaller of the two waits: the communication left over, without the
time one process waits for the other to arrive), and the share of the gradient bytes whose allreduce had
already completed when backward ended. ``--progress hooks`` turns DDP's MPI progress thread off (only
the gradient hooks' tests then move the allreduces) to compare the two.
``--scaling strong`` keeps the job's batch fixed instead (each of P processes takes batch / P).
``--fsdp-memory`` prints the sharded-training memory table of ``benchmarks.fsdp_memory`` instead.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = {"mlp": 128, "cnn": 64}


def _build(name, batch, rank):
    import npgrad
    from benchmarks import models
    model, _ = getattr(models, name)(npgrad, batch=batch)  # the benchmark's architecture and weights
    rng = np.random.default_rng(100 + rank)  # every process its own samples
    shape = (batch, 784) if name == "mlp" else (batch, 1, 28, 28)
    x = npgrad.tensor(rng.standard_normal(shape).astype(np.float32))
    y = npgrad.tensor(rng.integers(0, 10, batch))
    return model, x, y


def worker(name, steps, warmup, scaling, bucket_cap_mb, progress):
    import npgrad
    import npgrad.distributed as dist
    from npgrad.nn.parallel import DistributedDataParallel
    from npgrad.nn.parallel import distributed as ddp_module
    from mpi4py import MPI  # optional

    ddp_module._PROGRESS_THREAD = progress == "thread"

    world = MPI.COMM_WORLD.Get_size()
    if world > 1:
        dist.init_process_group("mpi")
    rank = MPI.COMM_WORLD.Get_rank()
    batch = BATCH[name] // world if scaling == "strong" else BATCH[name]
    model, x, y = _build(name, batch, rank)
    net = DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb) if world > 1 else model
    opt = (npgrad.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if name == "mlp"
           else npgrad.optim.Adam(model.parameters(), lr=1e-3))

    def step():
        opt.zero_grad()
        npgrad.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()

    for _ in range(warmup):
        step()
    MPI.COMM_WORLD.Barrier()
    if world > 1:
        net._wait_seconds = 0.0
        net._hidden_bytes = net._reduced_bytes = 0
    waits = []
    t0 = time.perf_counter()
    for _ in range(steps):
        before = net._wait_seconds if world > 1 else 0.0
        step()
        waits.append((net._wait_seconds if world > 1 else 0.0) - before)
    seconds = MPI.COMM_WORLD.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    result = {"workload": name, "processes": world, "batch_per_process": batch,
              "samples_per_s": batch * world * steps / seconds, "step_ms": 1e3 * seconds / steps}
    if world > 1:
        wait = MPI.COMM_WORLD.allreduce(net._wait_seconds, op=MPI.MAX) / steps
        # The rank that reaches the end of backward last waits only for what is left of the communication;
        # the others also wait for it to arrive. Per step, the smaller wait is the communication not hidden.
        every = MPI.COMM_WORLD.allgather(waits)
        last = float(np.mean(np.min(np.array(every), axis=0)))
        # The same allreduces, blocking and on their own (each after a barrier, so neither process's
        # backward is in the way): what communication costs when nothing hides it.
        flats = [b.flat for b in net._bucket_list]
        reps, alone = 20, 0.0
        for _ in range(reps):
            MPI.COMM_WORLD.Barrier()
            t = time.perf_counter()
            for f in flats:
                dist._group._State.world._comm.Allreduce(MPI.IN_PLACE, f)
            alone += time.perf_counter() - t
        alone = MPI.COMM_WORLD.allreduce(alone / reps, op=MPI.MAX)
        hidden = MPI.COMM_WORLD.allreduce(net._hidden_bytes / max(1, net._reduced_bytes), op=MPI.MIN)
        result.update(buckets=len(flats), grad_mb=sum(f.nbytes for f in flats) / 2 ** 20, wait_ms=1e3 * wait,
                      last_ms=1e3 * last, allreduce_ms=1e3 * alone,
                      overlap=max(0.0, 1.0 - wait / alone) if alone > 0 else 1.0,
                      overlap_last=max(0.0, 1.0 - last / alone) if alone > 0 else 1.0, hidden=hidden)
    if rank == 0:
        print("RESULT " + json.dumps(result), flush=True)


def _launch(name, nproc, steps, warmup, scaling, bucket_cap_mb, progress):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "src"), ROOT, env.get("PYTHONPATH", "")])
    cmd = [shutil.which("mpiexec"), "-n", str(nproc), sys.executable, "-m", "mpi4py", "-m",
           "benchmarks.distributed_scaling", "--worker", name, "--steps", str(steps), "--warmup", str(warmup),
           "--scaling", scaling, "--progress", progress] + ([] if bucket_cap_mb is None else ["--bucket-cap-mb", str(bucket_cap_mb)])
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode or not lines:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[0][7:])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--workloads", nargs="+", default=["mlp", "cnn"], choices=sorted(BATCH))
    p.add_argument("--nproc", type=int, default=2, help="the largest number of processes (default 2)")
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3, help="alternating 1- and N-process runs; medians reported")
    p.add_argument("--scaling", choices=["weak", "strong"], default="weak")
    p.add_argument("--bucket-cap-mb", type=float, default=None, help="DDP's bucket_cap_mb (default: DDP's, 25)")
    p.add_argument("--fsdp-memory", action="store_true",
                   help="print benchmarks.fsdp_memory's table instead: per-rank memory of FULL_SHARD on 1, 2, 3 processes")
    p.add_argument("--progress", choices=["thread", "hooks"], default="thread",
                   help="what moves DDP's allreduces during backward: the progress thread and the gradient "
                        "hooks' tests (default, DDP's own), or the hooks' tests alone")
    args = p.parse_args(argv)
    if args.fsdp_memory:
        from benchmarks import fsdp_memory
        fsdp_memory.main([])
        return
    if args.worker:
        worker(args.worker, args.steps, args.warmup, args.scaling, args.bucket_cap_mb, args.progress)
        return
    if shutil.which("mpiexec") is None:
        raise SystemExit("benchmarks.distributed_scaling needs mpiexec (pip install mpi4py mpich)")
    print(f"{os.cpu_count()} cores, 1 BLAS thread per process, {args.scaling} scaling, {args.steps} steps after "
          f"{args.warmup} warm-up, median of {args.rounds} rounds, bucket_cap_mb {args.bucket_cap_mb or 25}")
    print("| workload | processes | batch/process | samples/s | speed-up | step ms | comm wait ms/step | "
          "last rank's wait ms/step | allreduce alone ms/step | overlap | overlap, last rank | "
          "reduced before backward ended |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.workloads:
        runs = {1: [], args.nproc: []}
        for _ in range(args.rounds):  # alternate, so the machine's load hits both alike
            for n in runs:
                runs[n].append(_launch(name, n, args.steps, args.warmup, args.scaling, args.bucket_cap_mb,
                                      args.progress))
        med = {n: sorted(rs, key=lambda r: r["samples_per_s"])[len(rs) // 2] for n, rs in runs.items()}
        base = med[1]["samples_per_s"]
        for n, r in med.items():
            extra = (f"{r['wait_ms']:.2f} | {r['last_ms']:.2f} | {r['allreduce_ms']:.2f} ({r['buckets']} buckets, "
                     f"{r['grad_mb']:.2f} MB) | {100 * r['overlap']:.0f}% | {100 * r['overlap_last']:.0f}% | "
                     f"{100 * r['hidden']:.0f}% of the bytes" if n > 1 else "- | - | - | - | - | -")
            print(f"| {name} | {n} | {r['batch_per_process']} | {r['samples_per_s']:.0f} | "
                  f"{r['samples_per_s'] / base:.2f}x | {r['step_ms']:.1f} | {extra} |", flush=True)


if __name__ == "__main__":
    main()
