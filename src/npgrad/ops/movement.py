"""Shape and layout: reshape/view, permute/transpose, squeeze/unsqueeze, flatten, repeat/tile, flip,
roll, narrow/split/chunk/unbind, cat/stack, tril/triu, contiguous/clone.

Ops that PyTorch defines as views return NumPy views here too and are marked with ``mark_view``.
"""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P
from ._dims import canon_dim, canon_dims, sizes_arg, varargs_method
from ._registry import method, op
from ..autograd.views import mark_multi_view, mark_view, mark_view_if_shared

def _sizes(sizes):
    if len(sizes) == 1 and not isinstance(sizes[0], (int, np.integer)):
        return tuple(sizes[0])
    return tuple(sizes)


# -- reshape and friends ----------------------------------------------------------------------------------

class Reshape(Op):
    node_name = "ViewBackward0"  # one node for view/reshape/flatten/unsqueeze: PyTorch's commonest name
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return x.reshape(shape)  # the method: np.reshape's Python wrappers cost more than the view (~1.5 us)

    @staticmethod
    def backward(ctx, g):
        return P.reshape(g, ctx.in_shape), None


def _infer_shape(shape, numel):
    shape = [int(s) for s in shape]
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s} at index {shape.index(s)} of shape {_fmt(shape)}")
            known *= s
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the unspecified "
                               f"dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _reshape(input, shape):
    if shape == input._data.shape:
        return input
    out = Reshape.apply(input, shape)
    return mark_view_if_shared(out, input, lambda a, s=shape: P.reshape(a, s))


@op()
def reshape(input, *sizes, shape=None):
    shape = sizes_arg(sizes, shape, "reshape", "shape")
    return _reshape(input, _infer_shape(_sizes(shape), input._data.size))


@op(public=False)
def view(self, *sizes, size=None, dtype=None):
    if dtype is not None or (len(sizes) == 1 and isinstance(sizes[0], (_dt.dtype, type))):
        if dtype is not None and (sizes or size is not None):
            raise TypeError("view() received an invalid combination of arguments: got both a size and a dtype")
        return view_dtype(self, dtype if dtype is not None else sizes[0])
    d = self._data
    shape = _infer_shape(_sizes(sizes_arg(sizes, size, "view", "size")), d.size)
    if shape == d.shape:
        return self
    if not d.flags.c_contiguous:  # (any shape of a contiguous array is a view: no trial reshape needed)
        try:
            np.reshape(d, shape, copy=False)
        except ValueError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    if d.size == 0:
        return _reshape(self, shape)
    # A view always shares the input's memory: marked without _reshape's may_share_memory test.
    return mark_view(Reshape.apply(self, shape), self, lambda a, s=shape: P.reshape(a, s))


def view_dtype(self, dtype):
    """``t.view(dtype)``: the same memory read as another dtype; like PyTorch, not differentiable. With a
    different element size the last dimension is rescaled and must be contiguous."""
    x, new = self._data, _dt.to_dtype(dtype).np
    old_size, new_size = x.dtype.itemsize, new.itemsize
    if old_size != new_size:
        what = f"to view {_dt.scalar_name(x.dtype)} as {_dt.scalar_name(new)} (different element sizes)"
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if x.shape[-1] != 1 and x.strides[-1] != old_size:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {x.strides[-1] // old_size}")
        if new_size > old_size and x.shape[-1] % (new_size // old_size):
            raise RuntimeError(f"self.size(-1) must be divisible by {new_size // old_size} {what}, "
                               f"but got {x.shape[-1]}")
        if x.shape[-1] == 1 and x.strides[-1] != old_size:
            x = np.lib.stride_tricks.as_strided(x, strides=x.strides[:-1] + (old_size,))
    return Tensor._wrap(x.view(new))


@op(public=False)
def view_as(self, other):
    return view(self, other.shape)


@op(public=False)
def reshape_as(self, other):
    return _reshape(self, tuple(other.shape))


@op()
def flatten(input, start_dim=0, end_dim=-1):
    nd = input._data.ndim
    if nd == 0:
        return _reshape(input, (1,))
    s, e = canon_dim(start_dim, nd), canon_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = input._data.shape
    new = shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:]
    return _reshape(input, new)


@op()
def unflatten(input, dim, sizes):
    d = canon_dim(dim, input._data.ndim)
    shape = input._data.shape
    sizes = list(sizes)
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    if int(np.prod(sizes)) != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                           f"({shape[d]}) in the input tensor")
    return _reshape(input, shape[:d] + tuple(sizes) + shape[d + 1:])


