"""``npgrad.save`` / ``npgrad.load``: checkpoints that can never execute code when loaded.

A checkpoint is a zip archive holding
  * ``npgrad/structure.json``: the saved object's shape as JSON (dicts, lists, tuples, numbers,
    strings, None) where every tensor or array is a reference to an entry, and
  * ``npgrad/data/<n>.npy``: one NumPy ``.npy`` file per tensor or array (stored uncompressed).

Loading only parses JSON and reads raw numbers: there is no pickle anywhere, so a crafted file can at
worst be rejected. Arrays are read with a hand-checked header (no object dtypes, sizes that match the
entry), so a malicious header cannot make ``load`` allocate more than the file holds. Writing goes to
a temporary file in the target's directory that replaces the target only once complete, so an
interrupted save leaves the previous checkpoint intact.

``save_safetensors`` / ``load_safetensors`` exchange flat ``{name: tensor}`` dicts (state_dicts) with
PyTorch and other frameworks through the safetensors format (optional dependency).
"""
import io
import math
import os
import secrets
import stat
from collections import Counter, OrderedDict

import numpy as np

from . import dtypes as _dt
from .tensor import Size, Tensor

__all__ = ["save", "load", "save_safetensors", "load_safetensors"]

_FORMAT = "npgrad.checkpoint"
_VERSION = 1
_STRUCTURE = "npgrad/structure.json"
_DATA = "npgrad/data/{}.npy"
_TAG = "$"
_MAX_HEADER = 10000  # bytes of .npy header we accept (NumPy's own default limit)
_TENSOR_DTYPES = {d.name: d for d in (_dt.float16, _dt.float32, _dt.float64, _dt.int8, _dt.int16, _dt.int32,
                                      _dt.int64, _dt.uint8, _dt.bool)}
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


