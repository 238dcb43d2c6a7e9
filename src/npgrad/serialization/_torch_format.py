"""Reading ``torch.save``'s zip format.

Such a file is a zip whose members share one top folder (``<archive>/``): ``data.pkl`` (a pickle of the
saved object in which every storage is a persistent id), ``data/<key>`` (each storage's raw bytes),
``byteorder``, ``version`` and a few bookkeeping records. The zip layer is checked by ``_zipcheck`` like
npgrad's own files (same ``max_ratio``/``max_bytes``).

``weights_only=True`` (``_Unpickler``): the pure-Python unpickler with its opcode table cut down to plain
data, ``find_class`` answering the globals ``torch.load(..., weights_only=True)`` accepts for tensors and
containers (``_torch_globals``: each maps to an npgrad function or marker, never to what the file names)
and those the user allowed (``_safe_globals``); ``REDUCE`` only on those functions, ``NEWOBJ`` only on
allowed classes and containers, ``BUILD`` only on a state_dict's ``_metadata`` and on allowed classes.
Anything else is a ``WeightsOnlyError`` in PyTorch's words, before anything from the file ran.
``weights_only=False`` (``_FullUnpickler``): Python's unpickling, which imports and calls what the file
names, with PyTorch's globals read as npgrad's. Both are the pure-Python unpickler on purpose: its memo is
a dict (the C one sizes an array by the largest memo index a file declares).

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
from . import _safe_globals
from ._errors import CheckpointError, fail, weights_only_fail
from ._torch_globals import CONTAINERS, GLOBALS, REBUILDERS, StorageType, TorchDtype, np_dtype_of
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


class _Refused(Exception):
    """Raised where the file's name is not at hand (the opcode table); turned into PyTorch's message."""


class _Opcodes(dict):
    """The unpickler's opcode table: an opcode not in it is refused by number, as PyTorch words it."""

    def __missing__(self, code):
        raise _Refused(f"Unsupported operand {code}")


def _set_state(inst, state):
    """``BUILD`` on an instance of a class the user allowed: what pickle itself does."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        inst.__dict__.update(state)
    for k, v in (slots or {}).items():
        setattr(inst, k, v)


class _Unpickler(pickle._Unpickler):
    """``weights_only=True``: plain data, npgrad's rebuild functions, and what ``add_safe_globals`` allows."""
    dispatch = _Opcodes({op[0]: pickle._Unpickler.dispatch[op[0]] for op in _OPS})

    def __init__(self, data, loader, name):
        super().__init__(data if hasattr(data, "read") else io.BytesIO(data), fix_imports=False, encoding="utf-8")
        self._loader, self._name = loader, name

    def _refuse(self, why):
        weights_only_fail(self._name, why)

    def find_class(self, module, name):
        if module == "__builtin__":  # protocol 2 spells builtins by their Python 2 module name
            module = "builtins"
        full = f"{module}.{name}"
        found = GLOBALS.get(full)
        if found is None:
            found = _safe_globals.lookup(full)
        if found is None and module in ("torch._utils", "torch._tensor"):
            fail(self._name, f"holds {full}, which npgrad.load does not support (it rebuilds plain tensors and "
                             "Parameters, not tensor subclasses, quantized, sparse, nested or meta tensors)")
        if found is None:
            weights_only_fail(self._name, None, name if module == "builtins" else full)
        return found

    def persistent_load(self, pid):
        return storage_record(pid, self._loader, self._refuse)

    def _at(self, op, obj, types):
        if type(obj) not in types and not (isinstance(obj, types) and _safe_globals.allowed(type(obj))):
            self._refuse(f"{op} on a {type(obj).__name__} is not allowed")
        return obj

    def _call(self, func, args, kwargs=None):
        try:
            return func(*args, **(kwargs or {}))
        except CheckpointError:
            raise
        except (TypeError, ValueError, OverflowError, RuntimeError) as e:
            fail(self._name, f"is corrupted: its data.pkl calls {getattr(func, '__name__', 'a global')} with "
                             f"invalid arguments ({e})")

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not (any(func is r for r in REBUILDERS) or _safe_globals.allowed(func)) or type(args) is not tuple:
            self._refuse(f"Trying to call reduce for unrecognized function {func!r:.80}")
        self.stack[-1] = self._call(func, args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def _new(self, cls, args, kwargs=None):
        if any(cls is c for c in CONTAINERS) and not kwargs:
            return self._call(cls, args)
        if not (isinstance(cls, type) and _safe_globals.allowed(cls)) or type(args) is not tuple:
            self._refuse(f"Trying to instantiate unsupported class {cls!r:.80}")
        return self._call(cls.__new__, (cls, *args), kwargs)

    def load_newobj(self):
        args = self.stack.pop()
        self.stack[-1] = self._new(self.stack[-1], args)
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        if type(kwargs) is not dict:
            self._refuse("NEWOBJ_EX without a dict of keyword arguments")
        self.stack[-1] = self._new(self.stack[-1], args, kwargs)
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) in (OrderedDict, Counter):
            if type(state) is not dict or set(state) - {"_metadata"}:
                self._refuse(f"Can only set a state_dict's _metadata on an {type(inst).__name__}")
            inst.__dict__.update(state)
        elif _safe_globals.allowed(type(inst)):
            self._call(_set_state, (inst, state))
        elif isinstance(inst, Tensor):
            fail(self._name, "holds a tensor with Python attributes, which npgrad.load does not restore")
        else:
            self._refuse("Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, "
                         f"but got {type(inst)}")
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
        target = self._at(op, self.stack[-1], (dict, OrderedDict, Counter))
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


