"""Helpers that work on NumPy arrays *and* on Tensors, so one backward formula serves both modes.

During a plain backward the engine hands formulas NumPy arrays (fast, nothing recorded); under
``create_graph=True`` it hands them Tensors and grad mode is on, so the same formula builds a
differentiable graph. Python operators (``+ - * / ** @``, unary ``-``, comparisons) already work on
both; anything else a formula needs goes through a function here. An argument that is not a Tensor
is treated as an array (NumPy scalars included).
"""
import numpy as np

from ..autograd import _protocol
from ..tensor import Tensor


def is_tensor(x):
    return isinstance(x, Tensor)


# The engine's own gradient helpers (autograd cannot import this module; ops registers SumTo and ToCopy
# with it, in ops/__init__.py).
data_of, as_tensor, like_mode, sum_to = _protocol.data_of, _protocol.as_tensor, _protocol.like_mode, _protocol.sum_to


def broadcast_to(g, shape):
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    if isinstance(g, Tensor):
        return g.expand(shape)
    return np.broadcast_to(g, shape)


cast = _protocol.cast


def reshape(x, shape):
    return x.reshape(tuple(shape)) if isinstance(x, Tensor) else np.reshape(x, shape)


def unsqueeze_dims(x, dims, ndim_out):
    """Reinsert reduced dims (the keepdim=False case) so a gradient broadcasts against the input."""
    if isinstance(x, Tensor):
        shape = list(x.shape)
        for d in sorted(dims):
            shape.insert(d, 1)
        return x.reshape(tuple(shape))
    return np.expand_dims(x, tuple(sorted(dims)))


def transpose(x, axes):
    return x.permute(*axes) if isinstance(x, Tensor) else np.transpose(x, axes)


def swapaxes(x, a, b):
    return x.transpose(a, b) if isinstance(x, Tensor) else np.swapaxes(x, a, b)


def sum(x, axis=None, keepdims=False):  # noqa: A001 - mirrors numpy's name
    if isinstance(x, Tensor):
        if axis is None:
            return x.sum() if not keepdims else x.sum(dim=tuple(range(x.ndim)), keepdim=True)
        return x.sum(dim=axis, keepdim=keepdims)
    return np.asarray(np.sum(x, axis=axis, keepdims=keepdims))


def zeros_like(x):
    if isinstance(x, Tensor):
        return Tensor._wrap(np.zeros(x._data.shape, x._data.dtype))
    return np.zeros(np.shape(x), np.asarray(x).dtype)


# -- elementwise math used by formulas -----------------------------------------------------------------

def _unary(np_fn, method):
    def f(x):
        if isinstance(x, Tensor):
            return getattr(x, method)()
        return np_fn(x)
    f.__name__ = method
    return f


exp = _unary(np.exp, "exp")
log = _unary(np.log, "log")
sqrt = _unary(np.sqrt, "sqrt")
sin = _unary(np.sin, "sin")
cos = _unary(np.cos, "cos")
tanh = _unary(np.tanh, "tanh")
sinh = _unary(np.sinh, "sinh")
cosh = _unary(np.cosh, "cosh")


def _sign_np(x):
    # PyTorch's sign, (0 < x) - (x < 0): 0 for NaN, as Tensor.sign gives (np.sign gives NaN)
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)
    return np.sign(x)


sign = _unary(_sign_np, "sign")
abs = _unary(np.abs, "abs")  # noqa: A001
square = _unary(np.square, "square")
reciprocal = _unary(np.reciprocal, "reciprocal")


def sigmoid(x):
    if isinstance(x, Tensor):
        return x.sigmoid()
    from .unary import _sigmoid_np
    return _sigmoid_np(x)


