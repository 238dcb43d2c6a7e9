"""Collation: turning a list of samples into a batch (``default_collate``) or converting one sample (``default_convert``).

``default_collate`` follows PyTorch: tensors are stacked along a new first dimension; NumPy arrays
and scalars become tensors and are stacked; Python floats become a float64 tensor, ints an int64
tensor (bools a bool tensor); strings and bytes stay a list; dicts, namedtuples and sequences are
collated field by field (a tuple sample gives a list, for PyTorch compatibility).
"""
import collections.abc
import copy
import re

import numpy as np

from ....tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

_STR_OR_OBJECT = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                                  "found {}")


def _rebuild_mapping(like, fields):
    """``fields`` in a mapping of ``like``'s type (a copy of ``like`` when it is mutable, which keeps any extra
    attributes); a plain dict when that type cannot be built this way."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(fields)
            return clone
        return type(like)(fields)
    except TypeError:
        return fields


def _rebuild_sequence(like, items):
    """``items`` in a sequence of ``like``'s type (as ``_rebuild_mapping``); the list itself when that fails."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` by the type of its first element, using ``collate_fn_map`` for leaf types."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuild_mapping(elem, fields)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    from .. import _worker
    if _worker.shared_allocator is not None:  # in a DataLoader worker: stack straight into shared memory
        out = _stack_into(batch, _worker.shared_allocator)
        if out is not None:
            return out
    from ....ops import stack
    return stack(batch, 0)


def _stack_into(batch, allocate):
    """The stacked batch in an array from ``allocate``, or None where the general stack must decide
    (graphs, mixed dtypes or shapes, or no array given)."""
    first = batch[0]._data
    for t in batch:
        if type(t) is not Tensor or t._requires_grad or t._data.dtype != first.dtype or t._data.shape != first.shape:
            return None
    out = allocate((len(batch),) + first.shape, first.dtype)
    if out is None:
        return None
    np.stack([t._data for t in batch], out=out)
    return Tensor._wrap(out)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _STR_OR_OBJECT.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    from ....factories import as_tensor
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    from ....factories import as_tensor
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    from ....factories import tensor
    from .... import dtypes
    return tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    from ....factories import tensor
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch (see the module docstring for the rules)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Turn NumPy arrays/scalars inside one sample into tensors, leaving everything else as it is."""
    from ....factories import as_tensor
    if isinstance(data, Tensor):
        return data
    kind = type(data)
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_", "bytes_"):
        if isinstance(data, np.ndarray) and _STR_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
