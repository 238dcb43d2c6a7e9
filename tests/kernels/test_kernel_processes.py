"""The compiled kernels in every process model npgrad supports (npgrad.kernels._jit says why they hold):
children forked after the parent ran kernels (DataLoader workers), Python threads calling kernels at once, and
MPI ranks; each with a timeout, so a hang or an abort fails the test instead of stalling the suite."""
import multiprocessing
import threading

import numpy as np
import pytest

import npgrad
from npgrad import _parallel, _runtime
from npgrad.nn import functional as F
from npgrad.utils import data as D

pytest.importorskip("numba", reason="the compiled kernels need numba (pip install npgrad[kernels])")


def _work(seed, rows=96):
    """A forward and backward through the covered ops; the arrays it ends with."""
    rng = np.random.default_rng(seed)
    x = npgrad.tensor(rng.standard_normal((rows, 64)).astype(np.float32), requires_grad=True)
    h = F.silu(F.gelu(F.layer_norm(x, (64,))))
    a = F.scaled_dot_product_attention(*[h.reshape(4, rows // 4, 64)] * 3, is_causal=True).reshape(rows, 64)
    loss = F.cross_entropy(F.log_softmax(a, -1) + F.softmax(a, -1), npgrad.tensor(np.arange(rows) % 64))
    loss.backward()
    return np.concatenate([a.detach().numpy().ravel(), x.grad.numpy().ravel()])


@pytest.fixture
def split_over_threads(monkeypatch):
    """Small pieces on 2 threads, so the kernels run on npgrad's pool too."""
    monkeypatch.setattr(npgrad.backends.kernels, "enabled", True)
    assert npgrad.kernels.ready(), npgrad.kernels.status()
    monkeypatch.setattr(_parallel, "ENABLED", True)
    monkeypatch.setattr(_parallel, "MIN_PIECE", 256)
    monkeypatch.setattr(_parallel, "ONE_PASS_PIECE", 256)
    monkeypatch.setitem(_runtime._state, "threads", 2)


def _child(seed, queue):
    queue.put(_work(seed).tobytes())


def test_forked_child_after_kernels_ran_in_the_parent(split_over_threads):
    expected = _work(1)  # the parent has compiled, run and split kernels over its threads
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_child, args=(1, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    got = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0, p.exitcode
    assert all(g == expected.tobytes() for g in got)


class _KernelSamples(D.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return npgrad.tensor(_work(i, rows=32)[:16])


def test_dataloader_workers_run_kernels_after_the_parent_did(split_over_threads):
    _work(0)
    expected = [_work(i, rows=32)[:16] for i in range(6)]
    loader = D.DataLoader(_KernelSamples(), batch_size=2, num_workers=2, timeout=60)
    got = np.concatenate([b.numpy() for b in loader])
    np.testing.assert_array_equal(got, np.concatenate(expected).reshape(got.shape))


def test_python_threads_call_kernels_at_once(split_over_threads):
    """Four threads (hogwild style), each its own inputs, all at once: no abort, and each thread's result is the
    one it gets alone."""
    expected = {s: _work(s) for s in range(4)}
    results, errors = {}, []
    start = threading.Barrier(4)

    def run(seed):
        try:
            start.wait()
            for _ in range(5):
                results[seed] = _work(seed)
                assert results[seed].tobytes() == expected[seed].tobytes()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive(), "a thread hung"
    assert not errors, errors
    assert sorted(results) == [0, 1, 2, 3]


def test_mpi_ranks_run_kernels(split_over_threads):
    from _mpi_jobs import check_ok, mpirun
    check_ok(mpirun(2, "kernels_ranks.py", timeout=120), 2)
