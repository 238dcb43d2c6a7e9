"""What runs inside a DataLoader worker process: seeding, ``get_worker_info``, and the fetch loop.

A worker takes ``(task_id, indices)`` from its own index queue, builds the batch with the same fetcher
the in-process loader uses, and answers on the shared result queue with ``(task_id, kind, payload)``;
a batch's arrays travel through a shared-memory segment (``_shm_batch``), only metadata through the queue.
"""
import os
import queue
import random
import signal
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from ... import random as _random
from . import _shm_batch

__all__ = ["WorkerInfo", "get_worker_info"]

# How often an idle worker checks that the process that started it is still alive and still wants it
# (seconds): the shutdown signal on the index queue can be lost when the iterator is freed by the cycle
# collector, which may close the queue's feeder thread first.
_WATCHDOG_INTERVAL = 0.25

# Result kinds on the result queue.
DATA, ERROR, STOP, RESUMED = "data", "error", "stop", "resumed"


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: its id, the number of workers, its seed and
    its own copy of the dataset (each worker has a replica; splitting an IterableDataset between the
    workers is the dataset's job, as in PyTorch)."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None
# In a worker: allocate(shape, dtype) -> an array in shared memory (or None), for default_collate to stack into.
shared_allocator = None


def get_worker_info():
    """The current worker's ``WorkerInfo`` inside a DataLoader worker process, None in the main process."""
    return _worker_info


class _RemoteError:
    """A worker's exception, carried to the main process as its type and formatted traceback."""

    def __init__(self, worker_id):
        exc_type, exc, tb = sys.exc_info()
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = f"in DataLoader worker process {worker_id}"
        self.exc_type = exc_type

    def __reduce__(self):
        # The exception class goes by reference; a class the main process cannot import becomes RuntimeError there.
        try:
            import pickle
            pickle.dumps(self.exc_type)
            exc_type = self.exc_type
        except Exception:
            exc_type = RuntimeError
        return (_rebuild_error, (exc_type, self.text, self.where))

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.text}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError would print the repr: quotes and escaped newlines
        # (no local holds the exception: exception -> traceback -> this frame -> exception would be a cycle,
        # leaving the DataLoader iterator and its workers to the cycle collector)
        raise _build_exception(self.exc_type, msg)


def _build_exception(exc_type, msg):
    try:
        return exc_type(msg)
    except Exception:
        return RuntimeError(msg)


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


def _rebuild_error(exc_type, text, where):
    err = _RemoteError.__new__(_RemoteError)
    err.exc_type, err.text, err.where = exc_type, text, where
    return err


def numpy_seed(base_seed, worker_id):
    """The 4-word seed PyTorch gives NumPy's global RandomState in worker ``worker_id``: a SeedSequence
    hash of (worker_id, low and high 32 bits of base_seed, 0)."""
    words = [worker_id, base_seed & 0xFFFF_FFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(words).generate_state(4)


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    _random.manual_seed(seed)
    np.random.seed(numpy_seed(base_seed, worker_id))
    return seed


class WorkerSpec:
    """What every worker needs from the DataLoader (pickled once per worker under spawn/forkserver)."""

    def __init__(self, loader):
        self.dataset = loader.dataset
        self.collate_fn = loader.collate_fn
        self.auto = loader._auto_collation
        self.batch_size = loader.batch_size
        self.drop_last = loader.drop_last
        self.iterable = loader._iterable
        self.worker_init_fn = loader.worker_init_fn
        self.num_workers = loader.num_workers


def _parent_alive(parent_pid):
    return os.getppid() == parent_pid


def worker_loop(spec, worker_id, index_queue, result_queue, done_event, base_seed, segment_prefix):
    """The body of worker process ``worker_id``; returns when told to (None on its queue), when
    ``done_event`` is set, or when the process that started it has died."""
    global _worker_info, shared_allocator
    from .dataloader import _Fetcher
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle; it stops us
    parent = os.getppid()
    seed = _seed_worker(base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=spec.num_workers, seed=seed, dataset=spec.dataset)
    writer = _shm_batch.Writer(segment_prefix)
    shared_allocator = writer.allocate
    init_error = None
    fetcher = None
    try:
        if spec.worker_init_fn is not None:
            spec.worker_init_fn(worker_id)
        fetcher = _Fetcher(spec.dataset, spec.collate_fn, spec.auto, spec.batch_size, spec.drop_last, spec.iterable)
    except Exception:
        init_error = _RemoteError(worker_id)
    ended = False  # this epoch's iterable is exhausted: skip tasks until the next resume
    while True:
        try:
            msg = index_queue.get(timeout=_WATCHDOG_INTERVAL)
        except queue.Empty:
            if done_event.is_set():
                break
            if not _parent_alive(parent):
                writer.release_all()  # nobody will map what we sent
                return
            continue
        if msg is None:
            break
        if msg == RESUMED:
            ended = False
            try:
                fetcher = _Fetcher(spec.dataset, spec.collate_fn, spec.auto, spec.batch_size, spec.drop_last,
                                   spec.iterable)
            except Exception:
                init_error = _RemoteError(worker_id)
            result_queue.put((None, RESUMED, worker_id))
            continue
        task_id, index, released = msg
        writer.take_back(released)
        if done_event.is_set() or ended:
            continue
        if init_error is not None:
            result_queue.put((task_id, ERROR, init_error))
            init_error = None
            continue
        try:
            batch = fetcher.fetch_iterable() if spec.iterable else fetcher.fetch(index)
        except StopIteration:
            writer.abandon()
            if spec.iterable:
                ended = True
                result_queue.put((task_id, STOP, worker_id))
            else:
                result_queue.put((task_id, ERROR, _RemoteError(worker_id)))
            continue
        except Exception:
            writer.abandon()
            result_queue.put((task_id, ERROR, _RemoteError(worker_id)))
            continue
        try:
            payload = writer.pack(batch)
        except Exception:
            writer.abandon()
            result_queue.put((task_id, ERROR, _RemoteError(worker_id)))
            continue
        del batch
        result_queue.put((task_id, DATA, payload))
    if done_event.is_set():
        # The main process may have stopped reading: don't block at exit flushing results into a full pipe.
        result_queue.cancel_join_thread()
        result_queue.close()
