"""``torch.save`` / ``npgrad.save``: any picklable object, in PyTorch's zip layout.

The object is pickled (protocol 2 by default, as PyTorch) by a subclass of the pure-Python pickler:
its ``reducer_override`` turns tensors into ``torch._utils._rebuild_tensor_v2`` calls on a persistent
storage record, Parameters into ``_rebuild_parameter`` around one, and ``Size``/``device``/dtypes into
``torch.Size``/``torch.device``/``torch.float32``. Those globals are written by name (``_Global``) so
neither PyTorch nor an import of ``torch`` is needed here, and a file written under ``npgrad run``
(where ``torch`` is npgrad) names PyTorch's functions, not npgrad's. Everything else (dicts, dataclasses,
modules, optimizers) pickles as Python pickles it: a whole npgrad module pickles as npgrad's classes.

Storage: a tensor that is a view of a C-contiguous NumPy array of its own dtype (a slice, a transpose,
``view``/``reshape`` of another tensor) is written as that base array plus its offset and strides, so
tensors sharing a base share one storage in the file and in PyTorch after loading. Anything else (a
negative-stride view, a view through a dtype reinterpretation, an array not owned by NumPy) is written
as its own contiguous copy. Each storage starts at a multiple of 64 bytes in the archive, like PyTorch's.
"""
import hashlib
import io
import pickle
import struct
import sys
from collections import OrderedDict

import numpy as np

from .. import dtypes as _dt
from ..tensor import Device, Size, Tensor
from ._torch_globals import STORAGE_OF

_ALIGN = 64
ARCHIVE = "archive"


class _Global:
    """A global written by name: ``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``, ``torch.int64``..."""
    __slots__ = ("module", "name")
    _cache = {}

    def __new__(cls, module, name):
        key = (module, name)
        g = cls._cache.get(key)
        if g is None:
            g = cls._cache[key] = object.__new__(cls)
            g.module, g.name = module, name
        return g

    def __call__(self, *args):  # pickle's save_reduce wants a callable; this one only ever names one
        raise TypeError(f"{self.module}.{self.name} is written by name, not called")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_SIZE, _DEVICE = _Global("torch", "Size"), _Global("torch", "device")


class _Storage:
    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


class _Data:
    """A Parameter's tensor as ``_rebuild_parameter`` receives it (a plain tensor without requires_grad)."""
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


def _is_parameter(t):
    return type(t).__name__ == "Parameter" and type(t).__module__.startswith("npgrad.")


class _Pickler(pickle._Pickler):
    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, fh, protocol, legacy=False):
        super().__init__(fh, protocol)
        self._legacy = legacy  # the legacy format's storage records carry a sixth entry (no view: None)
        self.storages = []   # (key, contiguous ndarray)
        self._roots = {}     # id(base array) -> key
        self._keep = []      # keeps base arrays alive so their ids stay unique

    def save_marker(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)
    dispatch[_Global] = save_marker

    def save_dtype(self, obj):
        self.save_marker(_Global("torch", obj.name))
    dispatch[_dt.dtype] = save_dtype

    def persistent_id(self, obj):
        return obj.pid if type(obj) is _Storage else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if _is_parameter(obj):
                return _REBUILD_PARAMETER, (_Data(obj), bool(obj._requires_grad), OrderedDict())
            return self._tensor(obj, bool(obj._requires_grad))
        t = type(obj)
        if t is _Data:
            return self._tensor(obj.tensor, False)
        if t is Size:
            return _SIZE, (tuple(int(s) for s in obj),)
        if t is Device:
            return _DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index)
        if t is set or t is frozenset:  # in a fixed order: a set of strings iterates by the process's hash seed
            return t, (_ordered(obj),)
        return NotImplemented

    def _tensor(self, t, requires_grad):
        arr = t._data
        cls = STORAGE_OF.get(arr.dtype.name)
        if cls is None:
            raise TypeError(f"npgrad.save: a tensor of dtype {arr.dtype} has no PyTorch storage type")
        key, numel, offset, stride = self._storage(arr)
        pid = ("storage", _Global("torch", cls), key, "cpu", numel) + ((None,) if self._legacy else ())
        return _REBUILD_TENSOR, (_Storage(pid), offset, tuple(int(s) for s in arr.shape), stride, requires_grad,
                                 OrderedDict())

    def _storage(self, arr):
        """(key, numel, element offset, element strides) of the storage ``arr`` is written into."""
        root = arr
        while isinstance(root.base, np.ndarray):
            root = root.base
        item = arr.itemsize
        if root.dtype == arr.dtype and root.dtype.isnative and root.flags.c_contiguous and root.size:
            off = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
            if off >= 0 and off % item == 0 and all(s >= 0 and s % item == 0 for s in arr.strides):
                key = self._roots.get(id(root))
                if key is None:
                    key = self._roots[id(root)] = str(len(self.storages))
                    self._keep.append(root)
                    self.storages.append((key, root.reshape(-1)))
                stride = tuple(s // item if n > 1 else _c_stride(arr.shape, i) for i, (s, n)
                               in enumerate(zip(arr.strides, arr.shape)))
                return key, root.size, off // item, stride
        own = np.ascontiguousarray(arr.reshape(-1)).astype(arr.dtype.newbyteorder("="), copy=False)
        key = str(len(self.storages))
        self.storages.append((key, own))
        return key, own.size, 0, tuple(_c_stride(arr.shape, i) for i in range(arr.ndim))


