"""DataLoader throughput with worker processes: ``python -m benchmarks.dataloader_throughput``.

Two measurements:

1. Loading throughput (samples/s) with 0, 1 and 2 workers on an augmenting dataset: 3x32x32 uint8
   images, each sample randomly cropped (4-pixel zero padding), randomly flipped, converted to float and
   normalised per channel, plus some per-sample Python work (a brightness jitter computed in a loop),
   collated into batches of 64. Workers are persistent; the first pass (which starts them) is not timed.
   The CPU time of the main process and its workers is reported too (samples per CPU-second): on a
   machine shared with other jobs, wall-clock rates depend on how much of the cores the scheduler
   gives to 1 process against 3, while the CPU cost per sample shows what the workers add.
2. A 19 MB batch (64 float32 samples of 297 KB) collated in a worker and handed to the main process:
   through a ``multiprocessing.Queue`` (stacked, pickled, written through a pipe, read and unpickled),
   through the DataLoader with its shared-memory transport switched off (the same pickled path, inside
   the DataLoader), and through the DataLoader's shared memory (stacked straight into a reused /dev/shm
   segment, mapped by the main process). A last row sends one pre-built 19 MB tensor
   (``batch_size=None``), which the worker copies into a segment. Each received batch is read once (one
   byte per page) so that a mapping's page faults are counted too. For scale, the first row stacks the
   same samples in the main process: one copy, nothing transferred. The rate is batches x bytes over
   the time from the first batch received to the last, the producer running ahead.

The machine's other load moves all of these; the ratios between rows measured in one run are the
meaningful part.
"""
import argparse
import multiprocessing
import os
import platform
import random
import time

import numpy as np

import npgrad
from npgrad.utils import data as D
from npgrad.utils.data import _shm_batch

MEAN = np.array([0.49, 0.48, 0.45], np.float32).reshape(3, 1, 1)
STD = np.array([0.25, 0.24, 0.26], np.float32).reshape(3, 1, 1)


class AugmentedImages(D.Dataset):
    """CIFAR-shaped images with the usual training augmentation, computed per sample."""

    def __init__(self, n, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, size=(n, 3, 32, 32), dtype=np.uint8)
        self.labels = rng.integers(0, 10, size=n)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = np.pad(self.images[i], ((0, 0), (4, 4), (4, 4)))
        top, left = random.randrange(9), random.randrange(9)
        img = img[:, top:top + 32, left:left + 32]
        if random.random() < 0.5:
            img = img[:, :, ::-1]
        x = img.astype(np.float32) / 255.0
        jitter = 1.0
        for _ in range(200):  # stands in for the per-sample Python of real pipelines (decoding, parsing)
            jitter = 0.999 * jitter + 0.001 * random.uniform(0.8, 1.2)
        x = (x * jitter - MEAN) / STD
        return npgrad.from_numpy(np.ascontiguousarray(x)), int(self.labels[i])


def _cpu_seconds(pids):
    """User + system CPU time of these processes (Linux /proc), or None elsewhere."""
    try:
        total = 0
        for pid in pids:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


def loading_throughput(workers, n, batch_size, passes):
    """(samples/s, samples per CPU-second of the main process and its workers) of the best pass."""
    ds = AugmentedImages(n)
    kw = dict(num_workers=workers, persistent_workers=True) if workers else {}
    loader = D.DataLoader(ds, batch_size=batch_size, shuffle=True, **kw)
    for _ in loader:  # starts the workers; not timed
        pass
    pids = [os.getpid()] + ([w.pid for w in loader._iterator._workers] if workers else [])
    best = (0.0, None)
    for _ in range(passes):
        c0, t0 = _cpu_seconds(pids), time.perf_counter()
        count = sum(len(y) for _, y in loader)
        wall, c1 = time.perf_counter() - t0, _cpu_seconds(pids)
        per_cpu = count / (c1 - c0) if c0 is not None and c1 > c0 else None
        best = max(best, (count / wall, per_cpu), key=lambda r: r[0])
    del loader
    return best


class SameBatch(D.Dataset):
    """``count`` batches of ``nbytes``: as ``per_batch`` samples to collate, or as one pre-built tensor."""

    def __init__(self, nbytes, count, per_batch):
        n = nbytes // 4 // per_batch
        data = np.random.default_rng(0).random(n * per_batch, dtype=np.float32).reshape(per_batch, n)
        self.samples = [npgrad.from_numpy(row) for row in data] if per_batch > 1 else [npgrad.from_numpy(data[0])]
        self.count, self.per_batch = count, per_batch

    def __len__(self):
        return self.count * self.per_batch

    def __getitem__(self, i):
        return self.samples[i % self.per_batch]


