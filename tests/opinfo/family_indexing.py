"""Op table: indexing operators (npgrad/ops/indexing.py): gather/take_along_dim/take, scatter/scatter_add,
index_select/index_add, masked_fill/masked_select, nonzero/argwhere. Their samples run in tests/ops/test_indexing.py
(against PyTorch, finite differences, double backward); ``x[...]`` and ``x[...] = v`` are not operators and keep
their rows there.
"""
import numpy as np

from oracle import In
from _inputs import X
from _record import DOUBLE_BACKWARD, EMPTY_INTEGER_SWEEP, FD, PARITY, OpInfo, Sample
from _shape_draws import (ShapeOp, as_tensor, canon, draw_gather, draw_index_add, draw_index_select, draw_int_index,
                          draw_mask, draw_scatter, gather_ref, index_add_ref, scatter_add_ref)
from _record import second as _second  # noqa: E402 (shared makers)

_FORWARD = frozenset({PARITY})
_ROW = frozenset({PARITY, FD})
_ROW2 = frozenset({PARITY, FD, DOUBLE_BACKWARD})  # also against PyTorch's double backward
# PyTorch has no gradient for these (src larger than index; scatter with reduce): npgrad does, and finite
# differences check it
_FD_ONLY = frozenset({FD})
F = "float32"


def _const(a):
    """An input with fixed (integer or boolean) values, e.g. an index tensor or a mask."""
    arr = np.asarray(a)
    return In(arr.shape, values=lambda rng: arr, grad=False, dtype=arr.dtype)


def _mask(shape):
    return In(shape, values=lambda rng: rng.random(shape) < 0.5, grad=False)


IDX_GATHER = _const([[0, 2, 2, 1], [1, 1, 0, 0]])          # repeated indices along dim 1
IDX_SCATTER = _const([[0, 1, 2], [2, 0, 1]])               # a permutation per row: unique targets
IDX_SCATTER_DUP = _const([[1, 1, 0], [3, 3, 3]])           # repeated targets (scatter_add accumulates)
IDX_2x2 = In((2, 2), values=lambda r: np.array([[0, 2], [1, 1]]), grad=False)


def _sparse(shape):
    return In(shape, values=lambda r: np.where(r.random(shape) < 0.5, 0.0, r.uniform(-2, 2, shape)), grad=False)