def _ordered(items):
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=lambda v: (type(v).__name__, repr(v)))


def _c_stride(shape, i):
    s = 1
    for n in shape[i + 1:]:
        s *= n
    return s


def pickle_with_storages(obj, protocol=2, legacy=False):
    """(pickle bytes, [(key, array)]) for ``obj``."""
    buf = io.BytesIO()
    p = _Pickler(buf, protocol, legacy)
    p.dump(obj)
    return buf.getvalue(), p.storages


def write_legacy(fh, obj, protocol=2):
    """``_use_new_zipfile_serialization=False``: the layout ``_torch_legacy`` reads (PyTorch's before 1.6)."""
    from ._torch_legacy import MAGIC, PROTOCOL
    data, storages = pickle_with_storages(obj, protocol, legacy=True)
    info = {"protocol_version": PROTOCOL, "little_endian": sys.byteorder == "little",
            "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for head in (MAGIC, PROTOCOL, info):
        pickle.dump(head, fh, protocol=protocol)
    fh.write(data)
    pickle.dump([key for key, _ in storages], fh, protocol=protocol)
    for _, arr in storages:
        fh.write(struct.pack("=q", arr.size))
        fh.write(memoryview(arr.reshape(-1).view(np.uint8)) if arr.size else b"")


def write_torch(fh, obj, protocol=2, byteorder_record=True):
    import zipfile
    data, storages = pickle_with_storages(obj, protocol)
    stamp = (1980, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        start = zf.fp.tell()  # offsets (and so alignment) count from the archive's first byte

        def record(name, payload):
            zf.writestr(zipfile.ZipInfo(f"{ARCHIVE}/{name}", date_time=stamp), payload)

        record("data.pkl", data)
        record(".format_version", b"1")
        record(".storage_alignment", str(_ALIGN).encode())
        if byteorder_record:
            record("byteorder", sys.byteorder.encode())
        digest = hashlib.sha1(data)  # with each storage's CRC, which zipfile computes anyway
        for key, arr in storages:
            name = f"{ARCHIVE}/data/{key}"
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.file_size = arr.nbytes
            zip64 = arr.nbytes * 1.05 > zipfile.ZIP64_LIMIT
            here = zf.fp.tell() - start + 30 + len(name.encode()) + 4 + (20 if zip64 else 0)
            info.extra = b"FB" + struct.pack("<H", -here % _ALIGN) + b"Z" * (-here % _ALIGN)
            with zf.open(info, "w", force_zip64=zip64) as out:
                out.write(memoryview(arr.reshape(-1).view(np.uint8)) if arr.size else b"")
            digest.update(struct.pack("<IQ", info.CRC, arr.nbytes))
        record("version", b"3\n")
        # PyTorch records a 40-digit id per file; here it is derived from the contents, so the same
        # object always saves to the same bytes
        record(".data/serialization_id", str(int(digest.hexdigest(), 16) % 10 ** 40).zfill(40).encode())
