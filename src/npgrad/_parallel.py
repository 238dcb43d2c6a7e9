"""Large elementwise work and large batched matrix products split over the threads ``set_num_threads`` allows.

NumPy releases the GIL inside its ufunc loops and BLAS calls, so two threads running the same chain of in-place
ufuncs on two halves of an array run on two cores, where NumPy alone would use one (PyTorch's elementwise
kernels use every thread it is given). Elementwise work is split so that each element goes through the same
operations in the same order whichever piece it lands in: bit-identical for any thread count. A product's pieces
are single-threaded BLAS calls (OpenBLAS's own count is 1 while a split runs: ``_blas_threads``), each picking its
kernel by its own size, so they agree with one call within float rounding and repeat bit for bit for a given
thread count (as OpenBLAS's own threads do).

The pieces must be large: a thread hand-off and the GIL ping-pong between short ufunc calls cost tens of
microseconds, so below ``MIN_PIECE`` elements (``ONE_PASS_PIECE`` for a compiled one-pass kernel, ``GEMM_MIN``
multiply-adds for a product) per thread the work runs on the caller's thread alone. Products are split only along
a batch dim: a 2-D product stays with OpenBLAS's own threads (see ``matmul``).

Splitting only pays when the second core is free, and with OpenBLAS's default idle spin it is not: after
every product a BLAS worker thread busy-waits ~0.1 s. npgrad shortens that spin when it is imported before
NumPy (``_process_tuning.tune_blas_spin``); where it could not (NumPy imported first, another BLAS library),
``ENABLED`` is False and everything runs on the caller's thread, as before.
"""
import os
import threading

import numpy as np

from . import _blas_threads
from . import _runtime
from . import _fp_quiet

MIN_PIECE = 1 << 17
# The same for a compiled kernel's one pass over memory (bias add, layer/RMS norm, column sums, batch norm, ReLU's
# gradient) and a convolution's window copy: ~0.1 ns an element, a few times faster than the chains of ufuncs
# MIN_PIECE was sized for, so a piece must be longer to repay the hand-off (75-110 us on the AMD VM, 30-40 on the
# Intel one). AMD, one process alternating: the gpt step took 0.96 of its time at 2^17. ``elementwise`` (NumPy's
# ReLU) keeps MIN_PIECE: there cnn's 64x16x28x28 ReLU lost 2-4% unsplit.
ONE_PASS_PIECE = 1 << 19
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
        # Bare locks as binary semaphores (released by the other thread): a hand-off is one futex call each
        # way, where threading.Semaphore runs a Condition's Python code.
        self._ready = threading.Lock()
        self._done = threading.Lock()
        self._ready.acquire()
        self._done.acquire()
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


def split(fn, n, grain=1, per=1, pieces=None, piece_min=None):
    """Call ``fn(start, stop)`` over contiguous pieces covering ``range(n)``, one piece per thread, and
    return when all are done (re-raising the first error). Piece boundaries are multiples of ``grain``;
    ``per`` is the work one unit of ``n`` stands for (a row's length when splitting rows), and a piece must hold
    at least ``piece_min`` of it (default ``MIN_PIECE`` elements; ``GEMM_MIN`` multiply-adds for products);
    ``pieces``, where given, is the number of pieces instead (a caller that sized the work itself)."""
    if pieces is not None:
        k = min(pieces, n)
    else:
        k = n * per // (MIN_PIECE if piece_min is None else piece_min)
        if k > 1:  # (the thread count only where the work is large enough to ask)
            k = min(num_threads(), k, n)
    if k <= 1 or getattr(_local, "inside", False) or not _lock.acquire(blocking=False):
        # One piece, a split inside a split, or another thread already splitting: run here.
        fn(0, n)
        return
    blas = _blas_threads.single()  # each piece's BLAS calls on its own thread (see _blas_threads)
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
        _blas_threads.restore(blas)
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


_BLAS_FLOATS = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
# Multiply-adds per piece below which a product runs as one call: a split's hand-off (a lock released and taken
# each way, and the GIL passed between the threads) cost 40-75 us on the 2-core VM, and 4M multiply-adds take ~0.1
# ms on one core. At 2^18 the batch-1 GPT forward (64x128 @ 128x384 products) went from 3.5 to 5.6 ms.
GEMM_MIN = 1 << 22


def matmul(a, b, out=None):
    """``np.matmul(a, b, out=out)`` (``a @ b`` for Tensors) for arrays of at least 2 dims, a large batched product
    split over npgrad's threads along the output's first batch dim (attention's batches, a convolution's images):
    one single-threaded BLAS call per piece.

    A product without a batch dim of at least one entry per thread is one call on OpenBLAS's own threads. Splitting
    its rows or columns over npgrad's threads (from 2^25 multiply-adds a piece, until 2026-12-06) won one call at a
    time on the Zen 4 VM (2048x512 @ 512x512: 8.3 -> 6.3 ms) but lost inside a training step: the gpt step without
    it took 0.972-0.975 of its time on the Intel VM, and 0.70-0.78 on a Zen 3 EPYC (in one process, alternating;
    fresh processes: 117-160 ms against 203-241), where lstm, resnet and cnn read the same either way."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return a @ b  # Tensors (a differentiable backward): their own product
    sa, sb = a.shape, b.shape
    if len(sa) == 2 == len(sb):  # most of a model's products: at once
        return np.matmul(a, b, out=out)
    if a.ndim < 2 or b.ndim < 2 or a.dtype not in _BLAS_FLOATS or a.dtype != b.dtype or a.shape[-1] != b.shape[-2]:
        return np.matmul(a, b, out=out)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    lead = a.shape[:-2] if a.shape[:-2] == b.shape[:-2] or b.ndim == 2 else (
        b.shape[:-2] if a.ndim == 2 else np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    work = m * n * max(k, 1)
    for d in lead:
        work *= d
    if work < 2 * GEMM_MIN:  # (before anything else: most of a model's products are small)
        return np.matmul(a, b, out=out)
    threads = num_threads()
    if threads < 2 or lead[0] < threads:  # (lead is not empty: one operand has more than 2 dims)
        return np.matmul(a, b, out=out)
    if out is None:
        out = np.empty(tuple(lead) + (m, n), a.dtype)
    # An operand without that dim (or with 1 there) broadcasts against every piece whole.
    cut_a = a.ndim == len(lead) + 2 and a.shape[0] == lead[0]
    cut_b = b.ndim == len(lead) + 2 and b.shape[0] == lead[0]
    split(lambda lo, hi: np.matmul(a[lo:hi] if cut_a else a, b[lo:hi] if cut_b else b, out=out[lo:hi]), lead[0],
          per=work // lead[0], piece_min=GEMM_MIN)
    return out
