"""The mapping table and what its emitters share.

An emitter gets the graph and one recorded step (its arguments as the model passed them, its output arrays,
and ``step.alt``: the same step in the second recording, at other input values and sizes along the dynamic
axes) and returns the names of its outputs. ``emits`` files it under the step's name: an Op class name
(``LinearOp``, ``Reshape``) or an intercepted function's (``eq``, ``bool_to_bias``).
"""
import numpy as np

from ._graph import export_error

INT_MAX = np.iinfo(np.int64).max


INT_MIN = np.iinfo(np.int64).min


TABLE = {}


def emits(*names):
    def register(fn):
        for n in names:
            TABLE[n] = fn
        return fn
    return register


def _out_dtype(s):
    return s.outs[0].dtype


def _shape(x):
    return tuple(np.shape(x._data if hasattr(x, "_data") else x))


def _float_only(s, what):
    if s.outs[0].dtype.kind != "f":
        raise export_error(f"ONNX's {what} takes floating-point tensors only (got {s.outs[0].dtype})")


def _reduce(g, op_type, x, axes, keepdim):
    keep = int(bool(keepdim))
    if axes is None:
        return g.op(op_type, x, keepdims=keep)
    axes = [int(a) for a in axes]
    # ReduceSum takes its axes as an input from opset 13, the other reductions from opset 18
    if op_type == "ReduceSum" or g.opset >= 18:
        return g.op(op_type, x, g.ints(axes), keepdims=keep)
    return g.op(op_type, x, axes=axes, keepdims=keep)


def _dims(dims):
    if dims is None:
        return None
    return [dims] if isinstance(dims, (int, np.integer)) else list(dims)


def _shape_dtype(x):
    return (x._data if hasattr(x, "_data") else np.asarray(x)).dtype


def _dynamic_dims(s, out=0):
    """The output dims that change with the dynamic axes."""
    if s.alt is None:
        return set()
    a, b = s.outs[out].shape, s.alt.outs[out].shape
    return {i for i, (p, q) in enumerate(zip(a, b)) if p != q}


def _static_count(s, x, dims):
    shape = _shape(x)
    dims = range(len(shape)) if dims is None else dims
    if s.alt is not None and any(_shape(x)[d] != _shape(s.alt.args[0])[d] for d in dims):
        raise export_error(f"'{s.name.lower()}' over a dynamic axis has no ONNX mapping here")
    return int(np.prod([shape[d] for d in dims]))
