"""View bookkeeping: a tensor that shares memory with another records how it was derived from it.

PyTorch semantics this supports: a view shares its base's version counter (an in-place change through
either is seen by saved-tensor checks), and an in-place operation on a view rewrites the base's graph
(``CopySlices``) so gradients through the base see the change. ``replay`` is a function that re-derives
the view from an array or Tensor shaped like the base (e.g. ``lambda a: a[1:, 0]``); chains of views
keep the root base and the list of replays.
"""
import numpy as np


def mark_view(out, src, replay):
    info = src._view_of
    if info is None:
        out._view_of = (src, (replay,))
    else:
        out._view_of = (info[0], info[1] + (replay,))
    out._vc = src._version_counter()
    return out


def mark_view_if_shared(out, src, replay):
    """For ops that return a view only sometimes (reshape of a non-contiguous array copies)."""
    if np.may_share_memory(out._data, src._data):
        return mark_view(out, src, replay)
    return out


def mark_multi_view(outs, name):
    """Outputs of split/chunk/unbind: PyTorch forbids modifying them in place while recording a graph
    (one node produced them all, so it cannot be rebased for just one of them)."""
    for i, o in enumerate(outs):
        o._multi_view = (name, i)
    return outs


def multi_view_error(t):
    info = t.__dict__.get("_multi_view")
    if info is None:
        return None
    name, i = info
    return RuntimeError(f"Output {i} of {name} is a view and is being modified inplace. This view is the output of a "
                        "function that returns multiple views. Such functions do not allow the output views to be "
                        "modified inplace. You should replace the inplace operation by an out-of-place one.")


def replay(chain, x):
    for fn in chain:
        x = fn(x)
    return x
