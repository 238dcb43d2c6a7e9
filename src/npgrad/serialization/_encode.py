"""Turns the object given to ``npgrad.save`` into JSON-ready data plus the list of arrays to store."""
import math
from collections import Counter, OrderedDict

import numpy as np

from .. import dtypes as _dt
from ..tensor import Size, Tensor
from ._format import DATA, TAG, TENSOR_DTYPES


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
            self.arrays.append((DATA.format(idx), arr))
        return idx

    def encode(self, obj, where="obj"):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            return float(obj) if math.isfinite(obj) else {TAG: "float", "value": repr(float(obj))}
        if isinstance(obj, Tensor):
            arr = obj._data
            if arr.dtype.name not in TENSOR_DTYPES:
                raise TypeError(f"npgrad.save: unsupported tensor dtype {arr.dtype} at {where}")
            node = {TAG: "tensor", "data": self._array_ref(obj, arr), "dtype": arr.dtype.name,
                    "requires_grad": bool(obj._requires_grad)}
            if _is_parameter(obj):
                node["parameter"] = True
            return node
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject or obj.dtype.kind in "OUSV":
                raise TypeError(f"npgrad.save cannot store NumPy arrays of dtype {obj.dtype} (at {where}): only "
                                "numeric and bool arrays can be stored without pickle")
            return {TAG: "ndarray", "data": self._array_ref(obj, obj)}
        if isinstance(obj, np.generic):
            if isinstance(obj, (np.str_, np.bytes_, np.object_)) or obj.dtype.hasobject:
                raise TypeError(f"npgrad.save cannot store a NumPy {type(obj).__name__} scalar (at {where})")
            return {TAG: "npscalar", "data": self._array_ref(obj, np.asarray(obj))}
        if isinstance(obj, _dt.dtype):
            return {TAG: "dtype", "name": obj.name}

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
            return {TAG: kind, "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if isinstance(obj, (set, frozenset)):
            # in a stable order: iteration order of a set of strings changes with the process's hash seed
            items = sorted(obj, key=lambda v: (type(v).__name__, repr(v)))
            return {TAG: type(obj).__name__, "items": [self.encode(v, where) for v in items]}
        if isinstance(obj, dict):
            kind = "Counter" if isinstance(obj, Counter) else "OrderedDict" if isinstance(obj, OrderedDict) else "dict"
            items = []
            for k, v in obj.items():
                if isinstance(k, (Tensor, np.ndarray)):
                    raise TypeError(f"npgrad.save cannot store a dict keyed by tensors or arrays (at {where})")
                items.append([self.encode(k, where), self.encode(v, f"{where}[{k!r}]")])
            node = {TAG: kind, "items": items}
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
