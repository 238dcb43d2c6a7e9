"""Tensor-only methods (npgrad/ops/tensor_extras.py, ops/sampling.py): in-place comparisons and shifts,
cumsum_/cumprod_, fill_diagonal_, sum_to_size, new/new_empty_strided, resize_ and friends, apply_/map_/map2_,
the legacy attributes, and the random fills cauchy_/geometric_/log_normal_ (by their statistics)."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
def test_inplace_comparisons_write_ones_and_zeros_in_the_tensors_dtype(L):
    x = L.tensor([1.0, 2.0, 3.0])
    assert x.lt_(2.5) is x
    np.testing.assert_array_equal(_np(x), [1.0, 1.0, 0.0])
    i = L.tensor([1, 2, 3])
    i.greater_equal_(L.tensor([1, 3, 3]))
    assert _np(i).dtype == np.int64 and _np(i).tolist() == [1, 0, 1]
    for name, want in [("eq_", [0, 1, 0]), ("ne_", [1, 0, 1]), ("not_equal_", [1, 0, 1]), ("le_", [1, 1, 0]),
                       ("less_equal_", [1, 1, 0]), ("less_", [1, 0, 0]), ("gt_", [0, 0, 1]), ("greater_", [0, 0, 1]),
                       ("ge_", [0, 1, 1])]:
        t = L.tensor([1.0, 2.0, 3.0])
        np.testing.assert_array_equal(_np(getattr(t, name)(2)), want, err_msg=name)


def test_inplace_comparison_keeps_the_tensor_in_the_graph_with_zero_gradient():
    x = npgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.lt_(3)
    assert y.requires_grad and y.grad_fn.name() == "LtBackward0"
    (y * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0])  # only through the second factor
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.eq_(1)
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
        npgrad.ones(2).eq_(npgrad.ones(2, 2))


def test_shifts_and_scans_in_place():
    x = npgrad.tensor([1, 2])
    assert x.bitwise_left_shift_(2).tolist() == [4, 8]
    assert x.bitwise_right_shift_(npgrad.tensor([1, 3])).tolist() == [2, 1]
    s = npgrad.tensor([1, 2, 3], dtype=npgrad.int8)
    assert s.cumsum_(0).tolist() == [1, 3, 6] and s.dtype == npgrad.int8
    p = npgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(p.cumprod_(dim=1).numpy(), np.cumprod([[1.0, 2.0], [3.0, 4.0]], axis=1))
    with pytest.raises(RuntimeError, match="input tensor dtype long int and output tensor dtype float should match"):
        npgrad.tensor([1, 2]).cumsum_(0, dtype=npgrad.float32)
    leaf = npgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = leaf * 1
    y.cumsum_(0)
    y.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [3.0, 2.0, 1.0])


def test_fill_diagonal_like_numpy_and_its_gradient():
    for shape, wrap in [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), True), ((2, 2, 2), False)]:
        want = np.zeros(shape)
        np.fill_diagonal(want, 5, wrap=wrap)
        np.testing.assert_array_equal(npgrad.zeros(*shape).fill_diagonal_(5, wrap=wrap).numpy(), want)
    x = npgrad.ones(3, 3, requires_grad=True)
    y = x * 2
    y.fill_diagonal_(0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * (1 - np.eye(3)))


def test_sum_to_size_sums_broadcast_dims_and_differentiates():
    x = npgrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    np.testing.assert_array_equal(x.sum_to_size(2, 1).detach().numpy(), [[3.0], [12.0]])
    np.testing.assert_array_equal(x.sum_to_size((3,)).detach().numpy(), [3.0, 5.0, 7.0])
    assert x.sum_to_size(2, 3) is x
    x.sum_to_size(1, 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"size \{\[2, 2\]\} is not expandable to size \{\[2, 3\]\}\."):
        x.sum_to_size(2, 2)


def test_legacy_constructor_and_strided_empty():
    x = npgrad.ones(2, 3, dtype=npgrad.float64)
    assert x.new().shape == (0,) and x.new().dtype == npgrad.float64
    assert x.new(2, 3).shape == (2, 3) and x.new(npgrad.Size([4])).shape == (4,)
    assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new((2, 3)).dtype == npgrad.float64
    leaf = npgrad.ones(2, dtype=npgrad.float64, requires_grad=True)
    alias = x.new(leaf)
    assert alias.data_ptr() == leaf.data_ptr() and alias.grad_fn is not None
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        x.new(2.5)
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == npgrad.float64


def test_resize_family():
    t = npgrad.arange(6.0)
    view = t.resize_(2, 2)
    assert view is t and t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert t.resize_(3, 3).shape == (3, 3) and t.flatten()[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert npgrad.arange(6.0).resize_as_(npgrad.ones(3, 2)).shape == (3, 2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        npgrad.ones(2, requires_grad=True).resize_(3)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = npgrad.arange(6.0, requires_grad=True).resize(2, 3)
    assert r.shape == (2, 3) and r.requires_grad
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert npgrad.arange(6.0).resize_as(npgrad.ones(3, 2)).shape == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=r"requested resize to 2x2 \(4 elements in total\)"):
            npgrad.arange(6.0).resize(2, 2)


def test_apply_map_map2():
    x = npgrad.arange(4.0)
    assert x.apply_(lambda v: v * v) is x and x.tolist() == [0.0, 1.0, 4.0, 9.0]
    i = npgrad.tensor([1, 2, 3])
    assert i.map_(npgrad.tensor([10, 20, 30]), lambda a, b: a + b + 0.7).tolist() == [11, 22, 33]
    f = npgrad.arange(3.0).map2_(npgrad.ones(3), npgrad.tensor([2.0]), lambda a, b, c: a + b * c)
    assert f.tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        npgrad.ones(2, requires_grad=True).apply_(float)
    with pytest.raises(TypeError, match="map_: expected torch.LongTensor for 'other' "):
        npgrad.arange(3).map_(npgrad.ones(3), lambda a, b: a)


def test_legacy_attributes():
    x = npgrad.ones(2, 3)
    with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        x.volatile = True
    assert x.name is None and x.is_mkldnn is False
    assert x.grad_dtype == npgrad.float32 and npgrad.ones(2, dtype=npgrad.int64).grad_dtype == npgrad.int64
    assert x.dim_order() == (0, 1) and x.t().dim_order() == (1, 0)
    assert npgrad.ones(2, 3, 4).permute(2, 0, 1).dim_order() == (1, 2, 0)
    with pytest.raises(RuntimeError, match="does not have unique dim order"):
        npgrad.ones(2, 1).dim_order(ambiguity_check=True)
    assert x.const_data_ptr() == x.data_ptr()
    other = npgrad.zeros(2, 3)
    loaded = x.module_load(other)  # copied into x (load_state_dict's default)
    assert loaded.data_ptr() == x.data_ptr() and x.tolist() == other.tolist() and not loaded.requires_grad
    assigned = npgrad.ones(2).module_load(other, assign=True)
    assert assigned.data_ptr() == other.data_ptr() and assigned is not other
    import npgrad.nn as nn
    p = npgrad.ones(2, requires_grad=True)
    y = p * 2
    s = y.as_subclass(nn.Parameter)
    assert type(s) is nn.Parameter and s.requires_grad and type(y) is npgrad.Tensor
    assert s.data_ptr() == y.data_ptr()
    s.sum().backward()
    assert p.grad.tolist() == [2.0, 2.0]


def test_random_fills_follow_their_distributions():
    npgrad.manual_seed(0)
    n = 200_000
    c = npgrad.empty(n).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.05 and abs(np.percentile(c, 75) - 3.0) < 0.1  # quartiles at median +- sigma
    g = npgrad.empty(n).geometric_(0.25).numpy()
    assert g.min() == 1 and abs(g.mean() - 4.0) < 0.05 and abs(g.var() - 12.0) < 0.5  # trials to the first success
    gi = npgrad.empty(5, dtype=npgrad.int64).geometric_(0.5)
    assert gi.dtype == npgrad.int64 and gi.min().item() >= 1
    ln = npgrad.empty(n, dtype=npgrad.float64).log_normal_(0.5, 0.25).numpy()
    assert abs(np.log(ln).mean() - 0.5) < 0.005 and abs(np.log(ln).std() - 0.25) < 0.005
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\), but got p=1.5"):
        npgrad.zeros(3).geometric_(1.5)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        npgrad.zeros(2, requires_grad=True).cauchy_()
    gen = npgrad.Generator().manual_seed(3)
    a = npgrad.empty(4).log_normal_(generator=gen)
    b = npgrad.empty(4).log_normal_(generator=npgrad.Generator().manual_seed(3))
    assert a.tolist() == b.tolist()


def test_poisson_and_binomial_statistics():
    npgrad.manual_seed(0)
    rates = npgrad.full((100_000,), 3.0)
    draws = npgrad.poisson(rates).numpy()
    assert draws.dtype == np.float32 and abs(draws.mean() - 3.0) < 0.03 and abs(draws.var() - 3.0) < 0.1
    b = npgrad.binomial(npgrad.full((100_000,), 10.0), npgrad.full((100_000,), 0.3)).numpy()
    assert abs(b.mean() - 3.0) < 0.03 and abs(b.var() - 2.1) < 0.08 and b.max() <= 10


def _grad_dtype_story(L):
    out = []
    p = L.ones(2, requires_grad=True)
    out.append(p.grad_dtype)
    p.grad_dtype = L.float64
    out.append(p.grad_dtype)
    (p * 3).sum().backward()
    (p * 3).sum().backward()  # accumulates in float64
    out.append((p.grad.dtype, p.grad.tolist()))
    q = L.ones(2, requires_grad=True)
    q.grad_dtype = None  # any dtype: the incoming gradient's
    out.append(q.grad_dtype)
    (q * 2).sum().backward()
    out.append(q.grad.dtype)
    try:
        (q * 2).grad_dtype = L.float64
    except RuntimeError as e:
        out.append(str(e))
    r = L.ones(2, requires_grad=True)
    r.grad_dtype = L.float64
    r.grad_dtype = L.float32
    out.append(r.grad_dtype)
    s = L.ones(2, requires_grad=True)
    s.grad_dtype = L.float64
    out.append(L.autograd.grad((s * 2).sum(), s)[0].dtype)  # autograd.grad answers in it too
    return [str(o).replace("npgrad.", "").replace("torch.", "") for o in out]


def test_grad_dtype_sets_the_dtype_gradients_arrive_in():
    want = ["float32", "float64", "(float64, [6.0, 6.0])", "None", "float32",
            "grad_dtype can only be set on leaf tensors.", "float32", "float64"]
    assert _grad_dtype_story(npgrad) == want
    if HAS_TORCH:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _grad_dtype_story(torch) == want


def test_to_dense_of_a_dense_tensor():
    t = npgrad.ones(2, requires_grad=True)
    assert t.to_dense() is t
    d = t.to_dense(npgrad.float64)
    assert d.dtype == npgrad.float64 and d.grad_fn is not None
    d.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0]
    if torch is not None:
        tt = torch.ones(2, requires_grad=True)
        assert (tt.to_dense() is tt) and tt.to_dense(torch.float64).grad_fn is not None
