"""DistributedDataParallel: one model replica per process, gradients averaged across processes.

Gradients are reduced in buckets (about ``bucket_cap_mb`` MB each, parameters in reverse registration
order, which is roughly the order backward produces their gradients). A leaf's post-accumulate-grad hook
marks its parameter ready; when a bucket is full it is copied into one flat array and its non-blocking
allreduce starts, so communication runs while backward computes the earlier layers. Buckets start in
index order on every rank (a bucket that fills early waits for its predecessors), so the ranks' MPI
collectives always match. A callback queued on the backward pass waits for them all and writes the
averaged gradients back into ``.grad``.

MPI moves a non-blocking allreduce only inside MPI calls, so while buckets are in flight a background
thread (``distributed._progress``) enters MPI every ~1 ms, and each gradient hook tests the buckets
in flight; together they let the allreduces finish behind backward's NumPy work.
"""
import contextlib
import time

import numpy as np

from ... import distributed as dist
from ...distributed import _progress
from ...autograd.engine import queue_callback
from ...autograd.grad_mode import is_grad_enabled
from ...tensor import Tensor
from ..modules.module import Module

_FIRST_BUCKET_MB = 1  # a small first bucket starts communication early, as PyTorch's does
_TESTS_PER_GRADIENT = 4
_PROGRESS_THREAD = True  # off: only the hooks' tests move the allreduces (benchmarks compare the two)


