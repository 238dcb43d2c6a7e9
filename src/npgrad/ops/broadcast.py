"""Broadcasting and its adjoint: ``expand``/``broadcast_to`` and the sum that undoes them."""
import numpy as np

from ..autograd.function import Op
from . import _poly as P
from ._registry import tensor_method

__all__ = ["broadcast_to", "broadcast_tensors", "broadcast_shapes"]


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


def _expanded_shape(in_shape, sizes):
    sizes = tuple(int(s) for s in sizes)
    lead = len(sizes) - len(in_shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(in_shape)})")
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"expand: the expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out.append(s)
            continue
        cur = in_shape[i - lead]
        if s == -1:
            out.append(cur)
        elif cur == s or cur == 1:
            out.append(s)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(in_shape)}")
    return tuple(out)


def _sizes(sizes):
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        return tuple(sizes[0])
    return sizes


@tensor_method()
def expand(self, *sizes):
    shape = _expanded_shape(self._data.shape, _sizes(sizes))
    if shape == self._data.shape:
        return self
    return Expand.apply(self, shape)


@tensor_method()
def expand_as(self, other):
    return expand(self, other.shape)


@tensor_method()
def broadcast_to(input, shape):
    return expand(input, tuple(shape))


def broadcast_shapes(*shapes):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) if not isinstance(s, int) else (s,) for s in shapes]))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape: "
                           f"{', '.join(str(list(s)) for s in shapes)}") from None


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(expand(t, shape) for t in tensors)