# -- writing ------------------------------------------------------------------------------------------------
class _Encoder:
    """Turns the object into JSON-ready data, collecting each tensor/array once (shared ones stay shared)."""

    def __init__(self):
        self.arrays = []   # (entry name, ndarray)
        self._memo = {}    # id(tensor or array) -> entry index
        self._keep = []    # keeps memoised objects alive so their ids stay unique
        self._active = set()

    def _array_ref(self, obj, arr):
        idx = self._memo.get(id(obj))
        if idx is None:
            idx = self._memo[id(obj)] = len(self.arrays)
            self._keep.append(obj)
            self.arrays.append((_DATA.format(idx), arr))
        return idx

    def encode(self, obj, where="obj"):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            return float(obj) if math.isfinite(obj) else {_TAG: "float", "value": repr(float(obj))}
        if isinstance(obj, Tensor):
            arr = obj._data
            if arr.dtype.name not in _TENSOR_DTYPES:
                raise TypeError(f"npgrad.save: unsupported tensor dtype {arr.dtype} at {where}")
            node = {_TAG: "tensor", "data": self._array_ref(obj, arr), "dtype": arr.dtype.name,
                    "requires_grad": bool(obj._requires_grad)}
            if _is_parameter(obj):
                node["parameter"] = True
            return node
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject or obj.dtype.kind in "OUSV":
                raise TypeError(f"npgrad.save cannot store NumPy arrays of dtype {obj.dtype} (at {where}): only "
                                "numeric and bool arrays can be stored without pickle")
            return {_TAG: "ndarray", "data": self._array_ref(obj, obj)}
        if isinstance(obj, np.generic):
            if isinstance(obj, (np.str_, np.bytes_, np.object_)) or obj.dtype.hasobject:
                raise TypeError(f"npgrad.save cannot store a NumPy {type(obj).__name__} scalar (at {where})")
            return {_TAG: "npscalar", "data": self._array_ref(obj, np.asarray(obj))}
        if isinstance(obj, _dt.dtype):
            return {_TAG: "dtype", "name": obj.name}

        if id(obj) in self._active:
            raise ValueError(f"npgrad.save cannot store a self-referencing container (at {where})")
        self._active.add(id(obj))
        try:
            return self._encode_container(obj, where)
        finally:
            self._active.discard(id(obj))

    def _encode_container(self, obj, where):
        if isinstance(obj, list):
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, tuple):
            kind = "size" if isinstance(obj, Size) else "tuple"
            return {_TAG: kind, "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if isinstance(obj, (set, frozenset)):
            # in a stable order: iteration order of a set of strings changes with the process's hash seed
            items = sorted(obj, key=lambda v: (type(v).__name__, repr(v)))
            return {_TAG: type(obj).__name__, "items": [self.encode(v, where) for v in items]}
        if isinstance(obj, dict):
            kind = "Counter" if isinstance(obj, Counter) else "OrderedDict" if isinstance(obj, OrderedDict) else "dict"
            items = []
            for k, v in obj.items():
                if isinstance(k, (Tensor, np.ndarray)):
                    raise TypeError(f"npgrad.save cannot store a dict keyed by tensors or arrays (at {where})")
                items.append([self.encode(k, where), self.encode(v, f"{where}[{k!r}]")])
            node = {_TAG: kind, "items": items}
            metadata = getattr(obj, "_metadata", None)  # module state_dicts carry per-module versions here
            if isinstance(metadata, dict):
                try:
                    node["metadata"] = self.encode(metadata, f"{where}._metadata")
                except TypeError:
                    pass
            return node
        raise TypeError(
            f"npgrad.save cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__} (at "
            f"{where}): checkpoints hold tensors, NumPy arrays, numbers, strings, None, dtypes and lists, tuples, "
            "sets and dicts of them (save a module's state_dict(), not the module)")


def _is_parameter(t):
    return type(t).__name__ == "Parameter" and type(t).__module__.startswith("npgrad.")


def _write_archive(fh, structure, arrays):
    import zipfile  # zipfile and json load on first use: `import npgrad` stays quick
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        # a fixed timestamp (as the array entries get): the same object always saves to the same bytes
        zf.writestr(zipfile.ZipInfo(_STRUCTURE, date_time=(1980, 1, 1, 0, 0, 0)), structure)
        for name, arr in arrays:
            with zf.open(name, "w", force_zip64=arr.nbytes > 0x7FFF0000) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` (tensors, arrays, numbers, strings, None, and lists/tuples/dicts of them) to ``f``.

    ``f`` is a path (written atomically: a temporary file in the same directory replaces it when
    complete) or a binary file object. Tensors saved several times in ``obj`` are stored once and load
    as one tensor. ``pickle_module``/``pickle_protocol`` are accepted for PyTorch compatibility and
    ignored: nothing is pickled.
    """
    import json
    enc = _Encoder()
    root = enc.encode(obj)
    structure = json.dumps({"format": _FORMAT, "version": _VERSION, "root": root}, allow_nan=False,
                           separators=(",", ":"))
    if isinstance(f, (str, bytes, os.PathLike)):
        _atomic_write(os.fsdecode(f), structure, enc.arrays)
    elif hasattr(f, "write"):
        _write_archive(f, structure, enc.arrays)
    else:
        raise TypeError(f"npgrad.save: f must be a path or a writable binary file object, not {type(f).__name__}")


def _atomic_write(path, structure, arrays):
    target = os.path.realpath(path)  # write through a symlink, as open() would, rather than replacing it
    directory = os.path.dirname(target)
    if os.path.isdir(target):
        raise IsADirectoryError(f"npgrad.save: {path} is a directory")
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    tmp = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            _write_archive(fh, structure, arrays)
            fh.flush()
            os.fsync(fh.fileno())
        try:  # an overwritten checkpoint keeps its permissions
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def _fsync_dir(directory):
    # Make the rename itself durable; not possible (nor needed) on every platform.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- reading ------------------------------------------------------------------------------------------------
class CheckpointError(RuntimeError):
    """A file that ``npgrad.load`` refuses: not a checkpoint, truncated, corrupted, or unsafe."""


def _fail(name, why):
    raise CheckpointError(f"npgrad.load: {name} {why}")


def _describe_non_checkpoint(head, name, zf=None):
    if zf is not None:
        names = zf.namelist()
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
            _fail(name, "is a PyTorch checkpoint (torch.save's pickle-based format). npgrad.load never unpickles, "
                        "because unpickling can run arbitrary code; convert it in PyTorch with "
                        "safetensors.torch.save_file(state_dict, path) and load it with "
                        "npgrad.serialization.load_safetensors(path)")
        if names and all(n.endswith(".npy") for n in names):
            _fail(name, "is a NumPy .npz archive, not an npgrad checkpoint; read it with "
                        "numpy.load(path, allow_pickle=False)")
        _fail(name, "is a zip archive but not an npgrad checkpoint (it has no npgrad/structure.json)")
    if not head:
        _fail(name, "is empty")
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        _fail(name, "is a pickle file (e.g. torch.save's legacy format). npgrad.load never unpickles, because "
                    "unpickling can run arbitrary code")
    if head.startswith(b"\x93NUMPY"):
        _fail(name, "is a NumPy .npy file, not an npgrad checkpoint; read it with numpy.load(path, "
                    "allow_pickle=False)")
    if head.startswith(b"PK") or b"PK\x03\x04".startswith(head):
        _fail(name, "is truncated or corrupted (an incomplete zip archive)")
    _fail(name, "is not an npgrad checkpoint (it is not a zip archive)")


def _read_npy(zf, entry, name):
    """One .npy entry as an array, refusing object dtypes and headers that disagree with the entry's size."""
    import zipfile
    try:
        info = zf.getinfo(entry)
    except KeyError:
        _fail(name, f"is corrupted: the array entry {entry} is missing")
    try:
        with zf.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp, max_header_size=_MAX_HEADER)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp, max_header_size=_MAX_HEADER)
            else:
                _fail(name, f"has an unsupported .npy version {version} in {entry}")
            if dtype.hasobject:
                _fail(name, f"is unsafe: {entry} holds Python objects (a pickle), which npgrad.load refuses to load")
            count = 1
            for s in shape:
                count *= int(s)
            nbytes = count * dtype.itemsize
            if info.file_size != fp.tell() + nbytes:
                _fail(name, f"is corrupted: {entry} declares {nbytes} bytes of data for shape {tuple(shape)} but "
                            f"holds {info.file_size - fp.tell()}")
            flat = np.empty(count, dtype)
            view = memoryview(flat.view(np.uint8)) if nbytes else None
            got = 0
            while got < nbytes:
                n = fp.readinto(view[got:])
                if not n:
                    _fail(name, f"is truncated: {entry} ends after {got} of {nbytes} bytes")
                got += n
            if fp.read(1):
                _fail(name, f"is corrupted: {entry} has trailing data")
    except zipfile.BadZipFile as e:
        _fail(name, f"is corrupted ({e})")
    except (ValueError, EOFError) as e:
        _fail(name, f"is corrupted: cannot read {entry} ({e})")
    arr = flat.reshape(shape, order="F" if fortran else "C")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


class _Decoder:
    def __init__(self, zf, name):
        self.zf, self.name = zf, name
        self._memo = {}

    def _array(self, node):
        idx = node.get("data")
        if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
            self._bad(f"an invalid data reference {idx!r}")
        if idx not in self._memo:
            self._memo[idx] = _read_npy(self.zf, _DATA.format(idx), self.name)
        return idx, self._memo[idx]

    def _bad(self, what):
        _fail(self.name, f"is corrupted: its structure has {what}")

    def _items(self, node):
        items = node.get("items")
        if not isinstance(items, list):
            self._bad(f"a {node.get(_TAG)} without a list of items")
        return items

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            self._bad(f"an unexpected value of type {type(node).__name__}")
        tag = node.get(_TAG)
        if tag == "tensor":
            return self._tensor(node)
        if tag == "ndarray":
            return self._array(node)[1]
        if tag == "npscalar":
            arr = self._array(node)[1]
            if arr.ndim != 0:
                self._bad("a NumPy scalar that is not 0-d")
            return arr[()]
        if tag == "float":
            value = node.get("value")
            if value not in ("inf", "-inf", "nan"):
                self._bad(f"an invalid float {value!r}")
            return float(value)
        if tag in ("tuple", "size"):
            values = tuple(self.decode(v) for v in self._items(node))
            if tag == "size":
                if not all(isinstance(v, int) for v in values):
                    self._bad("a Size with non-integer entries")
                return Size(values)
            return values
        if tag in ("set", "frozenset"):
            try:
                values = {self._key(self.decode(v)) for v in self._items(node)}
            except TypeError:
                self._bad("a set with unhashable members")
            return values if tag == "set" else frozenset(values)
        if tag in ("dict", "OrderedDict", "Counter"):
            out = {"dict": dict, "OrderedDict": OrderedDict, "Counter": Counter}[tag]()
            for pair in self._items(node):
                if not (isinstance(pair, list) and len(pair) == 2):
                    self._bad("a dict entry that is not a key/value pair")
                out[self._key(self.decode(pair[0]))] = self.decode(pair[1])
            if "metadata" in node and tag == "OrderedDict":
                out._metadata = self.decode(node["metadata"])
            return out
        if tag == "dtype":
            dt = _TENSOR_DTYPES.get(node.get("name"))
            if dt is None:
                self._bad(f"an unknown dtype {node.get('name')!r}")
            return dt
        self._bad(f"an unknown entry type {tag!r}")

    def _key(self, key):
        if isinstance(key, (list, dict, set, Tensor, np.ndarray)):
            self._bad("an unhashable dict key")
        return key

    def _tensor(self, node):
        dtype = _TENSOR_DTYPES.get(node.get("dtype"))
        if dtype is None:
            self._bad(f"a tensor of unknown dtype {node.get('dtype')!r}")
        idx, arr = self._array(node)
        if arr.dtype != dtype.np:
            self._bad(f"a tensor recorded as {dtype.name} whose data is {arr.dtype}")
        key = ("tensor", idx)
        t = self._memo.get(key)
        if t is None:
            parameter = getattr(_nn(), "Parameter", None) if node.get("parameter") else None
            if parameter is not None:
                t = parameter(Tensor._wrap(arr), requires_grad=bool(node.get("requires_grad")))
            else:
                t = Tensor._wrap(arr)
                if node.get("requires_grad"):
                    if dtype.is_floating_point:
                        t.requires_grad = True
            self._memo[key] = t
        return t


def _nn():
    from . import nn
    return nn


def _check_map_location(map_location):
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return  # nothing to move: every tensor lives on the CPU
    name = str(map_location)
    if not (name == "cpu" or name.startswith("cpu:")):
        raise RuntimeError(f"npgrad.load: map_location={map_location!r}: npgrad runs on the CPU only")


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Load an object written by ``npgrad.save`` from a path or binary file object.

    Never executes code from the file, whatever ``weights_only`` says (the format has no pickle).
    A missing file raises FileNotFoundError; anything else wrong with the file (not a checkpoint,
    truncated, corrupted, a pickle or a PyTorch checkpoint) raises ``CheckpointError`` (a RuntimeError)
    naming the file and the problem. ``map_location`` may be None, ``'cpu'``, a device, a dict or a
    callable; tensors always load on the CPU.
    """
    _check_map_location(map_location)
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(f)
        with open(path, "rb") as fh:
            return _load_from(fh, repr(path))
    if not hasattr(f, "read"):
        raise TypeError(f"npgrad.load: f must be a path or a readable binary file object, not {type(f).__name__}")
    if not (hasattr(f, "seek") and hasattr(f, "tell")) or (hasattr(f, "seekable") and not f.seekable()):
        f = io.BytesIO(f.read())
    return _load_from(f, getattr(f, "name", None) and repr(f.name) or f"<{type(f).__name__}>")


def _load_from(fh, name):
    import json
    import zipfile
    start = fh.tell()
    head = fh.read(8)
    fh.seek(start)
    if not head.startswith(_ZIP_MAGIC):
        _describe_non_checkpoint(head, name)
    try:
        zf = zipfile.ZipFile(fh)
    except zipfile.BadZipFile as e:
        _fail(name, f"is truncated or corrupted ({e})")
    except (OSError, EOFError, ValueError) as e:
        _fail(name, f"is truncated or corrupted ({type(e).__name__}: {e})")
    with zf:
        if _STRUCTURE not in zf.namelist():
            _describe_non_checkpoint(head, name, zf)
        try:
            info = zf.getinfo(_STRUCTURE)
            if info.file_size > 1 << 30:
                _fail(name, "is corrupted: its structure entry is implausibly large")
            meta = json.loads(zf.read(info).decode("utf-8"))
        except zipfile.BadZipFile as e:
            _fail(name, f"is corrupted ({e})")
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            _fail(name, f"is corrupted: its structure is not valid JSON ({type(e).__name__}: {e})")
        if not isinstance(meta, dict) or meta.get("format") != _FORMAT or "root" not in meta:
            _fail(name, "is corrupted: its structure entry is not an npgrad checkpoint description")
        version = meta.get("version")
        if not isinstance(version, int) or version > _VERSION:
            _fail(name, f"was written by a newer npgrad (checkpoint format version {version!r}; this npgrad "
                        f"reads up to {_VERSION})")
        try:
            return _Decoder(zf, name).decode(meta["root"])
        except RecursionError:
            _fail(name, "is corrupted: its structure is nested too deeply")


# -- safetensors --------------------------------------------------------------------------------------------
def _safetensors_numpy():
    try:
        import safetensors.numpy as st  # optional
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("save_safetensors/load_safetensors need the optional package safetensors "
                          "(pip install safetensors)") from e
    return st


def save_safetensors(tensors, path, metadata=None):
    """Write a flat ``{name: tensor}`` dict (e.g. ``model.state_dict()``) as a .safetensors file.

    The file loads in PyTorch with ``safetensors.torch.load_file(path)``. ``metadata`` is an optional
    ``{str: str}`` dict stored in the header. Written atomically, like ``save``.
    """
    st = _safetensors_numpy()
    if not isinstance(tensors, dict):
        raise TypeError(f"save_safetensors expects a dict of tensors, got {type(tensors).__name__}")
    arrays = {}
    for k, v in tensors.items():
        if not isinstance(k, str):
            raise TypeError(f"save_safetensors: keys must be strings, got {k!r}")
        if isinstance(v, Tensor):
            v = v._data
        if not isinstance(v, np.ndarray):
            raise TypeError(f"save_safetensors: value of {k!r} is a {type(v).__name__}, not a tensor")
        arrays[k] = v if v.flags.c_contiguous else v.copy(order="C")  # ascontiguousarray would make 0-d 1-d
    data = st.save(arrays, metadata=metadata)
    target = os.path.realpath(os.fsdecode(path))
    tmp = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load_safetensors(path):
    """Read a .safetensors file (e.g. from ``safetensors.torch.save_file``) as a ``{name: Tensor}`` dict."""
    st = _safetensors_numpy()
    with open(os.fsdecode(path), "rb") as fh:
        data = fh.read()
    try:
        arrays = st.load(data)
    except Exception as e:  # the Rust parser reports bad headers/sizes as its own error type
        raise CheckpointError(f"load_safetensors: {os.fsdecode(path)!r} is not a valid safetensors file ({e})") \
            from None
    out = OrderedDict()
    for k, arr in arrays.items():
        if arr.dtype.name not in _TENSOR_DTYPES:
            raise CheckpointError(f"load_safetensors: {k!r} has dtype {arr.dtype}, which npgrad tensors do not "
                                  "support")
        out[k] = Tensor._wrap(np.array(arr, copy=True) if not arr.flags.writeable else arr)
    return out
