"""Large elementwise work split over the threads ``set_num_threads`` allows.

NumPy releases the GIL inside its ufunc loops, so two threads running the same chain of in-place ufuncs
on two halves of an array run on two cores, where NumPy alone would use one (PyTorch's elementwise
kernels use every thread it is given). Only elementwise work is split: each element goes through the same
operations in the same order whichever piece it lands in, so results are bit-identical to one thread.

The pieces must be large: a thread hand-off and the GIL ping-pong between short ufunc calls cost tens of
microseconds, so below ``MIN_PIECE`` elements per thread the work runs on the caller's thread alone.

Splitting only pays when the second core is free, and with OpenBLAS's default idle spin it is not: after
every product a BLAS worker thread busy-waits ~0.1 s. npgrad shortens that spin when it is imported before
NumPy (``_process_tuning.tune_blas_spin``); where it could not (NumPy imported first, another BLAS library),
``ENABLED`` is False and everything runs on the caller's thread, as before.
"""
import os
import threading

import numpy as np

from . import _runtime
from . import _fp_quiet

MIN_PIECE = 1 << 17
ENABLED = False  # set at import by the package root: NumPy's BLAS is OpenBLAS with a short idle spin

_local = threading.local()
_pool = {"pid": None, "workers": []}
_lock = threading.Lock()


def num_threads():
    """Threads for elementwise work: 1 unless ENABLED; else ``set_num_threads``' value, else the BLAS
    environment variables', else the CPU count (read without threadpoolctl, whose query costs milliseconds)."""
    if not ENABLED:
        return 1
    n = _runtime._state["threads"]
    if n is None:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            value = os.environ.get(var, "")
            if value.isdigit() and int(value) > 0:
                n = int(value)
                break
        else:
            n = os.cpu_count() or 1
    return n


class _Worker:
    """One daemon thread that runs the calls handed to it, one at a time."""

    def __init__(self):
        self._ready = threading.Semaphore(0)
        self._done = threading.Semaphore(0)
        self._job = None
        self._error = None
        threading.Thread(target=self._loop, name="npgrad-elementwise", daemon=True).start()

    def _loop(self):
        _local.inside = True  # a split inside a split runs serially instead of waiting on itself
        # Only npgrad's kernels run here: NumPy's error state (per thread) stays "ignore", as on the caller's
        # thread while an op runs (npgrad._fp_quiet).
        _fp_quiet.STATE.set(_fp_quiet.QUIET)
        while True:
            self._ready.acquire()
            fn, args = self._job
            try:
                fn(*args)
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller by wait()
                self._error = exc
            self._job = None
            self._done.release()

    def start(self, fn, args):
        self._job = (fn, args)
        self._ready.release()

    def wait(self):
        self._done.acquire()
        error, self._error = self._error, None
        if error is not None:
            raise error


def _workers(k):
    # A forked child (a DataLoader worker) has none of its parent's threads: it starts its own.
    if _pool["pid"] != os.getpid():
        _pool["pid"], _pool["workers"] = os.getpid(), []
    workers = _pool["workers"]
    while len(workers) < k:
        workers.append(_Worker())
    return workers[:k]


def split(fn, n, grain=1, per=1):
    """Call ``fn(start, stop)`` over contiguous pieces covering ``range(n)``, one piece per thread, and
    return when all are done (re-raising the first error). Piece boundaries are multiples of ``grain``;
    ``per`` is how many elements one unit of ``n`` stands for (a row's length when splitting rows)."""
    k = n * per // MIN_PIECE
    if k > 1:  # (the thread count only where the work is large enough to ask)
        k = min(num_threads(), k, n)
    if k <= 1 or getattr(_local, "inside", False) or not _lock.acquire(blocking=False):
        # One piece, a split inside a split, or another thread already splitting: run here.
        fn(0, n)
        return
    try:
        step = -(-n // k)
        step = -(-step // grain) * grain
        bounds = [(a, min(a + step, n)) for a in range(0, n, step)]
        workers = _workers(len(bounds) - 1)
        for worker, (a, b) in zip(workers, bounds[1:]):
            worker.start(fn, (a, b))
        error = None
        try:
            fn(*bounds[0])
        except BaseException as exc:  # noqa: BLE001 - re-raised once the other pieces have finished
            error = exc
        for worker in workers:
            try:
                worker.wait()
            except BaseException as exc:  # noqa: BLE001
                error = error or exc
        if error is not None:
            raise error
    finally:
        _lock.release()


def elementwise(fn, out, *arrays):
    """``fn(out_piece, *array_pieces)`` over matching flat pieces of ``out`` and ``arrays`` (C-contiguous, all of
    one shape), split over the threads; returns ``out``. For one-pass kernels on large arrays (ReLU and its
    gradient), whose pieces are long enough for the hand-off to pay."""
    flats = [a.reshape(-1) for a in (out,) + arrays]
    split(lambda lo, hi: fn(*[f[lo:hi] for f in flats]), flats[0].size, 1024)
    return out


def worth(elements):
    """Whether work over this many elements would be split: at least two pieces' worth, and threads allowed. For
    callers that pick a split-friendly formulation (rows, pieces) only when it will be used."""
    return elements >= 2 * MIN_PIECE and num_threads() > 1


def worth_splitting(*arrays):
    """Whether ``elementwise`` would split these: NumPy arrays (not Tensors), C-contiguous, of one shape, and worth
    it."""
    a = arrays[0]
    return (type(a) is np.ndarray and worth(a.size)
            and all(type(b) is np.ndarray and b.flags.c_contiguous and b.shape == a.shape for b in arrays))