class _FullUnpickler(pickle._Unpickler):
    """``weights_only=False``: Python's own unpickling (it imports and calls what the file names), with
    PyTorch's tensor, storage, dtype, Size and device globals read as npgrad's, and other ``torch.*``
    names as npgrad's namesakes. Pure Python on purpose: its memo is a dict (the C unpickler sizes an
    array by the largest memo index a file declares)."""

    def __init__(self, data, loader, name):
        super().__init__(data if hasattr(data, "read") else io.BytesIO(data), fix_imports=True, encoding="utf-8")
        self._loader, self._name = loader, name

    def find_class(self, module, name):
        full = f"{module}.{name}"
        found = GLOBALS.get(full) if module.split(".", 1)[0] == "torch" else None
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):
            import importlib
            try:
                found = importlib.import_module("npgrad" + module[5:])
                for part in name.split("."):
                    found = getattr(found, part)
            except Exception:  # noqa: BLE001 - whatever the name is, npgrad has no such thing
                fail(self._name, f"names PyTorch's {full:.200}, which npgrad does not have")
            return found
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return storage_record(pid, self._loader, lambda why: fail(self._name, f"is corrupted: {why}"))


def storage_record(pid, loader, refuse):
    """The storage a persistent id names: ``('storage', class, key, location, numel)``, and a legacy file's
    sixth entry (a view of another storage, which PyTorch stopped writing) must be None. A legacy file
    also records each module class it pickles with its source, ``('module', class, file, source)``: that
    stands for the class (already resolved by ``find_class``; its source is not compared)."""
    if type(pid) is tuple and len(pid) == 4 and pid[0] == "module" and isinstance(pid[1], type):
        return pid[1]
    if not (type(pid) is tuple and len(pid) in (5, 6) and pid[0] == "storage"):
        refuse(f"its data.pkl holds a persistent id {pid!r:.80} that is not a storage record")
    _, kind, key, location, numel = pid[:5]
    if not isinstance(kind, StorageType) or type(key) is not str or type(location) is not str \
            or type(numel) is not int or numel < 0 or pid[5:] not in ((), (None,)):
        refuse(f"its data.pkl holds a malformed storage record {pid!r:.120}")
    return loader(kind, key, numel)


def load_torch(zf, fh, name, prefix, limits, weights_only):
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

    for entry in members:  # the small records: each read, so its CRC is checked, and held to a few bytes
        if entry[len(top):] in _RECORDS and entry != top + "data.pkl":
            if members[entry].size > 64:
                fail(name, f"is corrupted: its record {entry} is {members[entry].size} bytes long")
            read(entry)
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

    typed = make_typed(name, order)
    return unpickle(bytes(read(top + "data.pkl")), storage, typed, name, weights_only)


