"""Builds the saved object from a structure that ``_schema.check`` has already validated."""
from collections import Counter, OrderedDict

import numpy as np

from ..tensor import Size, Tensor
from ._errors import fail
from ._format import TAG, TENSOR_DTYPES


class Decoder:
    def __init__(self, read_array, name):
        self._read_array, self.name = read_array, name
        self._memo = {}

    def _array(self, node):
        idx = node["data"]
        if idx not in self._memo:
            self._memo[idx] = self._read_array(idx)
        return idx, self._memo[idx]

    def _bad(self, what):
        fail(self.name, f"is corrupted: its structure has {what}")

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        tag = node[TAG]
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
            return float(node["value"])
        if tag in ("tuple", "size"):
            values = tuple(self.decode(v) for v in node["items"])
            return Size(values) if tag == "size" else values
        if tag in ("set", "frozenset"):
            try:
                values = {self._key(self.decode(v)) for v in node["items"]}
            except TypeError:
                self._bad("a set with unhashable members")
            return values if tag == "set" else frozenset(values)
        if tag in ("dict", "OrderedDict", "Counter"):
            out = {"dict": dict, "OrderedDict": OrderedDict, "Counter": Counter}[tag]()
            for key, value in node["items"]:
                key, value = self._key(self.decode(key)), self.decode(value)
                try:
                    out[key] = value
                except TypeError:
                    self._bad("an unhashable dict key")
            if "metadata" in node and tag == "OrderedDict":
                out._metadata = self.decode(node["metadata"])
            return out
        return TENSOR_DTYPES[node["name"]]  # tag == "dtype": the schema allows nothing else

    def _key(self, key):
        if isinstance(key, (list, dict, set, Tensor, np.ndarray)):
            self._bad("an unhashable dict key")
        return key

    def _tensor(self, node):
        dtype = TENSOR_DTYPES[node["dtype"]]
        idx, arr = self._array(node)
        if arr.dtype != dtype.np:
            self._bad(f"a tensor recorded as {dtype.name} whose data is {arr.dtype}")
        key = ("tensor", idx)
        t = self._memo.get(key)
        if t is None:
            requires_grad = bool(node.get("requires_grad"))
            if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
                self._bad(f"a {dtype.name} tensor marked requires_grad (only Tensors of floating point and complex "
                          "dtype can require gradients)")
            parameter = getattr(_nn(), "Parameter", None) if node.get("parameter") else None
            if parameter is not None:
                t = parameter(Tensor._wrap(arr), requires_grad=requires_grad)
            else:
                t = Tensor._wrap(arr)
                if requires_grad:
                    t.requires_grad = True
            self._memo[key] = t
        return t


def _nn():
    from .. import nn
    return nn
