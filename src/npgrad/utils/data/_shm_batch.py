"""A collated batch moved from a worker to the main process through shared memory.

The worker pickles the batch with every large array (a Tensor's data, a NumPy array) replaced by a
reference into one new shared-memory segment it writes with ``pwrite``; only that small pickle and the
segment's name go through the result queue. The main process maps the segment, unlinks its name at
once (the memory lives on while the mapping does) and wraps the arrays in place: no second copy, and
nothing left in /dev/shm once a batch is received. Segments never received (an early ``break``, an
error, a killed process) are found by their name prefix, which is unique to one iterator (and worker).

``pwrite`` rather than writing through a mapping: a full /dev/shm then fails with ENOSPC, and the
batch goes through the queue instead, where a mapping would have died with SIGBUS.
"""
import io
import mmap
import os
import pickle
import tempfile

import numpy as np

from ...tensor import Tensor

# Arrays smaller than this are pickled into the metadata: a segment costs a few system calls.
MIN_SHM_BYTES = 4096
_ALIGN = 64

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
        name = f"{self.prefix}{self._count}"
        self._count += 1
        fd = os.open(os.path.join(SHM_DIR, name), os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        try:
            for arr, off in zip(arrays, offsets):
                _write_all(fd, arr, off)
        except OSError:  # /dev/shm full: send the whole batch through the queue
            os.close(fd)
            _unlink(name)
            return None, pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL), ()
        os.close(fd)
        return name, meta.getvalue(), tuple(offsets)

    def release_all(self):
        release_prefix(self.prefix)


def unpack(payload):
    """The batch a worker packed; its segment's name is unlinked before this returns."""
    name, meta, offsets = payload
    if name is None:
        return pickle.loads(meta)
    path = os.path.join(SHM_DIR, name)
    fd = os.open(path, os.O_RDWR)
    try:
        buffer = mmap.mmap(fd, 0)
    finally:
        os.close(fd)
        os.unlink(path)
    # The arrays keep `buffer` (the mapping) alive; it is unmapped when the last of them is freed.
    return _Restorer(io.BytesIO(meta), buffer, offsets).load()


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
