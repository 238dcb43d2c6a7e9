"""Hypothesis draws of operator arguments for the shape fuzz (tests/reliability/test_fuzz_shapes.py and the
suites that share its tables): a ``ShapeOp`` draws its own arguments for a given input shape (``draw(data,
shape)`` returns a dict, or None when the operator does not apply), runs as ``fn(lib, x, args)`` in npgrad and
PyTorch, and has a NumPy reference ``ref(x, args)``. Op-table entries list theirs in ``OpInfo.shape_ops``.
"""
import dataclasses
from typing import Callable, Optional

import numpy as np
from hypothesis import strategies as st


@dataclasses.dataclass(frozen=True)
class ShapeOp:
    name: str
    draw: Callable
    fn: Callable
    ref: Optional[Callable]

    def __str__(self):
        return self.name


def draw_dim(data, ndim, label="dim"):
    n = max(ndim, 1)
    return data.draw(st.integers(-n, n - 1), label=label)


def canon(d, ndim):
    return d % max(ndim, 1)


def index_array(data, size, shape, label="index"):
    """int64 indices in [-size, size) (negative ones too), of ``shape``; None if size is 0."""
    if size == 0:
        return np.zeros(shape, np.int64) if int(np.prod(shape)) == 0 else None
    seed = data.draw(st.integers(0, 2 ** 16), label=label)
    return np.random.default_rng(seed).integers(-size, size, size=shape).astype(np.int64)


# -- indexing operators ----------------------------------------------------------------------------------

def draw_int_index(data, shape):
    if not shape:
        return None
    idx = index_array(data, shape[0], data.draw(st.sampled_from([(3,), (2, 2), (0,), ()]), label="idx shape"))
    return None if idx is None else {"idx": idx}


def draw_mask(data, shape):
    seed = data.draw(st.integers(0, 2 ** 16), label="mask seed")
    return {"mask": np.random.default_rng(seed).random(shape) < 0.5}


def draw_gather(data, shape):
    if not shape:
        return None
    d = draw_dim(data, len(shape))
    cd = canon(d, len(shape))
    idx_shape = list(shape)
    idx_shape[cd] = data.draw(st.integers(0, 3), label="index size")
    idx = index_array(data, shape[cd], tuple(idx_shape))
    if idx is None:
        return None
    return {"dim": d, "idx": idx % max(shape[cd], 1)}


def gather_ref(x, a):
    return np.take_along_axis(x, a["idx"], axis=canon(a["dim"], x.ndim))


def draw_index_select(data, shape):
    d = draw_dim(data, len(shape))
    size = shape[canon(d, len(shape))] if shape else 1
    n = data.draw(st.integers(0, 4), label="n") if shape else 1  # a 0-d input takes exactly one index
    idx = index_array(data, size, (n,))
    return None if idx is None else {"dim": d, "idx": idx % max(size, 1)}


def draw_scatter(data, shape):
    a = draw_gather(data, shape)
    if a is None:
        return None
    seed = data.draw(st.integers(0, 2 ** 16), label="src seed")
    a["src"] = np.random.default_rng(seed).standard_normal(a["idx"].shape)
    return a


def scatter_add_ref(x, a):
    out = x.copy()
    d = canon(a["dim"], x.ndim)
    grid = list(np.indices(a["idx"].shape))
    grid[d] = a["idx"]
    np.add.at(out, tuple(grid), a["src"].astype(x.dtype))
    return out


def draw_index_add(data, shape):
    if not shape:
        return None
    a = draw_index_select(data, shape)
    if a is None:
        return None
    d = canon(a["dim"], len(shape))
    src_shape = list(shape)
    src_shape[d] = len(a["idx"])
    seed = data.draw(st.integers(0, 2 ** 16), label="src seed")
    a["src"] = np.random.default_rng(seed).standard_normal(src_shape)
    return a


def index_add_ref(x, a):
    out = np.moveaxis(x.copy(), canon(a["dim"], x.ndim), 0)
    np.add.at(out, a["idx"], np.moveaxis(a["src"].astype(x.dtype), canon(a["dim"], x.ndim), 0))
    return np.moveaxis(out, 0, canon(a["dim"], x.ndim))


def as_tensor(lib, arr, like=None):
    t = lib.tensor(arr)
    return t.to(like.dtype) if like is not None and arr.dtype.kind == "f" else t
