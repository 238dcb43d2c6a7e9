"""View bookkeeping: a tensor that shares memory with another records how it was derived from it.

PyTorch semantics this supports: a view shares its base's version counter (an in-place change through
either is seen by saved-tensor checks), and an in-place operation on a view rewrites the base's graph
(``CopySlices``) so gradients through the base see the change. ``replay`` is a function that re-derives
the view from an array or Tensor shaped like the base (e.g. ``lambda a: a[1:, 0]``); chains of views
keep the root base and the list of replays.

``t._view_of`` is ``(base, replays, version)``: ``version`` is the shared counter's value when the view's
``grad_fn`` was last known to be current. A view created before its base changed in place has a stale
``grad_fn``; ``refresh_view`` re-derives it from the base, as PyTorch does when such a view is used.
"""
import numpy as np

from .grad_mode import state as _grad_state


def mark_view(out, src, replay):
    info = src._view_of
    vc = src._version_counter()
    if info is None:
        out._view_of = (src, (replay,), vc[0])
    else:
        out._view_of = (info[0], info[1] + (replay,), vc[0])
    out._vc = vc
    return out


def mark_current(t):
    """After ``t`` (a view) was itself rebased by an in-place op, its grad_fn is current again."""
    base, chain, _ = t._view_of
    t._view_of = (base, chain, t._vc[0])


def refresh_view(t):
    """Re-derive a view's grad_fn from its base if the base changed in place since the view was made
    (otherwise gradients through the view would skip that change). Cheap when nothing changed."""
    info = t._view_of
    if info is None:
        return t
    base, chain, version = info
    vc = t._vc
    if vc is None or vc[0] == version:
        return t
    if base._requires_grad and _grad_state.enabled:
        fresh = replay(chain, base)
        t._grad_fn, t._out_idx, t._requires_grad = fresh._grad_fn, fresh._out_idx, fresh._requires_grad
    t._view_of = (base, chain, vc[0])
    return t


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
