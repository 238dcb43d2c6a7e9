"""In-place operations and views: gradients of graphs that modify tensors in place (directly, through a
view, through a view of a view) against PyTorch and finite differences, the version-counter and leaf
errors, and in-place behaviour outside the graph."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, check_against_torch, torch
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test, torch_parity_test


def _w(lib, t):
    """A fixed weighting so every element's gradient differs."""
    return lib.tensor(np.linspace(-1.5, 2.0, t.numel()).reshape(tuple(t.shape))).to(t.dtype)


def _ip(body):
    """A scenario on a non-leaf: y = x * 1, body(lib, y, *others) mutates y in place, then y is weighted."""
    def fn(lib, x, *others):
        y = x * 1.0
        r = body(lib, y, *others)
        assert r is None or r is y, "an in-place method returns the tensor itself"
        return y * _w(lib, y)
    return fn


def _add_(lib, y, z):
    y.add_(z)


def _add_alpha_(lib, y, z):
    y.add_(z, alpha=-2.0)


def _sub_(lib, y, z):
    y.sub_(z)


def _mul_(lib, y, z):
    y.mul_(z)


def _div_(lib, y, z):
    y.div_(z)


def _iadd(lib, y, z):
    y += z


def _isub(lib, y, z):
    y -= z * 2


def _imul(lib, y, z):
    y *= z


def _idiv(lib, y, z):
    y /= z


def _ipow(lib, y):
    y **= 2


def _chain(lib, y, z):
    y.mul_(2).add_(z).exp_()


def _clamp_(lib, y):
    y.clamp_(-0.5, 0.7)


def _clamp_min_(lib, y):
    y.clamp_(min=0.1)


def _zero_(lib, y):
    y[1:].zero_()


def _fill_(lib, y):
    y[:, 0].fill_(3.0)


def _fill_tensor_(lib, y, v):
    y[0].fill_(v)


def _copy_(lib, y, z):
    y.copy_(z)


def _copy_broadcast_(lib, y, z):
    y[1:].copy_(z)  # z has shape (4,): broadcast into a (2, 4) view


def _copy_cast_(lib, y, z):
    y.copy_(z.double())


def _unary_(lib, y):
    y.sin_()         # needs its input: the old value is kept for backward
    y.mul_(0.5)
    y.exp_()         # saves its output: fine, nothing changes it afterwards


def _relu_(lib, y):
    y.relu_()


def _masked_fill_(lib, y):
    y.masked_fill_(y > 0.5, -1.0)


def _col_iadd(lib, y):
    y[:, 0] += 1


def _row_imul(lib, y, z):
    y[1] *= z


def _view_mul_(lib, y):
    v = y[0]
    v.mul_(3.0)


def _transpose_view_add_(lib, y, z):
    y.t().add_(z)  # z is (4, 3): written through a transposed view


def _view_of_view(lib, y, z):
    v = y[1:][:, 1:3]
    v.mul_(z)


def _reshape_view(lib, y):
    y.view(-1)[::2].mul_(-2.0)


def _diagonal_view(lib, y, z):
    y[:, :3].diagonal().add_(z)


def _narrow_views(lib, y):
    a, b = y.narrow(1, 0, 2), y.narrow(1, 2, 2)
    b.mul_(4.0)
    a.add_(b)    # a view modified in place using another view of the same base


def _inplace_then_view_used(lib, y, z):
    v = y[0]
    v.add_(z)
    y.mul_(2.0)


def _expand_source(lib, y, z):
    y.add_(z.expand(3, 4))


def _squeeze_(lib, y):
    y.unsqueeze_(0)
    y.squeeze_(0)
    y.t_()
    y.t_()


def _addmm_(lib, y, a, b):
    y.addmm_(a, b, beta=0.5)


def _index_add_(lib, y, z):
    y.index_add_(0, lib.tensor([2, 0, 2]), z)


def _scatter_add_(lib, y, z):
    y.scatter_add_(1, lib.tensor([[0, 1, 1, 0], [3, 3, 0, 1], [2, 2, 2, 2]]), z)


def _lerp_(lib, y, z):
    y.lerp_(z, 0.3)


def _view_of_plain_base(lib, w):
    z = lib.zeros(3, 4, dtype=w.dtype)  # requires no grad until a view of it is written with w
    z[1].add_(w)
    z[:, 2].mul_(w[0])
    z.t()[0].copy_(w[1:])
    return z * _w(lib, z)


