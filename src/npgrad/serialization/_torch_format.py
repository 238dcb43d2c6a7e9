"""Reading ``torch.save``'s zip format without executing anything from the file.

Such a file is a zip whose members share one top folder (``<archive>/``): ``data.pkl`` (a pickle of the
saved object in which every storage is a persistent id), ``data/<key>`` (each storage's raw bytes),
``byteorder``, ``version`` and a few bookkeeping records. The zip layer is checked by ``_zipcheck`` like
npgrad's own files (same ``max_ratio``/``max_bytes``). The pickle is read by the pure-Python unpickler
with its opcode table cut down to plain data, ``REDUCE`` allowed only on npgrad's own rebuild functions,
``BUILD`` only on OrderedDicts, and ``find_class`` answering only the globals that
``torch.load(..., weights_only=True)`` accepts for tensors and containers (``_torch_globals``). Nothing
the file names is imported or called: each allowed global maps to an npgrad function or marker, and
anything else is a ``CheckpointError`` naming it. The pure-Python unpickler is used on purpose: its memo
is a dict (the C one sizes an array by the largest memo index a file declares) and its opcode table can
be restricted.

Tensors are NumPy views (``as_strided``) into their storage's array with the stored offset, size and
stride, so tensors that shared a storage in PyTorch share memory in npgrad; a tensor whose strides make
elements overlap (an ``expand``) is copied, because writing through such a view would be ambiguous.
"""
import io
import pickle
import re
import struct
from collections import Counter, OrderedDict

import numpy as np

from ..tensor import Tensor
from ._errors import CheckpointError, fail
from ._torch_globals import GLOBALS, REBUILDERS, StorageType, TorchDtype, np_dtype_of
from ._zipcheck import MemberReader, inventory

_RECORDS = {"data.pkl", "byteorder", "version", ".format_version", ".storage_alignment",
            ".data/serialization_id", ".data/version"}
_KEY_RE = re.compile(r"[0-9A-Za-z_.-]{1,64}\Z")
_OPS = (pickle.PROTO, pickle.FRAME, pickle.STOP, pickle.MARK, pickle.POP, pickle.POP_MARK, pickle.DUP,
        pickle.INT, pickle.BININT, pickle.BININT1, pickle.BININT2, pickle.LONG, pickle.LONG1, pickle.LONG4,
        pickle.FLOAT, pickle.BINFLOAT, pickle.NONE, pickle.NEWTRUE, pickle.NEWFALSE,
        pickle.STRING, pickle.BINSTRING, pickle.SHORT_BINSTRING, pickle.UNICODE, pickle.BINUNICODE,
        pickle.SHORT_BINUNICODE, pickle.BINUNICODE8, pickle.BINBYTES, pickle.SHORT_BINBYTES, pickle.BINBYTES8,
        pickle.EMPTY_TUPLE, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3, pickle.EMPTY_LIST,
        pickle.LIST, pickle.EMPTY_DICT, pickle.DICT, pickle.EMPTY_SET, pickle.FROZENSET,
        pickle.GET, pickle.BINGET, pickle.LONG_BINGET, pickle.PUT, pickle.BINPUT, pickle.LONG_BINPUT,
        pickle.MEMOIZE, pickle.GLOBAL, pickle.STACK_GLOBAL, pickle.PERSID, pickle.BINPERSID)


def torch_prefix(zf):
    """The archive's top folder if ``zf`` is laid out as ``torch.save`` writes it, else None."""
    names = zf.namelist()
    if not names or "/" not in names[0]:
        return None
    prefix = names[0].split("/", 1)[0]
    return prefix if f"{prefix}/data.pkl" in zf.NameToInfo else None


class _Storage:
    __slots__ = ("key", "dtype", "numel", "array")

    def __init__(self, key, dtype, numel):
        self.key, self.dtype, self.numel, self.array = key, dtype, numel, None


class _Opcodes(dict):
    """The unpickler's opcode table: an opcode not in it is refused by name (INST, OBJ, NEWOBJ, EXT...)."""

    def __missing__(self, code):
        raise pickle.UnpicklingError(f"it uses the pickle opcode {bytes([code])!r}, which is not allowed")


