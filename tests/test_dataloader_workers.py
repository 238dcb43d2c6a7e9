"""DataLoader with worker processes: order, seeds, iterable sharding, errors, killed workers, timeouts,
and no processes or shared-memory segments left behind; against torch.utils.data where comparable."""
import collections
import gc
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import npgrad
from npgrad.utils import data as D
from npgrad.utils.data import _shm_batch
from npgrad.utils.data._worker import numpy_seed
from oracle import HAS_TORCH, torch

Point = collections.namedtuple("Point", ["x", "y"])


class Images(D.Dataset):
    """Samples large enough (3x32x32 float32 = 12 KiB) that batches go through shared memory."""

    def __init__(self, n=40, fail_at=None, kill_at=None, sleep=0.0, error=ValueError):
        self.n, self.fail_at, self.kill_at, self.sleep, self.error = n, fail_at, kill_at, sleep, error

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise self.error(f"bad sample {i}")
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.sleep:
            time.sleep(self.sleep)
        img = npgrad.arange(3 * 32 * 32, dtype=npgrad.float32).reshape(3, 32, 32) + i
        return {"img": img, "label": i, "name": f"s{i}"}


class SeedProbe(D.Dataset):
    """What a worker's random sources give: its info, Python's random, npgrad's and NumPy's global streams."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = D.get_worker_info()
        return np.array([info.id, info.seed, info.num_workers, random.getrandbits(31), os.getpid()], dtype=np.int64), \
            npgrad.rand(1).item(), np.random.rand()


class Counting(D.IterableDataset):
    """range(start, end), split between the workers through get_worker_info as PyTorch's docs do."""

    def __init__(self, start, end, shard=True):
        self.start, self.end, self.shard = start, end, shard

    def __iter__(self):
        info = D.get_worker_info()
        lo, hi = self.start, self.end
        if self.shard and info is not None:
            per = -(-(hi - lo) // info.num_workers)
            lo = lo + info.id * per
            hi = min(lo + per, self.end)
        return iter(range(lo, hi))


def _our_segments():
    return [n for n in os.listdir(_shm_batch.SHM_DIR) if n.startswith(f"npgrad_dl_{os.getpid()}_")]


@pytest.fixture
def no_leaks():
    """After the test: no worker process alive and no segment of this process left in /dev/shm."""
    gc.collect()
    before = {p.pid for p in multiprocessing.active_children()}  # (another test's pool may be running)
    segments = set(_our_segments())
    yield
    gc.collect()
    assert {p.pid for p in multiprocessing.active_children()} <= before, "worker processes left running"
    assert set(_our_segments()) <= segments, "shared-memory segments left behind"


def _plain(batch):
    if isinstance(batch, npgrad.Tensor):
        return ("t", str(batch.dtype), batch.numpy().tolist())
    if isinstance(batch, dict):
        return {k: _plain(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [_plain(v) for v in batch]
    return batch


def test_batches_and_order_match_the_in_process_loader(no_leaks):
    ds = Images(37)
    ref = [_plain(b) for b in D.DataLoader(ds, batch_size=4)]
    for workers in (1, 3):
        assert [_plain(b) for b in D.DataLoader(ds, batch_size=4, num_workers=workers)] == ref
    # shuffled: the same order for any num_workers under one manual_seed (one base-seed draw per iterator)
    npgrad.manual_seed(5)
    ref = [b["label"].tolist() for b in D.DataLoader(ds, batch_size=5, shuffle=True)]
    npgrad.manual_seed(5)
    got = [b["label"].tolist() for b in D.DataLoader(ds, batch_size=5, shuffle=True, num_workers=2)]
    assert got == ref and sorted(sum(got, [])) == list(range(37))
    # no auto-collation, TensorDataset fast path, drop_last
    assert [_plain(b) for b in D.DataLoader(ds, batch_size=None, num_workers=2)] == \
        [_plain(b) for b in D.DataLoader(ds, batch_size=None)]
    td = D.TensorDataset(npgrad.randn(50, 300), npgrad.arange(50))
    got = list(D.DataLoader(td, batch_size=8, num_workers=2, drop_last=True))
    assert len(got) == 6 and all(np.array_equal(a[1].numpy(), b[1].numpy())
                                 for a, b in zip(got, D.DataLoader(td, batch_size=8, drop_last=True)))
    assert len(D.DataLoader(td, batch_size=8, num_workers=2)) == 7


def test_in_order_false_returns_every_batch(no_leaks):
    class Slow0(Images):
        def __getitem__(self, i):
            if i < 4:
                time.sleep(0.2)  # the first batch arrives last
            return super().__getitem__(i)

    got = [b["label"].tolist() for b in D.DataLoader(Slow0(24), batch_size=4, num_workers=2, in_order=False)]
    assert sorted(got) == [list(range(k, k + 4)) for k in range(0, 24, 4)]
    assert got[0] != [0, 1, 2, 3]


def test_batches_arrive_through_shared_memory_and_the_name_is_gone(no_leaks):
    it = iter(D.DataLoader(Images(8), batch_size=4, num_workers=1))
    batch = next(it)
    import mmap
    owner = batch["img"]._data
    while not isinstance(owner, mmap.mmap):  # wrapped in place, not copied out of a pickle
        owner = owner.obj if isinstance(owner, memoryview) else owner.base
    assert owner.size() >= 4 * 3 * 32 * 32 * 4
    assert batch["name"] == ["s0", "s1", "s2", "s3"]
    del it
    gc.collect()
    assert _our_segments() == []
    assert batch["img"][3, 0, 0, 1].item() == 4.0  # the mapping outlives the unlinked name
    batch["img"].add_(1)  # writable, as a received PyTorch batch is


def test_segments_are_reused_once_batches_are_freed(no_leaks):
    seen, most = set(), 0
    for batch in D.DataLoader(Images(80), batch_size=4, num_workers=1):
        now = _our_segments()
        seen.update(now)
        most = max(most, len(now))
    assert most <= 6 and len(seen) <= 8  # 20 batches through a handful of segments
    del batch
    gc.collect()


def _in_mapping(arr):
    import mmap
    owner = arr
    while owner is not None and not isinstance(owner, mmap.mmap):
        owner = owner.obj if isinstance(owner, memoryview) else owner.base
    return owner is not None


def _collate_and_report(samples):
    batch = D.default_collate(samples)
    return batch, _in_mapping(batch["img"]._data), _in_mapping(batch["label"]._data)


def test_workers_collate_straight_into_shared_memory(no_leaks):
    ds = Images(12)
    got = list(D.DataLoader(ds, batch_size=4, num_workers=2, collate_fn=_collate_and_report))
    # the images stacked in a segment; 4 int64 labels (32 bytes) are too small for one and travel in the pickle
    assert [(img_shared, label_shared) for _, img_shared, label_shared in got] == [(True, False)] * 3
    assert [_plain(b) for b, _, _ in got] == [_plain(b) for b in D.DataLoader(ds, batch_size=4)]
    assert all(_in_mapping(b["img"]._data) for b, _, _ in got)
    assert not _collate_and_report([ds[0]])[1]  # the main process stacks into ordinary memory
    del got
    gc.collect()


_kept = []


def _collate_keeping_every_batch(samples):
    """Keeps every batch it made (in the worker) and reports whether the older ones are still intact."""
    intact = all(float(b["img"].sum()) == total for b, total in _kept)
    batch = D.default_collate(samples)
    _kept.append((batch, float(batch["img"].sum())))
    return batch, intact


def test_a_segment_the_worker_still_references_is_not_rewritten(no_leaks):
    flags = [intact for _, intact in D.DataLoader(Images(40), batch_size=4, num_workers=1,
                                                  collate_fn=_collate_keeping_every_batch)]
    assert flags == [True] * 10


def test_shm_pack_round_trip_keeps_structure_and_small_arrays_inline():
    w = _shm_batch.Writer(f"npgrad_dl_{os.getpid()}_unit_")
    leaf = npgrad.ones(3, requires_grad=True)
    batch = {"p": Point(npgrad.zeros(2000), np.arange(3000, dtype=np.int16)), "small": npgrad.ones(2),
             "leaf": leaf, "s": "text", "obj": np.array([None, 1], dtype=object)}
    payload = w.pack(batch)
    assert len(payload[0]) == 1 and len(payload[2]) == 2  # two large arrays copied into one segment
    out = _shm_batch.unpack(payload)
    assert isinstance(out["p"], Point) and out["p"].y.dtype == np.int16 and out["p"].y[-1] == 2999
    assert out["p"].x.shape == (2000,) and out["small"].tolist() == [1.0, 1.0]
    assert out["leaf"].requires_grad and out["s"] == "text" and out["obj"][0] is None
    assert _our_segments() == []
    _shm_batch.discard(w.pack(batch))
    assert _our_segments() == []


def test_worker_seeds_follow_pytorchs_derivation(no_leaks):
    def run(seed, workers=2):
        npgrad.manual_seed(seed)
        return [s for b in D.DataLoader(SeedProbe(), batch_size=2, num_workers=workers) for s in zip(*b)]

    rows = run(0)
    ids = {int(r[0][0]) for r in rows}
    assert ids == {0, 1}
    seeds = {int(r[0][0]): int(r[0][1]) for r in rows}
    base = seeds[0]
    assert seeds[1] == base + 1 and all(int(r[0][2]) == 2 for r in rows)
    # the first sample each worker loads sees the streams seeded from its seed
    for wid in (0, 1):
        first = next(r for r in rows if int(r[0][0]) == wid)
        seed = base + wid
        assert int(first[0][3]) == random.Random(seed).getrandbits(31)
        assert first[1].item() == npgrad.rand(1, generator=npgrad.Generator().manual_seed(seed)).item()
        assert first[2].item() == np.random.RandomState(numpy_seed(base, wid)).rand()
    assert [r[0][:4].tolist() for r in run(0)] == [r[0][:4].tolist() for r in rows]  # reproducible
    assert {int(r[0][1]) for r in run(1)} != set(seeds.values())
    # the base seed comes from the loader's generator when it has one
    g1, g2 = npgrad.Generator().manual_seed(3), npgrad.Generator().manual_seed(3)
    bases = [int(next(iter(D.DataLoader(SeedProbe(), batch_size=2, num_workers=1, generator=g)))[0][0][1])
             for g in (g1, g2)]
    assert bases[0] == bases[1]


@pytest.mark.skipif(not HAS_TORCH, reason="torch not installed: the NumPy seed formula is checked against its own "
                                          "definition only")
def test_numpy_seed_matches_what_pytorch_workers_get():
    from torch.utils.data._utils.worker import _generate_state
    for base, wid in [(0, 0), (2 ** 40 + 17, 3), (2 ** 63 - 2, 1)]:
        assert numpy_seed(base, wid).tolist() == _generate_state(base, wid)

    class Probe(torch.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            info = torch.utils.data.get_worker_info()
            return torch.tensor([info.id, info.seed, torch.initial_seed()]), np.random.rand()

    torch.manual_seed(0)
    rows = list(torch.utils.data.DataLoader(Probe(), batch_size=1, num_workers=2))
    for ids, value in rows:
        wid, seed, initial = ids[0].tolist()
        assert initial == seed  # PyTorch seeds torch's generator with base_seed + worker id
        assert value.item() == np.random.RandomState(numpy_seed(seed - wid, wid)).rand()


def test_iterable_dataset_shards_with_get_worker_info(no_leaks):
    assert D.get_worker_info() is None
    got = [b.tolist() for b in D.DataLoader(Counting(3, 20), batch_size=3, num_workers=2)]
    assert sorted(sum(got, [])) == list(range(3, 20))
    # without sharding every worker yields the whole replica
    whole = sum((b.tolist() for b in D.DataLoader(Counting(0, 5, shard=False), batch_size=2, num_workers=2)), [])
    assert sorted(whole) == sorted(list(range(5)) * 2)
    if HAS_TORCH:
        class TorchCounting(torch.utils.data.IterableDataset):
            def __init__(self, start, end):
                self.start, self.end = start, end

            def __iter__(self):
                info = torch.utils.data.get_worker_info()
                per = -(-(self.end - self.start) // info.num_workers)
                lo = self.start + info.id * per
                return iter(range(lo, min(lo + per, self.end)))

        ref = [b.tolist() for b in torch.utils.data.DataLoader(TorchCounting(3, 20), batch_size=3, num_workers=2)]
        assert got == ref  # the same interleaving of the workers' batches
        ref = [b.tolist() for b in torch.utils.data.DataLoader(TorchCounting(3, 20), batch_size=3, num_workers=2,
                                                               drop_last=True)]
        assert [b.tolist() for b in D.DataLoader(Counting(3, 20), batch_size=3, num_workers=2, drop_last=True)] == ref


def test_worker_init_fn_runs_in_each_worker(no_leaks):
    class InitSeen(D.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return np.array([D.get_worker_info().id, os.environ.get("NPGRAD_TEST_INIT", -1)], dtype=np.int64)

    def init(worker_id):
        os.environ["NPGRAD_TEST_INIT"] = str(100 + worker_id)

    rows = [r.tolist() for b in D.DataLoader(InitSeen(), batch_size=1, num_workers=2, worker_init_fn=init) for r in b]
    assert sorted(map(tuple, rows)) == [(0, 100), (0, 100), (1, 101), (1, 101)]
    assert "NPGRAD_TEST_INIT" not in os.environ


def test_worker_exception_is_reraised_with_its_traceback(no_leaks):
    it = iter(D.DataLoader(Images(12, fail_at=5), batch_size=4, num_workers=2))
    next(it)
    with pytest.raises(ValueError) as e:
        next(it)
    msg = str(e.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 1.\nOriginal Traceback (most recent call "
                          "last):\n")
    assert "in __getitem__" in msg and msg.rstrip().endswith("ValueError: bad sample 5")
    assert next(it)["label"].tolist() == [8, 9, 10, 11]  # as in PyTorch, the pass goes on after the error
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(KeyError) as e:  # KeyError's message prints without quotes, as PyTorch's
        list(D.DataLoader(Images(4, fail_at=0, error=KeyError), batch_size=2, num_workers=1))
    assert str(e.value).startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")


def test_worker_init_fn_error_is_reported_on_the_first_batch(no_leaks):
    def init(worker_id):
        raise RuntimeError("no init")

    with pytest.raises(RuntimeError, match="(?s)Caught RuntimeError in DataLoader worker process 0.*no init"):
        list(D.DataLoader(Images(4), batch_size=2, num_workers=1, worker_init_fn=init))


def test_killed_worker_is_reported_not_a_hang(no_leaks):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(D.DataLoader(Images(16, kill_at=6), batch_size=2, num_workers=2))
    assert time.monotonic() - t0 < 10


def test_timeout(no_leaks):
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        list(D.DataLoader(Images(2, sleep=0.6), batch_size=2, num_workers=1, timeout=0.2))
    assert len(list(D.DataLoader(Images(4), batch_size=2, num_workers=1, timeout=5))) == 2


def test_break_keyboard_interrupt_and_persistent_workers_leave_nothing(no_leaks):
    start = {p.pid for p in multiprocessing.active_children()}
    loader = D.DataLoader(Images(64), batch_size=2, num_workers=2, prefetch_factor=4)
    for i, _ in enumerate(loader):
        if i == 1:
            break  # batches prefetched and in flight must be released
    with pytest.raises(KeyboardInterrupt):
        for i, _ in enumerate(loader):
            if i == 2:
                raise KeyboardInterrupt  # Ctrl-C in the training loop
    gc.collect()
    assert {p.pid for p in multiprocessing.active_children()} <= start
    assert _our_segments() == []

    class Pids(D.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return np.full(2048, os.getpid())

    loader = D.DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = {int(b[0, 0]) for b in loader}
    for b in loader:
        break  # leaves batches in flight; the next epoch drops them
    second = [int(b[0, 0]) for b in loader]
    assert len(second) == 3 and set(second) == first and len(first) == 2  # the same two processes
    assert len(loader._iterator._workers) == 2 and all(w.is_alive() for w in loader._iterator._workers)
    del loader, b


def test_prefetch_factor_and_context_arguments_as_pytorch():
    ds = Images(4)
    cases = [dict(num_workers=0, prefetch_factor=2), dict(num_workers=1, prefetch_factor=-1),
             dict(num_workers=0, multiprocessing_context="fork"), dict(num_workers=1, multiprocessing_context="nope"),
             dict(num_workers=1, multiprocessing_context=3)]
    for kw in cases:
        with pytest.raises((ValueError, TypeError)) as ours:
            D.DataLoader(ds, **kw)
        if HAS_TORCH:
            with pytest.raises(type(ours.value)) as theirs:
                torch.utils.data.DataLoader(ds, **kw)
            assert str(ours.value) == str(theirs.value)
    with pytest.raises(AssertionError, match="prefetch_factor must be greater than 0 for MultiProcessingDataLoader"):
        iter(D.DataLoader(ds, num_workers=1, prefetch_factor=0))
    assert D.DataLoader(ds, num_workers=2).prefetch_factor == 2 and D.DataLoader(ds).prefetch_factor is None
    assert isinstance(D.DataLoader(ds, num_workers=1, multiprocessing_context="spawn").multiprocessing_context,
                      multiprocessing.context.BaseContext)


def test_spawn_context_and_pin_memory(no_leaks):
    td = D.TensorDataset(npgrad.arange(4000.0).reshape(4, 1000))
    loader = D.DataLoader(td, batch_size=2, num_workers=1, multiprocessing_context="spawn", pin_memory=True)
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        got = [b[0].numpy() for b in loader]
    assert np.array_equal(np.concatenate(got), td.tensors[0].numpy())


def test_workers_exit_when_the_main_process_dies(tmp_path):
    script = textwrap.dedent("""
        import os, sys
        sys.path.insert(0, sys.argv[1])
        import npgrad
        from npgrad.utils import data as D
        import multiprocessing
        it = iter(D.DataLoader(D.TensorDataset(npgrad.zeros(64, 2000)), batch_size=2, num_workers=2))
        next(it)
        print(os.getpid(), " ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
        os.kill(os.getpid(), 9)
    """)
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    out = subprocess.run([sys.executable, "-c", script, src], capture_output=True, text=True, timeout=60)
    main, *pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2, out.stderr

    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split()[2] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in pids)
    # each worker unlinks what it had written for the dead process
    assert not [n for n in os.listdir(_shm_batch.SHM_DIR) if n.startswith(f"npgrad_dl_{main}_")]