def make_typed(name, order, filled_later=False):
    """``typed(storage, dtype)``: the storage as a 1-D array of ``dtype``, converted once so every view of
    it shares it. ``filled_later`` (a legacy file, whose bytes follow the pickle): only a view of the
    raw bytes will do, and bools are normalised once the bytes are in."""
    def typed(st, dtype):
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
            if dtype == "bool" and not filled_later:
                np.minimum(raw, 1, out=raw)  # any other byte would be a bool NumPy treats inconsistently
            arr = raw.view(np.dtype(np_dt).newbyteorder("<" if order == b"little" else ">"))
            if filled_later and (not arr.dtype.isnative or dtype == "bfloat16"):
                fail(name, f"is a legacy-format PyTorch file with {dtype} storages in {order.decode()}-endian "
                           "order, which npgrad reads only from the zip format; re-save it with a recent PyTorch")
            if not arr.dtype.isnative:
                arr = arr.byteswap().view(arr.dtype.newbyteorder("="))
            st.array = raw = arr
        return raw
    return typed


def unpickle(raw, storage, typed, name, weights_only, deferred=None):
    """The object pickled in ``raw`` (bytes, or a file positioned at it: it is read up to the pickle's
    end); ``storage(kind, key, numel)`` answers each storage record and ``typed(storage, dtype)`` gives a
    storage's array as ``dtype``. ``deferred``: a list to receive the tensors that must be copied once
    their storage's bytes are in (the expanded ones of a legacy file), instead of copying them now."""
    from . import _torch_globals
    unpickler = (_Unpickler if weights_only else _FullUnpickler)(raw, storage, name)
    token = _torch_globals.set_context(name, typed, deferred)
    try:
        obj = unpickler.load()
    except _Refused as e:
        weights_only_fail(name, str(e))
    except CheckpointError:
        raise
    except pickle.UnpicklingError as e:
        fail(name, f"is corrupted: its data.pkl is not a valid pickle ({e})")
    except (EOFError, KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError,
            UnicodeDecodeError, RecursionError, MemoryError, struct.error) as e:
        # with weights_only=False this may also be a class's own code failing; the cause stays attached
        raise CheckpointError(f"npgrad.load: {name} is corrupted: its data.pkl cannot be read "
                              f"({type(e).__name__}: {str(e)[:300]})") from e
    finally:
        _torch_globals.reset_context(token)
    if weights_only:
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
        elif o is not None and not isinstance(o, (bool, int, float, complex, str, bytes, bytearray, Tensor)) \
                and type(o).__module__ not in ("npgrad.tensor", "npgrad.dtypes", "npgrad.nn.parameter") \
                and not _safe_globals.allowed(type(o)):
            fail(name, f"holds an object of type {type(o).__name__}, which npgrad cannot represent")


def globals_in_pickle(raw, name):
    """Every global ``raw`` names (``module.name``), found by reading its opcodes, never running them."""
    import pickletools
    found, strings, memo, last = [], [], {}, None  # last: the string the previous opcode pushed
    try:
        for op, arg, _ in pickletools.genops(io.BytesIO(raw)):
            pushed = None
            if op.name == "GLOBAL":
                module, _, attr = arg.partition(" ")
                found.append(f"{'builtins' if module == '__builtin__' else module}.{attr}")
            elif op.name == "STACK_GLOBAL" and len(strings) == 2 and all(type(v) is str for v in strings):
                found.append(f"{strings[-2]}.{strings[-1]}")
            elif isinstance(arg, str) and "UNICODE" in op.name:
                pushed = arg
            elif op.name == "MEMOIZE":
                memo[len(memo)] = last
            elif op.name in ("BINPUT", "LONG_BINPUT", "PUT"):
                memo[arg] = last
            elif op.name in ("BINGET", "LONG_BINGET", "GET"):
                pushed = memo.get(arg)
            if op.name not in ("MEMOIZE", "BINPUT", "LONG_BINPUT", "PUT"):
                strings = (strings + [pushed])[-2:]
                last = pushed
    except (ValueError, KeyError, UnicodeDecodeError, struct.error) as e:
        fail(name, f"is corrupted: its data.pkl cannot be read ({type(e).__name__}: {e})")
    return found


def unsafe_globals(zf, fh, name, prefix, limits):
    top = prefix + "/"
    members = inventory(zf, fh, name, lambda e: e.startswith(top), **limits)
    member = members[top + "data.pkl"]
    reader = MemberReader(fh, member, name)
    raw = bytes(reader.read(member.size))
    reader.finish()
    out = []
    for g in globals_in_pickle(raw, name):
        if g not in GLOBALS and _safe_globals.lookup(g) is None and g not in out:
            out.append(g)
    return out
