"""Products: matmul/@ (1-D, 2-D, batched with broadcast batch dims), mm, bmm, mv, dot, outer, cross,
addmm, einsum (any equation NumPy accepts, ellipsis included)."""
import warnings

import numpy as np

from . import _deprecated
from .. import _layout, _parallel
from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim
from ._registry import method, op

def _matmul_node_name(node):
    """PyTorch's name for the product npgrad records as one MatMul: by the operands' dimensions."""
    saved, meta = node._saved, node._in_meta
    nd = None
    if saved is not None and len(saved) >= 2:
        nd = tuple(np.ndim(s) for s in saved[:2])
    elif meta and all(m is not None for m in meta[:2]):
        nd = tuple(len(m[0]) for m in meta[:2])
    return {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0",
            (3, 3): "BmmBackward0"}.get(nd, "MatMulBackward0")


class MatMul(Op):
    node_name = staticmethod(_matmul_node_name)
    __slots__ = ()

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _parallel.matmul(a, b)

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
            if need_a:
                ga = g[..., :, None] * b
            if need_b:
                # One matrix-vector product over the batch folded into rows (no per-batch partial sums).
                gb = P.swapaxes(_rows(a), 0, 1) @ P.reshape(g, (-1,))
            return ga, gb
        if need_a:
            ga = _parallel.matmul(g, P.swapaxes(b, -1, -2))
        if need_b:
            if bn == 2 and an > 2:  # a batch times one matrix (a linear layer): fold the batch into rows
                gb = P.swapaxes(_rows(a), 0, 1) @ _rows(g)
            else:
                gb = _parallel.matmul(P.swapaxes(a, -1, -2), g)
        return ga, gb


def _rows(x):
    # (..., k) -> (rows, k); explicit row count, as reshape(-1, 0) cannot infer it for an empty k
    return P.reshape(x, (int(np.prod(x.shape[:-1])), x.shape[-1]))


def _shape_str(s):
    return "x".join(str(d) for d in s)


def _check_matmul(a, b):
    """PyTorch's checks and messages, which name the op matmul dispatches to for these ranks (dot, mv,
    mm, a folded mm/mv for a batch times a matrix/vector, else bmm over the broadcast batch)."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        bad = b if isinstance(a, Tensor) else a
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(bad).__name__}")
    sa, sb = a._data.shape, b._data.shape
    na, nb = len(sa), len(sb)
    if not na or not nb:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_dt_name(a)} != {_dt_name(b)}")
    ka = sa[-1]
    kb = sb[-2] if nb >= 2 else sb[0]
    if na == 1 and nb == 1:
        if ka != kb:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{ka}] and src [{kb}] to have the "
                               f"same number of elements, but got {ka} and {kb} elements respectively")
        return
    if nb == 1 and na >= 2:  # mv, on the batch folded into rows
        if ka != kb:
            rows = int(np.prod(sa[:-1]))
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{ka}), vec ({kb})")
        return
    if nb == 2 and na != 2 and na != 1:  # a batch times a matrix: folded into one mm
        if ka != kb:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({int(np.prod(sa[:-1]))}x{ka} and "
                               f"{_shape_str(sb)})")
        return
    if na <= 2 and nb == 2:
        if ka != kb:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(((1,) + sa)[-2:])} and "
                               f"{_shape_str(sb)})")
        return
    batch = broadcast_batch(sa[:-2], sb[:-2])
    if ka != kb:
        n = int(np.prod(batch))
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {ka}] but got: "
                           f"[{n}, {kb}].")


def broadcast_batch(a, b):
    """Broadcast two shapes with PyTorch's message, which names the last dim (of the result) that fails."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        x, y = a[i], b[i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _dt_name(t):
    return cpp_type_name(t._data.dtype)


