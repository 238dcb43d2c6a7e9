"""Products: matmul/@ (1-D, 2-D, batched with broadcast batch dims), mm, bmm, mv, dot, outer, cross,
addmm, einsum (any equation NumPy accepts, ellipsis included)."""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import tensor_method

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "cross", "einsum", "addmm",
           "tensordot", "baddbmm", "kron", "trace"]


class MatMul(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        an, bn = len(a.shape), len(b.shape)
        ga = gb = None
        if an == 1 and bn == 1:
            return (g * b if need_a else None), (g * a if need_b else None)
        if an == 1:  # (k) @ (..., k, m) -> (..., m)
            g2 = g[..., None, :]
            if need_a:
                ga = g2 @ P.swapaxes(b, -1, -2)
            if need_b:
                gb = a[:, None] @ g2
            return ga, gb
        if bn == 1:  # (..., n, k) @ (k) -> (..., n)
            g2 = g[..., :, None]
            if need_a:
                ga = g2 @ b[None, :]
            if need_b:
                gb = (P.swapaxes(a, -1, -2) @ g2)[..., 0]
            return ga, gb
        if need_a:
            ga = g @ P.swapaxes(b, -1, -2)
        if need_b:
            gb = P.swapaxes(a, -1, -2) @ g
        return ga, gb


def _shape_str(s):
    return "x".join(str(d) for d in s)


def _check_matmul(a, b):
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        bad = b if isinstance(a, Tensor) else a
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(bad).__name__}")
    sa, sb = a._data.shape, b._data.shape
    if not sa or not sb:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {len(sa)}D and {len(sb)}D")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_dt_name(a)} != {_dt_name(b)}")
    ka = sa[-1]
    kb = sb[-2] if len(sb) >= 2 else sb[0]
    if ka != kb:
        if len(sa) == 1 and len(sb) == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the "
                               f"same number of elements, but got {sa[0]} and {sb[0]} elements respectively")
        a2 = sa if len(sa) >= 2 else (1,) + sa
        b2 = sb if len(sb) >= 2 else sb + (1,)
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a2[-2:])} and "
                           f"{_shape_str(b2[-2:])})" if len(sa) <= 2 and len(sb) <= 2 else
                           f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{', '.join(str(d) for d in sb[:-2])}, {ka}] but got: "
                           f"[{', '.join(str(d) for d in sb[:-2])}, {kb}]. (shapes {list(sa)} and {list(sb)})")
    if len(sa) > 2 and len(sb) > 2:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({sa[-3]}) must match the size of tensor b ({sb[-3]}) at "
                               f"non-singleton dimension 0 (shapes {list(sa)} and {list(sb)})") from None


def _dt_name(t):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int"} \
        .get(t._data.dtype.name, t._data.dtype.name)


@tensor_method()
def matmul(input, other):
    _check_matmul(input, other)
    return MatMul.apply(input, other)


Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = lambda self, other: matmul(other if isinstance(other, Tensor) else
                                                Tensor._wrap(np.asarray(other, self._data.dtype)), self)


@tensor_method()
def mm(input, mat2):
    if input._data.ndim != 2:
        raise RuntimeError(f"self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix")
    return matmul(input, mat2)


@tensor_method()
def bmm(input, mat2):
    if input._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    if input._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input._data.shape[0]}, {input._data.shape[2]}] but got: "
                           f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    return matmul(input, mat2)


@tensor_method()
def mv(input, vec):
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {vec._data.ndim}, {input._data.ndim}, "
                           f"{vec._data.ndim}")
    return matmul(input, vec)


@tensor_method()
def dot(input, other):
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.name.capitalize()}"
                           f" and {other.dtype.name.capitalize()}")
    return matmul(input, other)


vdot = dot
Tensor.vdot = dot


@tensor_method()
def inner(input, other):
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    return matmul(input, other.transpose(-1, -2) if other._data.ndim > 1 else other) if other._data.ndim <= 2 \
        else einsum("...i,...ji->...j", input, other)


@tensor_method("outer", "ger")
def outer(input, vec2):
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"outer: expected 1D tensors, but got {input._data.ndim}D and {vec2._data.ndim}D")
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


ger = outer


