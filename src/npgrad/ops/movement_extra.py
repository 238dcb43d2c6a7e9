"""Less common shape and arrangement functions, loaded on first use: cartesian_prod, combinations, block_diag,
column_stack/dstack/row_stack, hsplit/vsplit/dsplit, atleast_3d, rot90, diagflat, ravel, unravel_index (and the
Tensor method diag_embed). Each is built from differentiable movement ops, so gradients come with them."""
import itertools

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._dims import canon_dim
from ._registry import op
from .movement import (_atleast, _reshape, cat, diag, diag_embed, flip, hstack, meshgrid, split_spec, stack,
                       tensor_split, vstack)


def _tensor_list(tensors):
    return tuple(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tuple(tensors)


def _check_1d(t):
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")


@op(methods=())
def cartesian_prod(*tensors):
    tensors = _tensor_list(tensors)
    for t in tensors:
        _check_1d(t)
    if any(t._data.dtype != tensors[0]._data.dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


@op(methods=())
def combinations(input, r=2, with_replacement=False):
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input[:0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input._data.shape[0]), r)), np.int64).reshape(-1, r)
    return input[Tensor._wrap(idx)]


@op(methods=())
def block_diag(*tensors):
    tensors = _tensor_list(tensors)
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    if not tensors:
        return Tensor._wrap(np.zeros((1, 0), _dt.get_default_dtype().np))
    rt = _dt.result_type(*tensors).np
    blocks = [t.reshape((1,) * (2 - t._data.ndim) + t._data.shape) for t in tensors]
    width = sum(b._data.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        h, w = b._data.shape
        parts = [Tensor._wrap(np.zeros((h, left), rt)), b if b._data.dtype == rt else b._cast(_dt.from_numpy_dtype(rt)),
                 Tensor._wrap(np.zeros((h, width - left - w), rt))]
        rows.append(cat(parts, 1))
        left += w
    return cat(rows, 0)


def _nonempty(tensors, name):
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@op(methods=())
def column_stack(tensors):
    tensors = tuple(tensors)
    _nonempty(tensors, "column_stack")
    return hstack([t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t for t in tensors])


@op(methods=())
def atleast_3d(*tensors):
    def one(t):
        nd = t._data.ndim
        if nd >= 3:
            return t
        return _reshape(t, {0: (1, 1, 1), 1: (1,) + t._data.shape + (1,), 2: t._data.shape + (1,)}[nd])
    return _atleast(tensors, one) if tensors else ()


@op(methods=())
def dstack(tensors):
    tensors = tuple(tensors)
    _nonempty(tensors, "dstack")
    return cat([atleast_3d(t) for t in tensors], 2)


@op(methods=())
def row_stack(tensors):
    return vstack(tensors)


def _split_along(name, input, indices_or_sections, dim, min_ndim):
    nd = input._data.ndim
    if nd < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                           f"with {nd} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input._data.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


@op()
def hsplit(input, *args, **kwargs):
    indices_or_sections, _ = split_spec("hsplit", args, kwargs, ("indices", "sections"), with_dim=False)
    return _split_along("hsplit", input, indices_or_sections, 1 if input._data.ndim > 1 else 0, 1)


@op()
def vsplit(input, *args, **kwargs):
    indices_or_sections, _ = split_spec("vsplit", args, kwargs, ("indices", "sections"), with_dim=False)
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@op()
def dsplit(input, *args, **kwargs):
    indices_or_sections, _ = split_spec("dsplit", args, kwargs, ("indices", "sections"), with_dim=False)
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


@op()
def rot90(input, k=1, dims=(0, 1)):
    nd = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = canon_dim(dims[0], nd), canon_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return flip(input, (d1,)).transpose(d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return flip(input, (d0,)).transpose(d0, d1)
    return input.clone()


@op()
def diagflat(input, offset=0):
    return diag(input.reshape(-1), offset)


@op()
def ravel(input):
    return input.reshape(-1)


op(name="diag_embed", public=False)(diag_embed)


@op(methods=())
def unravel_index(indices, shape):
    if not isinstance(indices, Tensor):
        from .._convert import tensor
        indices = tensor(indices)
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got torch.{indices.dtype.name}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    rest = np.asarray(indices._data, np.int64)
    out = []
    for s in reversed(shape):  # PyTorch takes every coordinate modulo its size, the first one too
        out.append(Tensor._wrap(np.mod(rest, s) if s else np.zeros_like(rest)))
        rest = rest // s if s else rest
    return tuple(reversed(out))
