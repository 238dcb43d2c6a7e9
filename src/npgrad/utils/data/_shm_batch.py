"""A collated batch moved from a worker to the main process through shared memory.

In a worker, ``default_collate`` stacks each large batched tensor directly into a shared-memory segment
(``allocate``), as PyTorch's workers do, so the batch is written once. The worker then pickles the batch
with every large array replaced by a reference: into the segment it already lives in, or, for other
large arrays (a custom collate_fn's, ``batch_size=None``), into one more segment it writes with
``pwrite``. Only that small pickle and the segments' names go through the result queue. The main
process maps the segments (pre-faulted) and wraps the arrays in place, without another copy.

Segments are reused: when the last array of a received batch is freed, the main process hands the
segment's name back to its worker with the next task, and the worker writes a later batch into the same
pages. (A fresh segment per batch costs the kernel's page allocation and zeroing in the worker and the
pages' release in the main process, which measured more than the copy itself.) Every name of one
iterator starts with a prefix unique to it (and to the worker), so whatever is left when the iterator
shuts down, or when a worker finds its main process gone, is removed by that prefix; a batch the user
still holds stays valid after its name is removed.

A new segment is reserved with ``posix_fallocate`` (or written with ``pwrite``) before use: a full
/dev/shm then fails with ENOSPC and the batch takes the ordinary path (stacked in private memory,
pickled through the queue), where touching an unbacked mapping would have died with SIGBUS.
"""
import io
import mmap
import os
import pickle
import tempfile
import weakref

import numpy as np

from ...tensor import Tensor

# Arrays smaller than this are pickled into the metadata: a segment costs a few system calls.
MIN_SHM_BYTES = 4096
_ALIGN = 64
# Free segments a worker keeps for reuse; more than this (after the user released many held batches) are removed.
MAX_FREE_SEGMENTS = 8
_MAP_FLAGS = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)  # pre-fault: one call instead of a fault per page

SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


class _Collector(pickle.Pickler):
    """Pickles a batch, replacing large arrays by references: into a segment they already live in
    (``mapped``: id of a segment's whole-buffer array -> segment number), or to be copied (``arrays``)."""

    def __init__(self, file, mapped):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.mapped = mapped
        self.used = set()
        self.arrays = []

    def persistent_id(self, obj):
        cls = type(obj)
        if cls is Tensor:
            if obj._requires_grad:
                return None  # keep requires_grad through the ordinary pickle path
            arr, kind = obj._data, "t"
        elif cls is np.ndarray:
            arr, kind = obj, "a"
        else:
            return None
        if arr.dtype.hasobject or arr.nbytes < MIN_SHM_BYTES:
            return None
        base = arr.base
        seg = self.mapped.get(id(base)) if base is not None else None
        if seg is not None and arr.flags.c_contiguous:
            self.used.add(seg)
            offset = arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]
            return (kind, seg, offset, arr.shape, arr.dtype)
        self.arrays.append(arr)
        return (kind, None, len(self.arrays) - 1, arr.shape, arr.dtype)


class _Restorer(pickle.Unpickler):
    def __init__(self, file, buffers, copied_segment, offsets):
        super().__init__(file)
        self._buffers = buffers
        self._copied = copied_segment
        self._offsets = offsets

    def persistent_load(self, pid):
        kind, seg, where, shape, dtype = pid
        if seg is None:
            seg, where = self._copied, self._offsets[where]
        arr = np.ndarray(shape, dtype, buffer=self._buffers[seg], offset=where)
        return Tensor._wrap(arr) if kind == "t" else arr


def _write_all(fd, arr, offset):
    flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    view = memoryview(flat)
    done = 0
    while done < len(view):
        done += os.pwrite(fd, view[done:], offset + done)


def _unlink(name):
    try:
        os.unlink(os.path.join(SHM_DIR, name))
    except FileNotFoundError:
        pass