class _Bucket:
    __slots__ = ("params", "slots", "flat", "ready", "work")

    def __init__(self, params, dtype):
        self.params = params
        sizes = [p._data.size for p in params]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.flat = np.zeros(int(offsets[-1]), dtype)
        self.slots = [self.flat[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
        self.ready = set()
        self.work = None


def _buckets(params, cap_bytes, first_cap_bytes):
    """Group ``params`` (already in reverse order) into buckets of one dtype and at most ~cap bytes."""
    out, current, size, dtype = [], [], 0, None
    for p in params:
        nbytes = p._data.nbytes
        limit = first_cap_bytes if not out else cap_bytes
        if current and (p._data.dtype != dtype or size + nbytes > limit):
            out.append(current)
            current, size = [], 0
        current.append(p)
        size += nbytes
        dtype = p._data.dtype
    if current:
        out.append(current)
    return out


class DistributedDataParallel(Module):
    """Wrap ``module`` so that ``loss.backward()`` leaves every rank with the gradient averaged over all
    ranks: N processes on batch/N samples each then take the same steps as one process on the whole batch
    (with mean-reduced losses). Rank 0's parameters and buffers are broadcast at construction, and its
    buffers again before each forward (``broadcast_buffers``)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **kwargs):
        super().__init__()
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.process_group = dist._group._resolve(process_group)
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self._world = self.process_group.size()
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        self._check_same_model(named)
        if init_sync:
            self._sync_module_states()
        params = [p for _, p in reversed(named)]
        first = min(self.bucket_bytes_cap, _FIRST_BUCKET_MB * 1024 * 1024)
        self._bucket_list = [_Bucket(ps, ps[0]._data.dtype) for ps in _buckets(params, self.bucket_bytes_cap, first)]
        self._where = {}
        for b in self._bucket_list:
            for k, p in enumerate(b.params):
                self._where[id(p)] = (b, k)
        self._names = {id(p): n for n, p in named}
        self._used = set()          # ids of parameters whose gradient arrived since the last reduction
        self._sync = True           # decided at forward, as PyTorch does
        self._queued = False
        self._next = 0              # the next bucket to launch (the same order on every rank)
        self._engine = None         # the progress thread, held while this backward's buckets are in flight
        # What benchmarks/distributed_scaling.py reads: seconds backward spent waiting on communication,
        # and bytes of buckets reduced already when backward ended (hidden behind it) out of all reduced.
        self._wait_seconds = 0.0
        self._hidden_bytes = self._reduced_bytes = 0
        for _, p in named:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    # -- construction -----------------------------------------------------------------------------------
    def _check_same_model(self, named):
        """Every rank must hold the same parameters; otherwise every rank raises the same error."""
        mine = [(n, tuple(p.shape), str(p._data.dtype)) for n, p in named]
        every = self.process_group._comm.allgather(mine)
        ref = every[0]
        for r, theirs in enumerate(every[1:], 1):
            if len(theirs) != len(ref):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {r} has {len(theirs)} "
                                   f"params, while rank 0 has inconsistent {len(ref)} params.")
            for i, (a, b) in enumerate(zip(ref, theirs)):
                if a[1] != b[1] or a[2] != b[2]:
                    raise RuntimeError(f"DDP expects same model across all ranks: params[{i}] ({b[0]}) in rank {r} "
                                       f"with sizes {list(b[1])} ({b[2]}) appears not to match sizes of the same "
                                       f"param in process 0 ({list(a[1])}, {a[2]}).")

    def _sync_module_states(self):
        root = self.process_group._ranks[0]
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            dist.broadcast(t, src=root, group=self.process_group)

    # -- forward ----------------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        self._sync = self.require_backward_grad_sync and is_grad_enabled()
        if self.broadcast_buffers and self.require_forward_param_sync and self._world > 1:
            root = self.process_group._ranks[0]
            for b in self.module.buffers():
                dist.broadcast(b, src=root, group=self.process_group)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside this context accumulate gradients locally, without
        communication; the first synchronised backward after it reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # -- backward ---------------------------------------------------------------------------------------
    def _grad_ready(self, p):
        self._used.add(id(p))
        if not self._sync:
            return
        if not self._queued:
            queue_callback(self._finish_backward)
            self._queued = True
        bucket, k = self._where[id(p)]
        bucket.ready.add(k)
        if len(bucket.ready) == len(bucket.params):
            self._launch_ready()
        else:
            self._progress()

    def _progress(self):
        """MPI advances a non-blocking collective only inside MPI calls, and an allreduce needs a few
        rounds of them: a few tests of the buckets in flight at each gradient keep them moving while
        backward computes (a test costs about a microsecond)."""
        for _ in range(_TESTS_PER_GRADIENT):
            pending = False
            for b in self._bucket_list[:self._next]:
                if not b.work.is_completed():
                    pending = True
            if not pending:
                return

    def _launch_ready(self):
        buckets = self._bucket_list
        while self._next < len(buckets) and len(buckets[self._next].ready) == len(buckets[self._next].params):
            self._launch(buckets[self._next])
            self._next += 1
        self._progress()

    def _launch(self, bucket):
        if self._engine is None and _PROGRESS_THREAD and self._world > 1:
            self._engine = _progress.engine()
            if self._engine is not None:
                self._engine.hold()
        for p, slot in zip(bucket.params, bucket.slots):
            g = p._grad
            if g is None:
                slot.fill(0)
            else:
                np.copyto(slot, g._data.reshape(-1), casting="unsafe")
        bucket.work = dist.all_reduce(Tensor._wrap(bucket.flat), group=self.process_group, async_op=True)

    def _finish_backward(self):
        self._queued = False
        buckets = self._bucket_list
        try:
            if self._next < len(buckets):
                if not self.find_unused_parameters:
                    for b in buckets[:self._next]:  # leave no request in flight behind the error
                        b.work.wait()
                    missing = [self._names[id(p)] for b in buckets[self._next:] for k, p in enumerate(b.params)
                               if k not in b.ready]
                    raise RuntimeError(
                        "Expected to have finished reduction in the prior iteration before starting a new one. "
                        "This error indicates that your module has parameters that were not used in producing "
                        "loss. You can enable unused parameter detection by passing the keyword argument "
                        "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`. "
                        f"Parameters that did not receive a gradient on this rank: {', '.join(missing)}")
                while self._next < len(buckets):
                    self._launch(buckets[self._next])
                    self._next += 1
            used = None
            if self.find_unused_parameters:
                flags = Tensor._wrap(np.array([id(p) in self._used for b in buckets for p in b.params], np.uint8))
                dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.process_group)
                used = flags._data
            for b in buckets:
                self._reduced_bytes += b.flat.nbytes
                if b.work.is_completed():
                    self._hidden_bytes += b.flat.nbytes
            t0 = time.perf_counter()
            for b in buckets:
                b.work.wait()
            self._wait_seconds += time.perf_counter() - t0
            i = 0
            for b in buckets:
                np.divide(b.flat, self._world, out=b.flat, casting="unsafe")
                for p, slot in zip(b.params, b.slots):
                    if used is None or used[i]:
                        self._write_grad(p, slot)
                    i += 1
        finally:
            if self._engine is not None:
                self._engine.release()
                self._engine = None
            for b in buckets:
                b.ready.clear()
                b.work = None
            self._next = 0
            self._used.clear()

    @staticmethod
    def _write_grad(p, slot):
        g = p._grad
        value = slot.reshape(p._data.shape)
        if g is not None and g._grad_fn is None and g._data.flags.writeable and g._data.shape == value.shape:
            np.copyto(g._data, value, casting="unsafe")
        else:
            p._grad = Tensor._wrap(value.astype(p._data.dtype, copy=True))