@op(inplace="reshape")
def squeeze(input, dim=None):
    shape = input._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        if isinstance(dim, (list, tuple)):
            if not dim:  # no dims named: nothing to squeeze (canon_dims reads () as every dim, a reduction's sense)
                return _reshape(input, shape)
            dims = canon_dims(dim, len(shape))
        else:
            dims = (canon_dim(dim, len(shape)),)
        if not shape:
            return _reshape(input, ())
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return _reshape(input, new)


@op(inplace="reshape")
def unsqueeze(input, dim):
    nd = input._data.ndim
    d = canon_dim(dim, nd + 1)
    shape = input._data.shape
    return _reshape(input, shape[:d] + (1,) + shape[d:])


@op(methods=())
def atleast_1d(*tensors):
    return _atleast(tensors, lambda t: t if t._data.ndim >= 1 else _reshape(t, (1,)))


@op(methods=())
def atleast_2d(*tensors):
    return _atleast(tensors, lambda t: t if t._data.ndim >= 2 else
                    _reshape(t, (1,) * (2 - t._data.ndim) + t._data.shape))


def _atleast(tensors, one):
    # PyTorch's forms: f(t) -> a tensor; f(t1, t2, ...) and f([t1, t2]) -> a tuple
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(one(t) for t in tensors[0])
    return one(tensors[0]) if len(tensors) == 1 else tuple(one(t) for t in tensors)


# -- permutations -------------------------------------------------------------------------------------------

class Permute(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, perm):
        ctx.perm = perm
        return x.transpose(perm)  # (the method, as in Reshape.forward)

    @staticmethod
    def backward(ctx, g):
        return P.transpose(g, tuple(np.argsort(ctx.perm))), None


def _permute(input, perm):
    if perm == tuple(range(len(perm))):
        return input
    out = Permute.apply(input, perm)
    return mark_view(out, input, lambda a, p=perm: P.transpose(a, p))


@op()
def permute(input, *args, dims=None):
    dims = _sizes(sizes_arg(args, dims, "permute", "dims"))
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
                           f"to len(dims) = {len(dims)}")
    perm = tuple(canon_dim(d, nd) for d in dims)
    if len(set(perm)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, perm)


@op("swapaxes", "swapdims", inplace="reshape")
def transpose(input, dim0, dim1):
    nd = input._data.ndim
    if nd == 0:
        return input
    a, b = canon_dim(dim0, nd), canon_dim(dim1, nd)
    perm = list(range(nd))
    perm[a], perm[b] = perm[b], perm[a]
    return _permute(input, tuple(perm))




@op(inplace="reshape")
def t(input):
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return transpose(input, 0, 1) if input._data.ndim == 2 else input


@op("moveaxis")
def movedim(input, source, destination):
    nd = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    src_c = [canon_dim(s, nd) for s in src]
    dst_c = [canon_dim(d, nd) for d in dst]
    for name, given, canon in (("source", src, src_c), ("destination", dst, dst_c)):
        if len(set(canon)) != len(canon):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    perm = [None] * nd
    for s, d in zip(src_c, dst_c):
        perm[d] = s
    rest = iter(i for i in range(nd) if i not in src_c)
    perm = tuple(p if p is not None else next(rest) for p in perm)
    return _permute(input, perm)




def _T(self):
    nd = self._data.ndim
    return _permute(self, tuple(range(nd - 1, -1, -1))) if nd >= 2 else self


def _matrix_transpose(name, hint):
    # PyTorch: the identity (with a deprecation warning) on 0-d tensors, an error on 1-d ones.
    def get(self):
        nd = self._data.ndim
        if nd == 0:
            import warnings
            warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. {hint}", UserWarning, stacklevel=2)
            return self
        if nd < 2:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. "
                               f"Got {nd}-D tensor.")
        out = transpose(self, -2, -1)
        return out.conj() if name != "mT" and out._data.dtype.kind == "c" else out
    return get


