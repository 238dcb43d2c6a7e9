"""Allocation of a module's parameters and buffers (the ``device=None, dtype=None`` factory arguments)."""
import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor, _check_device
from ..parameter import Parameter


def empty(shape, dtype=None, device=None):
    """An uninitialised float tensor for a module to fill in reset_parameters()."""
    _check_device(device)  # PyTorch's error for any device but the CPU
    dt = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
    return Tensor._wrap(np.empty(tuple(shape), dt.np))


def optional_parameter(present, shape, dtype=None, device=None):
    """An uninitialised Parameter for reset_parameters() to fill in, or None for a layer built without it
    (``bias=False``, ``affine=False``): register the result with ``module.register_parameter(name, ...)``."""
    return Parameter(empty(shape, dtype, device)) if present else None


def zeros(shape, dtype=None, device=None):
    t = empty(shape, dtype, device)
    t._data[...] = 0
    return t


def ones(shape, dtype=None, device=None):
    t = empty(shape, dtype, device)
    t._data[...] = 1
    return t