SHAPE = (3, 4)
CASES = [
    OpCase("add_", _ip(_add_), [In(SHAPE), In(SHAPE)]),
    OpCase("add_broadcast_alpha", _ip(_add_alpha_), [In(SHAPE), In((4,))]),
    OpCase("sub_", _ip(_sub_), [In(SHAPE), In((3, 1))]),
    OpCase("mul_", _ip(_mul_), [In(SHAPE), In(SHAPE)]),
    OpCase("div_", _ip(_div_), [In(SHAPE), In((4,), nonzero=True)]),
    OpCase("iadd", _ip(_iadd), [In(SHAPE), In(SHAPE)]),
    OpCase("isub", _ip(_isub), [In(SHAPE), In(())]),
    OpCase("imul", _ip(_imul), [In(SHAPE), In((4,))]),
    OpCase("idiv", _ip(_idiv), [In(SHAPE), In(SHAPE, nonzero=True)]),
    OpCase("ipow", _ip(_ipow), [In(SHAPE)]),
    OpCase("chained_inplace", _ip(_chain), [In(SHAPE, -1, 1), In(SHAPE, -1, 1)]),
    OpCase("clamp_", _ip(_clamp_), [In(SHAPE)]),
    OpCase("clamp_min_", _ip(_clamp_min_), [In(SHAPE)]),
    OpCase("zero_view", _ip(_zero_), [In(SHAPE)]),
    OpCase("fill_view", _ip(_fill_), [In(SHAPE)]),
    OpCase("fill_tensor_value", _ip(_fill_tensor_), [In(SHAPE), In(())]),
    OpCase("copy_", _ip(_copy_), [In(SHAPE), In(SHAPE)]),
    OpCase("copy_broadcast_into_view", _ip(_copy_broadcast_), [In(SHAPE), In((4,))]),
    OpCase("copy_other_dtype", _ip(_copy_cast_), [In(SHAPE), In(SHAPE)], dtypes=(np.float32,)),
    OpCase("unary_inplace", _ip(_unary_), [In(SHAPE)]),
    OpCase("relu_", _ip(_relu_), [In(SHAPE)]),
    OpCase("masked_fill_", _ip(_masked_fill_), [In(SHAPE)]),
    OpCase("column_iadd", _ip(_col_iadd), [In(SHAPE)]),
    OpCase("row_imul", _ip(_row_imul), [In(SHAPE), In((4,))]),
    OpCase("view_mul_", _ip(_view_mul_), [In(SHAPE)]),
    OpCase("transposed_view_add_", _ip(_transpose_view_add_), [In(SHAPE), In((4, 3))]),
    OpCase("view_of_view", _ip(_view_of_view), [In(SHAPE), In((2, 2))]),
    OpCase("reshaped_strided_view", _ip(_reshape_view), [In(SHAPE)]),
    OpCase("diagonal_view", _ip(_diagonal_view), [In(SHAPE), In((3,))]),
    OpCase("narrow_views", _ip(_narrow_views), [In(SHAPE)]),
    OpCase("view_then_base_inplace", _ip(_inplace_then_view_used), [In(SHAPE), In((4,))]),
    OpCase("add_expanded", _ip(_expand_source), [In(SHAPE), In((1, 4))]),
    OpCase("shape_inplace", _ip(_squeeze_), [In(SHAPE)]),
    OpCase("addmm_", _ip(_addmm_), [In(SHAPE), In((3, 2)), In((2, 4))]),
    OpCase("index_add_", _ip(_index_add_), [In(SHAPE), In(SHAPE)]),
    OpCase("scatter_add_", _ip(_scatter_add_), [In(SHAPE), In(SHAPE)]),
    OpCase("lerp_", _ip(_lerp_), [In(SHAPE), In(SHAPE)]),
    OpCase("view_of_plain_base", _view_of_plain_base, [In((4,))]),
]


if HAS_TORCH:
    @pytest.mark.parametrize("case", CASES, ids=str)
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test_matches_torch(case, dtype):
        if dtype in case.dtypes:
            check_against_torch(case, dtype)

    test_double_backward_matches_torch = double_backward_test([c for c in CASES if c.name in {
        "mul_", "chained_inplace", "view_of_view", "transposed_view_add_", "diagonal_view", "unbind_views",
        "row_imul", "narrow_views", "unary_inplace", "view_of_plain_base"}])


test_finite_differences = finite_difference_test(CASES)


# -- views created before the base changes -------------------------------------------------------------------

def _inplace_on_stale_view(lib, x, z):
    y = x * 1.0
    v = y[0]          # created before the in-place change of its base ...
    y.mul_(2.0)
    v.add_(z)         # ... then modified in place itself: it must build on the changed base
    return y * _w(lib, y)