def cpp_type_name(np_dtype):
    """The C++ type name some PyTorch messages use for a dtype ("float", "long int")."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"} \
        .get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


@op(methods=("matmul", "__matmul__"))
def matmul(input, other):
    try:
        _check_matmul(input, other)
    except _layout.SparseOperand:  # a sparse operand has no array: npgrad.sparse does the product
        return _layout.SPARSE_IMPL["matmul"](input, other)
    return MatMul.apply(input, other)


method("__rmatmul__", lambda self, other: matmul(other if isinstance(other, Tensor) else
                                                 Tensor._wrap(np.asarray(other, self._data.dtype)), self))


@op()
def mm(input, mat2):
    try:  # free on the dense path; a sparse operand has no array and npgrad.sparse does the product
        if input._data.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if mat2._data.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
    except _layout.SparseOperand:
        return _layout.SPARSE_IMPL["mm"](input, mat2)
    return matmul(input, mat2)


def _check_bmm(sa, sb, first="batch1", second="batch2"):
    if len(sa) != 3:
        raise RuntimeError(f"{first} must be a 3D tensor")
    if len(sb) != 3:
        raise RuntimeError(f"{second} must be a 3D tensor")
    if sb[0] != sa[0] or sb[1] != sa[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] but "
                           f"got: [{sb[0]}, {sb[1]}].")


@op()
def bmm(input, mat2):
    _check_bmm(input._data.shape, mat2._data.shape)
    return matmul(input, mat2)


@op()
def mv(input, vec):
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}")
    return matmul(input, vec)


class Vdot(Op):
    """sum(conj(a) * b). Not holomorphic in a, so its gradients are written in PyTorch's convention:
    conj(g) * b for a and g * a for b (g * b and g * a on real vectors)."""

    __slots__ = ()
    node_name = "VdotBackward0"
    _complex_native = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.asarray(np.vdot(a, b))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = (_conj(g) * b) if ctx.needs_input_grad[0] else None
        return ga, (g * a if ctx.needs_input_grad[1] else None)


def _conj(x):
    if isinstance(x, Tensor):
        return x.conj_physical() if x._data.dtype.kind == "c" else x
    return np.conj(x) if np.iscomplexobj(x) else x


@op()
def vdot(input, other):
    """sum(conj(input) * other): dot with the first vector conjugated (the same as dot for real vectors)."""
    if input._data.ndim != 1 or other._data.ndim != 1:
        return dot(input, other)  # dot raises PyTorch's error
    if input._data.dtype != other._data.dtype or input._data.dtype.kind not in "fc":
        return dot(input.conj() if input._data.dtype.kind == "c" else input, other)
    if input._data.shape != other._data.shape:
        return dot(input, other)
    return Vdot.apply(input, other)


@op()
def dot(input, other):
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_dt.scalar_name(input._data.dtype)} and {_dt.scalar_name(other._data.dtype)}")
    return matmul(input, other)


@op()
def inner(input, other):
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    sa, sb = input._data.shape, other._data.shape
    if sa[-1] != sb[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(sa)} and {list(sb)}")
    if other._data.ndim <= 2:
        return matmul(input, other.transpose(-1, -2) if other._data.ndim == 2 else other)
    return tensordot(input, other, ([-1], [-1]))


@op("ger")
def outer(input, vec2):
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return input.reshape(-1, 1) * vec2.reshape(1, -1)




def _check_bias(shape, target):
    """addmm/baddbmm expand ``input`` to the product's shape: PyTorch's expand message, which names the
    last mismatching dim."""
    lead = len(target) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(target)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(shape)})")
    for i in range(len(target) - 1, lead - 1, -1):
        have = shape[i - lead]
        if have != target[i] and have != 1:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size ({have}) "
                               f"at non-singleton dimension {i}.  Target sizes: {list(target)}.  Tensor sizes: "
                               f"{list(shape)}")


def _scaled_sum(prod, input, beta, alpha):
    """``beta * input + alpha * prod``, skipping the multiplications PyTorch skips (beta=0 ignores input,
    NaNs included)."""
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        if isinstance(input, Tensor) and input._requires_grad:
            # PyTorch still gives input a (zero) gradient; a NaN/inf in input must not leak into the value.
            return prod + (input * 0).nan_to_num(0.0, 0.0, 0.0)
        return prod
    return prod + (input if beta == 1 else input * beta)


@op(inplace="generic")
def addmm(input, mat1, mat2, *deprecated, beta=1, alpha=1):
    if deprecated:  # PyTorch's deprecated beta-first orders
        if not (type(beta) is int and beta == 1 and type(alpha) is int and alpha == 1):
            raise TypeError("addmm() received an invalid combination of arguments")
        input, mat1, mat2, beta, alpha = _deprecated.beta_first("addmm", input, mat1, mat2, deprecated)
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if t._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t._data.ndim}-D tensor")
    _check_bias(input._data.shape, (mat1._data.shape[0], mat2._data.shape[1]))
    return _scaled_sum(matmul(mat1, mat2), input, beta, alpha)


@op(inplace="generic")
def baddbmm(input, batch1, batch2, *deprecated, beta=1, alpha=1):
    if deprecated:  # PyTorch's deprecated beta-first orders
        if not (type(beta) is int and beta == 1 and type(alpha) is int and alpha == 1):
            raise TypeError("baddbmm() received an invalid combination of arguments")
        input, batch1, batch2, beta, alpha = _deprecated.beta_first("baddbmm", input, batch1, batch2, deprecated)
    _check_bmm(batch1._data.shape, batch2._data.shape)
    _check_bias(input._data.shape, (batch1._data.shape[0], batch1._data.shape[1], batch2._data.shape[2]))
    return _scaled_sum(matmul(batch1, batch2), input, beta, alpha)


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


@op()
def cross(input, other, dim=None):
    if input._data.ndim != other._data.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
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
_ELL = "..."
# Below this much work (the product of every subscript's size) np.einsum's own loop beats planning a
# BLAS contraction; above it, optimize=True is many times faster.
_OPTIMIZE_WORK = 1 << 15


def _tokenize_einsum(eq, n_ops):
    """The subscripts of each operand and of the output (None when implicit), '...' as one token,
    with PyTorch's messages for malformed equations."""
    terms = [[]]
    out = None
    cur = terms[0]
    i = 0
    while i < len(eq):
        c = eq[i]
        who = "output" if out is not None else f"operand {len(terms) - 1}"
        if c == " ":
            i += 1
        elif c == ".":
            if eq[i:i + 3] != _ELL:
                raise RuntimeError(f"einsum(): found '.' for {who} that is not part of any ellipsis")
            if _ELL in cur:
                raise RuntimeError(f"einsum(): found '.' for output but an ellipsis (...) was already found"
                                   if out is not None else
                                   f"einsum(): found '.' for {who} for which an ellipsis was already found")
            cur.append(_ELL)
            i += 3
        elif c == "," and out is None:
            cur = []
            terms.append(cur)
            i += 1
        elif c == "-" and eq[i + 1:i + 2] == ">" and out is None:
            out = cur = []
            i += 2
        elif c.isascii() and c.isalpha():
            cur.append(c)
            i += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
    if len(terms) < n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > n_ops:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    return terms, out


