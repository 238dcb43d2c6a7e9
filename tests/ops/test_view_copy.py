"""What the op table's rows cannot say about the view-copy operators, the indexed writes and the strided views:
a ``_copy`` result is fresh memory and a view is not; the in-place forms write into the tensor and rebase its
graph as PyTorch's do; the graph nodes carry PyTorch's names. (Values and gradients: tests/opinfo
family_view_copy.py and family_scatter_extra.py.)"""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
import family_view_copy

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch, which is not installed")


@pytest.mark.parametrize("name, call, shape, many", family_view_copy.COPIES, ids=[c[0] for c in family_view_copy.COPIES])
def test_copy_results_are_fresh_memory(name, call, shape, many):
    x = npgrad.arange(float(np.prod(shape))).reshape(shape)
    before = x.clone()
    out = call(npgrad, x)
    for o in (out if many else (out,)):
        assert o._view_of is None
        o.fill_(-7.0)
    assert bool((x == before).all()), f"{name}: writing to the result changed the input"


def test_the_views_they_copy_do_share_memory():
    x = npgrad.zeros(2, 4)
    x.unfold(1, 2, 2).fill_(1.0)
    x.as_strided((2,), (5,)).add_(2.0)
    np.testing.assert_array_equal(x.numpy(), [[3, 1, 1, 1], [1, 3, 1, 1]])


@pytest.mark.parametrize("method, args", [
    ("index_copy_", lambda L: (0, L.tensor([1]), L.ones(1, 3))),
    ("index_fill_", lambda L: (1, L.tensor([0, 2]), 5.0)),
    ("index_put_", lambda L: ((L.tensor([0, 1]), L.tensor([2, 0])), L.tensor([1.0, 2.0]), True)),
    ("index_reduce_", lambda L: (0, L.tensor([1, 1]), L.full((2, 3), 2.0), "prod")),
    ("masked_scatter_", lambda L: (L.tensor([[True, False, True], [False, True, False]]), L.arange(5.0))),
    ("put_", lambda L: (L.tensor([5, 0]), L.tensor([9.0, 8.0]))),
    ("scatter_reduce_", lambda L: (1, L.tensor([[0, 0], [2, 2]]), L.ones(2, 2), "amax", )),
    ("as_strided_", lambda L: ((3,), (2,))),
])
def test_inplace_forms_write_into_the_tensor_and_rebase_its_graph(method, args):
    def run(L):
        w = L.arange(6.0, requires_grad=True)
        x = (w * 1).reshape(2, 3)
        y = getattr(x, method)(*args(L))
        assert y is x
        (x * L.arange(float(x.numel())).reshape(x.shape)).sum().backward()
        return x.detach().numpy(), w.grad.numpy(), x.shape
    out_n, grad_n, shape_n = run(npgrad)
    if HAS_TORCH:
        with warnings.catch_warnings():  # PyTorch calls index_reduce beta (once per process)
            warnings.simplefilter("ignore", UserWarning)
            out_t, grad_t, shape_t = run(torch)
        assert tuple(shape_n) == tuple(shape_t)
        np.testing.assert_allclose(out_n, out_t)
        np.testing.assert_allclose(grad_n, grad_t)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda L, x: x.index_copy(0, L.tensor([1]), L.ones(1, 3)),
    lambda L, x: x.index_fill(0, L.tensor([1]), 2.0),
    lambda L, x: x.index_put((L.tensor([0]),), L.tensor(1.0)),
    lambda L, x: x.put(L.tensor([0]), L.tensor([9.0])),
    lambda L, x: x.masked_scatter(x > 0, L.ones(6)),
    lambda L, x: x.scatter_reduce(1, L.tensor([[0, 0]]), L.ones(1, 2), "mean"),
    lambda L, x: x.select_scatter(L.ones(3), 0, 0),
    lambda L, x: x.slice_scatter(L.ones(2, 1), 1, 0, 1),
    lambda L, x: x.diagonal_scatter(L.ones(2)),
    lambda L, x: x.as_strided_scatter(L.ones(2), (2,), (1,)),
    lambda L, x: x.as_strided((2, 2), (1, 2), 1),
    lambda L, x: x.unfold(1, 2, 1),
])
def test_graph_node_names_are_pytorchs(call):
    # (not the view-copies and the unsafe_ splits: they keep their view's node, SplitBackward0 where PyTorch
    # says UnsafeSplitBackward0, PermuteBackward0 for its PermuteBackward0_copy)
    def name(L):
        return call(L, L.ones(2, 3, requires_grad=True)).grad_fn.name()
    assert name(npgrad) == name(torch)


def test_as_strided_default_offset_is_the_views_own():
    # a view's storage is its base's memory: as_strided without an offset starts where the view starts
    base = npgrad.arange(12.0)
    v = base[5:]
    np.testing.assert_array_equal(v.as_strided((2,), (3,)).numpy(), [5.0, 8.0])
    np.testing.assert_array_equal(v.as_strided((2,), (3,), 0).numpy(), [0.0, 3.0])
    if HAS_TORCH:
        tv = torch.arange(12.0)[5:]
        assert tv.as_strided((2,), (3,)).tolist() == [5.0, 8.0] and tv.as_strided((2,), (3,), 0).tolist() == [0.0, 3.0]