@tensor_method()
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    prod = mm(mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    return prod + (input if beta == 1 else input * beta)


@tensor_method()
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    prod = bmm(batch1, batch2)
    if alpha != 1:
        prod = prod * alpha
    return prod + (input if beta == 1 else input * beta)


# -- cross ---------------------------------------------------------------------------------------------------------

class Cross(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        return np.cross(a, b, axis=dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        d = ctx.dim
        need_a, need_b = ctx.needs_input_grad[:2]
        return (_cross(b, g, d) if need_a else None), (_cross(g, a, d) if need_b else None), None


def _cross(a, b, d):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return Cross.apply(P.as_tensor(a), P.as_tensor(b), d)
    return np.cross(a, b, axis=d)


@tensor_method()
def cross(input, other, dim=None):
    if input._data.ndim != other._data.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    if dim is None:
        cands = [i for i, s in enumerate(shape) if s == 3]
        if not cands:
            raise RuntimeError("no dimension of size 3 in input")
        d = cands[0]
    else:
        d = canon_dim(dim, len(shape))
    if shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {d} must have length 3. Got {input._data.shape[d]} and "
                           f"{other._data.shape[d]}")
    a, b = input, other
    if a._data.shape != shape:
        a = a.expand(shape)
    if b._data.shape != shape:
        b = b.expand(shape)
    return Cross.apply(a, b, d)


# -- einsum ----------------------------------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation, shapes):
    """Explicit form: a subscript string per operand and for the output, '...' replaced by letters."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->")
    else:
        lhs, rhs = eq, None
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise RuntimeError(f"einsum(): more operands were provided than specified in the equation"
                           if len(shapes) > len(ins) else
                           "einsum(): fewer operands were provided than specified in the equation")
    used = set(c for c in eq if c.isalpha())
    free = [c for c in _LETTERS if c not in used]
    ell_nd = 0
    for s, shape in zip(ins, shapes):
        if "..." in s:
            ell_nd = max(ell_nd, len(shape) - (len(s) - 3))
    ell = "".join(free[:ell_nd])
    out_ins = []
    for s, shape in zip(ins, shapes):
        if "..." in s:
            n = len(shape) - (len(s) - 3)
            s = s.replace("...", ell[ell_nd - n:] if n else "")
        if len(s) != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) does not match the "
                               f"number of dimensions ({len(shape)}) for operand {len(out_ins)}"
                               + ("" if "..." in equation else " and no ellipsis was given"))
        out_ins.append(s)
    if rhs is None:
        counts = {}
        for s in out_ins:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        rhs = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        rhs = rhs.replace("...", ell)
    return out_ins, rhs


class Einsum(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, ins, out, *xs):
        ctx.save_for_backward(*xs)
        ctx.ins, ctx.out = ins, out
        ctx.sizes = {c: n for s, x in zip(ins, xs) for c, n in zip(s, x.shape)}
        return np.einsum(",".join(ins) + "->" + out, *xs, optimize=len(xs) > 2)

    @staticmethod
    def backward(ctx, g):
        xs = ctx.saved_tensors
        ins, out, sizes = ctx.ins, ctx.out, ctx.sizes
        grads = [None, None]
        for k, need in enumerate(ctx.needs_input_grad[2:]):
            grads.append(_einsum_grad(k, g, xs, ins, out, sizes) if need else None)
        return tuple(grads)


def _einsum_grad(k, g, xs, ins, out, sizes):
    """d/d(operand k): contract the output gradient with every other operand onto operand k's subscripts.

    Letters that only operand k has become a ones vector (the gradient broadcasts along them), and a
    letter repeated inside operand k (a diagonal) gets fresh names tied together by identity matrices.
    """
    target = ins[k]
    avail = set(out) | {c for j, s in enumerate(ins) if j != k for c in s}
    used = set("".join(ins) + out)
    fresh = iter(c for c in _LETTERS if c not in used)
    subs = [out] + [s for j, s in enumerate(ins) if j != k]
    ops = [g] + [x for j, x in enumerate(xs) if j != k]
    dtype = P.data_of(g).dtype
    seen = set()
    new_target = ""
    for c in target:
        if c in seen:
            f = next(fresh)
            subs.append(c + f)
            ops.append(np.eye(sizes[c], dtype=dtype))
            new_target += f
            continue
        seen.add(c)
        if c not in avail:
            subs.append(c)
            ops.append(np.ones(sizes[c], dtype))
        new_target += c
    eq = ",".join(subs) + "->" + new_target
    if any(isinstance(o, Tensor) for o in ops):
        return einsum(eq, *[P.as_tensor(o) for o in ops])
    return np.einsum(eq, *ops, optimize=len(ops) > 2)


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, o in enumerate(operands):
        if not isinstance(o, Tensor):
            raise TypeError(f"einsum(): expected Tensor operands, got {type(o).__name__} at position {i}")
    ins, out = _parse_einsum(equation, [o._data.shape for o in operands])
    # Size-1 dims broadcast in NumPy's einsum only under '...': expand them explicitly instead.
    sizes = {}
    for s, o in zip(ins, operands):
        for c, n in zip(s, o._data.shape):
            if n != 1:
                if sizes.get(c, n) != n:
                    raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes "
                                       f"(original->remapped): subscript '{c}' has size {sizes[c]} and {n}")
                sizes[c] = n
    ops = []
    for s, o in zip(ins, operands):
        want = tuple(sizes.get(c, 1) for c in s)
        ops.append(o if o._data.shape == want else o.expand(want))
    if len(set(o._data.dtype for o in ops)) > 1:
        dt = _dt.result_type(*ops)
        ops = [o._cast(dt) for o in ops]
    return Einsum.apply(tuple(ins), out, *ops)


def tensordot(a, b, dims=2):
    if isinstance(dims, int):
        da = list(range(a._data.ndim - dims, a._data.ndim))
        db = list(range(dims))
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    la = _LETTERS[:a._data.ndim]
    lb = list(_LETTERS[a._data.ndim:a._data.ndim + b._data.ndim])
    for x, y in zip(da, db):
        lb[y] = la[x]
    lb = "".join(lb)
    out = "".join(c for c in la if c not in lb) + "".join(c for c in lb if c not in la)
    return einsum(f"{la},{lb}->{out}", a, b)


def kron(a, b):
    nd = max(a._data.ndim, b._data.ndim)
    a2 = a.reshape((1,) * (nd - a._data.ndim) + tuple(a.shape))
    b2 = b.reshape((1,) * (nd - b._data.ndim) + tuple(b.shape))
    la, lb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
    r = einsum(f"{la},{lb}->" + "".join(x + y for x, y in zip(la, lb)), a2, b2)
    return r.reshape(tuple(x * y for x, y in zip(a2.shape, b2.shape)))


@tensor_method()
def trace(input):
    if input._data.ndim != 2:
        raise RuntimeError("trace: expected a matrix")
    return input.diagonal().sum()
