"""A collated batch moved from a worker to the main process through shared memory.

The worker pickles the batch with every large array (a Tensor's data, a NumPy array) replaced by a
reference into a shared-memory segment it writes with ``pwrite``; only that small pickle and the
segment's name go through the result queue. The main process maps the segment (pre-faulted) and wraps
the arrays in place, without a second copy.

Segments are reused: when the last array of a received batch is freed, the main process hands the
segment's name back to its worker with the next task, and the worker writes a later batch into the same
pages. (A fresh segment per batch costs the kernel's page allocation and zeroing in the worker and the
pages' release in the main process, which measured more than the copy itself.) Every name of one
iterator starts with a prefix unique to it (and to the worker), so whatever is left when the iterator
shuts down, or when a worker finds its main process gone, is removed by that prefix; a batch the user
still holds stays valid after its name is removed.

``pwrite`` rather than writing through a mapping: a full /dev/shm then fails with ENOSPC, and the
batch goes through the queue instead, where a mapping would have died with SIGBUS.
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
    """Pickles a batch, setting large arrays aside (by position) instead of serialising them."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
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
        self.arrays.append(arr)
        return (kind, len(self.arrays) - 1, arr.shape, arr.dtype)


class _Restorer(pickle.Unpickler):
    def __init__(self, file, buffer, offsets):
        super().__init__(file)
        self._buffer = buffer
        self._offsets = offsets

    def persistent_load(self, pid):
        kind, i, shape, dtype = pid
        arr = np.ndarray(shape, dtype, buffer=self._buffer, offset=self._offsets[i])
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
    """Packs one worker's batches; segment names are ``prefix`` followed by a counter."""

    def __init__(self, prefix):
        self.prefix = prefix
        self._count = 0
        self._size = {}  # every segment this worker created that still exists -> its size in bytes
        self._free = []  # names handed back by the main process, ready to be rewritten

    def take_back(self, names):
        """Segments whose batches the main process has released."""
        self._free.extend(names)
        while len(self._free) > MAX_FREE_SEGMENTS:
            name = min(self._free, key=self._size.get)
            self._free.remove(name)
            self._size.pop(name, None)
            _unlink(name)

    def _segment(self, nbytes):
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

    def pack(self, batch):
        """``(segment name or None, metadata pickle, array offsets)`` for the result queue."""
        meta = io.BytesIO()
        collector = _Collector(meta)
        collector.dump(batch)
        arrays = collector.arrays
        if not arrays:
            return None, meta.getvalue(), ()
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
            os.close(fd)
            self._size.pop(name, None)
            _unlink(name)
            return None, pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL), ()
        os.close(fd)
        self._size[name] = max(self._size[name], end)
        return name, meta.getvalue(), tuple(offsets)

    def release_all(self):
        release_prefix(self.prefix)


def unpack(payload, released=None):
    """The batch a worker packed. Its arrays share one mapping of the segment; when the last of them is
    freed, the segment's name is appended to ``released`` (for the worker to reuse), or, without a
    ``released`` list, unlinked at once."""
    name, meta, offsets = payload
    if name is None:
        return pickle.loads(meta)
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
    return _Restorer(io.BytesIO(meta), whole, offsets).load()


def discard(payload):
    """Free a packed batch that will never be unpacked."""
    if payload[0] is not None:
        _unlink(payload[0])


def release_prefix(prefix):
    """Unlink every segment whose name starts with ``prefix`` (batches written but never received)."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            _unlink(name)
