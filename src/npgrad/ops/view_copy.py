"""The view-copy operators (``torch.permute_copy``, ``torch.split_copy`` ... ``torch.<view>_copy``), made from
the views themselves by one table; and split_with_sizes and the unsafe_ splits, the views two of them copy.

A ``<view>_copy`` returns what the view returns, in fresh memory: not a view (writing to it leaves the input
alone, and nothing marks it as one), with the view's graph node, so its gradient is the view's. Each table
entry is the view called with torch.<view>_copy's own signature (``permute_copy(input, dims)`` takes the dims
as one sequence, where ``permute`` also takes them spread out).
"""
import numpy as np

from ..autograd.record import DUAL_HOOK
from ..tensor import Tensor
from ._dims import canon_dim
from .complex_math import view_as_complex, view_as_real
from ._registry import op


@op()
def split_with_sizes(input, split_sizes, dim=0):
    from .movement import split
    return split(input, [int(s) for s in split_sizes], dim)


def _unsafe(pieces):
    """PyTorch does not check in-place writes to an unsafe_ split's pieces (as it does a split's)."""
    for p in pieces:
        p.__dict__.pop("_multi_view", None)
    return pieces


@op()
def unsafe_split(input, split_size, dim=0):
    from .movement import split
    return _unsafe(split(input, split_size, dim))


@op()
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return _unsafe(split_with_sizes(input, split_sizes, dim))


@op()
def unsafe_chunk(input, chunks, dim=0):
    from .movement import chunk
    return _unsafe(chunk(input, chunks, dim))


def _slice(input, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return input[(slice(None),) * canon_dim(dim, input._data.ndim) + (slice(start, end, step),)]


# name of the view -> the view, called as torch.<name>_copy is (one line adds a view-copy operator)
VIEWS = {
    "alias": lambda input: input.view(input.shape),
    "as_strided": lambda input, size, stride, storage_offset=None: input.as_strided(size, stride, storage_offset),
    "detach": lambda input: input.detach(),  # PyTorch has no gradient for it (its backward raises)
    "diagonal": lambda input, offset=0, dim1=0, dim2=1: input.diagonal(offset, dim1, dim2),
    "expand": lambda input, size, *, implicit=False: input.expand(size),
    "narrow": lambda input, dim, start, length: input.narrow(dim, start, length),
    "permute": lambda input, dims: input.permute(*dims),
    "select": lambda input, dim, index: input.select(dim, index),
    "slice": _slice,
    "split": lambda input, split_size, dim=0: input.split(split_size, dim),
    "split_with_sizes": lambda input, split_sizes, dim=0: split_with_sizes(input, split_sizes, dim),
    "squeeze": lambda input, dim=None: input.squeeze() if dim is None else input.squeeze(dim),
    "t": lambda input: input.t(),
    "transpose": lambda input, dim0, dim1: input.transpose(dim0, dim1),
    "unbind": lambda input, dim=0: input.unbind(dim),
    "unfold": lambda input, dimension, size, step: input.unfold(dimension, size, step),
    "unsqueeze": lambda input, dim: input.unsqueeze(dim),
    "view": lambda input, size: input.view(size),  # a shape, or a dtype
    "view_as_real": lambda input: view_as_real(input),
    "view_as_complex": lambda input: view_as_complex(input),
}
# the view-copies that are Tensor methods too
METHODS = {"narrow"}


def _fresh(t):
    """``t``'s values in new memory, keeping ``t``'s place in the graph."""
    if t._grad_fn is None and t._requires_grad:  # the view was the input itself (a leaf): a copy node
        return t.clone()
    out = Tensor._wrap(np.array(t._data, order="C", copy=True), t._grad_fn, t._out_idx)
    out._requires_grad = t._requires_grad
    if DUAL_HOOK:  # forward AD: the copy carries (a copy of) the view's tangent
        DUAL_HOOK[3](t, out)
    return out


def _copy_variant(view_name, view):
    name = view_name + "_copy"
    # a call with the wrong arguments names the operator, as PyTorch's TypeError does, not "<lambda>"
    view.__name__ = view.__qualname__ = name

    def view_copy(input, *args, **kwargs):
        r = view(input, *args, **kwargs)
        return tuple(_fresh(t) for t in r) if isinstance(r, (tuple, list)) else _fresh(r)
    view_copy.__name__ = view_copy.__qualname__ = view_name + "_copy"
    view_copy.__doc__ = f"``{view_name}``'s result in new memory (not a view); its gradient is the view's."
    return op(name=name, methods=(name,) if view_name in METHODS else ())(view_copy)


for _name, _view_fn in VIEWS.items():
    _copy_variant(_name, _view_fn)
