"""``out=``: writing an operator's result into a given tensor, with PyTorch's rules.

The registry gives every public function PyTorch declares an ``out`` variant for (``_out_index.OUT_NAMES``,
read from PyTorch's operator schemas by ``python tools/api_coverage.py --refresh``) an ``out=`` keyword; the
Tensor methods and Python operators never take one, so they pay nothing for it. The result is computed as
usual, then: recording a graph through ``out=`` is refused (PyTorch cannot either); the result's dtype must
cast to ``out``'s within PyTorch's categories (no float into an integer tensor, nothing but bool into bool);
an ``out`` of another shape is resized (with PyTorch's deprecation warning unless it was empty); the values are
written in place, and ``out`` itself is returned.
"""
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import bump_version
from ..autograd.grad_mode import state as _grad_state
from ..tensor import Tensor

_RESIZED = ("An output with one or more elements was resized since it had shape {old}, which does not match the "
            "required output shape {new}. This behavior is deprecated, and in a future PyTorch release outputs will "
            "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
            "inplace, to zero elements with t.resize_(0).")


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, Tensor))


def check_out(name, out, args, kwargs):
    """PyTorch's refusals before computing: an ``out`` of the wrong kind, or a graph to record through it."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _grad_state.enabled and any(t.requires_grad for t in (*_tensors(args), *_tensors(kwargs.values()), *outs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def write_out(name, result, out):
    """Write ``result`` (a Tensor, or a tuple of them) into ``out`` and return ``out``."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors")
        for r, o in zip(result, out):
            _write(r, o)
        return type(result)(out) if hasattr(result, "_fields") else tuple(out)
    if isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    return _write(result, out)


def _write(result, out):
    src, dst = result._data, out._data
    if not _dt.can_cast(_dt.from_numpy_dtype(src.dtype), _dt.from_numpy_dtype(dst.dtype)):
        raise RuntimeError(f"result type {_dt.scalar_name(src.dtype)} can't be cast to the desired output type "
                           f"{_dt.scalar_name(dst.dtype)}")
    if dst.shape != src.shape:
        if dst.size:
            warnings.warn(_RESIZED.format(old=list(dst.shape), new=list(src.shape)), UserWarning, stacklevel=4)
        out._data = np.empty(src.shape, dst.dtype)
    np.copyto(out._data, src, casting="unsafe")
    bump_version(out)
    return out
