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


# -- movement operators------------------------------------------------------------------------------------------

def draw_reshape(data, shape):
    nd = len(shape)
    k = data.draw(st.integers(0, nd), label="merge from")
    merged = int(np.prod(shape[k:])) if nd else 1
    target = list(shape[:k]) + ([merged] if k < nd or not nd else [])
    if target and data.draw(st.booleans(), label="use -1") and 0 not in shape:
        target[data.draw(st.integers(0, len(target) - 1), label="-1 at")] = -1
    return {"shape": tuple(target)}


def draw_permute(data, shape):
    return {"perm": tuple(data.draw(st.permutations(range(len(shape))), label="perm"))}


def draw_two_dims(data, shape):
    return {"d0": draw_dim(data, len(shape), "d0"), "d1": draw_dim(data, len(shape), "d1")}


def draw_flip(data, shape):
    nd = len(shape)
    if not nd:
        return {"dims": ()}
    dims = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True), label="dims")
    return {"dims": tuple(dims)}


def draw_roll(data, shape):
    nd = len(shape)
    shifts = data.draw(st.integers(-5, 5), label="shift")
    return {"shifts": shifts, "dims": draw_dim(data, nd) if nd else None}


def roll_ref(x, a):
    return np.roll(x, a["shifts"], axis=a["dims"] if x.ndim else None)


def draw_expand(data, shape):
    new = [data.draw(st.integers(1, 3), label="size") if s == 1 else s for s in shape]
    lead = data.draw(st.lists(st.integers(1, 2), min_size=0 if shape else 1, max_size=2), label="new dims")
    if new and data.draw(st.booleans(), label="-1"):
        new[0] = -1
    return {"size": tuple(lead) + tuple(new)}


def expand_ref(x, a):
    size = list(a["size"])
    k = len(size) - x.ndim
    size = [x.shape[i - k] if s == -1 else s for i, s in enumerate(size)]
    return np.broadcast_to(x, size)


def draw_repeat(data, shape):
    extra = data.draw(st.integers(0 if shape else 1, 2), label="extra dims")  # repeat() needs one size
    return {"reps": tuple(data.draw(st.lists(st.integers(0, 3), min_size=len(shape) + extra,
                                                 max_size=len(shape) + extra), label="reps"))}


def draw_narrow(data, shape):
    if not shape:
        return None
    d = draw_dim(data, len(shape))
    size = shape[canon(d, len(shape))]
    start = data.draw(st.integers(-size, size) if size else st.just(0), label="start")
    s = start % size if size and start < 0 else start
    length = data.draw(st.integers(0, size - s), label="length")
    return {"dim": d, "start": start, "length": length}


def narrow_ref(x, a):
    d = canon(a["dim"], x.ndim)
    s = a["start"] % x.shape[d] if a["start"] < 0 else a["start"]
    return np.take(x, range(s, s + a["length"]), axis=d)


def draw_select(data, shape):
    if not shape:
        return None
    d = draw_dim(data, len(shape))
    size = shape[canon(d, len(shape))]
    if size == 0:
        return None
    return {"dim": d, "index": data.draw(st.integers(-size, size - 1), label="index")}


def draw_split(data, shape):
    if not shape:
        return None
    d = draw_dim(data, len(shape))
    size = shape[canon(d, len(shape))]
    step = data.draw(st.integers(1, max(size, 1) + 1), label="split size")
    pieces = max(-(-size // step), 1)
    return {"dim": d, "size": step, "piece": data.draw(st.integers(0, pieces - 1), label="piece")}


def split_ref(x, a):
    d = canon(a["dim"], x.ndim)
    s = a["piece"] * a["size"]
    return np.take(x, range(s, min(s + a["size"], x.shape[d])), axis=d)


def draw_chunk(data, shape):
    if not shape:
        return None
    return {"chunks": data.draw(st.integers(1, 4), label="chunks"), "dim": draw_dim(data, len(shape))}


def draw_tri(data, shape):
    if len(shape) < 2:
        return None
    return {"k": data.draw(st.integers(-3, 3), label="diagonal")}


def draw_diagonal(data, shape):
    nd = len(shape)
    if nd < 2:
        return None
    d1 = data.draw(st.integers(-nd, nd - 1), label="dim1")
    d2 = data.draw(st.integers(-nd, nd - 1).filter(lambda d: d % nd != d1 % nd), label="dim2")
    return {"offset": data.draw(st.integers(-2, 2), label="offset"), "d1": d1, "d2": d2}


def draw_unflatten(data, shape):
    if not shape:
        return None
    d = draw_dim(data, len(shape))
    size = shape[canon(d, len(shape))]
    if size and size % 2 == 0:
        sizes = data.draw(st.sampled_from([(2, size // 2), (-1, 2), (size // 2, 2, 1)]), label="sizes")
    else:
        sizes = (1, size)
    return {"dim": d, "sizes": sizes}


def unflatten_ref(x, a):
    d = canon(a["dim"], x.ndim)
    sizes = list(a["sizes"])
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = x.shape[d] // known
    return x.reshape(x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


def draw_squeeze(data, shape):
    return {"dim": draw_dim(data, len(shape)) if shape and data.draw(st.booleans(), label="with dim") else None}


def squeeze_ref(x, a):
    if a["dim"] is None:
        return np.squeeze(x)
    d = canon(a["dim"], x.ndim)
    return np.squeeze(x, d) if x.ndim and x.shape[d] == 1 else x


def draw_unsqueeze(data, shape):
    return {"dim": data.draw(st.integers(-len(shape) - 1, len(shape)), label="dim")}


def unsqueeze_ref(x, a):
    d = a["dim"] if a["dim"] >= 0 else a["dim"] + x.ndim + 1
    return np.expand_dims(x, d)


def draw_movedim(data, shape):
    nd = len(shape)
    if not nd:
        return None
    return {"src": data.draw(st.integers(-nd, nd - 1), label="src"), "dst": data.draw(st.integers(-nd, nd - 1),
                                                                                      label="dst")}


def draw_flatten(data, shape):
    nd = max(len(shape), 1)
    a = data.draw(st.integers(-nd, nd - 1), label="start")
    b = data.draw(st.integers(-nd, nd - 1).filter(lambda e: e % nd >= a % nd), label="end")
    return {"start": a, "end": b}


def flatten_ref(x, a):
    if not x.ndim:
        return x.reshape(1)
    s, e = canon(a["start"], x.ndim), canon(a["end"], x.ndim)
    return x.reshape(x.shape[:s] + (int(np.prod(x.shape[s:e + 1])),) + x.shape[e + 1:])


def draw_cat(data, shape):
    if not shape:
        return None
    return {"dim": draw_dim(data, len(shape))}


def none(data, shape):
    return {}


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
