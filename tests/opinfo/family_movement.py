"""Op table: movement and view operators (npgrad/ops/movement.py): reshape/flatten/unflatten, permutations,
squeeze/unsqueeze, tile/repeat_interleave, flip/roll, narrow/select/split/chunk/unbind/tensor_split, joining,
triangles and diagonals, clone, meshgrid, atleast_*d. Their samples run in tests/ops/test_movement.py; the Tensor
methods that are no operator (view, expand, repeat, T, mT, contiguous ...) keep their rows there.
"""
import numpy as np

from oracle import In
from _inputs import V3, X
from _record import DOUBLE_BACKWARD, FD, PARITY, SECOND_ORDER, OpInfo, Sample
import _shape_draws as D
from _shape_draws import ShapeOp

F = "float32"
_ROW = frozenset({PARITY, FD})
_ROW2 = frozenset({PARITY, FD, DOUBLE_BACKWARD})  # also against PyTorch's double backward


def _row(name, fn, inputs, **kw):
    return Sample(name, fn, inputs, checks=_ROW, **kw)


def _row2(name, fn, inputs, **kw):
    return Sample(name, fn, inputs, checks=_ROW2, **kw)


def _second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


def _const(a):
    """An input with fixed (integer or boolean) values, e.g. an index tensor or a mask."""
    arr = np.asarray(a)
    return In(arr.shape, values=lambda rng: arr, grad=False, dtype=arr.dtype)


def _weighted(lib, parts):
    # Weight each piece differently so a gradient routed to the wrong piece is caught.
    return lib.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(parts)])


