"""``npgrad.save(obj, f, format="torch")``: a file in ``torch.save``'s zip layout that
``torch.load(f, weights_only=True)`` reads.

The pickle is written opcode by opcode (protocol 2, as ``torch.save``), because the globals it names
(``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``...) must not need PyTorch installed here.
Tensors become ``_rebuild_tensor_v2`` calls on a persistent storage record, Parameters
``_rebuild_parameter`` around one (as PyTorch pickles them), a state_dict's ``_metadata`` a ``BUILD``.

Storage: a tensor that is a view of a C-contiguous NumPy array of its own dtype (a slice, a transpose,
``view``/``reshape`` of another tensor) is written as that base array plus its offset and strides, so
tensors sharing a base share one storage in the file and in PyTorch after loading. Anything else (a
negative-stride view, a view through a dtype reinterpretation, an array not owned by NumPy) is written
as its own contiguous copy. Each storage starts at a multiple of 64 bytes in the archive, like PyTorch's.
"""
import struct
import sys
from collections import Counter, OrderedDict

import numpy as np

from .. import dtypes as _dt
from ..tensor import Device, Size, Tensor

_STORAGE_CLASS = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage",
                  "uint8": "ByteStorage", "int8": "CharStorage", "int16": "ShortStorage", "int32": "IntStorage",
                  "int64": "LongStorage", "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
                  "complex128": "ComplexDoubleStorage"}
_ALIGN = 64
ARCHIVE = "archive"


def _global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