def _two_views_one_modified(lib, x, z):
    y = x * 1.0
    a, b = y[0], y[:, 1]
    a.mul_(z)         # b overlaps a and is now stale
    b.mul_(3.0)
    return y * _w(lib, y)


STALE = [
    OpCase("inplace_on_stale_view", _inplace_on_stale_view, [In(SHAPE), In((4,))]),
    OpCase("sibling_view_after_inplace", _two_views_one_modified, [In(SHAPE), In((4,))]),
]

if HAS_TORCH:
    test_stale_views_match_torch = torch_parity_test(STALE)


test_stale_views_finite_differences = finite_difference_test(STALE)


def _stale_view_read(lib, refresh):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1.0
    v = y[0]          # created before the in-place change of its base, then only read
    y.mul_(2.0)
    refresh(v)
    (v * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    return v.detach().numpy().copy(), x.grad.numpy().copy()


def test_refresh_view_rederives_grad_fn():
    from npgrad.autograd.views import refresh_view
    value, grad = _stale_view_read(npgrad, refresh_view)
    np.testing.assert_array_equal(value, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(grad, [[2.0, 20.0, 200.0], [0.0, 0.0, 0.0]])
    if HAS_TORCH:
        t_value, t_grad = _stale_view_read(torch, lambda v: v)
        np.testing.assert_array_equal(value, t_value)
        np.testing.assert_array_equal(grad, t_grad)


# -- version counter: tensors saved for backward must not change ------------------------------------------------

def _modified_saved_output(lib):
    x = lib.ones(3, requires_grad=True)
    y = x.exp()      # saves its output
    y.add_(1.0)
    y.sum().backward()


def _modified_saved_input(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 2.0
    z = y * y        # saves y
    y.mul_(3.0)
    z.sum().backward()


def _modified_through_view(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = x * 2.0
    z = y.sigmoid()  # saves its output
    z[0].zero_()     # modified through a view
    z.sum().backward()


def _modified_base_of_saved_view(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = x * 2.0
    v = y[1]
    z = v * v        # saves the view
    y.add_(1.0)      # changes the base, hence the view
    z.sum().backward()


def _modified_by_setitem(lib):
    x = lib.ones(3, requires_grad=True)
    y = x.tanh()
    y[0] = 0.0
    y.sum().backward()


def _mul_by_itself(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 2.0
    y.mul_(y)        # the other operand is the tensor being modified
    y.sum().backward()


def _unbind_piece_uses_sibling(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = x * 2.0
    a, b = y.narrow(0, 0, 1), y.narrow(0, 1, 1)
    z = a * 3.0 * a  # saves the view a
    b.mul_(2.0)      # same base: the shared version counter moves
    z.sum().backward()


VERSION_ERRORS = {
    "mul_by_itself": _mul_by_itself,
    "sibling_view": _unbind_piece_uses_sibling,
    "saved_output": _modified_saved_output,
    "saved_input": _modified_saved_input,
    "through_view": _modified_through_view,
    "base_of_saved_view": _modified_base_of_saved_view,
    "setitem": _modified_by_setitem,
}


@pytest.mark.parametrize("name", sorted(VERSION_ERRORS))
def test_modified_saved_tensor_raises(name):
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation"):
        VERSION_ERRORS[name](npgrad)
    if HAS_TORCH:
        with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been "
                                               "modified by an inplace operation"):
            VERSION_ERRORS[name](torch)


MULTI_VIEW = {
    "split": lambda y: y.split(2, 1)[1],
    "chunk": lambda y: y.chunk(2, 1)[0],
    "unbind": lambda y: y.unbind(0)[1],
}


@pytest.mark.parametrize("name", sorted(MULTI_VIEW))
def test_inplace_on_output_of_multi_view_op(name):
    # Forbidden while recording a graph (PyTorch's rule and message); allowed without grad.
    x = npgrad.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace. This view is the output of a "
                                           "function that returns multiple views."):
        MULTI_VIEW[name](x * 1.0).mul_(2.0)
    plain = npgrad.ones(3, 4)
    MULTI_VIEW[name](plain).mul_(2.0)
    assert plain.sum().item() > 12.0
    with npgrad.no_grad():
        MULTI_VIEW[name](x * 1.0).mul_(2.0)
    if HAS_TORCH:
        with pytest.raises(RuntimeError) as et:
            MULTI_VIEW[name](torch.ones(3, 4, requires_grad=True) * 1.0).mul_(2.0)
        with pytest.raises(RuntimeError) as en:
            MULTI_VIEW[name](npgrad.ones(3, 4, requires_grad=True) * 1.0).mul_(2.0)
        assert str(en.value) == str(et.value)


def test_inplace_on_unsaved_tensor_is_fine():
    x = npgrad.ones(3, requires_grad=True)
    y = x * 2.0
    z = y + 1.0      # add saves nothing
    y.mul_(3.0)
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_versions_count_each_inplace_op():
    x = npgrad.zeros(2, 3)
    v = x[0]
    assert x._version == 0
    x.add_(1)
    x[1] = 2.0
    v.mul_(3)
    x.zero_()
    assert x._version == 4 and v._version == 4
    y = x.detach()
    y.fill_(1.0)
    assert x._version == 5 and x.tolist() == [[1.0] * 3] * 2


# -- leaves ------------------------------------------------------------------------------------------------------

LEAF_OPS = {
    "add_": lambda x: x.add_(1.0),
    "iadd": lambda x: x.__iadd__(1.0),
    "mul_tensor": lambda x: x.mul_(npgrad.ones(3) if isinstance(x, npgrad.Tensor) else torch.ones(3)),
    "zero_": lambda x: x.zero_(),
    "fill_": lambda x: x.fill_(2.0),
    "copy_": lambda x: x.copy_(x.detach() * 2),
    "clamp_": lambda x: x.clamp_(0.0, 1.0),
    "exp_": lambda x: x.exp_(),
    "view_add_": lambda x: x[1:].add_(1.0),
    "view_zero_": lambda x: x[0].zero_(),
    "unsqueeze_": lambda x: x.unsqueeze_(0),
}


@pytest.mark.parametrize("name", sorted(LEAF_OPS))
def test_inplace_on_leaf_requiring_grad_raises(name):
    x = npgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"a (view of a )?leaf Variable that requires grad is being used in an "
                                           r"in-place operation\."):
        LEAF_OPS[name](x)
    assert x.tolist() == [1.0, 1.0, 1.0]  # nothing was written
    if HAS_TORCH:
        t = torch.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as et:
            LEAF_OPS[name](t)
        with pytest.raises(RuntimeError) as en:
            LEAF_OPS[name](npgrad.ones(3, requires_grad=True))
        assert str(en.value) == str(et.value)


def test_inplace_on_leaf_allowed_without_grad():
    x = npgrad.ones(3, requires_grad=True)
    with npgrad.no_grad():
        x.mul_(2.0)
        x[0] += 1.0
        x.clamp_(max=2.5)
    assert x.tolist() == [2.5, 2.0, 2.0] and x.is_leaf and x.requires_grad and x.grad_fn is None
    x.data.add_(1.0)  # .data is outside the graph too
    assert x.tolist() == [3.5, 3.0, 3.0]
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 6.0, 6.0])


def test_inplace_with_grad_value_makes_target_require_grad():
    z = npgrad.zeros(3)
    w = npgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z.add_(w * 2)
    assert z.requires_grad and z.grad_fn is not None and not z.is_leaf
    z.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_inplace_returns_self_and_keeps_identity():
    x = npgrad.ones(2, 2, requires_grad=True)
    y = x * 1.0
    for op in (lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.clamp_(0, 3), lambda t: t.zero_(),
               lambda t: t.copy_(x), lambda t: t.fill_(1.0), lambda t: t.exp_()):
        assert op(y) is y
    before = id(y)
    y += 1
    y *= x
    assert id(y) == before


# -- in-place errors with PyTorch's wording ----------------------------------------------------------------------

if HAS_TORCH:
    ERRORS = {
        "int_add_float": lambda L: L.ones(3, dtype=L.int64).add_(1.5),
        "int_mul_float_tensor": lambda L: L.ones(3, dtype=L.int64).mul_(L.ones(3)),
        "int_div": lambda L: L.ones(3, dtype=L.int64).div_(2),
        "bool_add": lambda L: L.ones(3, dtype=L.bool).add_(1),
        "broadcast_grows_target": lambda L: L.ones(3).add_(L.ones(2, 3)),
        "broadcast_mismatch": lambda L: L.ones(3).mul_(L.ones(4)),
        "copy_shape": lambda L: L.ones(3).copy_(L.ones(4)),
        "fill_tensor_dims": lambda L: L.ones(3).fill_(L.ones(2)),
        "expanded_target": lambda L: L.ones(1, 3).expand(2, 3).add_(1.0),
        "grad_expanded_target": lambda L: (L.ones(1, 3, requires_grad=True) * 1).expand(2, 3).mul_(2.0),
    }

    test_errors_match_torch = errors_like_torch_test(ERRORS)