# Calls that must fail, with PyTorch's messages (test_expected_errors in tests/ops/test_indexing.py)
RAISES = {
    "gather": [
        ("gather_ndim", lambda lib: lib.ones(2, 3).gather(1, lib.zeros(2, dtype=lib.int64)),
         RuntimeError, "Index tensor must have the same number of dimensions as input tensor"),
        ("gather_dtype", lambda lib: lib.ones(2, 3).gather(1, lib.zeros(2, 2)),
         RuntimeError, "gather(): Expected dtype int32/int64 for index"),
        ("gather_bounds", lambda lib: lib.ones(2, 3).gather(1, lib.tensor([[0, 3]])),
         RuntimeError, "index 3 is out of bounds for dimension 1 with size 3"),
        ("gather_size", lambda lib: lib.ones(2, 3).gather(0, lib.zeros(2, 4, dtype=lib.int64)),
         RuntimeError,
         "Size does not match at dimension 1 expected index [2, 4] to be no larger than self [2, 3] apart"
         " from dimension 0"),
        ("gather_negative_index", lambda lib: lib.ones(2, 3).gather(1, lib.tensor([[-1]])),
         RuntimeError, "index -1 is out of bounds for dimension 1 with size 3"),
        ("gather_int16_index", lambda lib: lib.ones(2, 3).gather(1, lib.zeros(2, 2, dtype=lib.int16)),
         RuntimeError, "gather(): Expected dtype int32/int64 for index"),
    ],
    "scatter": [
        ("scatter_ndim", lambda lib: lib.ones(2, 3).scatter(1, lib.zeros(2, dtype=lib.int64), lib.ones(2, 3)),
         RuntimeError, "Index tensor must have the same number of dimensions as self tensor"),
        ("scatter_index_larger_than_self", lambda lib: lib.ones(2, 3).scatter(1, lib.zeros(3, 2, dtype=lib.int64), 1.0),
         RuntimeError, "Expected index [3, 2] to be no larger than self [2, 3] apart from dimension 1"),
        ("scatter_bounds", lambda lib: lib.ones(2, 3).scatter(1, lib.tensor([[5]]), lib.ones(1, 1)),
         RuntimeError, "index 5 is out of bounds for dimension 1 with size 3"),
        ("scatter_dtype", lambda lib: lib.ones(2, 3).scatter(1, lib.tensor([[0]]), lib.ones(1, 1, dtype=lib.float64)),
         RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
    ],
    "scatter_add": [
        ("scatter_index_larger_than_src", lambda lib: lib.ones(2, 3).scatter_add(1, lib.tensor([[0, 1]]), lib.ones(1, 1)),
         RuntimeError,
         "Expected index [1, 2] to be no larger than self [2, 3] apart from dimension 1 and to be no "
         "larger size than src [1, 1]"),
        ("scatter_add_dtype", lambda lib: lib.ones(2, 3).scatter_add(1, lib.tensor([[0]]), lib.ones(1, 1, dtype=lib.float64)),
         RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
        ("scatter_add_index_dtype", lambda lib: lib.ones(2, 3).scatter_add(1, lib.tensor([[0.0]]), lib.ones(1, 1)),
         RuntimeError, "scatter(): Expected dtype int32/int64 for index"),
    ],
    "index_add": [
        ("index_add_index_dtype", lambda lib: lib.ones(2, 3).index_add(1, lib.tensor([0.0]), lib.ones(2, 1)),
         RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: Float"),
        ("index_add_index_2d", lambda lib: lib.ones(2, 3).index_add(1, lib.tensor([[0]]), lib.ones(2, 1)),
         IndexError, "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [1, 1]"),
        ("index_add_count", lambda lib: lib.ones(3, 2).index_add(0, lib.tensor([0]), lib.ones(2, 2)),
         RuntimeError, "index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: 0"),
        ("index_add_bounds", lambda lib: lib.ones(3, 2).index_add(0, lib.tensor([5]), lib.ones(1, 2)),
         RuntimeError, "index 5 is out of bounds for dimension 0 with size 3"),
        ("index_add_dtype", lambda lib: lib.ones(2, 3).index_add(1, lib.tensor([0]), lib.ones(2, 1, dtype=lib.float64)),
         RuntimeError, "index_add_(): self (Float) and source (Double) must have the same scalar type"),
    ],
    "index_select": [
        ("index_select_negative", lambda lib: lib.ones(2, 3).index_select(1, lib.tensor([0, -1])),
         RuntimeError, "INDICES element is out of DATA bounds, id=-1 axis_dim=3"),
        ("index_select_scalar_many", lambda lib: lib.tensor(1.0).index_select(0, lib.tensor([0, 0])),
         RuntimeError, "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
        ("index_select_range", lambda lib: lib.ones(2, 3).index_select(1, lib.tensor([0, 3])),
         RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
        ("index_select_2d_index", lambda lib: lib.ones(2, 3).index_select(1, lib.tensor([[0]])),
         IndexError, "index_select(): Index is supposed to be a vector"),
        ("index_select_float_index", lambda lib: lib.ones(2, 3).index_select(1, lib.tensor([0.0])),
         RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    ],
    "masked_fill": [
        ("masked_fill_double_mask", lambda lib: lib.ones(2, 3).masked_fill(lib.ones(2, 3, dtype=lib.float64), 0.0),
         RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype double"),
        ("masked_fill_long_mask", lambda lib: lib.ones(2, 3).masked_fill(lib.ones(2, 3, dtype=lib.int64), 0.0),
         RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
        ("masked_fill_float_mask", lambda lib: lib.ones(2, 3).masked_fill(lib.ones(2, 3), 0.0),
         RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype float"),
        ("masked_fill_shape", lambda lib: lib.ones(2, 3).masked_fill(lib.ones(2, 2, dtype=lib.bool), 0.0),
         RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
        ("masked_fill_value_dims", lambda lib: lib.ones(2, 3).masked_fill(lib.ones(2, 3, dtype=lib.bool), lib.ones(3)),
         RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    ],
    "masked_select": [
        ("masked_select_float_mask", lambda lib: lib.ones(2, 3).masked_select(lib.ones(2, 3)),
         RuntimeError, "masked_select: expected BoolTensor for mask"),
    ],
}

OPS = [
    OpInfo("argwhere", "indexing", lambda lib, x: lib.argwhere(x),
           samples=[Sample("argwhere", inputs=[_sparse((3, 4))], checks=_FORWARD),
                    Sample("argwhere_method", lambda lib, x: x.argwhere(), [_sparse((2, 2, 3))], checks=_FORWARD),
                    Sample("argwhere_bool", inputs=[In((5,), dtype=np.bool_, grad=False)], checks=_FORWARD),
                    # a 0-d tensor: one element with no coordinates, shape (1, 0) (or (0, 0) when it is zero)
                    Sample("argwhere_0d", inputs=[In((), values=lambda r: np.array(1.5), grad=False)],
                           checks=_FORWARD),
                    Sample("argwhere_0d_zero", inputs=[In((), values=lambda r: np.array(0.0), grad=False)],
                           checks=_FORWARD),
                    ]),
    OpInfo("nonzero", "indexing", lambda lib, x: lib.nonzero(x), sweeps=frozenset({EMPTY_INTEGER_SWEEP}),
           samples=[Sample("nonzero_0d_as_tuple", lambda lib, x: lib.nonzero(x, as_tuple=True)[0],
                           [In((), values=lambda r: np.array(2.0), grad=False)], checks=_FORWARD),
                    Sample("nonzero", inputs=[_sparse((3, 4))], checks=_FORWARD),
                    Sample("nonzero_as_tuple", lambda lib, x: lib.stack(x.nonzero(as_tuple=True)),
                           [_sparse((2, 3, 2))], checks=_FORWARD)],
           empty=[("as_tuple", lambda L, x: L.nonzero(x, as_tuple=True), ((2, 0), F))]),
    OpInfo("gather", "indexing", lambda lib, x, i: lib.gather(x, 1, i),
           raises=RAISES["gather"],
           samples=[Sample("gather", lambda lib, x, i: x.gather(1, i), [In((2, 3)), IDX_GATHER], checks=_ROW2),
                    Sample("gather_dim0", lambda lib, x, i: lib.gather(x, 0, i), [In((3, 4)), _const([[2, 0, 1, 2]])],
                           checks=_ROW),
                    Sample("gather_neg_dim_smaller", lambda lib, x, i: x.gather(-1, i), [In((3, 4)), _const([[3], [0]])],
                           checks=_ROW),
                    _second("gather", lambda lib, x, i: x.gather(1, i) ** 2, [X, IDX_2x2])],
           float16=[("gather", lambda lib, x, y: x.gather(1, lib.tensor([[0, 2], [1, 1], [3, 0]])))],
           empty=[("empty index", lambda L, x, i: L.gather(x, 1, i), ((2, 3), F), ((2, 0), "index3")),
                  ("empty input and index", lambda L, x, i: L.gather(x, 0, i), ((0, 3), F), ((0, 3), "index1"))],
           shape_ops=[ShapeOp("gather", draw_gather, lambda lib, x, a: x.gather(a["dim"], as_tensor(lib, a["idx"])),
                              gather_ref)]),
    OpInfo("take_along_dim", "indexing", lambda lib, x, i: lib.take_along_dim(x, i, 1),
           samples=[Sample("take_along_dim", lambda lib, x, i: lib.take_along_dim(x, i, 1), [In((2, 3)), IDX_GATHER],
                           checks=_ROW),
                    Sample("take_along_dim_flat", lambda lib, x, i: lib.take_along_dim(x, i),
                           [In((2, 3)), _const([5, 0, 5])], checks=_ROW),
                    _second("take_along_dim", lambda lib, x, i: lib.take_along_dim(x, i, 1).exp(), [X, IDX_2x2])],
           empty=[("empty", lambda L, x, i: L.take_along_dim(x, i, 1), ((2, 3), F), ((2, 0), "index3"))],
           shape_ops=[ShapeOp("take_along_dim", draw_gather,
                              lambda lib, x, a: lib.take_along_dim(x, as_tensor(lib, a["idx"]), a["dim"]), gather_ref)]),
    OpInfo("take", "indexing", lambda lib, x, i: lib.take(x, i),
           samples=[Sample("take", lambda lib, x, i: lib.take(x, i), [In((2, 3)), _const([[5, 0], [-1, 0]])],
                           checks=_ROW2),
                    _second("take", lambda lib, x: lib.take(x * x, lib.tensor([0, 5, 5])), [X])],
           empty=[("empty index", lambda L, x, i: L.take(x, i), ((2, 3), F), ((0,), "index6"))],
           shape_ops=[ShapeOp("take", draw_int_index, lambda lib, x, a: x.take(as_tensor(lib, a["idx"])),
                              lambda x, a: x.reshape(-1)[a["idx"]])]),
    OpInfo("scatter", "indexing", lambda lib, x, i, s: lib.scatter(x, 1, i, s),
           raises=RAISES["scatter"],
           samples=[Sample("scatter", lambda lib, x, i, s: x.scatter(1, i, s), [In((2, 3)), IDX_SCATTER, In((2, 3))],
                           checks=_ROW2),
                    Sample("scatter_value", lambda lib, x, i: x.scatter(0, i, 1.5), [In((3, 3)), _const([[2, 0, 1]])],
                           checks=_ROW),
                    Sample("scatter_reduce_add", lambda lib, x, i, s: x.scatter(1, i, s, reduce="add"),
                           [In((2, 4)), IDX_SCATTER_DUP, In((2, 3))], checks=_FD_ONLY),
                    Sample("scatter_src_larger", lambda lib, x, i, s: lib.scatter(x, 1, i, s),
                           [In((2, 4)), IDX_SCATTER, In((3, 5))], checks=_FD_ONLY),
                    _second("scatter", lambda lib, x, s: x.scatter(1, lib.tensor([[0], [2]]), s) ** 2, [X, In((2, 1))])],
           empty=[("empty index", lambda L, x, i, s: L.scatter(x, 1, i, s), ((2, 3), F), ((2, 0), "index3"),
                   ((2, 0), F))]),
    OpInfo("scatter_add", "indexing", lambda lib, x, i, s: lib.scatter_add(x, 1, i, s),
           raises=RAISES["scatter_add"],
           samples=[Sample("scatter_add", lambda lib, x, i, s: x.scatter_add(1, i, s),
                           [In((2, 4)), IDX_SCATTER_DUP, In((2, 3))], checks=_ROW2),
                    Sample("scatter_add_fn_dim0", lambda lib, x, i, s: lib.scatter_add(x, 0, i, s),
                           [In((3, 2)), _const([[0, 2], [0, 0]]), In((2, 2))], checks=_ROW),
                    _second("scatter_add", lambda lib, x, s: x.scatter_add(1, lib.tensor([[0, 0], [2, 1]]), s) ** 2,
                            [X, In((2, 2))])],
           empty=[("empty index", lambda L, x, i, s: L.scatter_add(x, 0, i, s), ((2, 3), F), ((0, 3), "index2"),
                   ((0, 3), F))],
           shape_ops=[ShapeOp("scatter_add", draw_scatter,
                              lambda lib, x, a: x.scatter_add(a["dim"], as_tensor(lib, a["idx"]),
                                                              as_tensor(lib, a["src"], x)), scatter_add_ref)]),
    OpInfo("index_select", "indexing", lambda lib, x, i: lib.index_select(x, 0, i),
           raises=RAISES["index_select"],
           samples=[Sample("index_select", lambda lib, x, i: x.index_select(0, i), [In((3, 2)), _const([2, 0, 2, 2])],
                           checks=_ROW2),
                    Sample("index_select_dim1", lambda lib, x, i: lib.index_select(x, -1, i),
                           [In((2, 4)), _const([3, 3, 1])], checks=_ROW),
                    Sample("index_select_large", lambda lib, x, i: x.index_select(0, i),
                           [In((5, 3)), _const(np.arange(100) % 5)], checks=_ROW2),  # the bincount accumulation path
                    _second("index_select", lambda lib, x, i: x.index_select(1, i) ** 2,
                            [X, In((3,), values=lambda rng: np.array([2, 0, 2], dtype=np.int64), grad=False)])],
           empty=[("empty index", lambda L, x, i: L.index_select(x, 0, i), ((2, 3), F), ((0,), "index2")),
                  ("empty input", lambda L, x, i: L.index_select(x, 1, i), ((0, 3), F), ((2,), "index3"))],
           shape_ops=[ShapeOp("index_select", draw_index_select,
                              lambda lib, x, a: x.index_select(a["dim"], as_tensor(lib, a["idx"])),
                              lambda x, a: np.take(x, a["idx"], axis=canon(a["dim"], x.ndim)) if x.ndim else x.copy())]),
    OpInfo("index_add", "indexing", lambda lib, x, i, s: lib.index_add(x, 0, i, s),
           raises=RAISES["index_add"],
           samples=[Sample("index_add", lambda lib, x, i, s: x.index_add(0, i, s, alpha=2.0),
                           [In((3, 2)), _const([2, 0, 2]), In((3, 2))], checks=_ROW2),
                    _second("index_add", lambda lib, x, s: x.index_add(0, lib.tensor([1, 1]), s) ** 2, [X, In((2, 3))])],
           empty=[("empty index", lambda L, x, i, s: L.index_add(x, 0, i, s), ((2, 3), F), ((0,), "index2"),
                   ((0, 3), F))],
           shape_ops=[ShapeOp("index_add", draw_index_add,
                              lambda lib, x, a: x.index_add(a["dim"], as_tensor(lib, a["idx"]),
                                                            as_tensor(lib, a["src"], x)), index_add_ref)]),
    OpInfo("masked_fill", "indexing", lambda lib, x, m: lib.masked_fill(x, m, -1.0),
           raises=RAISES["masked_fill"],
           samples=[Sample("masked_fill", lambda lib, x, m: x.masked_fill(m, -1.0), [In((3, 4)), _const(np.eye(3, 4) > 0)],
                           checks=_ROW),
                    Sample("masked_fill_broadcast_mask", lambda lib, x, m: lib.masked_fill(x, m, 2.0),
                           [In((3, 4)), _const(np.array([True, False, False, True]))], checks=_ROW),
                    Sample("masked_fill_tensor_value", lambda lib, x, m, v: x.masked_fill(m, v),
                           [In((3, 4)), _const(np.eye(3, 4) > 0), In(())], checks=_ROW2),
                    _second("masked_fill", lambda lib, x, m: x.masked_fill(m, 0.5) * x, [X, _mask((2, 3))])],
           float16=[("masked_fill", lambda lib, x, y: x.masked_fill(x > 1, 0.0))],
           empty=[("empty", lambda L, x, m: L.masked_fill(x, m, 1.0), ((0, 3), F), ((0, 3), "mask"))],
           shape_ops=[ShapeOp("masked_fill", draw_mask, lambda lib, x, a: x.masked_fill(as_tensor(lib, a["mask"]), -0.5),
                              lambda x, a: np.where(a["mask"], -0.5, x))]),
    OpInfo("masked_select", "indexing", lambda lib, x, m: lib.masked_select(x, m),
           raises=RAISES["masked_select"],
           samples=[Sample("masked_select", lambda lib, x, m: x.masked_select(m), [In((3, 4)), _const(np.eye(3, 4) > 0)],
                           checks=_ROW2),
                    Sample("masked_select_broadcast", lambda lib, x, m: lib.masked_select(x, m),
                           [In((3, 1)), _const(np.eye(3, 4) > 0)], checks=_ROW),
                    _second("masked_select", lambda lib, x, m: lib.masked_select(x, m) ** 2, [X, _mask((2, 3))])],
           empty=[("empty", lambda L, x, m: L.masked_select(x, m), ((2, 0), F), ((2, 0), "mask"))],
           shape_ops=[ShapeOp("masked_select", draw_mask,
                              lambda lib, x, a: x.masked_select(as_tensor(lib, a["mask"])), lambda x, a: x[a["mask"]])]),
]
