"""Movement and indexing calls for the property-based tests: the operators' own rows are the op table's
``shape_ops`` (tests/opinfo), here the Tensor methods and ``x[...]`` forms that are no operator. Each entry draws
its own arguments for a given input shape (``draw(data, shape)`` returns a dict, or None when the operator does not apply), runs as
``fn(lib, x, args)`` in npgrad and PyTorch, and has a NumPy reference ``ref(x, args)``.
"""
import numpy as np
from hypothesis import strategies as st

from opinfo import shape_ops
import _shape_draws as D
from _shape_draws import ShapeOp, as_tensor as _t, canon as _canon, draw_dim as _dim, draw_int_index as _draw_int_index
from _shape_draws import draw_mask as _draw_mask, index_array as _index_array


MOVEMENT = [
    ShapeOp("view_t", D.draw_reshape, lambda lib, x, a: x.contiguous().view(*a["shape"]) if a["shape"]
            else x.contiguous().view(()), lambda x, a: x.reshape(a["shape"])),
    ShapeOp("expand", D.draw_expand, lambda lib, x, a: x.expand(*a["size"]), D.expand_ref),
    ShapeOp("repeat", D.draw_repeat, lambda lib, x, a: x.repeat(*a["reps"]),
            lambda x, a: np.tile(x, a["reps"])),
    ShapeOp("mT", lambda data, shape: {} if len(shape) >= 2 else None, lambda lib, x, a: x.mT,
            lambda x, a: np.swapaxes(x, -1, -2)),
] + shape_ops("movement")
# the movement operators' rows live in the op table (tests/opinfo/family_movement.py); they keep the places they
# had here (a stable sort), which is the order the fuzz suites draw them in
_MOVEMENT_ORDER = ["reshape", "view_t", "flatten", "unflatten", "permute", "transpose", "movedim", "squeeze",
                   "unsqueeze", "flip", "roll", "expand", "repeat", "narrow", "select", "split", "chunk_cat",
                   "unbind_stack", "tril", "triu", "diagonal", "mT", "cat_self", "stack_self", "clone_t"]
MOVEMENT.sort(key=lambda op: _MOVEMENT_ORDER.index(op.name) if op.name in _MOVEMENT_ORDER else len(_MOVEMENT_ORDER))


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
] + shape_ops("indexing")
# the indexing operators' rows live in the op table (tests/opinfo/family_indexing.py); they keep the places they
# had here (a stable sort), which is the order the fuzz suites draw them in
_INDEXING_ORDER = ["basic_index", "int_tensor_index", "two_int_indices", "list_index", "bool_mask", "masked_fill",
                   "masked_select", "gather", "take_along_dim", "index_select", "take", "scatter_add", "index_add",
                   "setitem"]
INDEXING.sort(key=lambda op: _INDEXING_ORDER.index(op.name) if op.name in _INDEXING_ORDER else len(_INDEXING_ORDER))
