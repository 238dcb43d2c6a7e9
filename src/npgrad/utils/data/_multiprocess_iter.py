"""One pass over a DataLoader whose batches are built by worker processes (``num_workers > 0``).

Tasks (a task id and the batch's indices) go round-robin to per-worker index queues, at most
``prefetch_factor`` per worker ahead; results come back on one queue, possibly out of order, and are
handed out in task order (or as they arrive with ``in_order=False``). The workers, their queues and
any batch not yet received are released when the pass ends, on an error, on an early ``break`` or when
the iterator is garbage collected (with ``persistent_workers``, when the DataLoader is), and at exit.
"""
import atexit
import itertools
import multiprocessing
import os
import queue
import secrets
import weakref

from ... import random as _random
from . import _shm_batch, _worker

# While waiting for a batch, how often to look for workers that died (seconds).
_CHECK_INTERVAL = 0.2
# How long shutdown waits for a worker to finish its current batch before terminating it (seconds).
_JOIN_TIMEOUT = 5.0

_live_iterators = weakref.WeakSet()


def _shutdown_live_iterators():
    # Workers are daemonic, so multiprocessing's own exit hook (registered earlier, run later) would
    # terminate them, but not release the batches they had written.
    for it in list(_live_iterators):
        it._shutdown_workers()


atexit.register(_shutdown_live_iterators)


def draw_base_seed(generator):
    """The per-iterator seed the workers' seeds derive from, drawn from ``generator`` or the global one."""
    return int(_random.rng(generator).integers(0, 2 ** 63 - 1))


class MultiProcessIter:
    def __init__(self, loader):
        self._shutdown = True  # until the workers exist, there is nothing to shut down
        if loader.prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        # (no reference to the loader: with persistent_workers it holds this iterator, and a cycle would leave
        # the queues to the cycle collector, which may close their pipes before this iterator's shutdown runs)
        self._index_sampler = loader._index_sampler
        self._spec = spec = _worker.WorkerSpec(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        self._iterable = loader._iterable
        self._base_seed = draw_base_seed(loader.generator)
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._prefix = f"npgrad_dl_{os.getpid()}_{secrets.token_hex(4)}_"
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        # per worker: segments of received batches the user has since freed, to go back with its next task
        self._released = [[] for _ in range(self._num_workers)]
        self._shutdown = False
        _live_iterators.add(self)
        try:
            for wid in range(self._num_workers):
                q = ctx.Queue()
                q.cancel_join_thread()  # a dead worker must not make the main process hang at exit
                w = ctx.Process(target=_worker.worker_loop, daemon=True,
                                args=(spec, wid, q, self._result_queue, self._done_event, self._base_seed,
                                      f"{self._prefix}w{wid}_"))
                w.start()
                self._index_queues.append(q)
                self._workers.append(w)
            self._reset(loader, first=True)
        except BaseException:
            self._shutdown_workers()
            raise

    def __iter__(self):
        return self

    def __len__(self):
        spec = self._spec
        if not self._iterable:
            return len(self._index_sampler)
        n = len(spec.dataset)
        if spec.batch_size is not None:
            n = n // spec.batch_size if spec.drop_last else -(-n // spec.batch_size)
        return n

    def _reset(self, loader, first=False):
        self._sampler_iter = iter(loader._index_sampler)
        self._send_idx = 0
        self._rcvd_idx = 0
        # task id -> (worker,) while outstanding, (worker, payload) once received ahead of its turn
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first:  # persistent workers: start a new epoch, dropping what the last one left in flight
            for q in self._index_queues:
                q.put(_worker.RESUMED)
            waiting = self._num_workers
            while waiting:
                _, kind, payload = self._get_data()
                if kind == _worker.RESUMED:
                    waiting -= 1
                elif kind == _worker.DATA:
                    _shm_batch.discard(payload)
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        max_tasks = self._prefetch_factor * self._num_workers
        for _ in range(self._num_workers):  # the next worker still running this epoch, if any
            wid = next(self._worker_cycle)
            if self._workers_status[wid]:
                if self._in_order or self._workers_num_tasks[wid] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        # an IterableDataset's worker draws from its own iterator: the sampler's placeholder indices carry nothing
        released = self._released[wid]
        n = len(released)  # (a finalizer may append while we slice: it lands past n and waits for the next task)
        freed = released[:n]
        del released[:n]
        self._index_queues[wid].put((self._send_idx, None if self._iterable else index, freed))
        self._task_info[self._send_idx] = (wid,)
        self._workers_num_tasks[wid] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _try_get_data(self, timeout):
        try:
            return True, self._result_queue.get(timeout=timeout)
        except queue.Empty:
            pass
        dead = [w for wid, w in enumerate(self._workers) if self._workers_status[wid] and not w.is_alive()]
        if dead:
            pids = ", ".join(str(w.pid) for w in dead)
            self._shutdown_workers()
            raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
        return False, None

    def _get_data(self):
        if self._timeout > 0:
            import time
            deadline = time.monotonic() + self._timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
                ok, data = self._try_get_data(min(left, _CHECK_INTERVAL))
                if ok:
                    return data
        while True:
            ok, data = self._try_get_data(_CHECK_INTERVAL)
            if ok:
                return data

    def __next__(self):
        if self._shutdown:
            raise StopIteration
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:  # received, or still coming
                        break
                    del self._task_info[self._rcvd_idx]  # its worker's iterable ended first
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                wid, result = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process(result, wid)
            task_id, kind, payload = self._get_data()
            self._tasks_outstanding -= 1
            if kind == _worker.STOP:
                self._workers_status[payload] = False
                if not self._persistent:
                    self._index_queues[payload].put(None)
                self._try_put_index()
                continue
            if task_id != self._rcvd_idx:
                if not self._in_order:
                    wid = self._task_info.pop(task_id)[0]
                    return self._process((kind, payload), wid)
                self._task_info[task_id] += ((kind, payload),)
                continue
            wid = self._task_info.pop(task_id)[0]
            self._rcvd_idx += 1
            return self._process((kind, payload), wid)

    def _process(self, result, wid):
        self._workers_num_tasks[wid] -= 1
        self._try_put_index()
        kind, payload = result
        if kind == _worker.ERROR:
            payload.reraise()
        return _shm_batch.unpack(payload, self._released[wid])

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        _live_iterators.discard(self)
        try:
            self._done_event.set()
            for q in self._index_queues:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
            for w in self._workers:
                w.join(timeout=_JOIN_TIMEOUT)
                if w.is_alive():
                    w.terminate()
                    w.join()
            for q in self._index_queues:
                q.close()
            self._result_queue.cancel_join_thread()
            self._result_queue.close()
        finally:
            # after the workers are gone, so that nothing new appears behind the sweep
            _shm_batch.release_prefix(self._prefix)

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass
