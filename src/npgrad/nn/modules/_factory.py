"""Allocation of a module's parameters and buffers (the ``device=None, dtype=None`` factory arguments)."""
import math

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor, _check_device
from .. import init
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


def fan_in_reset_(weight, bias, draw_bias_without_fan_in):
    """PyTorch's default initialisation of Linear and the convolutions: ``kaiming_uniform_(a=sqrt(5))`` for the
    weight (U(+-1/sqrt(fan_in)) in effect) and U(+-1/sqrt(fan_in)) for the bias. With no fan-in, Linear still
    draws its bias (from U(0, 0)) and a convolution does not: the random stream stays PyTorch's either way."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is None:
        return
    fan_in = init._calculate_fan_in_and_fan_out(weight)[0]
    if fan_in > 0:
        init.uniform_(bias, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))
    elif draw_bias_without_fan_in:
        init.uniform_(bias, 0, 0)