def _H(self):
    nd = self._data.ndim
    if nd == 2:
        out = transpose(self, 0, 1)
        return out.conj() if out._data.dtype.kind == "c" else out
    if nd == 0:
        return _matrix_transpose("H", "Consider using x.conj().")(self)
    more = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
    raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{more}")


method("T", property(_T))
method("mT", property(_matrix_transpose("mT", "This function is the identity in these cases.")))
method("H", property(_H))
method("mH", property(_matrix_transpose("mH", "Consider using x.conj().")))


# -- repeat / tile / flip / roll ---------------------------------------------------------------------------

class Tile(Op):
    node_name = "RepeatBackward0"
    """np.tile semantics with reps already padded to the input's rank."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, reps):
        lead = len(reps) - x.ndim
        ctx.in_shape = (1,) * lead + x.shape
        ctx.orig_shape = x.shape
        ctx.reps = reps
        return np.tile(x, reps)

    @staticmethod
    def backward(ctx, g):
        split = []
        for r, s in zip(ctx.reps, ctx.in_shape):
            split += [r, s]
        g = P.reshape(g, tuple(split))
        g = P.sum(g, axis=tuple(range(0, len(split), 2)))
        return P.reshape(g, ctx.orig_shape), None


@op(public=False)
def repeat(input, *sizes, repeats=None):
    reps = tuple(int(s) for s in _sizes(sizes_arg(sizes, repeats, "repeat", "repeats")))
    if len(reps) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    return Tile.apply(input, reps)


@op(methods=())
def tile(input, dims):
    reps = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(s) for s in dims)
    if len(reps) < input._data.ndim:
        reps = (1,) * (input._data.ndim - len(reps)) + reps
    return Tile.apply(input, reps)


method("tile", varargs_method(tile, "tile", "dims"))


@op()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:  # repeat_interleave(repeats): each index i repeated repeats[i] times
        counts = _check_repeats(input._data)
        return Tensor._wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    if dim is None:
        input = input.reshape(-1)
        dim = 0
    d = canon_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):
        repeats = _check_repeats(repeats._data)
        if repeats.size not in (1, input._data.shape[d]):
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.size} and input.size({d}) = {input._data.shape[d]}")
    elif int(repeats) < 0:
        raise RuntimeError("Repeats must be non-negative")
    idx = np.repeat(np.arange(input._data.shape[d]), repeats)
    from .indexing import index_select
    return index_select(input, d, Tensor._wrap(idx))


def _check_repeats(counts):
    # PyTorch's checks, before NumPy's (which would speak of casting rules and negative dimensions)
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_dt.scalar_name(counts.dtype)}'")
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    counts = counts.reshape(-1)
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts


class Flip(Op):
    __slots__ = ()

    kernel = staticmethod(lambda x, dims: np.flip(x, dims).copy())  # PyTorch's flip copies

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return Flip.kernel(x, dims)

    @staticmethod
    def backward(ctx, g):  # a flip is its own adjoint
        return P.kernel_call(Flip, g, ctx.dims), None


@op()
def flip(input, *args, dims=None):
    args = sizes_arg(args, dims, "flip", "dims")
    if not args:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    named = _sizes(args)
    if not named:  # flip(()) reverses nothing (canon_dims reads () as every dim, a reduction's sense)
        return Flip.apply(input, ())
    return Flip.apply(input, canon_dims(named, input._data.ndim))


@op()
def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@op()
def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Roll(Op):
    __slots__ = ()

    kernel = staticmethod(np.roll)

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return np.roll(x, shifts, dims)

    @staticmethod
    def backward(ctx, g):  # the adjoint rolls back
        neg = tuple(-s for s in ctx.shifts) if isinstance(ctx.shifts, tuple) else -ctx.shifts
        return P.kernel_call(Roll, g, neg, ctx.dims), None, None


@op()
def roll(input, shifts, dims=None):
    # PyTorch's checks: an int is a one-element list; no dims means the flattened tensor, with one shift
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = () if dims is None else tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        shape = input._data.shape
        return Roll.apply(input.reshape(-1), int(shifts[0]), None).reshape(shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if not input._data.ndim:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(canon_dim(d, input._data.ndim) for d in dims)
    return Roll.apply(input, tuple(int(v) for v in shifts), dims)


# -- slicing along a dim: narrow, select, split, chunk, unbind -------------------------------------------------

def _slice_along(input, d, start, stop):
    idx = (slice(None),) * d + (slice(start, stop),)
    return input[idx]


@op()
def narrow(input, dim, start, length):
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(start, Tensor):
        start = int(start.item())
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice_along(input, d, start, start + length)


@op()
def select(input, dim, index):
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at "
                         f"dimension {d}")
    return input[(slice(None),) * d + (index,)]


class Split(Op):
    """All the pieces of a split in one node: backward concatenates their gradients once."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, dim, bounds):
        ctx.dim, ctx.bounds, ctx.shape, ctx.dtype = dim, bounds, x.shape, x.dtype
        pre = (slice(None),) * dim
        return tuple(x[pre + (slice(a, b),)] for a, b in bounds)

    @staticmethod
    def backward(ctx, *grads):
        parts = []
        for g, (a, b) in zip(grads, ctx.bounds):
            if g is None:
                shape = list(ctx.shape)
                shape[ctx.dim] = b - a
                g = np.zeros(shape, ctx.dtype)
            parts.append(g)
        return P.cat(parts, ctx.dim), None, None


