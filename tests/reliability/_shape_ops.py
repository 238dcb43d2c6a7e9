"""Movement and indexing operators for the property-based tests. Each entry draws its own arguments for a
given input shape (``draw(data, shape)`` returns a dict, or None when the operator does not apply), runs as
``fn(lib, x, args)`` in npgrad and PyTorch, and has a NumPy reference ``ref(x, args)``.
"""
import numpy as np
from hypothesis import strategies as st

from opinfo import shape_ops
from _shape_draws import ShapeOp, as_tensor as _t, canon as _canon, draw_dim as _dim, draw_int_index as _draw_int_index
from _shape_draws import draw_mask as _draw_mask, index_array as _index_array


# -- movement ----------------------------------------------------------------------------------------------

def _draw_reshape(data, shape):
    nd = len(shape)
    k = data.draw(st.integers(0, nd), label="merge from")
    merged = int(np.prod(shape[k:])) if nd else 1
    target = list(shape[:k]) + ([merged] if k < nd or not nd else [])
    if target and data.draw(st.booleans(), label="use -1") and 0 not in shape:
        target[data.draw(st.integers(0, len(target) - 1), label="-1 at")] = -1
    return {"shape": tuple(target)}


def _draw_permute(data, shape):
    return {"perm": tuple(data.draw(st.permutations(range(len(shape))), label="perm"))}


def _draw_two_dims(data, shape):
    return {"d0": _dim(data, len(shape), "d0"), "d1": _dim(data, len(shape), "d1")}


def _draw_flip(data, shape):
    nd = len(shape)
    if not nd:
        return {"dims": ()}
    dims = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True), label="dims")
    return {"dims": tuple(dims)}


def _draw_roll(data, shape):
    nd = len(shape)
    shifts = data.draw(st.integers(-5, 5), label="shift")
    return {"shifts": shifts, "dims": _dim(data, nd) if nd else None}


def _roll_ref(x, a):
    return np.roll(x, a["shifts"], axis=a["dims"] if x.ndim else None)


def _draw_expand(data, shape):
    new = [data.draw(st.integers(1, 3), label="size") if s == 1 else s for s in shape]
    lead = data.draw(st.lists(st.integers(1, 2), min_size=0 if shape else 1, max_size=2), label="new dims")
    if new and data.draw(st.booleans(), label="-1"):
        new[0] = -1
    return {"size": tuple(lead) + tuple(new)}


def _expand_ref(x, a):
    size = list(a["size"])
    k = len(size) - x.ndim
    size = [x.shape[i - k] if s == -1 else s for i, s in enumerate(size)]
    return np.broadcast_to(x, size)


def _draw_repeat(data, shape):
    extra = data.draw(st.integers(0 if shape else 1, 2), label="extra dims")  # repeat() needs one size
    return {"reps": tuple(data.draw(st.lists(st.integers(0, 3), min_size=len(shape) + extra,
                                                 max_size=len(shape) + extra), label="reps"))}


def _draw_narrow(data, shape):
    if not shape:
        return None
    d = _dim(data, len(shape))
    size = shape[_canon(d, len(shape))]
    start = data.draw(st.integers(-size, size) if size else st.just(0), label="start")
    s = start % size if size and start < 0 else start
    length = data.draw(st.integers(0, size - s), label="length")
    return {"dim": d, "start": start, "length": length}


def _narrow_ref(x, a):
    d = _canon(a["dim"], x.ndim)
    s = a["start"] % x.shape[d] if a["start"] < 0 else a["start"]
    return np.take(x, range(s, s + a["length"]), axis=d)


def _draw_select(data, shape):
    if not shape:
        return None
    d = _dim(data, len(shape))
    size = shape[_canon(d, len(shape))]
    if size == 0:
        return None
    return {"dim": d, "index": data.draw(st.integers(-size, size - 1), label="index")}


