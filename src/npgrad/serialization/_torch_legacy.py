"""Reading ``torch.save(..., _use_new_zipfile_serialization=False)``: PyTorch's format before 1.6.

Such a file is five pickles in a row (a magic number, the protocol version 1001, a dict describing the
writer's machine, the saved object with storages as persistent ids, and the list of storage keys)
followed by each storage in that list's order: its element count as 8 bytes, then its raw bytes. The
storages come after the object that uses them, so each is allocated when the object first names it
(only once the bytes it declares are shown to fit in what is left of the file), tensors are views of it,
and its bytes are read in afterwards. The three small pickles are read by the weights-only unpickler
whatever ``weights_only`` says; the object by the one ``weights_only`` selects (``_torch_format``).
"""
import numpy as np

from ._errors import CheckpointError, fail
from ._torch_format import _Storage, make_typed, unpickle
from ._torch_globals import np_dtype_of

MAGIC = 0x1950A86A20F9469CFC6C
PROTOCOL = 1001


class _Clamped:
    """The file as the unpickler reads it: no read asks for more than what is left, since a buffered
    file allocates the size it is asked for (a pickle can declare a 2**60-byte string)."""

    def __init__(self, fh, end):
        self._fh, self._end = fh, end

    def _left(self, n):
        left = max(self._end - self._fh.tell(), 0)
        return left if n is None or n < 0 else min(n, left)

    def read(self, n=-1):
        return self._fh.read(self._left(n))

    def readline(self, n=-1):
        return self._fh.readline(self._left(n))

    def readinto(self, buf):
        return self._fh.readinto(memoryview(buf)[:self._left(len(buf))])

    def tell(self):
        return self._fh.tell()


def _small(fh, name, what):
    def no_storage(*_):
        fail(name, f"is corrupted: its {what} holds a storage")
    try:
        return unpickle(fh, no_storage, None, name, True)
    except CheckpointError as e:
        if what == "first pickle":
            fail(name, f"is a pickle file but not a PyTorch checkpoint (Invalid magic number; corrupt file?): {e}")
        raise


def load_legacy(fh, name, weights_only):
    start = fh.tell()
    end = fh.seek(0, 2)
    fh.seek(start)
    fh = _Clamped(fh, end)
    magic = _small(fh, name, "first pickle")
    if type(magic) is not int or magic != MAGIC:
        fail(name, "is a pickle file but not a PyTorch checkpoint (Invalid magic number; corrupt file?); "
                   "npgrad.load reads PyTorch's formats and npgrad's own")
    if _small(fh, name, "protocol record") != PROTOCOL:
        fail(name, "is corrupted: its legacy-format protocol version is not 1001")
    info = _small(fh, name, "system record")
    if type(info) is not dict or info.get("little_endian") is not True:
        fail(name, "is a legacy-format PyTorch file from a big-endian machine, which npgrad does not read; "
                   "re-save it with a recent PyTorch (the zip format)")
    storages = {}
    declared = [0]

    def storage(kind, key, numel):
        st = storages.get(key)
        if st is not None:
            if st.dtype != kind.dtype or st.numel != numel:
                fail(name, f"is corrupted: the storage {key} is declared twice differently")
            return st
        if kind.dtype is None:
            fail(name, "is corrupted: a legacy-format file names an untyped storage")
        nbytes = numel * np_dtype_of(kind.dtype, name).itemsize
        declared[0] += nbytes + 8
        if declared[0] > end - fh.tell():  # the bytes follow the pickle: all of them must fit in the rest
            fail(name, f"is corrupted: its storages declare {declared[0]} bytes but only {end - fh.tell()} follow")
        st = storages[key] = _Storage(key, kind.dtype, numel)
        st.array = np.empty(nbytes, np.uint8)
        return st

    deferred = []
    obj = unpickle(fh, storage, make_typed(name, b"little", filled_later=True), name, weights_only, deferred)
    keys = _small(fh, name, "storage list")
    if type(keys) is not list or sorted(keys) != sorted(storages) or len(set(keys)) != len(keys):
        fail(name, "is corrupted: its storage list does not match the storages its object uses")
    for key in keys:
        st = storages[key]
        head = fh.read(8)
        if len(head) != 8 or int.from_bytes(head, "little") != st.numel:
            fail(name, f"is truncated or corrupted: the storage {key} does not start with its {st.numel} elements")
        raw = st.array.reshape(-1).view(np.uint8)  # the typed view, or the bytes nothing viewed as a dtype
        got = fh.readinto(memoryview(raw)) if raw.size else 0
        if got != raw.size:
            fail(name, f"is truncated: the storage {key} ends after {got} of its {raw.size} bytes")
        if st.dtype == "bool":
            np.minimum(raw, 1, out=raw)  # any other byte would be a bool NumPy treats inconsistently
    for t in deferred:  # expanded tensors: now that their bytes are in, each becomes its own copy
        t._data = t._data.copy()
    return obj