def _touch(arr):
    return int(arr.reshape(-1).view(np.uint8)[::4096].sum())


def _timed_receive(batches):
    it = iter(batches)
    _touch(_as_array(next(it)))  # startup excluded
    t0 = time.perf_counter()
    n = 0
    for b in it:
        _touch(_as_array(b))
        n += 1
    return n, time.perf_counter() - t0


def _as_array(b):
    return b._data if isinstance(b, npgrad.Tensor) else b


def _queue_producer(q, nbytes, count, per_batch):
    samples = [s._data for s in SameBatch(nbytes, 1, per_batch).samples]
    for _ in range(count):
        q.put(np.stack(samples))


def queue_rate(nbytes, count, per_batch):
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue(maxsize=2)
    p = ctx.Process(target=_queue_producer, args=(q, nbytes, count, per_batch))
    p.start()
    n, dt = _timed_receive(q.get() for _ in range(count))
    p.join()
    return n * nbytes / dt


def stack_rate(nbytes, count, per_batch):
    """The floor: stacking the same samples in the main process, nothing transferred."""
    samples = [s._data for s in SameBatch(nbytes, 1, per_batch).samples]
    n, dt = _timed_receive(np.stack(samples) for _ in range(count))
    return n * nbytes / dt


def loader_rate(nbytes, count, per_batch, shared_memory):
    saved = _shm_batch.MIN_SHM_BYTES
    if not shared_memory:
        _shm_batch.MIN_SHM_BYTES = float("inf")  # every array stacked in private memory, pickled through the queue
    try:
        ds = SameBatch(nbytes, count, per_batch)
        loader = D.DataLoader(ds, batch_size=per_batch if per_batch > 1 else None, num_workers=1,
                              prefetch_factor=2, multiprocessing_context="fork")
        n, dt = _timed_receive(loader)
    finally:
        _shm_batch.MIN_SHM_BYTES = saved
    return n * nbytes / dt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4096)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--passes", type=int, default=3, help="timed passes per worker count (best is reported)")
    ap.add_argument("--workers", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--transfer-mb", type=float, default=19.0)
    ap.add_argument("--transfers", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3, help="transfer rounds (median is reported)")
    args = ap.parse_args(argv)
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, NumPy {np.__version__}")

    print(f"\n{args.samples} augmented 3x32x32 samples, batch {args.batch_size}, best of {args.passes} passes\n"
          "| workers | samples/s | vs 0 workers | samples per CPU-second (main + workers) |\n|---|---|---|---|")
    base = None
    for w in args.workers:
        rate, per_cpu = loading_throughput(w, args.samples, args.batch_size, args.passes)
        base = base or rate
        print(f"| {w} | {rate:,.0f} | {rate / base:.2f}x | {'' if per_cpu is None else f'{per_cpu:,.0f}'} |",
              flush=True)

    per = 64
    nbytes = int(args.transfer_mb * 1e6) // 4 // per * per * 4
    rows = [("no transfer: stacked in the main process (one copy; the floor)",
             lambda: stack_rate(nbytes, args.transfers, per)),
            ("multiprocessing.Queue (stacked, pickled through a pipe)",
             lambda: queue_rate(nbytes, args.transfers, per)),
            ("DataLoader, shared memory off (stacked, pickled through its queue)",
             lambda: loader_rate(nbytes, args.transfers, per, False)),
            ("DataLoader, shared memory (stacked into a /dev/shm segment, mapped)",
             lambda: loader_rate(nbytes, args.transfers, per, True)),
            ("DataLoader, shared memory, one pre-built tensor (batch_size=None: copied into a segment)",
             lambda: loader_rate(nbytes, args.transfers, 1, True))]
    print(f"\n| one {nbytes / 1e6:.0f} MB batch ({per} samples), worker -> main | GB/s |\n|---|---|")
    for name, fn in rows:
        rates = sorted(fn() for _ in range(args.rounds))
        print(f"| {name} | {rates[len(rates) // 2] / 1e9:.2f} |", flush=True)


if __name__ == "__main__":
    main()