def _draw_split(data, shape):
    if not shape:
        return None
    d = _dim(data, len(shape))
    size = shape[_canon(d, len(shape))]
    step = data.draw(st.integers(1, max(size, 1) + 1), label="split size")
    pieces = max(-(-size // step), 1)
    return {"dim": d, "size": step, "piece": data.draw(st.integers(0, pieces - 1), label="piece")}


def _split_ref(x, a):
    d = _canon(a["dim"], x.ndim)
    s = a["piece"] * a["size"]
    return np.take(x, range(s, min(s + a["size"], x.shape[d])), axis=d)


def _draw_chunk(data, shape):
    if not shape:
        return None
    return {"chunks": data.draw(st.integers(1, 4), label="chunks"), "dim": _dim(data, len(shape))}


def _draw_tri(data, shape):
    if len(shape) < 2:
        return None
    return {"k": data.draw(st.integers(-3, 3), label="diagonal")}


def _draw_diagonal(data, shape):
    nd = len(shape)
    if nd < 2:
        return None
    d1 = data.draw(st.integers(-nd, nd - 1), label="dim1")
    d2 = data.draw(st.integers(-nd, nd - 1).filter(lambda d: d % nd != d1 % nd), label="dim2")
    return {"offset": data.draw(st.integers(-2, 2), label="offset"), "d1": d1, "d2": d2}


def _draw_unflatten(data, shape):
    if not shape:
        return None
    d = _dim(data, len(shape))
    size = shape[_canon(d, len(shape))]
    if size and size % 2 == 0:
        sizes = data.draw(st.sampled_from([(2, size // 2), (-1, 2), (size // 2, 2, 1)]), label="sizes")
    else:
        sizes = (1, size)
    return {"dim": d, "sizes": sizes}


def _unflatten_ref(x, a):
    d = _canon(a["dim"], x.ndim)
    sizes = list(a["sizes"])
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = x.shape[d] // known
    return x.reshape(x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


def _draw_squeeze(data, shape):
    return {"dim": _dim(data, len(shape)) if shape and data.draw(st.booleans(), label="with dim") else None}


def _squeeze_ref(x, a):
    if a["dim"] is None:
        return np.squeeze(x)
    d = _canon(a["dim"], x.ndim)
    return np.squeeze(x, d) if x.ndim and x.shape[d] == 1 else x


def _draw_unsqueeze(data, shape):
    return {"dim": data.draw(st.integers(-len(shape) - 1, len(shape)), label="dim")}


def _unsqueeze_ref(x, a):
    d = a["dim"] if a["dim"] >= 0 else a["dim"] + x.ndim + 1
    return np.expand_dims(x, d)


def _draw_movedim(data, shape):
    nd = len(shape)
    if not nd:
        return None
    return {"src": data.draw(st.integers(-nd, nd - 1), label="src"), "dst": data.draw(st.integers(-nd, nd - 1),
                                                                                      label="dst")}


def _draw_flatten(data, shape):
    nd = max(len(shape), 1)
    a = data.draw(st.integers(-nd, nd - 1), label="start")
    b = data.draw(st.integers(-nd, nd - 1).filter(lambda e: e % nd >= a % nd), label="end")
    return {"start": a, "end": b}


def _flatten_ref(x, a):
    if not x.ndim:
        return x.reshape(1)
    s, e = _canon(a["start"], x.ndim), _canon(a["end"], x.ndim)
    return x.reshape(x.shape[:s] + (int(np.prod(x.shape[s:e + 1])),) + x.shape[e + 1:])


def _draw_cat(data, shape):
    if not shape:
        return None
    return {"dim": _dim(data, len(shape))}


def _none(data, shape):
    return {}


MOVEMENT = [
    ShapeOp("reshape", _draw_reshape, lambda lib, x, a: x.reshape(a["shape"]),
            lambda x, a: x.reshape(a["shape"])),
    ShapeOp("view_t", _draw_reshape, lambda lib, x, a: x.contiguous().view(*a["shape"]) if a["shape"]
            else x.contiguous().view(()), lambda x, a: x.reshape(a["shape"])),
    ShapeOp("flatten", _draw_flatten, lambda lib, x, a: x.flatten(a["start"], a["end"]), _flatten_ref),
    ShapeOp("unflatten", _draw_unflatten, lambda lib, x, a: x.unflatten(a["dim"], a["sizes"]), _unflatten_ref),
    ShapeOp("permute", _draw_permute, lambda lib, x, a: x.permute(*a["perm"]) if a["perm"] else x.permute(()),
            lambda x, a: np.transpose(x, a["perm"])),
    ShapeOp("transpose", _draw_two_dims, lambda lib, x, a: x.transpose(a["d0"], a["d1"]),
            lambda x, a: np.swapaxes(x, _canon(a["d0"], x.ndim), _canon(a["d1"], x.ndim)) if x.ndim else x),
    ShapeOp("movedim", _draw_movedim, lambda lib, x, a: x.movedim(a["src"], a["dst"]),
            lambda x, a: np.moveaxis(x, a["src"], a["dst"])),
    ShapeOp("squeeze", _draw_squeeze, lambda lib, x, a: x.squeeze() if a["dim"] is None else x.squeeze(a["dim"]),
            _squeeze_ref),
    ShapeOp("unsqueeze", _draw_unsqueeze, lambda lib, x, a: x.unsqueeze(a["dim"]), _unsqueeze_ref),
    ShapeOp("flip", _draw_flip, lambda lib, x, a: x.flip(a["dims"]), lambda x, a: np.flip(x, a["dims"])),
    ShapeOp("roll", _draw_roll, lambda lib, x, a: x.roll(a["shifts"], a["dims"]), _roll_ref),
    ShapeOp("expand", _draw_expand, lambda lib, x, a: x.expand(*a["size"]), _expand_ref),
    ShapeOp("repeat", _draw_repeat, lambda lib, x, a: x.repeat(*a["reps"]),
            lambda x, a: np.tile(x, a["reps"])),
    ShapeOp("narrow", _draw_narrow, lambda lib, x, a: x.narrow(a["dim"], a["start"], a["length"]), _narrow_ref),
    ShapeOp("select", _draw_select, lambda lib, x, a: x.select(a["dim"], a["index"]),
            lambda x, a: np.take(x, a["index"], axis=_canon(a["dim"], x.ndim))),
    ShapeOp("split", _draw_split, lambda lib, x, a: x.split(a["size"], a["dim"])[a["piece"]], _split_ref),
    ShapeOp("chunk_cat", _draw_chunk, lambda lib, x, a: lib.cat(x.chunk(a["chunks"], a["dim"])[::-1], a["dim"]),
            None),
    ShapeOp("unbind_stack", _draw_cat, lambda lib, x, a: lib.stack(x.unbind(a["dim"]), a["dim"]) * 2,
            lambda x, a: x * 2),
    ShapeOp("tril", _draw_tri, lambda lib, x, a: x.tril(a["k"]), lambda x, a: np.tril(x, a["k"])),
    ShapeOp("triu", _draw_tri, lambda lib, x, a: x.triu(a["k"]), lambda x, a: np.triu(x, a["k"])),
    ShapeOp("diagonal", _draw_diagonal, lambda lib, x, a: x.diagonal(a["offset"], a["d1"], a["d2"]),
            lambda x, a: np.diagonal(x, a["offset"], a["d1"], a["d2"])),
    ShapeOp("mT", lambda data, shape: {} if len(shape) >= 2 else None, lambda lib, x, a: x.mT,
            lambda x, a: np.swapaxes(x, -1, -2)),
    ShapeOp("cat_self", _draw_cat, lambda lib, x, a: lib.cat([x, x * 2, x], a["dim"]),
            lambda x, a: np.concatenate([x, x * 2, x], _canon(a["dim"], x.ndim))),
    ShapeOp("stack_self", _draw_unsqueeze, lambda lib, x, a: lib.stack([x, x * 3], a["dim"]),
            lambda x, a: np.stack([x, x * 3], a["dim"] if a["dim"] >= 0 else a["dim"] + x.ndim + 1)),
    ShapeOp("clone_t", _none, lambda lib, x, a: x.t().clone() if x.ndim <= 2 else x.clone(),
            lambda x, a: x.T if x.ndim <= 2 else x),
]


# -- indexing ----------------------------------------------------------------------------------------------

def _draw_slices(data, shape):
    """A basic index: ints, slices (negative bounds, steps), None and at most one Ellipsis."""
    items = []
    dims_left = len(shape)
    use_ellipsis = data.draw(st.booleans(), label="ellipsis")
    for i, size in enumerate(shape):
        if use_ellipsis and i == len(shape) // 2:
            items.append(Ellipsis)
            break
        kind = data.draw(st.sampled_from(["slice", "int", "none", "all"]), label="kind")
        if kind == "int" and size:
            items.append(data.draw(st.integers(-size, size - 1), label="int"))
        elif kind == "none":
            items.append(None)
            items.append(slice(None))
        elif kind == "slice":
            lo = data.draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)), label="start")
            hi = data.draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)), label="stop")
            step = data.draw(st.one_of(st.none(), st.integers(1, 3)), label="step")
            items.append(slice(lo, hi, step))
        else:
            items.append(slice(None))
        dims_left -= 1
    return {"index": tuple(items)}


def _draw_two_int_indices(data, shape):
    if len(shape) < 2:
        return None
    i = _index_array(data, shape[0], (3,), "i")
    j = _index_array(data, shape[1], (1,), "j")
    return None if i is None or j is None else {"i": i, "j": j}


def _setitem(lib, x, a):
    y = x * 1.0
    y[a["index"]] = y[a["index"]] * 2 + 1
    return y


def _setitem_ref(x, a):
    y = x.copy()
    y[a["index"]] = y[a["index"]] * 2 + 1
    return y


INDEXING = [
    ShapeOp("basic_index", _draw_slices, lambda lib, x, a: x[a["index"]], lambda x, a: x[a["index"]]),
    ShapeOp("int_tensor_index", _draw_int_index, lambda lib, x, a: x[_t(lib, a["idx"])],
            lambda x, a: x[a["idx"]]),
    ShapeOp("two_int_indices", _draw_two_int_indices, lambda lib, x, a: x[_t(lib, a["i"]), _t(lib, a["j"])],
            lambda x, a: x[a["i"], a["j"]]),
    ShapeOp("list_index", _draw_int_index, lambda lib, x, a: x[a["idx"].reshape(-1).tolist()],
            lambda x, a: x[a["idx"].reshape(-1)]),
    ShapeOp("bool_mask", _draw_mask, lambda lib, x, a: x[_t(lib, a["mask"])], lambda x, a: x[a["mask"]]),
    ShapeOp("setitem", _draw_slices, _setitem, _setitem_ref),
] + shape_ops()
# the indexing operators' rows live in the op table (tests/opinfo/family_indexing.py); they keep the places they
# had here (a stable sort), which is the order the fuzz suites draw them in
_INDEXING_ORDER = ["basic_index", "int_tensor_index", "two_int_indices", "list_index", "bool_mask", "masked_fill",
                   "masked_select", "gather", "take_along_dim", "index_select", "take", "scatter_add", "index_add",
                   "setitem"]
INDEXING.sort(key=lambda op: _INDEXING_ORDER.index(op.name) if op.name in _INDEXING_ORDER else len(_INDEXING_ORDER))
