"""Broadcasting and its adjoint: ``expand``/``broadcast_to`` and the sum that undoes them."""
import numpy as np

from ..autograd.function import Op
from . import _poly as P
from ._dims import sizes_arg, varargs_method
from ._registry import method, op
from ..autograd.views import mark_view

def broadcast_error(*shapes):
    """PyTorch's error for operands that do not broadcast, or None when they do.

    Shapes are combined left to right as PyTorch's TensorIterator does, so "tensor a" is everything
    before the offending operand and the dimension is counted in the combined result's rank.
    """
    acc = tuple(shapes[0])
    for s in shapes[1:]:
        s = tuple(s)
        n = max(len(acc), len(s))
        out = [1] * n
        for i in range(n - 1, -1, -1):
            p = acc[i - n + len(acc)] if i - n + len(acc) >= 0 else 1
            q = s[i - n + len(s)] if i - n + len(s) >= 0 else 1
            if p != q and p != 1 and q != 1:
                return RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) at "
                                    f"non-singleton dimension {i}")
            out[i] = q if p == 1 else p
        acc = tuple(out)
    return None


class SumTo(Op):
    """Sum a tensor down to a broadcast-compatible shape (used by the engine for broadcast gradients)."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return P.sum_to(x, shape)

    @staticmethod
    def backward(ctx, g):
        return P.broadcast_to(g, ctx.in_shape), None


class Expand(Op):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return np.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, g):
        return P.sum_to(g, ctx.in_shape), None


def _expanded_shape(in_shape, sizes, tensor=None):
    sizes = tuple(int(s) for s in sizes)
    lead = len(sizes) - len(in_shape)
    if lead < 0:
        what = f"{tensor.type()}{{{list(in_shape)}}}" if tensor is not None else "tensor"
        raise RuntimeError(f"expand({what}, size={list(sizes)}): the number of sizes provided ({len(sizes)}) must be "
                           f"greater or equal to the number of dimensions in the tensor ({len(in_shape)})")
    out = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as PyTorch, so its error names the same dim
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out[i] = s
            continue
        cur = in_shape[i - lead]
        if s == -1:
            out[i] = cur
        elif cur == s or (cur == 1 and s >= 0):
            out[i] = s
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(in_shape)}")
    return tuple(out)


def _sizes(sizes):
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        return tuple(sizes[0])
    return sizes


@op(public=False)
def expand(self, *sizes, size=None, implicit=False):
    # implicit: PyTorch's flag for expansions it inserted itself; it changes nothing visible.
    shape = _expanded_shape(self._data.shape, _sizes(sizes_arg(sizes, size, "expand", "size")), self)
    if shape == self._data.shape:
        return self
    # A view of self: an in-place change to self afterwards must invalidate what was saved from it.
    return mark_view(Expand.apply(self, shape), self, lambda a, s=shape: P.broadcast_to(a, s))


@op(public=False)
def expand_as(self, other):
    return expand(self, other.shape)


@op(methods=())
def broadcast_to(input, size):
    return expand(input, (size,) if isinstance(size, (int, np.integer)) else tuple(size))


method("broadcast_to", varargs_method(broadcast_to, "broadcast_to", "size"))


@op(methods=())
def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to, as ``torch.Size``; PyTorch's error naming the culprit if none."""
    from ..tensor import Size
    norm = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result = [1] * max((len(s) for s in norm), default=0)
    for k, (orig, shape) in enumerate(zip(shapes, norm)):
        for i in range(-1, -1 - len(shape), -1):
            d = shape[i]
            if d < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension ({d}): ({d})")
            if d == 1 or d == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d} at {i}! Mismatching argument "
                                   f"at index {k} had {orig if not isinstance(orig, int) else shape}; but expected "
                                   f"shape should be broadcastable to {result}")
            result[i] = d
    return Size(result)


@op(methods=())
def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    err = broadcast_error(*[t._data.shape for t in tensors]) if tensors else None
    if err is not None:
        raise err
    shape = tuple(np.broadcast_shapes(*[t._data.shape for t in tensors]))
    return tuple(expand(t, shape) for t in tensors)
