"""Op table: writes at indexed positions and strided views (npgrad/ops/index_put.py, scatter_reduce.py,
strided.py): index_copy/index_fill/index_put/put/masked_scatter, scatter_reduce/index_reduce, the
select/slice/diagonal/as_strided scatters, as_strided and Tensor.unfold, nonzero_static. Their samples run
in tests/ops/test_indexing.py (family "indexing": against PyTorch, finite differences, double backward).

Ties and zeros are placed on purpose: amax/amin split the gradient between tied elements, prod's gradient
must not divide by a zero, and with ``include_self=False`` PyTorch still counts the input's own element as
tied when it equals the result.
"""
import numpy as np

from oracle import In
from _record import FD, PARITY, OpInfo, Sample
from _record import row as _row, row2 as _row2, second as _second  # noqa: E402 (shared makers)

F = "float32"
_FORWARD = frozenset({PARITY})
_FD_ONLY = frozenset({FD})


def _const(a):
    arr = np.asarray(a)
    return In(arr.shape, values=lambda rng: arr, grad=False, dtype=arr.dtype)


def _fixed(a, grad=True):
    """A float input with fixed values (ties, zeros) in the dtype under test."""
    arr = np.asarray(a, dtype=np.float64)
    return In(arr.shape, values=lambda rng: arr, grad=grad)


X23 = _fixed([[1., 2, 3], [4, 5, 6]])
SRC_TIES = _fixed([[3., 3, 1, 7], [5, 4, 4, 4]])          # ties at the same target, and with the input's 4
IDX_TIES = _const([[0, 0, 1, 2], [2, 1, 1, 0]])
X_ZEROS = _fixed([[0., 2, 3], [4, 5, 0]])
SRC_ZEROS = _fixed([[0., 3, 0, 7], [5, 0, 4, 4]])          # two zeros into one target, one zero alone
REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _tied_row(tag, fn, inputs, reduce, include_self):
    # amax/amin without self where a source ties with the input's own (excluded) element: PyTorch still counts
    # that element among the ties and halves the source's gradient; central differences give it all of it.
    # PyTorch's rule is the one to follow, so these rows are compared with PyTorch only (the random rows below
    # and the rows with self check the gradients by finite differences).
    if reduce in ("amax", "amin") and not include_self:
        return Sample(tag, fn, inputs, checks=_FORWARD)
    return _row(tag, fn, inputs)


def _scatter_reduce_rows():
    rows = []
    for red in REDUCES:
        for inc in (True, False):
            tag = f"scatter_reduce_{red}_{'self' if inc else 'noself'}"
            fn = (lambda r, i: lambda lib, x, idx, s: x.scatter_reduce(1, idx, s, r, include_self=i))(red, inc)
            rows.append(_tied_row(tag, fn, [X23, IDX_TIES, SRC_TIES], red, inc))
            if red != "prod":
                continue
            rows.append(_row(tag + "_zeros", fn, [X_ZEROS, IDX_TIES, SRC_ZEROS]))
    rows.append(_row2("scatter_reduce_prod_random", lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "prod"),
                      [In((3, 2), nonzero=True), _const([[0, 2], [0, 0], [1, 2]]), In((3, 2), nonzero=True)]))
    rows.append(_row2("scatter_reduce_amax_random", lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "amax"),
                      [In((3, 2)), _const([[0, 2], [0, 0], [1, 2]]), In((3, 2))]))
    rows.append(_row2("scatter_reduce_mean_noself_dim0", lambda lib, x, i, s: x.scatter_reduce(
        0, i, s, "mean", include_self=False), [In((3, 2)), _const([[0, 2], [0, 0]]), In((2, 2))]))
    # PyTorch has no gradient for a src larger than the index (its backward raises): finite differences check it
    rows.append(Sample("scatter_reduce_src_larger", lambda lib, x, i, s: x.scatter_reduce(1, i, s, "sum"),
                       [In((2, 3)), _const([[0, 0], [2, 1]]), In((3, 4))], checks=_FD_ONLY))
    rows.append(Sample("scatter_reduce_amin_noself_random", lambda lib, x, i, s: x.scatter_reduce(
        0, i, s, "amin", include_self=False), [In((3, 2)), _const([[0, 2], [0, 0], [1, 2]]), In((3, 2))],
        checks=_FD_ONLY | _FORWARD))
    rows.append(Sample("scatter_reduce_int_mean", lambda lib, x: x.scatter_reduce(
        1, lib.tensor([[0, 0, 2]]), lib.tensor([[-2, 7, 3]]), "mean"), [_const([[-1, 2, 3], [4, 5, 6]])],
        checks=_FORWARD))
    rows.append(_second("scatter_reduce_amin", lambda lib, x, s: x.scatter_reduce(
        1, lib.tensor([[0, 0], [2, 1]]), s, "amin") ** 2, [In((2, 3)), In((2, 2))]))
    return rows