class _Unpickler(pickle._Unpickler):
    dispatch = _Opcodes({op[0]: pickle._Unpickler.dispatch[op[0]] for op in _OPS})

    def __init__(self, data, loader, name):
        super().__init__(io.BytesIO(data), fix_imports=False, encoding="utf-8")
        self._loader, self._name = loader, name

    def _refuse(self, why):
        fail(self._name, f"is a PyTorch checkpoint that npgrad.load refuses: {why} (nothing from the file was "
                         "executed)")

    def find_class(self, module, name):
        if module == "__builtin__":  # protocol 2 spells builtins by their Python 2 module name
            module = "builtins"
        found = GLOBALS.get(f"{module}.{name}")
        if found is None:
            self._refuse(f"its data.pkl asks for the global {module}.{name}, which is not on the allow list "
                         "(tensors, storages, dtypes, torch.Size, torch.device, OrderedDict, Counter, set)")
        return found

    def persistent_load(self, pid):
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage"):
            self._refuse(f"its data.pkl holds a persistent id {pid!r:.80} that is not a storage record")
        _, kind, key, location, numel = pid
        if not isinstance(kind, StorageType) or type(key) is not str or type(location) is not str \
                or type(numel) is not int or numel < 0:
            self._refuse(f"its data.pkl holds a malformed storage record {pid!r:.120}")
        return self._loader(kind, key, numel)

    def _at(self, op, obj, types):
        if type(obj) not in types:
            self._refuse(f"its data.pkl applies {op} to a {type(obj).__name__}")
        return obj

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not any(func is r for r in REBUILDERS) or type(args) is not tuple:
            self._refuse(f"its data.pkl calls {func!r:.80}, which is not one of the allowed rebuild functions")
        try:
            self.stack[-1] = func(*args)
        except CheckpointError:
            raise
        except (TypeError, ValueError, OverflowError, RuntimeError) as e:
            self._refuse(f"its data.pkl calls {func.__name__} with invalid arguments ({e})")
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst).__name__ not in ("OrderedDict", "Counter") or type(state) is not dict \
                or set(state) - {"_metadata"}:
            self._refuse(f"its data.pkl sets state on a {type(inst).__name__} (only a state_dict's _metadata "
                         "is allowed)")
        inst.__dict__.update(state)
    dispatch[pickle.BUILD[0]] = load_build

    def load_append(self):
        value = self.stack.pop()
        self._at("APPEND", self.stack[-1], (list,)).append(value)
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        self._at("APPENDS", self.stack[-1], (list,)).extend(items)
    dispatch[pickle.APPENDS[0]] = load_appends

    def _set(self, op, items):
        target = self.stack[-1]
        if type(target) not in (dict, OrderedDict, Counter):
            self._refuse(f"its data.pkl applies {op} to a {type(target).__name__}")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._set("SETITEM", [key, value])
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        self._set("SETITEMS", self.pop_mark())
    dispatch[pickle.SETITEMS[0]] = load_setitems

    def load_additems(self):
        items = self.pop_mark()
        self._at("ADDITEMS", self.stack[-1], (set,)).update(items)
    dispatch[pickle.ADDITEMS[0]] = load_additems


