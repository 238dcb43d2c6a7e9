"""The machinery under FullyShardedDataParallel and fully_shard: units of parameters that live sharded
across ranks and are gathered into full tensors only while a forward or backward needs them.

A unit all-gathers its shards into one block of memory and hands out views of it as the full parameters;
the autograd node that produced those views reduce-scatters their gradients back into shard gradients
(averaged over ranks). Freeing must not break the graph: the ops of the forward keep views of the block
as saved values. So the block is a private anonymous mapping whose pages go back to the OS with
``madvise(MADV_DONTNEED)`` (PyTorch resizes the storage to zero); the views stay valid and the next
all-gather writes the numbers back into the same addresses before the backward that reads them.
Every collective runs in the same order on every rank because forward and backward walk the same graph
(backward in reverse creation order) on every rank.
"""
import mmap
import time

import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import is_grad_enabled
from ...tensor import Tensor
from .._group import _mpi


class _Block:
    """Memory for one unit's full parameters that can be released while arrays over it exist."""

    def __init__(self, nbytes):
        self.nbytes = int(nbytes)
        size = max(self.nbytes, mmap.PAGESIZE)
        private = getattr(mmap, "MAP_PRIVATE", None)  # (Windows has neither it nor madvise: memory is kept)
        self._map = mmap.mmap(-1, size) if private is None else mmap.mmap(-1, size, flags=private)
        self._can_release = hasattr(self._map, "madvise") and hasattr(mmap, "MADV_DONTNEED")
        self.resident = False

    def array(self, dtype, count, offset=0):
        return np.frombuffer(self._map, dtype, count, offset)

    def filled(self):
        if not self.resident:
            self.resident = True
            STATS["live"] += self.nbytes
            STATS["peak"] = max(STATS["peak"], STATS["live"])

    def release(self):
        if self.resident:
            if self._can_release:
                self._map.madvise(mmap.MADV_DONTNEED)
            self.resident = False
            STATS["live"] -= self.nbytes


# What benchmarks/fsdp_memory.py reads: bytes of gathered (full) parameters resident now and at most,
# and seconds spent in the all-gathers and the reduce-scatters.
STATS = {"live": 0, "peak": 0, "gather_s": 0.0, "reduce_s": 0.0}


class _Unit:
    """Parameters gathered and reduced together. Subclasses say how shards map to full tensors."""

    def __init__(self, pg, shards):
        self.pg = pg
        self.comm = pg._comm
        self.world = pg.size()
        self.rank = pg.rank()
        self.shards = shards            # the Parameters the optimizer updates (this rank's pieces)
        self.sync = True                # False under no_sync(): gradients accumulate unreduced
        self._pending = None            # gradients accumulated under no_sync, in the gathered layout
        self.block = None

    def _new_block(self, nbytes):
        self.block = _Block(nbytes)

    # full tensors, as autograd sees them ----------------------------------------------------------
    def unshard(self):
        """The full parameters (views of the block), recorded so their gradients reduce-scatter."""
        if is_grad_enabled() and any(s._requires_grad for s in self.shards):
            return _Unshard.apply(self, *self.shards)
        self.gather()
        return tuple(Tensor._wrap(v) for v in self.views())

    def gather(self):
        """Fill the block with the full parameters unless they are resident already."""
        if self.block is None or not self.block.resident:
            t0 = time.perf_counter()
            self._gather()
            STATS["gather_s"] += time.perf_counter() - t0
            if self.block is not None:
                self.block.filled()

    def release(self):
        if self.block is not None:
            self.block.release()

    def reduce(self, grads):
        """Shard gradients (averaged over ranks) from full gradients (None where unused); None for
        every shard under no_sync, which keeps the sum for the next synchronised backward."""
        flat = self._flatten_grads(grads)
        if self._pending is not None:
            flat += self._pending
        if not self.sync:
            self._pending = flat
            return [None] * len(self.shards)
        self._pending = None
        return self._timed_reduce(flat)

    def _timed_reduce(self, flat):
        t0 = time.perf_counter()
        try:
            return self._reduce(flat)
        finally:
            STATS["reduce_s"] += time.perf_counter() - t0


