"""``x[...]`` and ``x[...] = v`` against PyTorch and finite differences: every index kind and their
combinations, gradient accumulation over repeated indices, assignment's gradient rules, and the errors."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from _table_tests import (double_backward_test, errors_like_torch_test, expected_errors_test, finite_difference_test,
                          torch_parity_test)
from opinfo import DOUBLE_BACKWARD, FD, PARITY, grad_samples, raised, samples

# The indexing operators' rows live in the op table: tests/opinfo/family_indexing.py.
if HAS_TORCH:
    test_op_table_matches_torch = torch_parity_test(samples(PARITY, "indexing"))
    test_op_table_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, "indexing")))
test_op_table_finite_differences = finite_difference_test(grad_samples(samples(FD, "indexing")))
test_op_table_expected_errors = expected_errors_test(raised("indexing"))


def _idx(lib, a, dtype=None):
    """An index tensor built inside the expression, so each library gets its own."""
    return lib.tensor(np.asarray(a)) if dtype is None else lib.tensor(np.asarray(a), dtype=dtype)


MASK_34 = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

GET = [
    # ints
    OpCase("int", lambda lib, x: x[1], [In((3, 4))]),
    OpCase("int_neg", lambda lib, x: x[-1], [In((3, 4))]),
    OpCase("int_pair", lambda lib, x: x[1, -2], [In((3, 4))]),
    OpCase("int_0d_tensor", lambda lib, x: x[_idx(lib, 2)], [In((3, 4))]),
    OpCase("int_0d_tensor_pair", lambda lib, x: x[_idx(lib, 1), _idx(lib, 0)], [In((3, 4))]),
    # slices
    OpCase("slice", lambda lib, x: x[1:], [In((3, 4))]),
    OpCase("slice_step", lambda lib, x: x[::2, 1::2], [In((5, 4))]),
    OpCase("slice_negative_bounds", lambda lib, x: x[-3:-1, :-1], [In((4, 4))]),
    OpCase("slice_out_of_range_bounds", lambda lib, x: x[1:10, -10:2], [In((3, 4))]),
    OpCase("slice_empty", lambda lib, x: x[2:2], [In((3, 4))]),
    OpCase("slice_int_mix", lambda lib, x: x[1:, 2], [In((3, 4))]),
    # None and Ellipsis
    OpCase("none", lambda lib, x: x[None], [In((3, 4))]),
    OpCase("none_middle", lambda lib, x: x[:, None, 1:], [In((3, 4))]),
    OpCase("ellipsis_int", lambda lib, x: x[..., 1], [In((2, 3, 4))]),
    OpCase("int_ellipsis", lambda lib, x: x[1, ...], [In((2, 3, 4))]),
    OpCase("none_ellipsis_none", lambda lib, x: x[None, ..., None], [In((2, 3))]),
    OpCase("ellipsis_only", lambda lib, x: x[...], [In((2, 3))]),
    OpCase("0d_ellipsis", lambda lib, x: x[...], [In(())]),
    OpCase("0d_none", lambda lib, x: x[None], [In(())]),
    # boolean masks
    OpCase("mask_full", lambda lib, x: x[_idx(lib, MASK_34)], [In((3, 4))]),
    OpCase("mask_from_compare", lambda lib, x: x[x > 0], [In((3, 4))]),
    OpCase("mask_rows", lambda lib, x: x[_idx(lib, [True, False, True])], [In((3, 4))]),
    OpCase("mask_cols", lambda lib, x: x[:, _idx(lib, [False, True, True, False])], [In((3, 4))]),
    OpCase("mask_all_false", lambda lib, x: x[_idx(lib, np.zeros((3, 4), bool))], [In((3, 4))]),
    OpCase("mask_with_ellipsis", lambda lib, x: x[..., _idx(lib, [True, False, True, True])], [In((2, 3, 4))]),
    OpCase("mask_list", lambda lib, x: x[[True, False, True]], [In((3, 2))]),
    OpCase("bool_scalar_true", lambda lib, x: x[True], [In((3,))]),
    OpCase("bool_scalar_false", lambda lib, x: x[False], [In((3,))]),
    # integer tensors and lists (advanced indexing)
    OpCase("list", lambda lib, x: x[[0, 2]], [In((3, 4))]),
    OpCase("list_repeated", lambda lib, x: x[[0, 2, 0, 0]], [In((3, 4))]),
    OpCase("list_negative", lambda lib, x: x[[-1, 0, -1]], [In((3, 4))]),
    OpCase("tensor_2d_index", lambda lib, x: x[_idx(lib, [[0, 1], [1, 1]])], [In((3, 4))]),
    OpCase("tensor_int32_index", lambda lib, x: x[_idx(lib, [2, 2, 0], lib.int32)], [In((3, 4))]),
    OpCase("ndarray_index", lambda lib, x: x[np.array([1, 1, 0])], [In((3, 4))]),
    OpCase("two_lists", lambda lib, x: x[[0, 2, 0], [1, 3, 1]], [In((3, 4))]),
    OpCase("two_tensors_broadcast", lambda lib, x: x[_idx(lib, [[0], [2]]), _idx(lib, [1, 3, 1])], [In((3, 4))]),
    OpCase("list_then_slice", lambda lib, x: x[[2, 0, 2], 1:], [In((3, 4))]),
    OpCase("slice_then_list", lambda lib, x: x[1:, [3, 0, 3]], [In((3, 4))]),
    OpCase("int_and_list", lambda lib, x: x[1, [0, 2, 2]], [In((3, 4))]),
    OpCase("list_slice_list_separated", lambda lib, x: x[[0, 1], :, [2, 2]], [In((2, 3, 4))]),
    OpCase("slice_list_slice", lambda lib, x: x[:, [2, 0, 2], :], [In((2, 3, 4))]),
    OpCase("ellipsis_list", lambda lib, x: x[..., [3, 3, 0]], [In((2, 3, 4))]),
    OpCase("none_list", lambda lib, x: x[None, [1, 1]], [In((3, 4))]),
    OpCase("list_none_slice", lambda lib, x: x[[1, 0], None, ::2], [In((3, 4))]),
    OpCase("mask_and_list", lambda lib, x: x[_idx(lib, [True, False, True]), [0, 3]], [In((3, 4))]),
    OpCase("empty_list", lambda lib, x: x[_idx(lib, np.zeros(0, np.int64))], [In((3, 4))]),
    OpCase("large_repeated", lambda lib, x: x[_idx(lib, np.arange(200) % 7)], [In((7, 3))]),
    # chained indexing (a view of a view)
    OpCase("chained", lambda lib, x: x[1:][:, ::2][0], [In((3, 4))]),
    OpCase("chained_advanced", lambda lib, x: x[[2, 0, 2]][:, [1, 1]], [In((3, 4))]),
]


if HAS_TORCH:
    test_getitem_matches_torch = torch_parity_test(GET)

    test_getitem_double_backward_matches_torch = double_backward_test([c for c in GET if c.name in {
        "slice_step", "list_repeated", "two_tensors_broadcast", "mask_full", "list_slice_list_separated",
        "chained_advanced", "large_repeated", "none_middle"}])


test_getitem_finite_differences = finite_difference_test(GET)


def test_repeated_indices_accumulate():
    x = npgrad.zeros(4, 2, requires_grad=True)
    x[[0, 3, 0, 0]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3, 3], [0, 0], [0, 0], [1, 1]])
    x = npgrad.zeros(3, 3, requires_grad=True)
    x[[1, 1, 2], [0, 0, 2]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0, 0], [2, 0, 0], [0, 0, 1]])


def test_basic_indexing_is_a_view_advanced_is_a_copy():
    x = npgrad.arange(12.0).reshape(3, 4)
    basic, adv, mask = x[1:, ::2], x[[1, 2]], x[x > 5]
    x.mul_(-1)
    assert basic.tolist() == [[-4.0, -6.0], [-8.0, -10.0]]
    assert adv.tolist()[0] == [4.0, 5.0, 6.0, 7.0]
    assert mask.tolist()[0] == 6.0


# -- x[idx] = value ---------------------------------------------------------------------------------------------

def _set(expr_index, value_shape=None, scalar=None):
    """A setitem scenario: y = x * 1 (a non-leaf), y[index] = v (or a Python scalar), out = y * w."""
    def fn(lib, x, *v):
        y = x * 1.0
        y[expr_index(lib)] = v[0] if v else scalar
        return y * lib.tensor(np.linspace(-1.0, 2.0, y.numel()).reshape(tuple(y.shape))).to(y.dtype)
    return fn


SET = [
    OpCase("set_int_row", _set(lambda lib: 1), [In((3, 4)), In((4,))]),
    OpCase("set_int_broadcast_value", _set(lambda lib: 1), [In((3, 4)), In((1,))]),
    OpCase("set_scalar_value", _set(lambda lib: (0, 2), scalar=5.0), [In((3, 4))]),
    OpCase("set_0d_tensor_value", _set(lambda lib: (slice(None), 1)), [In((3, 4)), In(())]),
    OpCase("set_slice", _set(lambda lib: (slice(1, None), slice(None, None, 2))), [In((3, 4)), In((2, 2))]),
    OpCase("set_slice_broadcast", _set(lambda lib: slice(0, 2)), [In((3, 4)), In((4,))]),
    OpCase("set_ellipsis", _set(lambda lib: (Ellipsis, 0)), [In((2, 3, 4)), In((2, 3))]),
    OpCase("set_all", _set(lambda lib: Ellipsis), [In((3, 4)), In((3, 4))]),
    OpCase("set_mask", _set(lambda lib: _idx(lib, MASK_34)), [In((3, 4)), In((6,))]),
    OpCase("set_mask_scalar_tensor", _set(lambda lib: _idx(lib, MASK_34)), [In((3, 4)), In(())]),
    OpCase("set_mask_rows", _set(lambda lib: _idx(lib, [True, False, True])), [In((3, 4)), In((4,))]),
    OpCase("set_list", _set(lambda lib: [2, 0]), [In((3, 4)), In((2, 4))]),
    OpCase("set_two_lists", _set(lambda lib: ([0, 2, 1], [3, 0, 0])), [In((3, 4)), In((3,))]),
    OpCase("set_list_and_slice", _set(lambda lib: (slice(None), [0, 3])), [In((3, 4)), In((3, 1))]),
    OpCase("set_tensor_index", _set(lambda lib: _idx(lib, [[1], [2]])), [In((3, 4)), In((4,))]),
]


def _set_value_depends_on_target(lib, x):
    y = x * 2.0
    y[0] = y[1] + y[2]  # the value reads the tensor being written
    y[1:, 1] = y[0, 2:] - 1.0
    return y


def _set_twice(lib, x, v):
    y = x * 3.0
    y[1:, 0] = v
    y[2] = y[0].clone() * v[0]
    return y.sum(1)


def _set_through_view(lib, x, v):
    y = x * 1.0
    row = y[1]        # a view of y
    row[1:3] = v      # writing through the view changes y (CopySlices on y)
    return y * y


def _set_no_grad_target(lib, x):
    z = lib.zeros(3, 4, dtype=x.dtype)  # does not require grad; after the write it does
    z[1] = x
    z[:, 0] = x[1] * 2
    return z


def _set_then_getitem(lib, x, v):
    y = x + 0.0
    y[[0, 2]] = v
    return y[[2, 2, 1]]


SET += [
    OpCase("set_value_depends_on_target", _set_value_depends_on_target, [In((3, 4))]),
    OpCase("set_twice", _set_twice, [In((3, 4)), In((2,))]),
    OpCase("set_through_view", _set_through_view, [In((3, 4)), In((2,))]),
    OpCase("set_no_grad_target", _set_no_grad_target, [In((4,))]),
    OpCase("set_then_getitem", _set_then_getitem, [In((3, 4)), In((4,))]),
]

if HAS_TORCH:
    test_setitem_matches_torch = torch_parity_test(SET)

    test_setitem_double_backward_matches_torch = double_backward_test([c for c in SET if c.name in {
        "set_slice", "set_mask", "set_two_lists", "set_value_depends_on_target", "set_through_view"}])


test_setitem_finite_differences = finite_difference_test(SET)


def test_setitem_gradient_rules_by_hand():
    # The overwritten region of x gets zero gradient; the value gets the gradient of the written region.
    x = npgrad.ones(2, 3, requires_grad=True)
    v = npgrad.tensor([5.0, 6.0], requires_grad=True)
    y = x * 2.0
    y[:, 1] = v
    (y * npgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 0.0, 6.0], [8.0, 0.0, 12.0]])
    np.testing.assert_array_equal(v.grad.numpy(), [2.0, 5.0])
    assert y.tolist() == [[2.0, 5.0, 2.0], [2.0, 6.0, 2.0]]


def test_setitem_on_leaf_requiring_grad_raises():
    x = npgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                           "operation."):
        x[0] = 2.0
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation."):
        x[1:][0] = 2.0
    with npgrad.no_grad():
        x[0] = 2.0  # allowed outside the graph (optimizer-style updates)
    assert x.tolist() == [2.0, 1.0, 1.0] and x.requires_grad and x.is_leaf


if HAS_TORCH:
    def test_setitem_leaf_errors_match_torch():
        for body in (lambda x: x.__setitem__(0, 2.0), lambda x: x[1:].__setitem__(0, 2.0)):
            with pytest.raises(RuntimeError) as et:
                body(torch.ones(3, requires_grad=True))
            with pytest.raises(RuntimeError) as en:
                body(npgrad.ones(3, requires_grad=True))
            assert str(en.value) == str(et.value)


def test_setitem_without_grad_bumps_version_and_casts():
    x = npgrad.zeros(2, 3)
    v0 = x._version
    x[0, 1] = 7
    x[1] = npgrad.tensor([1, 2, 3])  # int64 value into a float tensor: cast, as in PyTorch
    assert x.tolist() == [[0.0, 7.0, 0.0], [1.0, 2.0, 3.0]] and x.dtype == npgrad.float32
    assert x._version == v0 + 2
    i = npgrad.zeros(3, dtype=npgrad.int64)
    i[1] = 2.7  # a float into an int tensor truncates
    assert i.tolist() == [0, 2, 0]


def test_setitem_saved_tensor_then_backward_raises():
    x = npgrad.ones(3, requires_grad=True)
    y = x * 1.0
    z = y * y  # saves y
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been "
                                           "modified by an inplace operation"):
        z.sum().backward()


# -- zero-size results and empty indices --------------------------------------------------------------------------

def test_empty_index_results():
    x = npgrad.ones(3, 4, requires_grad=True)
    parts = [x[2:2], x[[]], x[x > 5], x[:, 4:]]
    assert [p.shape for p in parts] == [(0, 4), (0, 4), (0,), (3, 0)]
    sum(p.sum() for p in parts).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))
    e = npgrad.zeros(0, 3)
    assert e[:, 1].shape == (0,) and e[[]].shape == (0, 3)


# -- errors ------------------------------------------------------------------------------------------------------

def test_index_error_wording():
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3$"):
        npgrad.ones(3)[5]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        npgrad.ones(3)[npgrad.tensor([0.0, 1.0])]


if HAS_TORCH:
    ERRORS = {
        "int_out_of_range": lambda L: L.ones(3)[5],
        "int_neg_out_of_range": lambda L: L.ones(3)[-4],
        "int_out_of_range_dim1": lambda L: L.ones(2, 3)[:, 3],
        "list_out_of_range": lambda L: L.ones(3)[[0, 3]],
        "list_out_of_range_dim1": lambda L: L.ones(2, 3)[:, [0, 7]],
        "tensor_out_of_range": lambda L: L.ones(3)[L.tensor([5])],
        "float_tensor_index": lambda L: L.ones(3)[L.tensor([0.0, 1.0])],
        "float_scalar_index": lambda L: L.ones(3)[1.0],
        "too_many_indices": lambda L: L.ones(3)[0, 0],
        "too_many_indices_2d": lambda L: L.ones(2, 3)[0, 1, 2],
        "0d_int_index": lambda L: L.tensor(1.0)[0],
        "negative_step": lambda L: L.ones(3)[::-1],
        "zero_step": lambda L: L.ones(3)[::0],
        "mask_shape": lambda L: L.ones(3, 4)[L.ones(2, 4, dtype=L.bool)],
        "mask_shape_1d": lambda L: L.ones(3, 4)[L.tensor([True, False])],
        "indices_do_not_broadcast": lambda L: L.ones(3, 4)[[0, 1], [0, 1, 2]],
        "indices_do_not_broadcast_3": lambda L: L.ones(3, 4, 5)[[0, 1], [0, 1, 2], [0]],
        "list_out_of_range_after_int": lambda L: L.ones(2, 3, 4)[1, :, [0, 9]],
        "list_out_of_range_after_mask": lambda L: L.ones(2, 3, 4)[:, L.tensor([True, False, True]), [9]],
        "mask_shape_dim1": lambda L: L.ones(3, 4, 5)[:, L.ones(4, 4, dtype=L.bool)],
        "mask_shape_middle": lambda L: L.ones(3, 4, 5)[:, L.ones(2, dtype=L.bool)],
        "set_advanced_shape_mismatch": lambda L: L.ones(3, 4).__setitem__((slice(None), [0, 1]), L.ones(3)),
        "set_mask_count_mismatch": lambda L: L.ones(3, 4).__setitem__(L.ones(3, 4, dtype=L.bool), L.ones(5)),
        "set_value_too_many_dims": lambda L: L.ones(3, 4).__setitem__(0, L.ones(2, 4)),
        "set_leaf_int": lambda L: L.ones(3, 4, requires_grad=True).__setitem__(0, 1.0),
        "set_leaf_partial_slice": lambda L: L.ones(3, 4, requires_grad=True).__setitem__(slice(1, None), 1.0),
        "set_leaf_full_slice": lambda L: L.ones(3, 4, requires_grad=True).__setitem__(slice(None), 1.0),
        "set_leaf_list": lambda L: L.ones(3, 4, requires_grad=True).__setitem__([0, 1], 1.0),
        "set_leaf_int_and_list": lambda L: L.ones(3, 4, requires_grad=True).__setitem__(([0, 1], 0), 1.0),
        "set_leaf_slice_list": lambda L: L.ones(3, 4, requires_grad=True).__setitem__((slice(None), [0, 1]), 1.0),
        "set_leaf_none": lambda L: L.ones(3, 4, requires_grad=True).__setitem__(None, 1.0),
        "set_out_of_range": lambda L: L.ones(3).__setitem__(5, 1.0),
        "set_shape_mismatch": lambda L: L.ones(3, 4).__setitem__(0, L.ones(3)),
        "set_float_index": lambda L: L.ones(3).__setitem__(L.tensor([0.5]), 1.0),
    }

    test_errors_match_torch = errors_like_torch_test(ERRORS)