def load_torch(zf, fh, name, prefix, limits, weights_only):
    if weights_only is False:
        fail(name, "is a PyTorch checkpoint, and weights_only=False asks to unpickle arbitrary objects, which "
                   "npgrad never does; load it with weights_only=True (the default) to read its tensors, "
                   "numbers, strings and containers")
    top = prefix + "/"

    def known(entry):
        if not entry.startswith(top):
            return False
        rest = entry[len(top):]
        return rest in _RECORDS or (rest.startswith("data/") and _KEY_RE.match(rest[5:]) is not None)

    members = inventory(zf, fh, name, known, **limits)

    def read(entry):
        member = members[entry]
        buf = np.empty(member.size, np.uint8)
        reader = MemberReader(fh, member, name)
        reader.readinto(memoryview(buf))
        reader.finish()
        return buf

    order = b"little"  # files written before PyTorch recorded the byte order are little-endian
    if top + "byteorder" in members:
        if members[top + "byteorder"].size > 16:
            fail(name, "is corrupted: its byteorder record is too long")
        order = bytes(read(top + "byteorder"))
    if order not in (b"little", b"big"):
        fail(name, f"is corrupted: its byteorder record says {order!r:.40}")
    storages = {}

    def storage(kind, key, numel):
        entry = f"{top}data/{key}"
        if entry not in members:
            fail(name, f"is corrupted: its data.pkl refers to the storage {key!r:.80}, which is not in the archive")
        st = storages.get(key)
        if st is not None:
            if st.dtype != kind.dtype:
                fail(name, f"is corrupted: the storage {key} is used as both {st.dtype} and {kind.dtype}")
            return st
        itemsize = 1 if kind.dtype is None else np_dtype_of(kind.dtype, name).itemsize
        if numel * itemsize != members[entry].size:
            fail(name, f"is corrupted: the storage {key} declares {numel * itemsize} bytes but the archive "
                       f"holds {members[entry].size}")
        st = storages[key] = _Storage(key, kind.dtype, numel)
        st.array = read(entry)
        return st

    def typed(st, dtype):
        """The storage as a 1-D array of ``dtype`` (converted once, so every view of it shares it)."""
        if st.dtype is None:  # an UntypedStorage: the dtype comes with the tensor (_rebuild_tensor_v3)
            st.dtype = dtype
        elif st.dtype != dtype:
            fail(name, f"is corrupted: the storage {st.key} is used as both {st.dtype} and {dtype}")
        raw = st.array
        if raw.dtype == np.uint8 and dtype != "uint8":
            np_dt = np_dtype_of(dtype, name)
            if raw.size % np_dt.itemsize:
                fail(name, f"is corrupted: the storage {st.key} holds {raw.size} bytes, not a whole number of "
                           f"{dtype} elements")
            if dtype == "bool":
                np.minimum(raw, 1, out=raw)  # any other byte would be a bool NumPy treats inconsistently
            arr = raw.view(np.dtype(np_dt).newbyteorder("<" if order == b"little" else ">"))
            if not arr.dtype.isnative:
                arr = arr.byteswap().view(arr.dtype.newbyteorder("="))
            st.array = raw = arr
        return raw

    from . import _torch_globals
    raw = bytes(read(top + "data.pkl"))
    unpickler = _Unpickler(raw, storage, name)
    token = _torch_globals.set_context(name, typed)
    try:
        obj = unpickler.load()
    except pickle.UnpicklingError as e:
        fail(name, f"is a PyTorch checkpoint that npgrad.load refuses: its data.pkl is not a pickle of plain "
                   f"data ({e})")
    except (EOFError, KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError,
            UnicodeDecodeError, RecursionError, struct.error) as e:
        fail(name, f"is corrupted: its data.pkl cannot be read ({type(e).__name__}: {e})")
    finally:
        _torch_globals.reset_context(token)
    _check_plain(obj, name)
    return obj


def _check_plain(obj, name):
    """Whatever a file can make that is not a finished object (a bare storage, a dtype npgrad lacks) is refused."""
    todo, seen = [obj], set()
    while todo:
        o = todo.pop()
        if isinstance(o, (list, tuple, set, frozenset)):
            if id(o) not in seen:
                seen.add(id(o))
                todo.extend(o)
        elif isinstance(o, dict):
            if id(o) not in seen:
                seen.add(id(o))
                todo.extend(o.keys())
                todo.extend(o.values())
                todo.extend(getattr(o, "__dict__", {}).values())
        elif isinstance(o, _Storage):
            fail(name, "holds a bare storage (not a tensor), which npgrad cannot represent")
        elif isinstance(o, (TorchDtype, StorageType)):
            fail(name, f"holds the dtype or storage class {o}, which npgrad does not support")
        elif o is not None and not isinstance(o, (bool, int, float, str, bytes, Tensor)) \
                and type(o).__module__ not in ("npgrad.tensor", "npgrad.dtypes", "npgrad.nn.parameter"):
            fail(name, f"holds an object of type {type(o).__name__}, which npgrad cannot represent")