class _Unshard(Op):
    """shards -> full parameters; backward: full gradients -> reduce-scattered shard gradients."""

    @staticmethod
    def forward(ctx, unit, *shards):
        ctx.unit = unit
        unit.gather()
        return tuple(unit.views())

    @staticmethod
    def backward(ctx, *grads):
        unit = ctx.unit
        out = unit.reduce([g if g is None else np.asarray(g) for g in grads])
        unit.after_backward()
        return (None, *out)


class _PreBackward(Op):
    """Identity on a unit's outputs: before the gradient enters the unit, gather its parameters again
    (they were freed after forward)."""

    @staticmethod
    def forward(ctx, unit, *outputs):
        ctx.unit = unit
        return outputs if len(outputs) > 1 else outputs[0]

    @staticmethod
    def backward(ctx, *grads):
        ctx.unit.gather()
        return (None, *grads)


def hook_outputs(unit, output):
    """``output`` with every Tensor that requires grad passed through one _PreBackward node."""
    found = []

    def collect(x):
        if isinstance(x, Tensor):
            if x._requires_grad:
                found.append(x)
        elif isinstance(x, (list, tuple)):
            for y in x:
                collect(y)
        elif isinstance(x, dict):
            for y in x.values():
                collect(y)
    collect(output)
    if not found or not is_grad_enabled():
        return output
    new = _PreBackward.apply(unit, *found)
    new = new if isinstance(new, tuple) else (new,)
    swap = {id(a): b for a, b in zip(found, new)}

    def rebuild(x):
        if isinstance(x, Tensor):
            return swap.get(id(x), x)
        if isinstance(x, tuple) and hasattr(x, "_fields"):  # a namedtuple
            return type(x)(*[rebuild(y) for y in x])
        if isinstance(x, (list, tuple)):
            return type(x)(rebuild(y) for y in x)
        if isinstance(x, dict):
            return type(x)((k, rebuild(v)) for k, v in x.items())
        return x
    return rebuild(output)


