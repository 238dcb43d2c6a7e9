"""A user ``autograd.Function`` under forward-mode AD: its ``jvp`` staticmethod gives the output tangents.

As PyTorch 2.13: ``forward`` runs without tangents (the dual level's hook steps aside), then
``jvp(ctx, *tangents)`` gets one tangent per forward input, in the order of the inputs: the input's tangent,
zeros for a Tensor without one (None when the Function called ``ctx.set_materialize_grads(False)``), None
for a non-Tensor. In ``jvp``, ``ctx.saved_tensors`` are what ``ctx.save_for_forward`` kept. It returns one
tangent (or None) per output; an output the Function marked dirty (in place) must get its input's tangent
object back, modified in place, and an output that is an input as-is must get a view.
"""
import numpy as np

from . import forward_ad as _fw
from . import record as _record
from .function import INPLACE_EPOCH

__all__ = ["apply_function"]


def apply_function(cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` where some argument carries a tangent at the open level."""
    if "jvp" not in dir(cls):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")
    T = _record.Tensor
    lvl = _fw._current[0]
    if kwargs:  # keyword arguments count as inputs in forward's parameter order, as for backward
        new_style = cls.setup_context is not _record.Function.setup_context
        args = _record._bind(cls, new_style, args, kwargs)
    tans = [_fw._get(a, lvl) if isinstance(a, T) else None for a in args]
    sink = []
    hook = _record.DUAL_HOOK
    saved = hook[:]
    hook.clear()
    try:
        out = _record._apply_function(cls, tuple(args), {}, sink)
        ctx = sink[0]
        if ctx._materialize:
            tans = [t if t is not None or not isinstance(a, T) else
                    T._wrap(np.zeros(a._data.shape, a._data.dtype)) for a, t in zip(args, tans)]
        res = _run_jvp(cls, ctx, tans)
    finally:
        hook[:] = saved
    is_tuple = type(out) is tuple
    outs = list(out) if is_tuple else [out]
    if type(res) is not tuple:
        res = (res,)
    if len(res) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outs)} "
                           f"but got {len(res)})")
    for i, (o, r) in enumerate(zip(outs, res)):
        if r is None:
            continue
        if not isinstance(r, T):
            raise RuntimeError(f"expected Variable or None (got {type(r).__name__}) for grad output {i}.")
        if not isinstance(o, T) or not _fw._is_float(o) or any(o is nd for nd in ctx._non_diff):
            raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the corresponding forward "
                               "output is not a differentiable Tensor.You should return None at that position "
                               "instead.")
        if tuple(r._data.shape) != tuple(o._data.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(o._data.shape)} while the "
                               f"given forward gradient is of size {list(r._data.shape)}.")
        k = _input_index(o, args)
        if k is not None and any(o is d for d in ctx._dirty):
            if r is not tans[k]:
                raise RuntimeError("An inplace custom Function is not modifying the forward mode gradients inplace. "
                                   "If the forward is modifying an input inplace, then the jvp function must modify "
                                   "the corresponding gradient inplace.")
        elif k is not None or _shared_index(o, args) is not None:
            j = k if k is not None else _shared_index(o, args)
            if not _is_view(r, tans[j]):
                raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp "
                                   "is not returning a view.")
            if k is not None:
                o = outs[i] = _fw._strip(o)  # a new identity: the input keeps its own tangent
        _fw._set(o, lvl, r)
    return tuple(outs) if is_tuple else outs[0]


def _input_index(o, args):
    for k, a in enumerate(args):
        if o is a:
            return k
    return None


def _is_view(r, t):
    """``r`` views some tangent's memory. npgrad's same-shape ``view``/``view_as`` return the tensor itself, so the
    input's tangent returned as-is passes too (PyTorch refuses that one; it cannot be told from ``tx.view_as(tx)``
    here)."""
    return r._view_of is not None or r._data.base is not None or (t is not None and r._data is t._data)


def _shared_index(o, args):
    """The input ``o`` aliases over the same array (how a recorded Function returns its input as-is)."""
    T = _record.Tensor
    for k, a in enumerate(args):
        if isinstance(a, T) and o._data is a._data:
            return k
    return None


def _run_jvp(cls, ctx, tans):
    """``cls.jvp(ctx, *tans)`` with ``ctx.saved_tensors`` reading what ``save_for_forward`` kept."""
    d = ctx.__dict__
    keep = ctx._saved, ctx._saved_refs, ctx._saved_versions, ctx._epoch, d.get("_released")
    fw = d.get("_saved_fw")
    ctx._saved = ctx._saved_refs = tuple(fw) if fw is not None else None
    ctx._saved_versions, ctx._epoch = None, INPLACE_EPOCH[0]
    d.pop("_released", None)
    try:
        return cls.jvp(ctx, *tans)
    finally:
        ctx._saved, ctx._saved_refs, ctx._saved_versions, ctx._epoch = keep[:4]
        if keep[4] is not None:
            d["_released"] = keep[4]