def _parse_einsum(equation, shapes):
    """Explicit subscripts: one string per operand and one for the output, '...' replaced by letters
    the equation does not use; plus each subscript's size after broadcasting size-1 dims."""
    terms, out = _tokenize_einsum(equation, len(shapes))
    if out is not None:
        seen_in = {c for t in terms for c in t}
        for k, c in enumerate(out):
            if c != _ELL and c not in seen_in:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   "operand")
            if c in out[:k]:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
    ell_nd = 0
    for k, (t, shape) in enumerate(zip(terms, shapes)):
        if _ELL in t:
            if len(t) - 1 > len(shape):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t) - 1}) is more than "
                                   f"the number of dimensions ({len(shape)}) for operand {k}")
            ell_nd = max(ell_nd, len(shape) - len(t) + 1)
        elif len(t) != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) does not match the "
                               f"number of dimensions ({len(shape)}) for operand {k} and no ellipsis was given")
    used = set(equation)
    ell = [c for c in _LETTERS if c not in used][:ell_nd]
    ins, sizes, ell_sizes = [], {}, {}
    for k, (t, shape) in enumerate(zip(terms, shapes)):
        letters = []
        for c in t:
            if c == _ELL:
                n = len(shape) - len(t) + 1
                letters += ell[ell_nd - n:]
            else:
                letters.append(c)
        mine = {}
        for dim, (c, n) in enumerate(zip(letters, shape)):
            if c in mine:
                if mine[c] != n:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't "
                                       f"match, {n} != {mine[c]}")
                continue
            mine[c] = n
            prev = sizes.get(c)
            if prev is not None and prev != n and prev != 1 and n != 1:
                if c in ell:
                    raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size {n} "
                                       f"which does not broadcast with previously seen ellipsis with size {prev} "
                                       "for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does not broadcast "
                                   f"with previously seen size {prev}")
            if prev is None or prev == 1:
                sizes[c] = n
        ins.append("".join(letters))
    if out is None:
        counts = {}
        for s in ins:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        rhs = "".join(ell) + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        rhs = "".join("".join(ell) if c == _ELL else c for c in out)
    return ins, rhs, sizes