# Calls that must fail, with PyTorch's messages (test_expected_errors in tests/ops/test_movement.py)
RAISES = {
    "reshape": [
        ("reshape_invalid", lambda lib: lib.ones(2, 3).reshape(4, 2),
         RuntimeError, "shape '[4, 2]' is invalid for input of size 6"),
        ("reshape_two_infer", lambda lib: lib.ones(2, 3).reshape(-1, -1),
         RuntimeError, "only one dimension can be inferred"),
        ("reshape_infer_invalid", lambda lib: lib.ones(2, 3).reshape(-1, 4),
         RuntimeError, "shape '[-1, 4]' is invalid for input of size 6"),
        ("reshape_negative", lambda lib: lib.ones(2, 3).reshape(-2, 3),
         RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2, 3]"),
    ],
    "permute": [
        ("permute_len", lambda lib: lib.ones(2, 3).permute(0),
         RuntimeError,
         "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
         "desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1"),
        ("permute_dup", lambda lib: lib.ones(2, 3).permute(0, 0),
         RuntimeError, "permute(): duplicate dims are not allowed."),
        ("permute_range", lambda lib: lib.ones(2, 3).permute(0, 2),
         IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ],
    "transpose": [
        ("transpose_range", lambda lib: lib.ones(2, 3).transpose(0, 2),
         IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ],
    "t": [
        ("t_3d", lambda lib: lib.ones(2, 3, 4).t(),
         RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    ],
    "squeeze": [
        ("squeeze_range", lambda lib: lib.ones(2, 3).squeeze(2),
         IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ],
    "unsqueeze": [
        ("unsqueeze_range", lambda lib: lib.ones(2, 3).unsqueeze(3),
         IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    ],
    "flatten": [
        ("flatten_order", lambda lib: lib.ones(2, 3, 4).flatten(2, 1),
         RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim"),
    ],
    "unflatten": [
        ("unflatten_sizes", lambda lib: lib.ones(2, 6).unflatten(1, (4, 2)),
         RuntimeError,
         "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 1 (6) in the input tensor"),
    ],
    "flip": [
        ("flip_dup", lambda lib: lib.ones(2, 3).flip(0, 0),
         RuntimeError, "dim 0 appears multiple times in the list of dims"),
    ],
    "roll": [
        ("roll_mismatch", lambda lib: lib.ones(2, 3).roll((1, 2), (0,)),
         RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
        ("roll_no_dims_tuple", lambda lib: lib.ones(2, 2).roll((1, 1)),
         RuntimeError, "shifts and dimensions must align. shifts: 2, dims:0"),
    ],
    "narrow": [
        ("narrow_range", lambda lib: lib.ones(2, 3).narrow(1, 2, 2),
         RuntimeError, "start (2) + length (2) exceeds dimension size (3)."),
        ("narrow_start_range", lambda lib: lib.ones(3).narrow(0, 4, 0),
         IndexError, "start out of range (expected to be in range of [-3, 3], but got 4)"),
        ("narrow_start_negative_range", lambda lib: lib.ones(3).narrow(0, -4, 1),
         IndexError, "start out of range (expected to be in range of [-3, 3], but got -4)"),
        ("narrow_negative_length", lambda lib: lib.ones(3).narrow(0, 0, -1),
         RuntimeError, "narrow(): length must be non-negative."),
    ],
    "select": [
        ("select_range", lambda lib: lib.ones(2, 3).select(1, 3),
         IndexError, "select(): index 3 out of range for tensor of size [2, 3] at dimension 1"),
    ],
    "split": [
        ("split_sizes", lambda lib: lib.ones(2, 5).split([2, 2], 1),
         RuntimeError,
         "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at dimension 1), but "
         "got split_sizes=[2, 2]"),
        ("split_negative", lambda lib: lib.ones(3).split(-1),
         RuntimeError, "split expects split_size be non-negative, but got split_size=-1"),
        ("split_negative_section", lambda lib: lib.ones(3).split([2, -1, 2]),
         RuntimeError,
         "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[2, -1, 2]"),
        ("split_zero", lambda lib: lib.ones(3).split(0),
         RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of 3"),
    ],
    "chunk": [
        ("chunk_zero", lambda lib: lib.ones(2, 5).chunk(0),
         RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    ],
    "cat": [
        ("cat_sizes", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)]),
         RuntimeError,
         "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number "
         "1 in the list."),
        ("cat_ndim", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2)]),
         RuntimeError, "Tensors must have same number of dimensions: got 2 and 1"),
        ("cat_0d", lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]),
         RuntimeError, "zero-dimensional tensor (at position 0) cannot be concatenated"),
        ("cat_empty_list", lambda lib: lib.cat([]),
         ValueError, "torch.cat(): expected a non-empty list of Tensors"),
        ("cat_dim", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3)], 2),
         IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        ("cat_tensor_arg", lambda lib: lib.cat(lib.ones(2, 3)),
         TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
        ("cat_0d_position", lambda lib: lib.cat([lib.ones(2), lib.tensor(1.0)]),
         RuntimeError, "zero-dimensional tensor (at position 1) cannot be concatenated"),
    ],
    "stack": [
        ("stack_sizes", lambda lib: lib.stack([lib.ones(2, 3), lib.ones(3, 2)]),
         RuntimeError, "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1"),
        ("stack_dim", lambda lib: lib.stack([lib.ones(2), lib.ones(2)], 3),
         IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
        ("stack_empty_list", lambda lib: lib.stack([]),
         RuntimeError, "stack expects a non-empty TensorList"),
    ],
    "tril": [
        ("tril_1d", lambda lib: lib.ones(3).tril(),
         RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    ],
    "triu": [
        ("triu_1d", lambda lib: lib.ones(3).triu(),
         RuntimeError, "triu: input tensor must have at least 2 dimensions"),
    ],
    "diagonal": [
        ("diagonal_same_dims", lambda lib: lib.ones(3, 3).diagonal(0, 1, 1),
         RuntimeError, "diagonal dimensions cannot be identical 1, 1"),
    ],
    "diag": [
        ("diag_3d", lambda lib: lib.diag(lib.ones(2, 2, 2)),
         RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    ],
    "movedim": [
        ("movedim_dup_destination", lambda lib: lib.ones(2, 3, 4).movedim((0, 1), (2, 2)),
         RuntimeError, "movedim: repeated dim in `destination` ([2, 2])"),
        ("movedim_dup", lambda lib: lib.ones(2, 3, 4).movedim((0, 0), (1, 2)),
         RuntimeError, "movedim: repeated dim in `source` ([0, 0])"),
        ("movedim_len", lambda lib: lib.ones(2, 3, 4).movedim((0, 1), (1,)),
         RuntimeError,
         "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of "
         "dims as destination ([1] dims)"),
    ],
}

OPS = [
    OpInfo("atleast_1d", "movement", lambda lib, x: lib.atleast_1d(x) * 2,
           samples=[Sample("atleast_1d_0d", inputs=[In(())]),
                    Sample("atleast_1d_1d", inputs=[In((3,))]),
                    Sample("atleast_1d_2d", inputs=[In((2, 3))]),
                    Sample("atleast_1d_several", lambda lib, x, y: lib.atleast_1d(x, y)[0] * lib.atleast_1d(x, y)[1],
                           [In(()), In((3,))])]),
    OpInfo("atleast_2d", "movement", lambda lib, x: lib.atleast_2d(x),
           samples=[
               _row("atleast_2d", lambda lib, x: lib.atleast_2d(x), [In((3,))]),
           ]),
    OpInfo("reshape", "movement", lambda lib, x: lib.reshape(x, (-1,)),
           raises=RAISES["reshape"],
           samples=[
               _row("reshape", lambda lib, x: x.reshape(4, 3), [In((3, 4))]),
               _row("reshape_infer", lambda lib, x: lib.reshape(x, (-1, 2)), [In((2, 3, 2))]),
               _row("reshape_to_0d", lambda lib, x: x.reshape(()), [In((1, 1))]),
               _row("reshape_from_0d", lambda lib, x: x.reshape(1, 1, 1), [In(())]),
               _row2("reshape_noncontiguous", lambda lib, x: x.t().reshape(-1), [In((3, 4))]),
               _second("reshape", lambda lib, x: (x * x).reshape(3, 2) @ x, [X]),
           ],
           empty=[("(0,3)->(3,0,1)", lambda L, x: L.reshape(x, (3, 0, 1)), ((0, 3), F)),
                  ("-1 with 0 elements", lambda L, x: L.reshape(x, (-1, 0)), ((0, 3), F)),
                  ("(0,)->(-1,)", lambda L, x: L.reshape(x, (-1,)), ((2, 0), F))],
           shape_ops=[ShapeOp("reshape", D.draw_reshape, lambda lib, x, a: x.reshape(a["shape"]),
                              lambda x, a: x.reshape(a["shape"]))]),
    OpInfo("flatten", "movement", lambda lib, x: lib.flatten(x),
           raises=RAISES["flatten"],
           samples=[
               _row("flatten", lambda lib, x: x.flatten(), [In((2, 3, 4))]),
               _row("flatten_range", lambda lib, x: lib.flatten(x, 1, -1), [In((2, 3, 4))]),
               _row("flatten_0d", lambda lib, x: x.flatten(), [In(())]),
               _second("flatten", lambda lib, x: x.unsqueeze(0).flatten() ** 2, [X]),
           ],
           float16=[("flatten", lambda lib, x, y: x.flatten())],
           shape_ops=[ShapeOp("flatten", D.draw_flatten, lambda lib, x, a: x.flatten(a["start"], a["end"]),
                              D.flatten_ref)]),
    OpInfo("unflatten", "movement", lambda lib, x: lib.unflatten(x, 0, (1, -1)),
           raises=RAISES["unflatten"],
           samples=[
               _row("unflatten", lambda lib, x: x.unflatten(1, (2, -1)), [In((3, 4))]),
               _row("unflatten_neg_dim", lambda lib, x: lib.unflatten(x, -1, (2, 2)), [In((3, 4))]),
               _second("unflatten", lambda lib, x: x.reshape(6).unflatten(0, (3, 2)) ** 3, [X]),
           ],
           empty=[("an empty dim", lambda L, x: L.unflatten(x, 1, (0, 4)), ((2, 0), F))],
           shape_ops=[ShapeOp("unflatten", D.draw_unflatten, lambda lib, x, a: x.unflatten(a["dim"], a["sizes"]),
                              D.unflatten_ref)]),
    OpInfo("permute", "movement", lambda lib, x: lib.permute(x, (1, 0)),
           raises=RAISES["permute"],
           samples=[
               _row2("permute", lambda lib, x: x.permute(2, 0, 1), [In((2, 3, 4))]),
               _row("permute_tuple_neg", lambda lib, x: lib.permute(x, (-1, 0, -2)), [In((2, 3, 4))]),
               _second("permute", lambda lib, x: (x * x).unsqueeze(2).permute(2, 1, 0).exp(), [X]),
           ],
           empty=[("empty", lambda L, x: L.permute(x, (1, 0, 2)), ((3, 0, 2), F))],
           shape_ops=[ShapeOp("permute", D.draw_permute, lambda lib, x, a: x.permute(*a["perm"]) if a["perm"]
                              else x.permute(()),
                              lambda x, a: np.transpose(x, a["perm"]))]),
    OpInfo("transpose", "movement", lambda lib, x: lib.transpose(x, 0, 1),
           raises=RAISES["transpose"],
           samples=[
               _row("transpose", lambda lib, x: x.transpose(0, 2), [In((2, 3, 4))]),
               _row("transpose_neg", lambda lib, x: lib.transpose(x, -1, -2), [In((2, 3, 4))]),
               _second("transpose", lambda lib, x: x.t() @ (x * x), [X]),
           ],
           empty=[("empty", lambda L, x: L.transpose(x, 0, 1), ((0, 3), F))],
           shape_ops=[ShapeOp("transpose", D.draw_two_dims, lambda lib, x, a: x.transpose(a["d0"], a["d1"]),
                              lambda x, a: np.swapaxes(x, D.canon(a["d0"], x.ndim), D.canon(a["d1"], x.ndim))
                              if x.ndim else x)]),
    OpInfo("swapaxes", "movement", lambda lib, x: lib.swapaxes(x, 0, 1),
           samples=[
               _row("swapaxes", lambda lib, x: x.swapaxes(0, 1), [In((2, 3))]),
               _second("swapaxes", lambda lib, x: lib.swapaxes(x * x, 0, 1) @ x, [X]),
           ],
           empty=[("empty", lambda L, x: L.swapaxes(x, 0, 1), ((0, 3), F))]),
    OpInfo("swapdims", "movement", lambda lib, x: lib.swapdims(x, 0, 1),
           samples=[
               _row("swapdims", lambda lib, x: lib.swapdims(x, 0, -1), [In((2, 3, 4))]),
               _row("swapdims_method", lambda lib, x: x.swapdims(1, 0), [In((3, 2))]),
           ],
           empty=[("empty", lambda L, x: L.swapdims(x, 0, 1), ((0, 3), F))]),
    OpInfo("t", "movement", lambda lib, x: lib.t(x),
           raises=RAISES["t"],
           samples=[
               _row("t", lambda lib, x: x.t(), [In((2, 3))]),
               _row("t_1d", lambda lib, x: x.t(), [In((3,))]),
           ],
           float16=[("t", lambda lib, x, y: x.t())]),
    OpInfo("movedim", "movement", lambda lib, x: lib.movedim(x, 0, 1),
           raises=RAISES["movedim"],
           samples=[
               _row("movedim", lambda lib, x: x.movedim(0, -1), [In((2, 3, 4))]),
               _row("movedim_multi", lambda lib, x: lib.movedim(x, (0, 1), (2, 0)), [In((2, 3, 4))]),
               _second("movedim", lambda lib, x: lib.movedim(x.unsqueeze(0) ** 2, 0, 2), [X]),
           ],
           empty=[("empty", lambda L, x: L.movedim(x, 0, 1), ((0, 3), F))],
           shape_ops=[ShapeOp("movedim", D.draw_movedim, lambda lib, x, a: x.movedim(a["src"], a["dst"]),
                              lambda x, a: np.moveaxis(x, a["src"], a["dst"]))]),
    OpInfo("moveaxis", "movement", lambda lib, x: lib.moveaxis(x, 0, 1),
           samples=[
               _row("moveaxis", lambda lib, x: lib.moveaxis(x, -1, 0), [In((2, 3, 4))]),
           ],
           empty=[("empty", lambda L, x: L.moveaxis(x, 1, 0), ((0, 3), F))]),
    OpInfo("squeeze", "movement", lambda lib, x: lib.squeeze(x),
           raises=RAISES["squeeze"],
           samples=[
               _row("squeeze_all", lambda lib, x: x.squeeze(), [In((1, 3, 1, 2))]),
               _row("squeeze_dim", lambda lib, x: x.squeeze(2), [In((1, 3, 1, 2))]),
               _row("squeeze_dim_not_1", lambda lib, x: x.squeeze(1), [In((1, 3, 1, 2))]),
               _row2("squeeze_dims_tuple", lambda lib, x: lib.squeeze(x, (0, -2)), [In((1, 3, 1, 2))]),
               _row("squeeze_0d", lambda lib, x: x.squeeze(0), [In(())]),
           ],
           shape_ops=[ShapeOp("squeeze", D.draw_squeeze, lambda lib, x, a: x.squeeze() if a["dim"] is None
                              else x.squeeze(a["dim"]),
                              D.squeeze_ref)]),
    OpInfo("unsqueeze", "movement", lambda lib, x: lib.unsqueeze(x, 0),
           raises=RAISES["unsqueeze"],
           samples=[
               _row("unsqueeze", lambda lib, x: x.unsqueeze(1), [In((2, 3))]),
               _row("unsqueeze_neg", lambda lib, x: lib.unsqueeze(x, -1), [In((2, 3))]),
               _row("unsqueeze_0d", lambda lib, x: x.unsqueeze(0), [In(())]),
               _second("unsqueeze_squeeze", lambda lib, x: x.unsqueeze(1).squeeze(1).sin() * x, [X]),
           ],
           shape_ops=[ShapeOp("unsqueeze", D.draw_unsqueeze, lambda lib, x, a: x.unsqueeze(a["dim"]),
                              D.unsqueeze_ref)]),
    OpInfo("tile", "movement", lambda lib, x: lib.tile(x, (2,)),
           samples=[
               _row("tile", lambda lib, x: x.tile((2,)), [In((2, 3))]),
               _row("tile_fn", lambda lib, x: lib.tile(x, (2, 1, 2)), [In((2, 3))]),
               _second("tile", lambda lib, x: lib.tile(x, (1, 2)) ** 2, [X]),
           ],
           empty=[("reps 0", lambda L, x: L.tile(x, (0, 2)), ((2, 3), F))]),
    OpInfo("repeat_interleave", "movement", lambda lib, x: lib.repeat_interleave(x, 2),
           samples=[
               _row("repeat_interleave", lambda lib, x: x.repeat_interleave(2, dim=1), [In((2, 3))]),
               _row("repeat_interleave_flat", lambda lib, x: lib.repeat_interleave(x, 3), [In((2, 2))]),
               _row("repeat_interleave_tensor", lambda lib, x, r: x.repeat_interleave(r, dim=0),
               [In((3, 2)), _const(np.array([1, 0, 2]))]),
               _row("repeat_interleave_counts_only", lambda lib, r: lib.repeat_interleave(r), [_const([1, 0, 3])]),
               _second("repeat_interleave", lambda lib, x: x.repeat_interleave(2, dim=1) ** 2, [X]),
           ],
           empty=[("empty repeats", lambda L, x: L.repeat_interleave(x, 2, 0), ((0, 3), F)),
                  ("tensor repeats", lambda L, r: L.repeat_interleave(r), ((0,), "int64"))]),
    OpInfo("flip", "movement", lambda lib, x: lib.flip(x, (0,)),
           raises=RAISES["flip"],
           samples=[
               _row("flip", lambda lib, x: x.flip(0), [In((2, 3))]),
               _row2("flip_dims", lambda lib, x: lib.flip(x, (0, -1)), [In((2, 3, 4))]),
               _second("flip", lambda lib, x: x.flip(1) * x, [X]),
               _second("flip_dims", lambda lib, x: (x * x).flip(0, 1) * x, [X]),
           ],
           empty=[("empty", lambda L, x: L.flip(x, (0, 1)), ((0, 3), F))],
           shape_ops=[ShapeOp("flip", D.draw_flip, lambda lib, x, a: x.flip(a["dims"]),
                              lambda x, a: np.flip(x, a["dims"]))]),
    OpInfo("fliplr", "movement", lambda lib, x: lib.fliplr(x),
           samples=[
               _row("fliplr", lambda lib, x: lib.fliplr(x), [In((2, 3))]),
           ]),
    OpInfo("flipud", "movement", lambda lib, x: lib.flipud(x),
           samples=[
               _row("flipud", lambda lib, x: x.flipud(), [In((2, 3))]),
           ]),
    OpInfo("roll", "movement", lambda lib, x: lib.roll(x, 1, 0),
           raises=RAISES["roll"],
           samples=[
               _row("roll", lambda lib, x: x.roll(1, 0), [In((3, 4))]),
               _row("roll_neg_dim", lambda lib, x: lib.roll(x, -2, -1), [In((3, 4))]),
               _row("roll_flat", lambda lib, x: x.roll(5), [In((3, 4))]),
               _row2("roll_multi", lambda lib, x: x.roll((1, -1), (0, 1)), [In((3, 4))]),
               _row("roll_big_shift", lambda lib, x: x.roll(7, 1), [In((3, 4))]),
               _second("roll", lambda lib, x: x.roll(1, 1) * x, [X]),
           ],
           empty=[("empty", lambda L, x: L.roll(x, 2, 1), ((3, 0), F))],
           shape_ops=[ShapeOp("roll", D.draw_roll, lambda lib, x, a: x.roll(a["shifts"], a["dims"]), D.roll_ref)]),
    OpInfo("narrow", "movement", lambda lib, x: lib.narrow(x, 0, 0, 1),
           raises=RAISES["narrow"],
           samples=[
               _row("narrow", lambda lib, x: x.narrow(1, 1, 2), [In((3, 4))]),
               _row("narrow_neg", lambda lib, x: lib.narrow(x, -1, -3, 2), [In((3, 4))]),
               _second("narrow", lambda lib, x: x.narrow(1, 1, 2) ** 2, [X]),
           ],
           empty=[("length 0", lambda L, x: L.narrow(x, 1, 1, 0), ((2, 3), F))],
           shape_ops=[ShapeOp("narrow", D.draw_narrow, lambda lib, x, a: x.narrow(a["dim"], a["start"], a["length"]),
                              D.narrow_ref)]),
    OpInfo("select", "movement", lambda lib, x: lib.select(x, 0, 0),
           raises=RAISES["select"],
           samples=[
               _row("select", lambda lib, x: x.select(1, -1), [In((3, 4))]),
               _second("select", lambda lib, x: x.select(1, 2) * x[:, 0], [X]),
           ],
           empty=[("from an empty dim", lambda L, x: L.select(x, 1, 0), ((2, 0), F)),
                  ("along a nonempty dim", lambda L, x: L.select(x, 0, 1), ((2, 0), F))],
           shape_ops=[ShapeOp("select", D.draw_select, lambda lib, x, a: x.select(a["dim"], a["index"]),
                              lambda x, a: np.take(x, a["index"], axis=D.canon(a["dim"], x.ndim)))]),
    OpInfo("split", "movement", lambda lib, x: lib.split(x, 1)[0],
           raises=RAISES["split"],
           samples=[
               _row("split_size", lambda lib, x: _weighted(lib, x.split(2, 1)), [In((3, 5))]),
               _row2("split_sizes", lambda lib, x: _weighted(lib, lib.split(x, [1, 3, 1], dim=-1)), [In((3, 5))]),
               _row("split_one_piece_used", lambda lib, x: x.split(2)[1], [In((5, 2))]),
               _row("split_larger_than_dim", lambda lib, x: _weighted(lib, x.split(10)), [In((3, 2))]),
               _second("split", lambda lib, x: x.split([1, 2], 1)[1] * x[:, :2], [X]),
           ],
           empty=[("an empty dim", lambda L, x: L.split(x, 2, 1), ((3, 0), F)),
                  ("sizes with 0", lambda L, x: L.split(x, [0, 2, 0], 0), ((2, 3), F))],
           shape_ops=[ShapeOp("split", D.draw_split, lambda lib, x, a: x.split(a["size"], a["dim"])[a["piece"]],
                              D.split_ref)]),
    OpInfo("chunk", "movement", lambda lib, x: lib.chunk(x, 2)[0],
           raises=RAISES["chunk"],
           samples=[
               _row("chunk", lambda lib, x: _weighted(lib, x.chunk(3, 1)), [In((2, 7))]),
               _row2("chunk_uneven", lambda lib, x: _weighted(lib, lib.chunk(x, 4)), [In((6, 2))]),
               _second("chunk", lambda lib, x: x.chunk(2, 0)[0] ** 3, [X]),
           ],
           empty=[("empty dim", lambda L, x: L.chunk(x, 3, 0), ((0, 2), F))],
           shape_ops=[ShapeOp("chunk_cat", D.draw_chunk,
                              lambda lib, x, a: lib.cat(x.chunk(a["chunks"], a["dim"])[::-1], a["dim"]),
                              None)]),
    OpInfo("unbind", "movement", lambda lib, x: lib.unbind(x)[0],
           samples=[
               _row2("unbind", lambda lib, x: _weighted(lib, x.unbind(1)), [In((2, 3))]),
               _row("unbind_one_used", lambda lib, x: lib.unbind(x)[2], [In((3, 2))]),
               _second("unbind", lambda lib, x: x.unbind(0)[1] * x.unbind(0)[0], [X]),
           ],
           empty=[("an empty dim", lambda L, x: L.unbind(x, 1), ((2, 0), F))],
           shape_ops=[ShapeOp("unbind_stack", D.draw_cat, lambda lib, x, a: lib.stack(x.unbind(a["dim"]), a["dim"]) * 2,
                              lambda x, a: x * 2)]),
    OpInfo("tensor_split", "movement", lambda lib, x: lib.tensor_split(x, 2)[0],
           samples=[
               _row("tensor_split", lambda lib, x: _weighted(lib, x.tensor_split(3, dim=1)), [In((2, 7))]),
               _row("tensor_split_indices", lambda lib, x: _weighted(lib, lib.tensor_split(x, [1, 4], dim=0)),
               [In((6, 2))]),
               _second("tensor_split", lambda lib, x: x.tensor_split(3, dim=1)[2] * x[:, :1], [X]),
           ],
           empty=[("sections", lambda L, x: L.tensor_split(x, 3, 1), ((2, 0), F))]),
    OpInfo("cat", "movement", lambda lib, x: lib.cat([x, x]),
           raises=RAISES["cat"],
           samples=[
               _row("cat", lambda lib, x, y: lib.cat([x, y]), [In((2, 3)), In((4, 3))]),
               _row2("cat_neg_dim", lambda lib, x, y, z: lib.cat((x, y, z), dim=-1),
                     [In((2, 1)), In((2, 3)), In((2, 2))]),
               _row("cat_const", lambda lib, x, y: lib.cat([x, y], 1), [In((2, 3)), In((2, 2), grad=False)]),
               _row("cat_same_tensor", lambda lib, x: lib.cat([x, x * 2, x]), [In((2, 3))]),
               _row("cat_legacy_empty", lambda lib, x, e: lib.cat([x, e, x], 0), [In((2, 3)), In((0,))]),
               _row("cat_zero_size", lambda lib, x, e: lib.cat([e, x], 1), [In((2, 3)), In((2, 0))]),
               _second("cat", lambda lib, x, y: lib.cat([x * y, y.exp()], 0) ** 2, [X, X]),
           ],
           float16=[("cat", lambda lib, x, y: lib.cat([x, y], 1))],
           empty=[("empties along 0", lambda L, a, b: L.cat([a, b]), ((0, 3), F), ((2, 3), F)),
                  ("legacy (0,) with (2,3)", lambda L, a, b: L.cat([a, b]), ((0,), F), ((2, 3), F)),
                  ("all empty", lambda L, a, b: L.cat([a, b], 1), ((2, 0), F), ((2, 0), F)),
                  ("mismatched with empty", lambda L, a, b: L.cat([a, b], 0), ((0, 2), F), ((2, 3), F)),
                  ("no tensors", lambda L: L.cat([]))],
           shape_ops=[ShapeOp("cat_self", D.draw_cat, lambda lib, x, a: lib.cat([x, x * 2, x], a["dim"]),
                              lambda x, a: np.concatenate([x, x * 2, x], D.canon(a["dim"], x.ndim)))]),
    OpInfo("concat", "movement", lambda lib, x: lib.concat([x, x]),
           samples=[
               _row("concat", lambda lib, x, y: lib.concat([x, y], dim=1), [In((2, 3)), In((2, 1))]),
           ],
           empty=[("along 1", lambda L, a, b: L.concat([a, b], 1), ((2, 0), F), ((2, 3), F))]),
    OpInfo("concatenate", "movement", lambda lib, x: lib.concatenate([x, x]),
           samples=[
               _row("concatenate", lambda lib, x, y: lib.concatenate([x, y], 0), [In((2, 3)), In((1, 3))]),
           ],
           empty=[("along 0", lambda L, a, b: L.concatenate([a, b], 0), ((0, 3), F), ((1, 3), F))]),
    OpInfo("stack", "movement", lambda lib, x: lib.stack([x, x]),
           raises=RAISES["stack"],
           samples=[
               _row("stack", lambda lib, x, y: lib.stack([x, y]), [In((2, 3)), In((2, 3))]),
               _row2("stack_last", lambda lib, x, y: lib.stack([x, y], dim=-1), [In((2, 3)), In((2, 3))]),
               _row("stack_0d", lambda lib, x, y: lib.stack([x, y]), [In(()), In(())]),
               _second("stack", lambda lib, x, y: lib.stack([x, x * y], 1).sin(), [X, X]),
           ],
           empty=[("two (0,3)", lambda L, a, b: L.stack([a, b], 1), ((0, 3), F), ((0, 3), F)),
                  ("no tensors", lambda L: L.stack([]))],
           shape_ops=[ShapeOp("stack_self", D.draw_unsqueeze, lambda lib, x, a: lib.stack([x, x * 3], a["dim"]),
                              lambda x, a: np.stack([x, x * 3],
                                                    a["dim"] if a["dim"] >= 0 else a["dim"] + x.ndim + 1))]),
    OpInfo("hstack", "movement", lambda lib, x: lib.hstack([x, x]),
           samples=[
               _row("hstack", lambda lib, x, y: lib.hstack([x, y]), [In((2, 3)), In((2, 2))]),
               _row("hstack_1d", lambda lib, x, y: lib.hstack([x, y]), [In((3,)), In((2,))]),
               _second("hstack_vstack", lambda lib, x, y: lib.hstack([x, y]).sum(1) * lib.vstack([x, y]).sum(), [X, X]),
           ],
           empty=[("(2,0),(2,1)", lambda L, a, b: L.hstack([a, b]), ((2, 0), F), ((2, 1), F))]),
    OpInfo("vstack", "movement", lambda lib, x: lib.vstack([x, x]),
           samples=[
               _row("vstack", lambda lib, x, y: lib.vstack([x, y]), [In((3,)), In((2, 3))]),
           ],
           empty=[("(0,3),(1,3)", lambda L, a, b: L.vstack([a, b]), ((0, 3), F), ((1, 3), F))]),
    OpInfo("tril", "movement", lambda lib, x: lib.tril(x),
           raises=RAISES["tril"],
           samples=[
               _row("tril", lambda lib, x: x.tril(), [In((3, 4))]),
               _row2("tril_offset", lambda lib, x: lib.tril(x, -1), [In((2, 3, 3))]),
               _second("tril", lambda lib, x: x.tril() * x, [In((3, 3))]),
           ],
           empty=[("of (0,3)", lambda L, x: L.tril(x), ((0, 3), F))],
           shape_ops=[ShapeOp("tril", D.draw_tri, lambda lib, x, a: x.tril(a["k"]), lambda x, a: np.tril(x, a["k"]))]),
    OpInfo("triu", "movement", lambda lib, x: lib.triu(x),
           raises=RAISES["triu"],
           samples=[
               _row("triu", lambda lib, x: x.triu(1), [In((3, 4))]),
               _row("triu_neg", lambda lib, x: lib.triu(x, diagonal=-1), [In((4, 3))]),
               _second("triu", lambda lib, x: (x * x).triu(1), [In((3, 3))]),
           ],
           empty=[("of (2,0)", lambda L, x: L.triu(x, 1), ((2, 0), F))],
           shape_ops=[ShapeOp("triu", D.draw_tri, lambda lib, x, a: x.triu(a["k"]), lambda x, a: np.triu(x, a["k"]))]),
    OpInfo("diagonal", "movement", lambda lib, x: lib.diagonal(x),
           raises=RAISES["diagonal"],
           samples=[
               _row("diagonal", lambda lib, x: x.diagonal(), [In((3, 4))]),
               _row("diagonal_offset", lambda lib, x: lib.diagonal(x, 1), [In((3, 4))]),
               _row2("diagonal_neg_offset_dims", lambda lib, x: x.diagonal(-1, 0, 2), [In((3, 2, 4))]),
               _row("diagonal_last_dims", lambda lib, x: x.diagonal(dim1=-2, dim2=-1), [In((2, 3, 3))]),
               _row("diagonal_swapped_dims", lambda lib, x: x.diagonal(0, 1, 0), [In((3, 4))]),
               _second("diagonal", lambda lib, x: x.diagonal() ** 3, [In((3, 3))]),
           ],
           empty=[("of (0,3)", lambda L, x: L.diagonal(x), ((0, 3), F))],
           shape_ops=[ShapeOp("diagonal", D.draw_diagonal, lambda lib, x, a: x.diagonal(a["offset"], a["d1"], a["d2"]),
                              lambda x, a: np.diagonal(x, a["offset"], a["d1"], a["d2"]))]),
    OpInfo("diag", "movement", lambda lib, x: lib.diag(x),
           raises=RAISES["diag"],
           samples=[
               _row("diag_1d", lambda lib, x: lib.diag(x), [In((3,))]),
               _row("diag_1d_offset", lambda lib, x: lib.diag(x, -2), [In((3,))]),
               _row("diag_2d", lambda lib, x: x.diag(1), [In((3, 4))]),
               _second("diag_embed", lambda lib, x: lib.diag(x * x), [V3]),
               _second("diag_2d", lambda lib, x: (x * x).diag() * x.diag(), [In((3, 3))]),
           ]),
    OpInfo("diag_embed", "movement", lambda lib, x: lib.diag_embed(x),
           samples=[
               _row("diag_embed", lambda lib, x: lib.diag_embed(x), [In((2, 3))]),
               _row2("diag_embed_offset", lambda lib, x: lib.diag_embed(x, 1), [In((2, 3))]),
               _row2("diag_embed_dims", lambda lib, x: lib.diag_embed(x, -1, 2, 0), [In((2, 3))]),
           ],
           empty=[("of (0,)", lambda L, x: L.diag_embed(x), ((2, 0), F))]),
    OpInfo("clone", "movement", lambda lib, x: lib.clone(x),
           samples=[
               _row("clone", lambda lib, x: x.clone(), [In((3, 4))]),
               _row("clone_fn", lambda lib, x: lib.clone(x.t()), [In((3, 4))]),
               _second("clone_contiguous", lambda lib, x: x.t().contiguous().clone() ** 3, [X]),
           ],
           float16=[("clone", lambda lib, x, y: x.clone())],
           shape_ops=[ShapeOp("clone_t", D.none, lambda lib, x, a: x.t().clone() if x.ndim <= 2 else x.clone(),
                              lambda x, a: x.T if x.ndim <= 2 else x)]),
    OpInfo("meshgrid", "movement", lambda lib, x: lib.meshgrid(x, x, indexing="ij")[0],
           samples=[
               _row("meshgrid", lambda lib, x, y: _weighted(lib, lib.meshgrid(x, y, indexing="ij")),
                    [In((3,)), In((2,))]),
               _row("meshgrid_xy", lambda lib, x, y: _weighted(lib, lib.meshgrid(x, y, indexing="xy")),
                    [In((3,)), In((2,))]),
           ],
           empty=[("with an empty", lambda L, a, b: L.meshgrid(a, b, indexing="ij"), ((0,), F), ((3,), F))]),
]