class FlatUnit(_Unit):
    """FullyShardedDataParallel's unit: the parameters concatenated into one flat vector, padded to a
    multiple of the world size, rank r holding elements [r*s, (r+1)*s). NO_SHARD keeps it whole."""

    def __init__(self, pg, params, sharded, requires_grad):
        dtype = params[0]._data.dtype
        self.shapes = [tuple(p._data.shape) for p in params]
        self.numels = [int(p._data.size) for p in params]
        self.offsets = np.concatenate([[0], np.cumsum(self.numels)]).astype(np.int64).tolist()
        self.total = self.offsets[-1]
        world = pg.size()
        self.sharded = sharded and world > 1
        self.padded = -(-self.total // world) * world if self.sharded else self.total
        self.shard_size = self.padded // world if self.sharded else self.total
        self.dtype = dtype
        full = np.zeros(self.padded, dtype)
        for p, a in zip(params, self.offsets):
            full[a:a + p._data.size] = p._data.reshape(-1)
        start = pg.rank() * self.shard_size if self.sharded else 0
        from ...nn.parameter import Parameter
        flat = Parameter(Tensor._wrap(full[start:start + self.shard_size].copy()), requires_grad=requires_grad)
        super().__init__(pg, [flat])
        self.flat_param = flat
        self.start = start
        self.pieces = None
        if self.sharded:
            self._new_block(self.padded * dtype.itemsize)

    def _full(self):
        return self.block.array(self.dtype, self.padded) if self.sharded else self.flat_param._data

    # use_orig_params=True: the original parameters stay registered, each the piece of itself that falls in
    # this rank's shard (1-D; the whole parameter, in its shape, when nothing is sharded), a view of the flat
    # shard, so the optimizer updates the shard; their gradients are the matching pieces of its gradient.
    def piece_bounds(self, i, rank=None):
        """Where parameter ``i``'s piece lies in ``rank``'s shard (default: this rank's): [lo, hi)."""
        start = self.start if rank is None else rank * self.shard_size
        a, n = self.offsets[i], self.numels[i]
        lo = min(max(a - start, 0), self.shard_size)
        hi = min(max(a + n - start, 0), self.shard_size)
        return lo, max(lo, hi)

    def _piece_view(self, data, i):
        lo, hi = self.piece_bounds(i)
        v = data[lo:hi]
        return v if self.sharded else v.reshape(self.shapes[i])

    def gather_piece(self, local, i):
        """Parameter ``i`` whole (its shape) from every rank's piece of a piece-shaped array."""
        if not self.sharded:
            return np.array(local, copy=True).reshape(self.shapes[i])
        counts = [int(np.subtract(*self.piece_bounds(i, r)[::-1])) for r in range(self.world)]
        displs = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()
        out = np.empty(self.numels[i], local.dtype)
        self.comm.Allgatherv(np.ascontiguousarray(local).reshape(-1), [out, (counts, displs)])
        return out.reshape(self.shapes[i])

    def make_pieces(self, requires_grad):
        from ...nn.parameter import Parameter
        self.pieces = [Parameter(Tensor._wrap(self._piece_view(self.flat_param._data, i)), requires_grad=rg)
                       for i, rg in enumerate(requires_grad)]
        self._piece_arrays = [p._data for p in self.pieces]
        self.flat_param.register_post_accumulate_grad_hook(self._grads_to_pieces)

    def _grads_to_pieces(self, flat):
        g = flat._grad._data
        for i, p in enumerate(self.pieces):
            if not p._requires_grad:
                continue
            v = self._piece_view(g, i)
            if p._grad is None:
                p._grad = Tensor._wrap(v.copy())
            else:
                p._grad._data += v
        flat._grad = None

    def _pieces_to_flat(self):
        """An optimizer that replaced a piece's array (instead of writing into it) put the numbers elsewhere:
        copy them into the shard and make the piece a view of it again."""
        for i, p in enumerate(self.pieces):
            if p._data is not self._piece_arrays[i]:
                view = self._piece_view(self.flat_param._data, i)
                view[...] = p._data.reshape(view.shape)
                p._data = self._piece_arrays[i] = view

    def _gather(self):
        if self.pieces is not None:
            self._pieces_to_flat()
        if self.sharded:
            self.comm.Allgather(np.ascontiguousarray(self.flat_param._data), self._full())

    def views(self):
        full = self._full()
        return [full[a:a + n].reshape(s) for a, n, s in zip(self.offsets, self.numels, self.shapes)]

    def _flatten_grads(self, grads):
        flat = np.zeros(self.padded, self.dtype)
        for g, a, n in zip(grads, self.offsets, self.numels):
            if g is not None:
                flat[a:a + n] = g.reshape(-1)
        return flat

    def _reduce(self, flat):
        MPI = _mpi()
        if self.sharded:
            out = np.empty(self.shard_size, self.dtype)
            self.comm.Reduce_scatter_block(flat, out, op=MPI.SUM)
        else:
            out = flat
            if self.world > 1:
                self.comm.Allreduce(MPI.IN_PLACE, out, op=MPI.SUM)
        if self.world > 1:
            np.divide(out, self.world, out=out)
        return [out]

    def after_backward(self):
        if self.sharded:
            self.release()

    def full_copy(self):
        """A fresh array holding the full flat parameter (for state dicts; leaves the block alone)."""
        if self.pieces is not None:
            self._pieces_to_flat()
        if not self.sharded:
            return self.flat_param._data.copy()
        out = np.empty(self.padded, self.dtype)
        self.comm.Allgather(np.ascontiguousarray(self.flat_param._data), out)
        return out

    def gather_flat(self, local):
        """All ranks' pieces of a shard-shaped array (an optimizer state, a gradient) as one flat array."""
        if not self.sharded:
            return np.array(local, copy=True)
        out = np.empty(self.padded, local.dtype)
        self.comm.Allgather(np.ascontiguousarray(local), out)
        return out

    def write_param(self, i, full):
        """Put parameter ``i``'s new full value (any array of its size) into this rank's shard."""
        src = np.asarray(full).reshape(-1)
        a, n = self.offsets[i], self.numels[i]
        lo, hi = max(a, self.start), min(a + n, self.start + self.shard_size)
        if lo < hi:
            self.flat_param._data[lo - self.start:hi - self.start] = src[lo - a:hi - a]
        self.release()  # a gathered copy is stale now


def chunk_rows(n, world):
    """torch.chunk's split of n rows over ``world`` ranks: ceil(n / world) each, the last ones shorter
    or empty. Returns (rows per chunk, [(start, stop) per rank])."""
    c = -(-n // world) if n else 0
    return c, [(min(r * c, n), min((r + 1) * c, n)) for r in range(world)]


class ChunkUnit(_Unit):
    """fully_shard's unit: each parameter split along dim 0 into the ranks' chunks (torch.chunk's
    split), rank r keeping its rows as an ordinary Parameter; one block holds every full parameter,
    each padded to world * ceil(rows / world) rows so one all-gather per parameter fills it in place."""

    def __init__(self, pg, params):
        from ...nn.parameter import Parameter
        world, rank = pg.size(), pg.rank()
        self.shapes = [tuple(p._data.shape) for p in params]
        self.dtypes = [p._data.dtype for p in params]
        self.rowsize = [int(np.prod(s[1:], dtype=np.int64)) for s in self.shapes]
        self.chunk = []
        self.bounds = []
        shards = []
        offset = 0
        self.byte_offsets = []
        for p, s, rs in zip(params, self.shapes, self.rowsize):
            c, bounds = chunk_rows(s[0], world)
            self.chunk.append(c)
            self.bounds.append(bounds)
            a, b = bounds[rank]
            shards.append(Parameter(Tensor._wrap(p._data[a:b].copy()), requires_grad=p._requires_grad))
            self.byte_offsets.append(offset)
            offset += world * c * rs * p._data.dtype.itemsize
            offset = -(-offset // 64) * 64  # keep every full parameter aligned
        super().__init__(pg, shards)
        self._new_block(offset)

    def _padded(self, i):
        return self.block.array(self.dtypes[i], self.world * self.chunk[i] * self.rowsize[i], self.byte_offsets[i])

    def _gather(self):
        MPI = _mpi()
        reqs = []
        keep = []
        for i, s in enumerate(self.shards):
            c, rs = self.chunk[i], self.rowsize[i]
            local = s._data.reshape(-1)
            if local.size != c * rs or not local.flags.c_contiguous:
                send = np.zeros(c * rs, self.dtypes[i])
                send[:local.size] = local
                local = send
            keep.append(local)
            reqs.append(self.comm.Iallgather(local, self._padded(i)))
        MPI.Request.Waitall(reqs)

    def views(self):
        return [self._padded(i)[:s[0] * self.rowsize[i]].reshape(s) for i, s in enumerate(self.shapes)]

    def _flatten_grads(self, grads):
        return [np.zeros(self.world * self.chunk[i] * self.rowsize[i], self.dtypes[i]) if g is None else
                _pad(g.reshape(-1), self.world * self.chunk[i] * self.rowsize[i]) for i, g in enumerate(grads)]

    def reduce(self, grads):
        flat = self._flatten_grads(grads)
        if self._pending is not None:
            for f, p in zip(flat, self._pending):
                f += p
        if not self.sync:
            self._pending = flat
            return [None] * len(self.shards)
        self._pending = None
        return self._timed_reduce(flat)

    def _reduce(self, flat):
        MPI = _mpi()
        outs, reqs = [], []
        for i, f in enumerate(flat):
            out = np.empty(self.chunk[i] * self.rowsize[i], self.dtypes[i])
            reqs.append(self.comm.Ireduce_scatter_block(f, out, op=MPI.SUM))
            outs.append(out)
        MPI.Request.Waitall(reqs)
        res = []
        for i, out in enumerate(outs):
            a, b = self.bounds[i][self.rank]
            g = out[:(b - a) * self.rowsize[i]].reshape((b - a,) + self.shapes[i][1:])
            np.divide(g, self.world, out=g)
            res.append(g)
        return res

    def after_backward(self):
        self.release()


def _pad(a, n):
    out = np.zeros(n, a.dtype)
    out[:a.size] = a
    return out