def _split_bounds(size, sizes):
    bounds, start = [], 0
    for s in sizes:
        bounds.append((start, start + s))
        start += s
    return tuple(bounds)


def _split(input, d, bounds):
    outs = Split.apply(input, d, bounds)
    pre = (slice(None),) * d
    return tuple(mark_view(o, input, lambda a, sl=pre + (slice(lo, hi),): a[sl])
                 for o, (lo, hi) in zip(outs, bounds))


@op(methods=())
def split(tensor, split_size_or_sections, dim=0):
    input = tensor
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        sizes = [step] * (size // step) + ([size % step] if size % step else []) if step and size else [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={sizes}")
    return mark_multi_view(_split(input, d, _split_bounds(size, sizes)), "Split")


def _split_method(self, split_size, dim=0):
    # The method's keyword is split_size, torch.split's split_size_or_sections (and its tensor is `tensor`).
    return split(self, split_size, dim)


_split_method.__name__, _split_method.__qualname__ = "split", "Tensor.split"
method("split", _split_method)


@op()
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not size:
        return split(input, [0] * chunks, d)  # PyTorch returns `chunks` empty pieces
    return split(input, -(-size // chunks), d)


@op()
def unbind(input, dim=0):
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    pieces = _split(input, d, _split_bounds(size, [1] * size))
    return mark_multi_view(tuple(p.squeeze(d) for p in pieces), "Unbind")


_SPLIT_FORMS = {  # keyword -> (what it must hold, how PyTorch's message names the overload)
    "indices": (lambda v: isinstance(v, (list, tuple)), "tuple of ints indices"),
    "tensor_indices_or_sections": (lambda v: isinstance(v, Tensor), "Tensor tensor_indices_or_sections"),
    "sections": (lambda v: isinstance(v, int) and not isinstance(v, bool), "int sections"),
}


def _label(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def split_spec(name, args, kwargs, forms=tuple(_SPLIT_FORMS), with_dim=True):
    """``(indices_or_sections, dim)`` of a tensor_split-style call: PyTorch's overloads take the split as
    ``sections`` (an int), ``indices`` (a sequence) or ``tensor_indices_or_sections`` (a tensor), by position
    or by those keyword names, and refuse any other combination."""
    kwargs = dict(kwargs)
    dim = kwargs.pop("dim", None) if with_dim else None
    named = [k for k in kwargs if k in forms]
    ok = len(args) + len(named) == 1 and len(kwargs) == len(named) and (not args or with_dim or len(args) == 1)
    if len(args) == 2 and with_dim and dim is None and not named and not kwargs:
        args, dim, ok = args[:1], args[1], True
    if ok:
        spec = args[0] if args else kwargs[named[0]]
        if named and not _SPLIT_FORMS[named[0]][0](spec):
            ok = False
    if not ok:
        got = ", ".join(["Tensor", *map(_label, args), *(f"{k}={_label(v)}" for k, v in kwargs.items()),
                         *([f"dim={_label(dim)}"] if dim is not None else [])])
        expected = "".join(f"\n * (Tensor input, {_SPLIT_FORMS[f][1]}{', int dim = 0' if with_dim else ''})"
                           for f in forms)
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:{expected}\n")
    return spec, 0 if dim is None else dim


@op()
def tensor_split(input, *args, **kwargs):
    indices_or_sections, dim = split_spec("tensor_split", args, kwargs)
    d = canon_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections._data
        if t.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_dt.scalar_name(t.dtype)}")
        indices_or_sections = int(t) if t.ndim == 0 else t.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        sizes = [q + 1] * r + [q] * (n - r)
    else:
        cuts = [0] + [min(int(i), size) for i in indices_or_sections] + [size]
        sizes = [max(b - a, 0) for a, b in zip(cuts[:-1], cuts[1:])]
    return _split(input, d, _split_bounds(size, sizes))


# -- cat / stack --------------------------------------------------------------------------------------------

class Cat(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        # PyTorch skips legacy empty 1-D tensors of shape (0,) (they still get an empty gradient).
        ctx.sizes = [None if _is_legacy_empty(x) else x.shape[dim] for x in xs]
        kept = [x for x in xs if not _is_legacy_empty(x)]
        return np.concatenate(kept, axis=dim)

    @staticmethod
    def backward(ctx, g):
        d = ctx.dim
        out, start = [None], 0
        pre = (slice(None),) * d
        for s, need in zip(ctx.sizes, ctx.needs_input_grad[1:]):
            if s is None:
                out.append(P.new_zeros(g, (0,)) if need else None)
                continue
            out.append(g[pre + (slice(start, start + s),)] if need else None)
            start += s
        return tuple(out)


def _is_legacy_empty(x):
    return len(x.shape) == 1 and x.shape[0] == 0


def _check_tensor_list(tensors, name):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"torch.{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _promote_all(tensors):
    first = tensors[0]._data.dtype
    if all(t._data.dtype == first for t in tensors):
        return tensors
    dt = _dt.result_type(*tensors)
    return [t if t._data.dtype == dt.np else t._cast(dt) for t in tensors]


@op("concat", "concatenate", methods=())
def cat(tensors, dim=0):
    tensors = _check_tensor_list(tensors, "cat")
    ref = None
    for i, t in enumerate(tensors):
        nd_t = t._data.ndim
        if nd_t == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if ref is None and not (nd_t == 1 and t._data.shape[0] == 0):
            ref = t  # PyTorch skips legacy empty 1-D tensors of shape (0,) when concatenating
    if ref is None:
        return tensors[0].clone()
    nd = ref._data.ndim
    d = canon_dim(dim, nd)
    shape = ref._data.shape
    rest = shape[:d] + shape[d + 1:]
    for i, t in enumerate(tensors):
        ts = t._data.shape
        if ts[:d] + ts[d + 1:] == rest and len(ts) == nd or len(ts) == 1 and ts[0] == 0:
            continue
        if len(ts) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(ts)}")
        k = next(k for k in range(nd) if k != d and ts[k] != shape[k])
        raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {shape[k]} but got "
                           f"size {ts[k]} for tensor number {i} in the list.")
    return Cat.apply(d, *_promote_all(tensors))




class Stack(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        return np.stack(xs, axis=dim)

    @staticmethod
    def backward(ctx, g):
        pre = (slice(None),) * ctx.dim
        return (None,) + tuple(g[pre + (i,)] if need else None for i, need in enumerate(ctx.needs_input_grad[1:]))


@op(methods=())
def stack(tensors, dim=0):
    tensors = _check_tensor_list(tensors, "stack")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(t._data.shape)} at entry {i}")
    return Stack.apply(canon_dim(dim, len(shape) + 1), *_promote_all(tensors))


@op(methods=())
def hstack(tensors):
    tensors = [atleast_1d(t) for t in _check_tensor_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


@op(methods=())
def vstack(tensors):
    return cat([atleast_2d(t) for t in _check_tensor_list(tensors, "vstack")], 0)


# -- triangular, diagonal -------------------------------------------------------------------------------------

class Tri(Op):
    node_name = staticmethod(lambda node: "TrilBackward0" if node.__dict__.get("lower") else "TriuBackward0")
    __slots__ = ()

    kernel = staticmethod(lambda x, k, lower: np.tril(x, k) if lower else np.triu(x, k))

    @staticmethod
    def forward(ctx, x, k, lower):
        ctx.k, ctx.lower = k, lower
        return Tri.kernel(x, k, lower)

    @staticmethod
    def backward(ctx, g):
        return P.kernel_call(Tri, g, ctx.k, ctx.lower), None, None  # a mask is its own adjoint


@op(inplace="generic")
def tril(input, diagonal=0):
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return Tri.apply(input, diagonal, True)


@op(inplace="generic")
def triu(input, diagonal=0):
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return Tri.apply(input, diagonal, False)


def diagonal_view(x, offset, d1, d2):
    """The (offset) diagonal of dims d1, d2 as a view of ``x`` (writeable when ``x`` is, unlike
    np.diagonal's): the other dims first, the diagonal last, as in PyTorch."""
    n1, n2 = x.shape[d1], x.shape[d2]
    length = max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)
    start = [slice(None)] * x.ndim
    if length:
        start[d2 if offset >= 0 else d1] = slice(abs(offset), None)
    base = x[tuple(start)]
    other = [i for i in range(x.ndim) if i not in (d1, d2)]
    shape = tuple(x.shape[i] for i in other) + (length,)
    strides = tuple(x.strides[i] for i in other) + (x.strides[d1] + x.strides[d2],)
    return np.lib.stride_tricks.as_strided(base, shape, strides, writeable=base.flags.writeable)


def _diagonal_of(a, offset, d1, d2):
    """Replays the view on an array (a writeable view) or on a Tensor (differentiable)."""
    if isinstance(a, Tensor):
        return Diagonal.apply(a, a.shape, offset, d1, d2)
    return diagonal_view(a, offset, d1, d2)


def _embed_diagonal(g, shape, offset, d1, d2, copy=False):
    """Zeros of ``shape`` with ``g`` written on the (offset) diagonal of dims d1, d2."""
    out = np.zeros(shape, g.dtype)
    diagonal_view(out, offset, d1, d2)[...] = g
    return out


def _diagonal_np(x, shape, offset, d1, d2, copy=False):
    out = diagonal_view(x, offset, d1, d2)
    return out.copy() if copy else out


# the adjoint of taking a diagonal writes it into zeros: torch.diag_embed
Diagonal, _DiagonalBackward = P.adjoint_pair("Diagonal", _diagonal_np, _embed_diagonal, "DiagEmbed",
                                             adjoint_node_name="DiagEmbedBackward0")


@op()
def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input._data.ndim
    d1, d2 = canon_dim(dim1, nd), canon_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = Diagonal.apply(input, input._data.shape, offset, d1, d2)
    return mark_view(out, input, lambda a, args=(offset, d1, d2): _diagonal_of(a, *args))


@op()
def diag(input, diagonal=0):
    if input._data.ndim == 1:
        n = input._data.shape[0] + abs(diagonal)
        return diag_embed(input, diagonal) if n else input.reshape(0, 0)
    if input._data.ndim == 2:
        return Diagonal.apply(input, input._data.shape, diagonal, 0, 1, True)  # diag copies, unlike diagonal
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + str(input._data.ndim) + "D")


@op(methods=())
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    nd = input._data.ndim + 1
    d1, d2 = canon_dim(dim1, nd), canon_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input._data.shape[-1] + abs(offset)
    others = iter(input._data.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(others) for i in range(nd))
    return _DiagonalBackward.apply(input, shape, offset, d1, d2)


@op(methods=())
def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):  # a list of tensors; one tensor stays one
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               f"size {list(t._data.shape)}")
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    elif indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    shape = tuple(t._data.shape[0] if t._data.ndim else 1 for t in tensors)
    outs = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[i] = -1
        outs.append(t.reshape(view_shape).expand(shape))
    if indexing == "xy" and len(tensors) >= 2:
        outs = [o.transpose(0, 1) for o in outs]
    return tuple(outs)


# -- copies ----------------------------------------------------------------------------------------------------

class Clone(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        return x.copy()

    @staticmethod
    def backward(ctx, g):
        return g


@op()
def clone(input, *, memory_format=None):
    return Clone.apply(input)


@op(public=False)
def contiguous(self, memory_format=None):
    if self._data.flags.c_contiguous:
        return self
    return Clone.apply(self)
