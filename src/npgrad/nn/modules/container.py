"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

Sequential and ModuleList keep their children in ``_modules`` under the keys "0".."n-1" (a Sequential built
from an OrderedDict keeps its names until it is edited); ParameterList does the same with attributes. The
dict containers share one reading of "an iterable of key/value pairs".
"""
import operator
from collections import OrderedDict, abc as container_abcs
from itertools import groupby, islice

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _position(idx, n):
    """An integer index into n items, as 0..n-1."""
    i = operator.index(idx)
    if i < -n or i >= n:
        raise IndexError(f"index {i} is out of range")
    return i % n if n else i


def _parameter(value):
    # Plain tensors stored in the parameter containers become Parameters; anything else is kept as it is.
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


def _pairs(owner, source, ordered_mappings, sort_other_mappings):
    """The (key, value) pairs of a mapping or of a sequence of pairs, one at a time (an update stops where a
    bad element is), with PyTorch's errors for anything else. Mappings of the ``ordered_mappings`` types keep
    their order; other mappings are sorted if asked."""
    if not isinstance(source, container_abcs.Iterable):
        # ParameterDict's message says "ParametersDict", as PyTorch's does.
        label = "ParametersDict" if owner == "ParameterDict" else owner
        raise TypeError(f"{label}.update should be called with an iterable of key/value pairs, but got "
                        + type(source).__name__)
    if isinstance(source, ordered_mappings):
        yield from source.items()
        return
    if isinstance(source, container_abcs.Mapping):
        yield from (sorted(source.items()) if sort_other_mappings else source.items())
        return
    for j, item in enumerate(source):
        if not isinstance(item, container_abcs.Iterable):
            raise TypeError(f"{owner} update sequence element #{j} should be Iterable; is{type(item).__name__}")
        if len(item) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(item)}; 2 is required")
        yield item[0], item[1]


class _Numbered(Module):
    """What Sequential and ModuleList share: children in order, numbered keys, digit keys hidden from dir()."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def _renumber(self, modules):
        self._modules = OrderedDict(zip(map(str, range(len(modules))), modules))

    def __delitem__(self, idx):
        keys = list(self._modules)
        doomed = keys[idx] if isinstance(idx, slice) else [keys[_position(idx, len(keys))]]
        for key in doomed:
            delattr(self, key)
        # The rest is renumbered 0..n-1 (PyTorch does this even for a Sequential's named entries).
        self._renumber(list(self._modules.values()))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        value = self[key]
        del self[key]
        return value


class Sequential(_Numbered):
    """Modules applied in order: ``Sequential(a, b, c)(x) == c(b(a(x)))``; also ``Sequential(OrderedDict)``."""

    def __init__(self, *args):
        super().__init__()
        named = len(args) == 1 and isinstance(args[0], OrderedDict)
        for key, module in (args[0].items() if named else zip(map(str, range(len(args))), args)):
            self.add_module(key, module)

    def _key_at(self, idx):
        return next(islice(iter(self._modules), _position(idx, len(self)), None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):  # keeps the children's keys
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def _checked_other(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return other

    def __add__(self, other):
        return Sequential().extend([*self, *self._checked_other(other)])

    def __iadd__(self, other):
        return self.extend(self._checked_other(other))

    def __mul__(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential().extend(list(self) * other)

    __rmul__ = __mul__

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        children = list(self._modules.values())
        children.insert(index, module)
        self._renumber(children)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_Numbered):
    """A list of sub-modules that are registered (visible to parameters(), state_dict(), ...)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key_at(self, idx):
        return str(_position(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList().extend([*self, *other])

    def __repr__(self):
        # Runs of identical children print once: "(0-2): 3 x Linear(...)", as PyTorch does.
        if not len(self):
            return self._get_name() + "()"
        lines, start = [], 0
        for text, run in groupby(repr(m) for m in self):
            count = sum(1 for _ in run)
            head = f"({start}): " if count == 1 else f"({start}-{start + count - 1}): {count} x "
            lines.append(_addindent(head + text, 2))
            start += count
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index, module):
        # Entries from index on move up one key; PyTorch's shape of this (a negative index is a KeyError, an
        # index past the end becomes that key) is kept.
        slots = self._modules
        moved = [(str(i + 1), slots[str(i)]) for i in range(index, len(slots))]
        slots.update(reversed(moved))
        slots[str(index)] = module

    def extend(self, modules):
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self


class ModuleDict(Module):
    """A dict of sub-modules that are registered; keeps insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        for key, module in _pairs("ModuleDict", modules, (container_abcs.Mapping, ModuleDict), False):
            self[key] = module


def _param_line(k, p, by_type):
    # PyTorch's ParameterList prints the dtype (torch.float32), its ParameterDict the type (torch.FloatTensor).
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.size())
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({k}): {kind} containing: [{p.type() if by_type else p.dtype} of size {size}]"
    return f"  ({k}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters that are registered; plain tensors appended are turned into Parameters."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            part = self.__class__()
            for i in range(*idx.indices(len(self))):
                part.append(self[i])
            return part
        return getattr(self, str(_position(idx, len(self))))

    def __setitem__(self, idx, param):
        setattr(self, str(_position(idx, len(self))), _parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        self._size += 1  # first, so that the new last index is in range
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if isinstance(values, Tensor) or not isinstance(values, container_abcs.Iterable):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " +
                            type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(k, p, False) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters that are registered; plain tensors stored are turned into Parameters. The
    entries are attributes named by their (string) keys; ``_keys`` keeps their order."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None  # recorded before the key is checked, as PyTorch does
        setattr(self, self._attr(key), _parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict(self.items()))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict([(k, default) for k in keys])

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        for key, value in _pairs("ParameterDict", parameters, (OrderedDict, ParameterDict), True):
            self[key] = value

    def extra_repr(self):
        return "\n".join(_param_line(k, p, True) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