class Writer:
    """One worker's segments; names are ``prefix`` followed by a counter."""

    def __init__(self, prefix):
        self.prefix = prefix
        self._count = 0
        self._size = {}  # every segment this worker created that still exists -> its size in bytes
        self._free = []  # names handed back by the main process, ready to be rewritten
        self._mapped = {}  # segments allocated for the batch being built: name -> whole-buffer array
        # segments sent with a batch stacked in them -> weak reference to this worker's view of them: alive
        # if the dataset or collate_fn kept a reference, and then the segment is not rewritten
        self._sent_views = {}

    def take_back(self, names):
        """Segments whose batches the main process has released."""
        for name in names:
            view = self._sent_views.pop(name, None)
            if view is not None and view() is not None:
                self._forget(name)  # still referenced in this worker: leave those pages to it
            else:
                self._free.append(name)
        while len(self._free) > MAX_FREE_SEGMENTS:
            name = min(self._free, key=self._size.get)
            self._free.remove(name)
            self._size.pop(name, None)
            _unlink(name)

    def _segment(self, nbytes):
        """(name, fd) of a segment of at least ``nbytes``, reused if one is free; its pages are backed."""
        fits = [n for n in self._free if self._size.get(n, 0) >= nbytes]
        if fits:
            name = min(fits, key=self._size.get)
            self._free.remove(name)
            try:
                return name, os.open(os.path.join(SHM_DIR, name), os.O_RDWR)
            except FileNotFoundError:  # removed by the main process meanwhile
                self._size.pop(name, None)
        name = f"{self.prefix}{self._count}"
        self._count += 1
        fd = os.open(os.path.join(SHM_DIR, name), os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        self._size[name] = 0
        return name, fd

    def _drop(self, name, fd):
        os.close(fd)
        self._forget(name)

    def _forget(self, name):
        """Unlink a segment for good; whoever maps it keeps its pages until they unmap."""
        self._size.pop(name, None)
        _unlink(name)

    def allocate(self, shape, dtype):
        """An array in a shared-memory segment for the batch being built, or None (too small to be worth a
        segment, or no room in /dev/shm)."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes < MIN_SHM_BYTES or dtype.hasobject:
            return None
        name, fd = self._segment(nbytes)
        try:
            if self._size[name] < nbytes:
                if hasattr(os, "posix_fallocate"):
                    os.posix_fallocate(fd, 0, nbytes)
                else:
                    os.ftruncate(fd, nbytes)
                self._size[name] = nbytes
            mapping = mmap.mmap(fd, 0, flags=_MAP_FLAGS)
        except OSError:
            self._drop(name, fd)
            return None
        os.close(fd)
        whole = np.frombuffer(mapping, np.uint8)
        self._mapped[name] = whole
        return whole[:nbytes].view(dtype).reshape(shape)

    def abandon(self):
        """The batch being built failed: its segments are given up (not reused: the failed code may hold them)."""
        for name in self._mapped:
            self._forget(name)
        self._mapped.clear()

    def pack(self, batch):
        """``(segment names, metadata pickle, offsets of copied arrays)`` for the result queue."""
        names = list(self._mapped)
        mapped = {id(whole): i for i, whole in enumerate(self._mapped.values())}
        meta = io.BytesIO()
        collector = _Collector(meta, mapped)
        collector.dump(batch)
        unused = [n for i, n in enumerate(names) if i not in collector.used]
        for name in unused:  # allocated, but the collate_fn did not return them (and may keep them)
            self._forget(name)
        names = [n for n in names if n not in unused]
        for name in names:
            self._sent_views[name] = weakref.ref(self._mapped[name])
        self._mapped.clear()  # our mappings go away with the batch's arrays
        arrays = collector.arrays
        if not arrays:
            return tuple(names), meta.getvalue(), ()
        offsets, end = [], 0
        for arr in arrays:
            end = -(-end // _ALIGN) * _ALIGN
            offsets.append(end)
            end += arr.nbytes
        name, fd = self._segment(end)
        try:
            for arr, off in zip(arrays, offsets):
                _write_all(fd, arr, off)
        except OSError:  # /dev/shm full: send the whole batch through the queue
            self._drop(name, fd)
            for n in names:
                self._sent_views.pop(n, None)
                self._forget(n)
            return (), pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL), ()
        os.close(fd)
        self._size[name] = max(self._size[name], end)
        return tuple(names) + (name,), meta.getvalue(), tuple(offsets)

    def release_all(self):
        release_prefix(self.prefix)


def unpack(payload, released=None):
    """The batch a worker packed. Its arrays are views of the segments' mappings; when the last view of
    a segment is freed, the segment's name is appended to ``released`` (for the worker to reuse), or,
    without a ``released`` list, unlinked at once."""
    names, meta, offsets = payload
    if not names:
        return pickle.loads(meta)
    buffers = []
    for name in names:
        path = os.path.join(SHM_DIR, name)
        fd = os.open(path, os.O_RDWR)
        try:
            mapping = mmap.mmap(fd, 0, flags=_MAP_FLAGS)
        finally:
            os.close(fd)
            if released is None:
                os.unlink(path)
        whole = np.frombuffer(mapping, np.uint8)  # every array below is a view of this one
        if released is not None:
            weakref.finalize(whole, released.append, name)
        buffers.append(whole)
    return _Restorer(io.BytesIO(meta), buffers, len(names) - 1, offsets).load()


def discard(payload):
    """Free a packed batch that will never be unpacked."""
    for name in payload[0]:
        _unlink(name)


def release_prefix(prefix):
    """Unlink every segment whose name starts with ``prefix`` (batches written but never received)."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            _unlink(name)