def where(cond, a, b):
    """``cond`` is a constant boolean array; ``a``/``b`` may be arrays, Tensors or scalars."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        from .pointwise import where as t_where
        c = cond if isinstance(cond, Tensor) else Tensor._wrap(np.asarray(cond))
        return t_where(c, a, b)
    r = None
    if type(a) is np.ndarray:
        r = bits_select(cond, True, a, b)
        if r is None and type(b) in (float, int) and type(cond) is np.ndarray and cond.dtype == np.bool_:
            r = fill_where(a, ~cond, b)  # a mask broadcast over a (attention's): bits, not np.where
    elif type(b) is np.ndarray:
        r = bits_select(cond, False, b, a)
        if r is None and type(a) in (float, int):
            r = fill_where(b, cond, a)
    return np.where(cond, a, b) if r is None else r


_SAME_WIDTH_INT = {np.dtype(np.float16): np.dtype(np.int16), np.dtype(np.float32): np.dtype(np.int32),
                   np.dtype(np.float64): np.dtype(np.int64)}


def bits_select(cond, keep_where, a, b, overwrite=False):
    """``where(cond, a, b)`` (``where(cond, b, a)`` if not ``keep_where``) for a float array ``a`` of cond's
    shape and ``b`` a Python number or an array of a's dtype and shape; None where those don't hold.

    Each element is picked bit for bit, so a NaN or inf in the branch not taken never reaches the result (as
    it would through a 0/1 factor: NaN * 0 = NaN). Not np.where, which on masks that are not mostly uniform
    (a ReLU's, a clip's) costs about ten elementwise multiplies: an all-ones/all-zeros integer mask of the
    elements' width, ANDed with the bits of ``a`` (and its complement with those of ``b``), costs about one.
    ``overwrite``: ``a`` is a temporary the result may be written into."""
    it = _SAME_WIDTH_INT.get(a.dtype)
    if (it is None or type(cond) is not np.ndarray or cond.dtype != np.bool_ or a.shape != cond.shape):
        return None
    b_array = type(b) is np.ndarray
    if b_array:
        if b.dtype != a.dtype or b.shape != a.shape:
            return None
    elif type(b) not in (float, int):
        return None
    m = cond.view(np.int8).astype(it)  # (a same-kind pass: faster than a casting ufunc)
    if keep_where:
        np.negative(m, out=m)  # all bits set where cond, 0 elsewhere
    else:
        m -= 1  # all bits set where not cond
    if not b_array and b == 0 and (type(b) is int or np.copysign(1.0, b) > 0):
        m &= a.view(it)
        return m.view(a.dtype)
    out = a if overwrite and a.flags.writeable else a.copy()
    out.view(it)[...] &= m
    np.invert(m, out=m)
    m &= np.asarray(b, a.dtype).view(it)
    out.view(it)[...] |= m
    return out


def fill_where(x, mask, value):
    """``where(mask, value, x)`` for a float array ``x``, a boolean ``mask`` that broadcasts to x's shape (an
    attention mask over a batch of score matrices) and a scalar ``value``; None where those don't hold.

    Bit selection as in bits_select, with the mask-sized pieces (the keep bits, the fill bits) made once at
    the mask's size, so the full-size work is one AND and one OR. (32, 4, 64, 64) float32 under a (64, 64)
    causal mask: 0.32 ms against np.where's 0.97."""
    it = _SAME_WIDTH_INT.get(x.dtype)
    if it is None or type(mask) is not np.ndarray or mask.dtype != np.bool_ or mask.ndim > x.ndim:
        return None
    if mask.shape != x.shape[x.ndim - mask.ndim:] and any(m not in (1, n) for m, n in
                                                           zip(mask.shape, x.shape[x.ndim - mask.ndim:])):
        return None
    keep = mask.view(np.int8).astype(it)
    keep -= 1  # all bits set where the mask is False
    out = np.bitwise_and(x.view(it), keep)
    bits = np.asarray(value, x.dtype).view(it)
    if bits != 0:
        np.invert(keep, out=keep)
        keep &= bits
        out |= keep
    return out.view(x.dtype)


def matmul(a, b):
    return a @ b


def cat(xs, axis):
    if any(isinstance(x, Tensor) for x in xs):
        from .movement import cat as t_cat
        return t_cat([as_tensor(x) for x in xs], axis)
    return np.concatenate(xs, axis)


def from_forward(g, ctx, name, recompute):
    """An intermediate forward computed on arrays and kept as ``ctx.<name>``: reused as is in a plain
    backward, but recomputed by ``recompute()`` from the saved Tensors under create_graph, where it must
    carry the graph back to the inputs. One formula; only where its value comes from depends on the mode."""
    return recompute() if isinstance(g, Tensor) else getattr(ctx, name)


def new_zeros(g, shape):
    """Zeros of ``shape`` in ``g``'s dtype and mode (a constant Tensor under create_graph)."""
    z = np.zeros(shape, data_of(g).dtype)
    return Tensor._wrap(z) if isinstance(g, Tensor) else z


def zero_at(g, index):
    """``g`` with the region ``g[index]`` set to 0: the gradient of the part an assignment overwrote."""
    if isinstance(g, Tensor):  # a constant mask keeps it differentiable
        mask = np.ones(g._data.shape, g._data.dtype)
        mask[index] = 0
        return g * mask
    out = np.array(g, copy=True)
    out[index] = 0
    return out


# -- linear kernels and their adjoints ---------------------------------------------------------------------

def kernel_call(op, x, *args):
    """``op`` (made by ``adjoint_pair``) applied to ``x`` in ``x``'s mode: recorded, and so differentiable
    again, for a Tensor; the op's NumPy kernel alone for an array."""
    return op.apply(x, *args) if isinstance(x, Tensor) else op.kernel(x, *args)


def adjoint_pair(name, kernel, adjoint, adjoint_name=None, node_name=None, adjoint_node_name=None):
    """Two Ops from a linear NumPy kernel ``kernel(x, *args)`` and its adjoint ``adjoint(g, *args)``
    (im2col and col2im, a gather and its scatter-add): each Op's gradient is the other applied to the
    incoming gradient, so the pair differentiates to any order. Only ``x`` is differentiable; ``args``
    are constants (shapes, indices, geometry) that both functions take in the same order."""
    from ..autograd.function import Op

    def make(cls_name, fn, doc):
        def forward(ctx, x, *args):
            ctx.args = args
            return fn(x, *args)

        def backward(ctx, g):
            return (kernel_call(ctx.adjoint_op, g, *ctx.args),) + (None,) * len(ctx.args)
        return type(cls_name, (Op,), {"__slots__": (), "__doc__": doc, "kernel": staticmethod(fn),
                                      "forward": staticmethod(forward), "backward": staticmethod(backward)})

    fwd = make(name, kernel, f"{kernel.__name__} as an Op; its gradient is {adjoint.__name__}.")
    adj = make(adjoint_name or name + "Adjoint", adjoint, f"{adjoint.__name__}, the adjoint of {name}, as an Op.")
    fwd.adjoint_op, adj.adjoint_op = adj, fwd
    for cls, n in ((fwd, node_name), (adj, adjoint_node_name)):
        cls.node_name = staticmethod(n) if callable(n) else n
    fwd.__module__ = adj.__module__ = kernel.__module__
    return fwd, adj