class _Pickler:
    def __init__(self):
        self.out = []
        self._memo = {}      # id(obj) -> memo index, for tensors (the same tensor twice loads as one)
        self._keep = []      # keeps memoised objects alive so ids stay unique
        self._active = set()
        self.storages = []   # (key, contiguous ndarray)
        self._roots = {}     # id(base array) -> key

    def _put(self, obj):
        idx = self._memo[id(obj)] = len(self._memo)
        self._keep.append(obj)
        self.out.append(b"q" + bytes([idx]) if idx < 256 else b"r" + struct.pack("<I", idx))

    def _get(self, idx):
        self.out.append(b"h" + bytes([idx]) if idx < 256 else b"j" + struct.pack("<I", idx))

    def dump(self, obj):
        self.out.append(b"\x80\x02")
        self.save(obj, "obj")
        self.out.append(b".")
        return b"".join(self.out)

    def _int(self, v):
        if 0 <= v < 256:
            self.out.append(b"K" + bytes([v]))
        elif 0 <= v < 65536:
            self.out.append(b"M" + struct.pack("<H", v))
        elif -2 ** 31 <= v < 2 ** 31:
            self.out.append(b"J" + struct.pack("<i", v))
        else:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            self.out.append(b"\x8a" + bytes([len(raw)]) + raw if len(raw) < 256 else
                            b"\x8b" + struct.pack("<i", len(raw)) + raw)

    def _str(self, v):
        raw = v.encode("utf-8", "surrogatepass")
        self.out.append(b"X" + struct.pack("<I", len(raw)) + raw)

    def _tuple(self, items, where):
        if not items:
            self.out.append(b")")
            return
        if len(items) > 3:
            self.out.append(b"(")
        for i, v in enumerate(items):
            self.save(v, f"{where}[{i}]")
        self.out.append(b"t" if len(items) > 3 else b"\x84\x85\x86\x87"[len(items):len(items) + 1])

    def save(self, obj, where):
        if obj is None:
            self.out.append(b"N")
        elif obj is True or obj is False:
            self.out.append(b"\x88" if obj else b"\x89")
        elif isinstance(obj, int) and type(obj) is not bool:
            self._int(int(obj))
        elif isinstance(obj, float):
            self.out.append(b"G" + struct.pack(">d", float(obj)))
        elif isinstance(obj, str):
            self._str(str(obj))
        elif isinstance(obj, Tensor):
            self._tensor(obj, where)
        elif isinstance(obj, _dt.dtype):
            if obj.name not in _STORAGE_CLASS:
                raise TypeError(f"npgrad.save: unsupported dtype {obj} at {where}")
            self.out.append(_global("torch", obj.name))
        elif isinstance(obj, Device):
            self.out.append(_global("torch", "device"))
            self._tuple((str(obj),), where)
            self.out.append(b"R")
        elif id(obj) in self._active:
            raise ValueError(f"npgrad.save cannot store a self-referencing container (at {where})")
        else:
            self._active.add(id(obj))
            try:
                self._container(obj, where)
            finally:
                self._active.discard(id(obj))

    def _container(self, obj, where):
        if isinstance(obj, Size):
            self.out.append(_global("torch", "Size"))
            self._tuple((tuple(int(s) for s in obj),), where)
            self.out.append(b"R")
        elif isinstance(obj, tuple):
            self._tuple(tuple(obj), where)
        elif isinstance(obj, list):
            self.out.append(b"]")
            if obj:
                self.out.append(b"(")
                for i, v in enumerate(obj):
                    self.save(v, f"{where}[{i}]")
                self.out.append(b"e")
        elif isinstance(obj, (set, frozenset)) and type(obj) in (set, frozenset):
            if type(obj) is frozenset:
                raise TypeError(f"npgrad.save(format='torch') cannot store a frozenset (at {where}): "
                                "torch.load(weights_only=True) does not read one")
            self.out.append(_global("builtins", "set"))
            self._tuple((sorted(obj, key=lambda v: (type(v).__name__, repr(v))),), where)
            self.out.append(b"R")
        elif isinstance(obj, dict) and type(obj) in (dict, OrderedDict, Counter):
            self._dict(obj, where)
        else:
            raise TypeError(
                f"npgrad.save(format='torch') cannot store an object of type {type(obj).__module__}."
                f"{type(obj).__qualname__} (at {where}): it stores tensors, numbers, strings, None, dtypes, "
                "torch.Size, devices and lists, tuples, sets and dicts of them (save a module's state_dict())")

    def _dict(self, obj, where):
        if type(obj) is dict:
            self.out.append(b"}")
        else:
            self.out.append(_global("collections", type(obj).__name__) + b")R")
        if obj:
            self.out.append(b"(")
            for k, v in obj.items():
                if isinstance(k, Tensor):
                    raise TypeError(f"npgrad.save cannot store a dict keyed by tensors (at {where})")
                self.save(k, where)
                self.save(v, f"{where}[{k!r}]")
            self.out.append(b"u")
        metadata = getattr(obj, "_metadata", None)  # a state_dict's per-module versions, as PyTorch keeps them
        if type(obj) is OrderedDict and isinstance(metadata, dict):
            self.out.append(b"}")
            self._str("_metadata")
            self.save(metadata, f"{where}._metadata")
            self.out.append(b"sb")

    def _tensor(self, t, where):
        idx = self._memo.get(id(t))
        if idx is not None:
            self._get(idx)
            return
        arr = t._data
        if arr.dtype.name not in _STORAGE_CLASS:
            raise TypeError(f"npgrad.save: unsupported tensor dtype {arr.dtype} at {where}")
        parameter = type(t).__name__ == "Parameter" and type(t).__module__.startswith("npgrad.")
        if parameter:
            self.out.append(_global("torch._utils", "_rebuild_parameter") + b"(")
        key, numel, offset, stride = self._storage(arr)
        self.out.append(_global("torch._utils", "_rebuild_tensor_v2") + b"((")
        self._str("storage")
        self.out.append(_global("torch", _STORAGE_CLASS[arr.dtype.name]))
        self._str(key)
        self._str("cpu")
        self._int(numel)
        self.out.append(b"tQ")
        self._int(offset)
        self._tuple(tuple(int(s) for s in arr.shape), where)
        self._tuple(stride, where)
        self.out.append(b"\x89" if parameter or not t._requires_grad else b"\x88")
        self.out.append(_global("collections", "OrderedDict") + b")Rt" + b"R")
        if parameter:
            self.out.append(b"\x88" if t._requires_grad else b"\x89")
            self.out.append(_global("collections", "OrderedDict") + b")Rt" + b"R")
        self._put(t)

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


def _c_stride(shape, i):
    s = 1
    for n in shape[i + 1:]:
        s *= n
    return s


def write_torch(fh, obj):
    import zipfile
    p = _Pickler()
    data = p.dump(obj)
    stamp = (1980, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        start = zf.fp.tell()  # offsets (and so alignment) count from the archive's first byte

        def record(name, payload):
            zf.writestr(zipfile.ZipInfo(f"{ARCHIVE}/{name}", date_time=stamp), payload)

        record("data.pkl", data)
        record(".format_version", b"1")
        record(".storage_alignment", str(_ALIGN).encode())
        record("byteorder", sys.byteorder.encode())
        for key, arr in p.storages:
            name = f"{ARCHIVE}/data/{key}"
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.file_size = arr.nbytes
            zip64 = arr.nbytes * 1.05 > zipfile.ZIP64_LIMIT
            here = zf.fp.tell() - start + 30 + len(name.encode()) + 4 + (20 if zip64 else 0)
            info.extra = b"FB" + struct.pack("<H", -here % _ALIGN) + b"Z" * (-here % _ALIGN)
            with zf.open(info, "w", force_zip64=zip64) as out:
                out.write(memoryview(arr.reshape(-1).view(np.uint8)) if arr.size else b"")
        record("version", b"3\n")