def _index_reduce_rows():
    rows = []
    for red in REDUCES[1:]:
        for inc in (True, False):
            tag = f"index_reduce_{red}_{'self' if inc else 'noself'}"
            fn = (lambda r, i: lambda lib, x, idx, s: x.index_reduce(1, idx, s, r, include_self=i))(red, inc)
            rows.append(_tied_row(tag, fn, [X23, _const([0, 0, 2, 2]), SRC_TIES], red, inc))
    rows.append(_row("index_reduce_prod_zeros", lambda lib, x, s: lib.index_reduce(x, 0, lib.tensor([1, 1]), s, "prod"),
                     [X_ZEROS, _fixed([[0., 0, 2], [3, 0, 1]])]))
    rows.append(_row2("index_reduce_amax_dim0", lambda lib, x, s: x.index_reduce(0, lib.tensor([2, 0, 2]), s, "amax"),
                      [In((3, 2)), In((3, 2))]))
    return rows


RAISES = {
    "index_copy": [
        ("index_copy_float_index", lambda lib: lib.ones(3, 2).index_copy(0, lib.tensor([0.]), lib.ones(1, 2)),
         RuntimeError, "index_copy_(): Expected a long tensor for index, but got Float"),
        ("index_copy_2d_index", lambda lib: lib.ones(3, 2).index_copy(0, lib.tensor([[0]]), lib.ones(1, 2)),
         IndexError, "index_copy_(): Index should have dimension 1 or 0 (got 2)"),
        ("index_copy_dtype", lambda lib: lib.ones(3, 2).index_copy(0, lib.tensor([0]), lib.ones(1, 2, dtype=lib.float64)),
         RuntimeError, "index_copy_(): self and source expected to have the same dtype, but got (self) Float and "
                       "(source) Double"),
        ("index_copy_count", lambda lib: lib.ones(3, 2).index_copy(0, lib.tensor([0]), lib.ones(2, 2)),
         IndexError, "index_copy_(): Number of indices (1) should be equal to source.size(dim) (2)"),
        ("index_copy_bounds", lambda lib: lib.ones(3, 2).index_copy(0, lib.tensor([5]), lib.ones(1, 2)),
         IndexError, "index_copy_(): index 5 is out of bounds for dimension 0 with size 3"),
    ],
    "index_fill": [
        ("index_fill_bounds", lambda lib: lib.ones(3, 2).index_fill(0, lib.tensor([5]), 1.0),
         IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
        ("index_fill_float_index", lambda lib: lib.ones(3, 2).index_fill(0, lib.tensor([0.]), 1.0),
         IndexError, "index_fill_(): Expected dtype int64 for index."),
        ("index_fill_value_dims", lambda lib: lib.ones(3, 2).index_fill(0, lib.tensor([0]), lib.ones(2)),
         RuntimeError, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    ],
    "index_put": [
        ("index_put_bounds", lambda lib: lib.ones(3, 2).index_put((lib.tensor([5]),), lib.tensor(1.0)),
         IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
        ("index_put_shape", lambda lib: lib.ones(3, 2).index_put((lib.tensor([0]),), lib.ones(3)),
         RuntimeError, "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [1, 2]"),
    ],
    "put": [
        ("put_bounds", lambda lib: lib.ones(3, 2).put(lib.tensor([7]), lib.tensor([1.0])),
         IndexError, "out of range: tried to access index 7 on a tensor of 6 elements."),
        ("put_count", lambda lib: lib.ones(3, 2).put(lib.tensor([1]), lib.tensor([1.0, 2.0])),
         IndexError, "put_(): Expected source and index to have the same number of elements, but got "
                     "source.numel() = 2, index.numel() = 1"),
    ],
    "masked_scatter": [
        ("masked_scatter_short_source", lambda lib: lib.ones(3, 2).masked_scatter(lib.ones(3, 2, dtype=lib.bool),
                                                                                  lib.ones(3)),
         RuntimeError, "Number of elements of source < number of ones in mask"),
        ("masked_scatter_float_mask", lambda lib: lib.ones(3, 2).masked_scatter(lib.ones(3, 2), lib.ones(6)),
         RuntimeError, "masked_scatter_ only supports boolean masks, but got mask with dtype Float"),
    ],
    "index_reduce": [
        ("index_reduce_sum", lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0]), lib.ones(1, 2), "sum"),
         RuntimeError, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum."),
    ],
    "select_scatter": [
        ("select_scatter_shape", lambda lib: lib.ones(3, 2).select_scatter(lib.ones(3), 0, 0),
         RuntimeError, "expected src to have a size equal to the slice of self. src size = [3], slice size = [2]"),
    ],
    "slice_scatter": [
        ("slice_scatter_shape", lambda lib: lib.ones(3, 2).slice_scatter(lib.ones(3, 2), 0, 0, 1),
         RuntimeError, "expected src to have a size equal to the slice of self. src size = [3, 2], slice size = [1, 2]"),
    ],
    "diagonal_scatter": [
        ("diagonal_scatter_shape", lambda lib: lib.ones(3, 2).diagonal_scatter(lib.ones(3)),
         RuntimeError, "expected src to have a size equal to the slice of self. src size = [3], slice size = [2]"),
    ],
    "as_strided": [
        ("as_strided_out_of_storage", lambda lib: lib.ones(3, 2).as_strided((4, 2), (2, 1)),
         RuntimeError, "setStorage: sizes [4, 2], strides [2, 1], storage offset 0, and itemsize 4 requiring a "
                       "storage size of 32 are out of bounds for storage of size 24"),
        ("as_strided_lengths", lambda lib: lib.ones(6).as_strided((2,), (1, 1)), RuntimeError,
         "mismatch in length of strides and shape"),
        ("as_strided_negative_stride", lambda lib: lib.ones(6).as_strided((2,), (-1,)), RuntimeError,
         "as_strided: Negative strides are not supported at the moment, got strides: [-1]"),
        ("as_strided_negative_offset", lambda lib: lib.ones(6).as_strided((2,), (1,), -1), RuntimeError,
         "Tensor: invalid storage offset -1"),
    ],
    "nonzero_static": [
        ("nonzero_static_negative", lambda lib: lib.nonzero_static(lib.ones(3), size=-1),
         RuntimeError, "nonzero_static: 'size' must be an non-negative integer"),
    ],
    "unfold": [
        ("unfold_too_big", lambda lib: lib.ones(3, 2).unfold(0, 4, 1),
         RuntimeError, "maximum size for tensor at dimension 0 is 3 but size is 4"),
        ("unfold_step", lambda lib: lib.ones(3, 2).unfold(0, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    ],
}

OPS = [
    OpInfo("index_copy", "indexing", lambda lib, x, i, s: lib.index_copy(x, 0, i, s), raises=RAISES["index_copy"],
           empty=[("empty index", lambda L, x, i, s: L.index_copy(x, 0, i, s), ((2, 3), F), ((0,), "index2"), ((0, 3), F)),
                  ("empty input", lambda L, x, i, s: L.index_copy(x, 1, i, s), ((0, 3), F), ((1,), "index3"), ((0, 1), F))],
           samples=[_row2("index_copy", lambda lib, x, i, s: x.index_copy(0, i, s), [In((3, 2)), _const([2, 0]),
                                                                                    In((2, 2))]),
                    _row("index_copy_dim1", lambda lib, x, i, s: lib.index_copy(x, -1, i, s),
                         [In((2, 4)), _const([3, 1, 0]), In((2, 3))])]),
    OpInfo("index_fill", "indexing", lambda lib, x, i: lib.index_fill(x, 1, i, -1.0), raises=RAISES["index_fill"],
           empty=[("empty index", lambda L, x, i: L.index_fill(x, 1, i, 1.0), ((2, 3), F), ((0,), "index3")),
                  ("empty input", lambda L, x, i: L.index_fill(x, 1, i, 1.0), ((0, 3), F), ((2,), "index3"))],
           samples=[_row("index_fill", lambda lib, x, i: x.index_fill(1, i, -1.5), [In((2, 4)), _const([3, 0, 3])]),
                    _row2("index_fill_tensor_value", lambda lib, x, i, v: lib.index_fill(x, 0, i, v),
                          [In((3, 2)), _const([2, 0]), In(())])]),
    OpInfo("index_put", "indexing", lambda lib, x, v: lib.index_put(x, (lib.tensor([0, 1]),), v),
           empty=[("empty index", lambda L, x, i, v: L.index_put(x, (i,), v), ((2, 3), F), ((0,), "index2"), ((0, 3), F)),
                  ("empty index accumulate", lambda L, x, i, v: L.index_put(x, (i,), v, True), ((2, 3), F),
                   ((0,), "index2"), ((0, 3), F))],
           raises=RAISES["index_put"],
           samples=[_row2("index_put_accumulate", lambda lib, x, v: x.index_put(
                        (lib.tensor([0, 1, 0]), lib.tensor([2, 2, 2])), v, accumulate=True), [In((2, 3)), In((3,))]),
                    _row("index_put_rows", lambda lib, x, v: lib.index_put(x, (lib.tensor([1, 0]),), v),
                         [In((2, 3)), In((3,))]),
                    _row("index_put_mask", lambda lib, x, v: x.index_put((x > 0,), v), [In((3, 3)), In(())])]),
    OpInfo("put", "indexing", lambda lib, x, i, s: lib.put(x, i, s), raises=RAISES["put"],
           empty=[("empty index", lambda L, x, i, s: L.put(x, i, s), ((2, 3), F), ((0,), "index2"), ((0,), F)),
                  ("empty input", lambda L, x, i, s: L.put(x, i, s, accumulate=True), ((0, 3), F), ((0,), "index1"),
                   ((0,), F))],
           samples=[_row2("put_accumulate", lambda lib, x, i, s: lib.put(x, i, s, accumulate=True),
                          [In((2, 3)), _const([[0, -1], [2, 2]]), In((2, 2))]),
                    _row("put", lambda lib, x, i, s: x.put(i, s), [In((2, 3)), _const([5, 0, 3]), In((3,))])]),
    OpInfo("masked_scatter", "indexing", lambda lib, x, m, s: lib.masked_scatter(x, m, s),
           empty=[("empty", lambda L, x, m, s: L.masked_scatter(x, m, s), ((0, 3), F), ((0, 3), "mask"), ((0,), F))],
           raises=RAISES["masked_scatter"],
           samples=[_row2("masked_scatter", lambda lib, x, m, s: x.masked_scatter(m, s),
                          [In((3, 4)), _const(np.eye(3, 4) > 0), In((10,))]),
                    _row("masked_scatter_broadcast", lambda lib, x, m, s: lib.masked_scatter(x, m, s),
                         [In((3,)), _const([[True, False, True], [False, True, True]]), In((2, 4))])]),
    OpInfo("scatter_reduce", "indexing", lambda lib, x, i, s: lib.scatter_reduce(x, 1, i, s, "sum"),
           empty=[("empty index " + r, lambda L, x, i, s, r=r: L.scatter_reduce(x, 0, i, s, r), ((2, 3), F), ((0, 3), "index2"),
                   ((0, 3), F)) for r in REDUCES],
           samples=_scatter_reduce_rows()),
    OpInfo("index_reduce", "indexing", lambda lib, x, i, s: lib.index_reduce(x, 1, i, s, "prod"),
           empty=[("empty index " + r, lambda L, x, i, s, r=r: L.index_reduce(x, 0, i, s, r, include_self=False), ((2, 3), F),
                   ((0,), "index2"), ((0, 3), F)) for r in REDUCES[1:]],
           raises=RAISES["index_reduce"], samples=_index_reduce_rows()),
    OpInfo("select_scatter", "indexing", lambda lib, x, s: lib.select_scatter(x, s, 1, -1),
           empty=[("empty", lambda L, x, s: L.select_scatter(x, s, 1, 0), ((0, 3), F), ((0,), F))],
           raises=RAISES["select_scatter"],
           samples=[_row2("select_scatter", lambda lib, x, s: x.select_scatter(s, 1, -1), [In((2, 3)), In((2,))])]),
    OpInfo("slice_scatter", "indexing", lambda lib, x, s: lib.slice_scatter(x, s, 1, 0, 3, 2),
           empty=[("empty slice", lambda L, x, s: L.slice_scatter(x, s, 0, 1, 1), ((2, 3), F), ((0, 3), F)),
                  ("empty input", lambda L, x, s: L.slice_scatter(x, s, 1), ((0, 3), F), ((0, 3), F))],
           raises=RAISES["slice_scatter"],
           samples=[_row2("slice_scatter", lambda lib, x, s: x.slice_scatter(s, 1, 0, 3, 2), [In((2, 4)), In((2, 2))]),
                    _row("slice_scatter_default", lambda lib, x, s: lib.slice_scatter(x, s), [In((2, 3)), In((2, 3))])]),
    OpInfo("diagonal_scatter", "indexing", lambda lib, x, s: lib.diagonal_scatter(x, s, 1),
           empty=[("empty", lambda L, x, s: L.diagonal_scatter(x, s), ((0, 3), F), ((0,), F))],
           raises=RAISES["diagonal_scatter"],
           samples=[_row2("diagonal_scatter", lambda lib, x, s: x.diagonal_scatter(s, 1), [In((3, 4)), In((3,))]),
                    _row("diagonal_scatter_dims", lambda lib, x, s: lib.diagonal_scatter(x, s, -1, 0, 2),
                         [In((3, 2, 3)), In((2, 2))])]),
    # PyTorch's gradient for the input of as_strided_scatter is wrong in 2.13 (it passes the gradient of the
    # overwritten elements and zeroes the rest; torch.autograd.gradcheck fails on it): npgrad's is the
    # derivative, so the input's gradient is checked by finite differences and only src's against PyTorch.
    OpInfo("as_strided_scatter", "indexing", lambda lib, x, s: lib.as_strided_scatter(x, s, (2, 2), (1, 2), 1),
           # (the input without grad: PyTorch's gradient for it is wrong, see above)
           empty=[("empty view", lambda L, x, s: L.as_strided_scatter(x, s, (0, 2), (1, 1)), ((2, 3), F, False),
                   ((0, 2), F))],
           samples=[_row("as_strided_scatter", lambda lib, x, s: x.as_strided_scatter(s, (2, 2), (1, 2), 1),
                         [In((2, 3), grad=False), In((2, 2))]),
                    Sample("as_strided_scatter_input_grad", lambda lib, x, s: lib.as_strided_scatter(x, s, (2,), (2,)),
                           [In((2, 3)), In((2,))], checks=_FD_ONLY)]),
    OpInfo("as_strided", "indexing", lambda lib, x: lib.as_strided(x, (2, 2), (1, 2), 1),
           empty=[("empty view", lambda L, x: L.as_strided(x, (0, 3), (3, 1)), ((2, 3), F)),
                  ("of empty", lambda L, x: L.as_strided(x, (0,), (1,)), ((0, 3), F))],
           samples=[_row2("as_strided", lambda lib, x: x.as_strided((2, 2), (1, 2), 1) * 1, [In((2, 3))]),
                    _row2("as_strided_overlapping", lambda lib, x: lib.as_strided(x, (3, 3), (1, 1)) * 1, [In((3, 4))]),
                    _row("as_strided_of_view", lambda lib, x: x[1:].as_strided((2, 2), (1, 1)) * 1, [In((3, 4))]),
                    _row("as_strided_of_transpose", lambda lib, x: x.t().as_strided((2, 2), (1, 4)) * 1, [In((3, 4))]),
                    _row("as_strided_inplace", lambda lib, x: (x * 1).as_strided_((3,), (2,)) * 1, [In((2, 3))]),
                    _row("tensor_unfold", lambda lib, x: x.unfold(1, 2, 1) * 1, [In((3, 4))]),
                    _row2("tensor_unfold_dim0_step", lambda lib, x: x.unfold(0, 2, 2) * 1, [In((5, 3))]),
                    _row("tensor_unfold_0d", lambda lib, x: x.unfold(0, 1, 1) * 1, [In(())]),
                    _row("tensor_unfold_write_through", lambda lib, x: _write_through(x), [In((2, 4))])],
           raises=RAISES["as_strided"] + RAISES["unfold"]),
    OpInfo("nonzero_static", "indexing", lambda lib, x: lib.nonzero_static(x, size=4), raises=RAISES["nonzero_static"],
           empty=[("empty", lambda L, x: L.nonzero_static(x, size=2), ((0, 3), F, False))],
           samples=[Sample("nonzero_static_pad", lambda lib, x: lib.nonzero_static(x, size=4, fill_value=7),
                           [_const([[0, 1], [1, 0]])], checks=_FORWARD),
                    Sample("nonzero_static_cut", lambda lib, x: x.nonzero_static(size=2),
                           [_const([0, 1, 1, 0, 1])], checks=_FORWARD)]),
]


def _write_through(x):
    """An in-place write to a (non-overlapping) unfold view reaches its base, and the graph through it."""
    y = x * 1
    y.unfold(1, 2, 2).mul_(3)
    return y