def _np_einsum(eq, ops, sizes):
    work = 1
    for n in sizes.values():
        work *= n
    return np.einsum(eq, *ops, optimize=len(ops) > 2 or work > _OPTIMIZE_WORK)


class Einsum(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, ins, out, sizes, *xs):
        ctx.save_for_backward(*xs)
        ctx.ins, ctx.out, ctx.sizes = ins, out, sizes
        return np.asarray(_np_einsum(",".join(ins) + "->" + out, xs, sizes))

    @staticmethod
    def backward(ctx, g):
        xs = ctx.saved_tensors
        ins, out, sizes = ctx.ins, ctx.out, ctx.sizes
        grads = [None, None, None]
        for k, need in enumerate(ctx.needs_input_grad[3:]):
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
    all_sizes = dict(sizes)
    for c in target:
        if c in seen:
            f = next(fresh)
            subs.append(c + f)
            ops.append(np.eye(sizes[c], dtype=dtype))
            all_sizes[f] = sizes[c]
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
    return np.asarray(_np_einsum(eq, ops, all_sizes))


@op(methods=())
def einsum(equation, *operands):
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a string, got {type(equation).__name__} (einsum(equation, "
                        "*operands))")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, o in enumerate(operands):
        if not isinstance(o, Tensor):
            raise TypeError(f"einsum(): expected Tensor operands, got {type(o).__name__} at position {i}")
    ins, out, sizes = _parse_einsum(equation, [o._data.shape for o in operands])
    dt = operands[0]._data.dtype if operands else None
    for o in operands[1:]:
        if o._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {_dt.scalar_name(dt)} but found {_dt.scalar_name(o._data.dtype)}")
    # Size-1 dims broadcast in PyTorch's einsum; NumPy's does that only under '...', so expand them here.
    ops = []
    for s, o in zip(ins, operands):
        want = tuple(sizes[c] for c in s)
        ops.append(o if o._data.shape == want else o.expand(want))
    return Einsum.apply(tuple(ins), out, sizes, *ops)


@op(methods=())
def tensordot(a, b, dims=2):
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > na or dims > nb:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        da = [canon_dim(d, na) for d in da]
        db = [canon_dim(d, nb) for d in db]
    for x, y in zip(da, db):
        sx, sy = a._data.shape[x], b._data.shape[y]
        if sx != sy and sx != 1 and sy != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sx} in dim {x} and second "
                               f"has size {sy} in dim {y}")
    la = _LETTERS[:na]
    lb = list(_LETTERS[na:na + nb])
    for x, y in zip(da, db):
        lb[y] = la[x]
    lb = "".join(lb)
    out = "".join(c for c in la if c not in lb) + "".join(c for c in lb if c not in la)
    return einsum(f"{la},{lb}->{out}", a, b)


@op()
def kron(input, other):
    a, b = input, other
    nd = max(a._data.ndim, b._data.ndim)
    a2 = a.reshape((1,) * (nd - a._data.ndim) + tuple(a.shape))
    b2 = b.reshape((1,) * (nd - b._data.ndim) + tuple(b.shape))
    la, lb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
    r = einsum(f"{la},{lb}->" + "".join(x + y for x, y in zip(la, lb)), a2, b2)
    return r.reshape(tuple(x * y for x, y in zip(a2.shape, b2.shape)))


@op()
def trace(input):
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return input.diagonal().sum()


def _to_sparse(self, *args, **kwargs):
    from .. import sparse
    return sparse.to_sparse(self, *args, **kwargs)


def _to_sparse_csr(self, dense_dim=None):
    from .. import sparse
    return sparse.to_sparse_csr(self, dense_dim)


method("to_sparse", _to_sparse)
method("to_sparse_coo", lambda self: _to_sparse(self))
method("to_sparse_csr", _to_sparse_csr)
