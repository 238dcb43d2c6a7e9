"""Distributed checkpoint throughput: ``[mpiexec -n N] python -m benchmarks.checkpoint_throughput DIR``.

Each of the N ranks holds its row-shard of four float32 tensors (``--mb`` MB in all), saves them with
``torch.distributed.checkpoint.save`` into DIR and loads them back (the same sharding), best of
``--repeat``; ``--load-only`` loads a checkpoint DIR that another world size saved (resharding). On one
process, ``npgrad.save``/``npgrad.load`` of the same tensors in one file are timed beside it for scale.
Rank 0 prints MB/s (of the whole checkpoint). The page cache makes repeated loads memory-speed reads:
these are the library's costs (copies, fsync, coordination), not the disk's.
"""
import argparse
import os
import time
import warnings

import numpy as np

import npgrad
import npgrad.distributed as dist
import npgrad.distributed.checkpoint as dcp


class Shard:
    def __init__(self, tensor, global_shape, offsets):
        self.tensor, self.global_shape, self.offsets = tensor, tuple(global_shape), tuple(offsets)


def state(mb, rank, world, fill):
    rows = int(mb * 2**20 / 4 / 4 / 1024)  # four tensors of rows x 1024 float32
    bounds = np.linspace(0, rows, world + 1).round().astype(int)
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    sd = {}
    for i in range(4):
        t = npgrad.full((hi - lo, 1024), float(i)) if fill else npgrad.zeros(hi - lo, 1024)
        sd[f"layer{i}.weight"] = Shard(t, (rows, 1024), (lo, 0))
    return sd, rows * 1024 * 4 * 4 / 2**20


def best(fn, repeat, sync):
    times = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--mb", type=float, default=128)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--load-only", action="store_true")
    a = p.parse_args()
    warnings.filterwarnings("ignore", message="torch.distributed is disabled")
    multi = int(os.environ.get("PMI_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))) > 1
    if multi:
        dist.init_process_group("mpi")
    rank, world = (dist.get_rank(), dist.get_world_size()) if multi else (0, 1)
    sync = dist.barrier if multi else (lambda: None)
    sd, total = state(a.mb, rank, world, fill=True)
    rows = []
    if not a.load_only:
        rows.append(("dcp.save", best(lambda: dcp.save(sd, checkpoint_id=a.dir), a.repeat, sync)))
    target, _ = state(a.mb, rank, world, fill=False)
    rows.append(("dcp.load", best(lambda: dcp.load(target, checkpoint_id=a.dir), a.repeat, sync)))
    if a.load_only:
        # check the resharded values: tensor i holds i everywhere
        assert all(float(s.tensor.min()) == float(s.tensor.max()) == i for i, s in enumerate(target.values()))
    if world == 1:
        plain = {k: s.tensor for k, s in sd.items()}
        path = os.path.join(a.dir, "plain.pt")
        rows.append(("npgrad.save (one file)", best(lambda: npgrad.save(plain, path), a.repeat, sync)))
        rows.append(("npgrad.load (one file)", best(lambda: npgrad.load(path), a.repeat, sync)))
        os.unlink(path)
    if rank == 0:
        for name, sec in rows:
            print(f"{world} rank(s) {name:<24} {total:7.1f} MB  {sec * 1e3:8.1f} ms  {total / sec:8.0f} MB/s",
                  flush=True)
    if multi:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
