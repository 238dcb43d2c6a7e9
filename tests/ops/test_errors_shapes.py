"""Bad shapes, dims and indices get PyTorch's errors (type and wording) across the operator families, and
zero-size tensors behave as in PyTorch (values, shapes, and gradients through them)."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _table_tests import errors_like_torch_test


# -- the errors named in the issue, checked word for word (no torch needed) ----------------------------------------

def test_matmul_inner_dimension_mismatch():
    with pytest.raises(RuntimeError) as e:
        npgrad.ones(3, 2) @ npgrad.ones(3, 2)
    assert str(e.value) == "mat1 and mat2 shapes cannot be multiplied (3x2 and 3x2)"


def test_index_out_of_range():
    with pytest.raises(IndexError) as e:
        npgrad.ones(3)[5]
    assert str(e.value) == "index 5 is out of bounds for dimension 0 with size 3"


def test_invalid_dim():
    with pytest.raises(IndexError) as e:
        npgrad.ones(2, 3).sum(2)
    assert str(e.value) == "Dimension out of range (expected to be in range of [-2, 1], but got 2)"


def test_cat_mismatched_sizes():
    with pytest.raises(RuntimeError) as e:
        npgrad.cat([npgrad.ones(2, 3), npgrad.ones(2, 4)])
    assert str(e.value) == ("Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for "
                            "tensor number 1 in the list.")


def test_reshape_invalid_shape():
    with pytest.raises(RuntimeError) as e:
        npgrad.ones(2, 3).reshape(4, 2)
    assert str(e.value) == "shape '[4, 2]' is invalid for input of size 6"


def test_float_tensor_as_index():
    with pytest.raises(IndexError) as e:
        npgrad.ones(3)[npgrad.tensor([0.0, 1.0])]
    assert str(e.value) == "tensors used as indices must be long, int, byte or bool tensors"


# -- dims out of range, op by op ------------------------------------------------------------------------------------

DIM_OPS = {
    "sum": lambda L, x: x.sum(2), "mean": lambda L, x: x.mean(-3), "prod": lambda L, x: x.prod(2),
    "max": lambda L, x: x.max(2), "min": lambda L, x: x.min(-3), "amax": lambda L, x: x.amax(2),
    "amin_tuple": lambda L, x: x.amin((0, 2)), "argmax": lambda L, x: x.argmax(2), "argmin": lambda L, x: x.argmin(-3),
    "var": lambda L, x: x.var(2), "std": lambda L, x: x.std((0, 2)), "logsumexp": lambda L, x: x.logsumexp(2),
    "norm": lambda L, x: x.norm(dim=2), "all": lambda L, x: x.all(2), "any": lambda L, x: x.any(-3),
    "count_nonzero": lambda L, x: L.count_nonzero(x, 2), "cumsum": lambda L, x: x.cumsum(2),
    "cumprod": lambda L, x: x.cumprod(-3), "cat": lambda L, x: L.cat([x, x], 2), "stack": lambda L, x: L.stack([x, x], 3),
    "transpose": lambda L, x: x.transpose(0, 2), "permute": lambda L, x: x.permute(0, 2),
    "squeeze": lambda L, x: x.squeeze(2), "unsqueeze": lambda L, x: x.unsqueeze(3), "flatten": lambda L, x: x.flatten(0, 2),
    "unflatten": lambda L, x: x.unflatten(2, (1, 3)), "narrow": lambda L, x: x.narrow(2, 0, 1),
    "select": lambda L, x: x.select(2, 0), "split": lambda L, x: x.split(1, 2), "chunk": lambda L, x: x.chunk(2, -3),
    "tensor_split": lambda L, x: x.tensor_split(2, 2), "unbind": lambda L, x: x.unbind(2),
    "flip": lambda L, x: x.flip(2), "roll": lambda L, x: x.roll(1, 2), "movedim": lambda L, x: x.movedim(2, 0),
    "diagonal": lambda L, x: x.diagonal(0, 0, 2), "cross": lambda L, x: L.cross(x, x, dim=2),
    "gather": lambda L, x: x.gather(2, L.zeros(2, 3, dtype=L.int64)),
    "scatter": lambda L, x: x.scatter(2, L.zeros(2, 3, dtype=L.int64), 1.0),
    "scatter_add": lambda L, x: x.scatter_add(2, L.zeros(2, 3, dtype=L.int64), L.ones(2, 3)),
    "index_select": lambda L, x: x.index_select(2, L.tensor([0])),
    "index_add": lambda L, x: x.index_add(2, L.tensor([0]), L.ones(2, 1)),
    "take_along_dim": lambda L, x: L.take_along_dim(x, L.zeros(2, 3, dtype=L.int64), 2),
    "repeat_interleave": lambda L, x: x.repeat_interleave(2, dim=2), "size": lambda L, x: x.size(2),
    "stride": lambda L, x: x.stride(-3),
}


@pytest.mark.parametrize("name", sorted(DIM_OPS))
def test_dim_out_of_range(name):
    with pytest.raises(IndexError) as e:
        DIM_OPS[name](npgrad, npgrad.ones(2, 3))
    assert str(e.value) in ("Dimension out of range (expected to be in range of [-2, 1], but got 2)",
                            "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
                            "Dimension out of range (expected to be in range of [-3, 2], but got 3)")
    if HAS_TORCH:
        with pytest.raises(IndexError) as et:
            DIM_OPS[name](torch, torch.ones(2, 3))
        assert str(e.value) == str(et.value)


def test_dim_of_0d_tensor():
    # A 0-d tensor accepts dims 0 and -1 (PyTorch treats it as having one dim for this purpose).
    x = npgrad.tensor(2.0)
    assert x.sum(0).item() == 2.0 and x.sum(-1).item() == 2.0 and x.cumsum(0).item() == 2.0
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        x.sum(1)


# -- zero-size tensors: values, shapes and gradients like PyTorch ----------------------------------------------------

ZERO_SIZE = {
    "sum": (lambda L, x: x.sum(), (0, 3)),
    "sum_dim0": (lambda L, x: x.sum(0), (0, 3)),
    "mean_dim1": (lambda L, x: x.mean(1), (0, 3)),
    "prod": (lambda L, x: x.prod(), (0,)),
    "amax_nonempty_dim": (lambda L, x: x.amax(1), (0, 3)),
    "max_nonempty_dim": (lambda L, x: x.max(1).values, (0, 3)),
    "cumsum": (lambda L, x: x.cumsum(0), (0, 3)),
    "norm": (lambda L, x: x.norm(), (0, 3)),
    "matmul_k0": (lambda L, x: x.t() @ x, (0, 3)),
    "matmul_n0": (lambda L, x: x @ L.ones(3, 2), (0, 3)),
    "bmm_batch0": (lambda L, x: L.bmm(x.reshape(0, 1, 3), L.ones(0, 3, 2)), (0, 3)),
    "einsum": (lambda L, x: L.einsum("ij,jk->ik", x, L.ones(3, 2)), (0, 3)),
    "cat_with_empty": (lambda L, x: L.cat([x, L.ones(2, 3)]), (0, 3)),
    "cat_legacy_empty": (lambda L, x: L.cat([L.ones(2, 3), x]), (0,)),
    "stack": (lambda L, x: L.stack([x, x], 1), (0, 3)),
    "reshape": (lambda L, x: x.reshape(3, 0, 1), (0, 3)),
    "reshape_infer": (lambda L, x: x.reshape(-1, 3), (0, 3)),
    "view_infer_zero": (lambda L, x: x.view(2, -1), (0, 3)),
    "expand": (lambda L, x: x.expand(2, 0, 3), (0, 3)),
    "getitem_slice": (lambda L, x: x[1:], (0, 3)),
    "getitem_empty_index": (lambda L, x: x[L.tensor([], dtype=L.int64)], (4, 3)),
    "getitem_false_mask": (lambda L, x: x[x > 10], (4, 3)),
    "gather": (lambda L, x: x.gather(0, L.zeros(0, 3, dtype=L.int64)), (2, 3)),
    "index_select": (lambda L, x: x.index_select(0, L.tensor([], dtype=L.int64)), (2, 3)),
    "split": (lambda L, x: L.cat(x.split(2, 0)), (0, 3)),
    "repeat": (lambda L, x: x.repeat(0, 2), (2, 3)),
    "narrow": (lambda L, x: x.narrow(1, 3, 0), (2, 3)),
    "flip": (lambda L, x: x.flip(0), (0, 3)),
    "tril": (lambda L, x: x.tril(), (0, 3)),
    "diagonal": (lambda L, x: x.diagonal(), (0, 3)),
    "var_dim0": (lambda L, x: x.var(0), (0, 3)),
}

if HAS_TORCH:
    @pytest.mark.parametrize("name", sorted(ZERO_SIZE))
    def test_zero_size_matches_torch(name):
        fn, shape = ZERO_SIZE[name]
        got = []
        for lib in (npgrad, torch):
            x = lib.ones(*shape, requires_grad=True)
            out = fn(lib, x)
            if out.requires_grad:
                out.sum().backward()
            grad = None if x.grad is None else x.grad.numpy()
            got.append((out.detach().numpy(), grad))
        (on, gn), (ot, gt) = got
        assert on.shape == ot.shape and on.dtype == ot.dtype
        np.testing.assert_array_equal(on, ot)
        assert (gn is None) == (gt is None)
        if gn is not None:
            assert gn.shape == gt.shape
            np.testing.assert_array_equal(gn, gt)


def test_zero_size_by_hand():
    x = npgrad.ones(0, 3, requires_grad=True)
    assert x.sum().item() == 0.0
    assert (x.t() @ x).tolist() == [[0.0] * 3] * 3
    out = npgrad.cat([x, npgrad.ones(2, 3)]) * 2
    out.sum().backward()
    assert x.grad.shape == (0, 3)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) "
                                           r"== 0"):
        x.max()


if HAS_TORCH:
    EMPTY_ERRORS = {
        "max": lambda L: L.ones(0, 3).max(),
        "max_dim0": lambda L: L.ones(0, 3).max(0),
        "amin": lambda L: L.ones(0, 3).amin(),
        "argmin": lambda L: L.ones(0).argmin(),
        "reshape_infer_zero": lambda L: L.ones(0, 3).reshape(0, -1),
        "matmul_mismatch_empty": lambda L: L.ones(0, 3) @ L.ones(2, 0),
        "cat_mismatch_empty": lambda L: L.cat([L.ones(0, 3), L.ones(0, 2)]),
    }

    test_zero_size_errors_match_torch = errors_like_torch_test(EMPTY_ERRORS)
