"""Shape and layout ops (reshape/view, permute, squeeze, expand, repeat, flip, roll, split, cat, gather,
scatter, masked_fill, diagonal ...) against PyTorch and finite differences, plus view semantics, errors
and zero-size dims."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from _table_tests import (double_backward_test, errors_like_torch_test, expected_errors_test, finite_difference_test,
                          no_upcast_test, torch_parity_test)
from opinfo import DOUBLE_BACKWARD, FD, NO_UPCAST, PARITY, grad_samples, raised, samples

# The movement operators' rows live in the op table (tests/opinfo/family_movement.py)
if HAS_TORCH:
    test_op_table_matches_torch = torch_parity_test(samples(PARITY, "movement"))
    test_op_table_double_backward = double_backward_test(grad_samples(samples(DOUBLE_BACKWARD, "movement")))
test_op_table_finite_differences = finite_difference_test([c for c in samples(FD, "movement") if c.fd])
test_op_table_float32_gradients_stay_float32 = no_upcast_test(samples(NO_UPCAST, "movement"))
test_op_table_expected_errors = expected_errors_test(raised("movement"))


CASES = [
    # Rows of the movement operators live in the op table (tests/opinfo/family_movement.py, the indexing ones in
    # family_indexing.py); here the Tensor methods and attributes that are no operator
    OpCase("view", lambda lib, x: x.view(2, 6), [In((3, 4))]),
    OpCase("view_infer", lambda lib, x: x.view(-1), [In((2, 3, 2))]),
    OpCase("view_as", lambda lib, x, y: x.view_as(y), [In((3, 4)), In((6, 2), grad=False)]),
    OpCase("reshape_as", lambda lib, x, y: x.reshape_as(y), [In((3, 4)), In((2, 6), grad=False)]),
    OpCase("T", lambda lib, x: x.T, [In((3, 4))]),
    OpCase("mT", lambda lib, x: x.mT, [In((2, 3, 4))]),
    OpCase("expand", lambda lib, x: x.expand(2, 3, 4), [In((3, 1))]),
    OpCase("expand_minus1", lambda lib, x: x.expand(-1, 4), [In((3, 1))]),
    OpCase("expand_0d", lambda lib, x: x.expand(2, 3), [In(())]),
    OpCase("expand_as", lambda lib, x, y: x.expand_as(y), [In((1, 4)), In((3, 4), grad=False)]),
    OpCase("repeat", lambda lib, x: x.repeat(2, 3), [In((2, 3))]),
    OpCase("repeat_more_dims", lambda lib, x: x.repeat(2, 1, 3), [In((2, 3))]),
    OpCase("repeat_0d", lambda lib, x: x.repeat(3), [In(())]),
    OpCase("contiguous", lambda lib, x: x.t().contiguous(), [In((3, 4))]),
    OpCase("contiguous_noop", lambda lib, x: (x * 1).contiguous(), [In((3, 4))]),
]

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)

    SECOND_ORDER = [c for c in CASES if c.name in {"expand", "repeat_more_dims"}]

    test_double_backward_matches_torch = double_backward_test(SECOND_ORDER)


test_finite_differences = finite_difference_test([c for c in CASES if c.fd])


# -- views share memory and the version counter ----------------------------------------------------------------

VIEWS = {
    "view": lambda x: x.view(6, 2),
    "reshape_contiguous": lambda x: x.reshape(2, 6),
    "permute": lambda x: x.permute(1, 0),
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(0, 1),
    "split": lambda x: x.split(2, 1)[1],
    "chunk": lambda x: x.chunk(2, 0)[0],
    "unbind": lambda x: x.unbind(0)[2],
    "diagonal": lambda x: x.diagonal(),
    "movedim": lambda x: x.movedim(0, 1),
    "getitem_slice": lambda x: x[1:, ::2],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_memory(name):
    # PyTorch documents each of these as a view: a write through the base shows in the result.
    x = npgrad.arange(12.0).reshape(3, 4)
    v = VIEWS[name](x)
    before = v.clone()
    x.add_(100.0)
    np.testing.assert_array_equal(v.numpy(), before.numpy() + 100.0)
    assert v._version == x._version


COPIES = {
    "flip": lambda x: x.flip(0),
    "roll": lambda x: x.roll(1, 0),
    "repeat": lambda x: x.repeat(1, 1),
    "clone": lambda x: x.clone(),
    "contiguous_of_view": lambda x: x.t().contiguous(),
    "reshape_noncontiguous": lambda x: x.t().reshape(-1),
    "cat": lambda x: npgrad.cat([x]),
    "tril": lambda x: x.tril(),
    "gather": lambda x: x.gather(0, npgrad.zeros(1, 4, dtype=npgrad.int64)),
    "index_select": lambda x: x.index_select(0, npgrad.tensor([0])),
}


@pytest.mark.parametrize("name", sorted(COPIES))
def test_copies_do_not_share_memory(name):
    x = npgrad.arange(12.0).reshape(3, 4)
    c = COPIES[name](x)
    before = c.clone()
    x.add_(100.0)
    np.testing.assert_array_equal(c.numpy(), before.numpy())


def test_contiguous_returns_self_when_contiguous():
    x = npgrad.ones(2, 3)
    assert x.contiguous() is x
    assert not x.t().is_contiguous() and x.t().contiguous().is_contiguous()


# -- zero-size dims -------------------------------------------------------------------------------------------

if HAS_TORCH:
    EMPTY = {
        "reshape": lambda L, x: x.reshape(3, 0),
        "reshape_infer": lambda L, x: x.reshape(0, -1, 1) if False else x.reshape(-1, 3, 1),
        "permute": lambda L, x: x.permute(1, 0),
        "flatten": lambda L, x: x.flatten(),
        "expand": lambda L, x: x.unsqueeze(0).expand(2, 0, 3),
        "repeat": lambda L, x: x.repeat(2, 2),
        "flip": lambda L, x: x.flip(0),
        "roll": lambda L, x: x.roll(1, 1),
        "cat": lambda L, x: L.cat([x, L.ones(2, 3)]),
        "cat_all_empty": lambda L, x: L.cat([x, x]),
        "stack": lambda L, x: L.stack([x, x]),
        "split": lambda L, x: L.cat(x.split(1, 1)),
        "chunk": lambda L, x: L.cat(x.chunk(2, 1), 1),
        "tril": lambda L, x: x.tril(),
        "narrow": lambda L, x: x.narrow(1, 1, 0),
        "gather": lambda L, x: x.gather(1, L.zeros(0, 2, dtype=L.int64)),
        "index_select": lambda L, x: x.index_select(1, L.tensor([0, 2])),
    }

    @pytest.mark.parametrize("name", sorted(EMPTY))
    def test_zero_size_matches_torch(name):
        res = []
        for lib in (npgrad, torch):
            x = lib.zeros(0, 3, requires_grad=True)
            out = EMPTY[name](lib, x)
            out.sum().backward()
            res.append((tuple(out.shape), x.grad.shape if x.grad is not None else None))
        assert res[0] == (res[1][0], tuple(res[1][1]) if res[1][1] is not None else None)

    def test_split_of_empty_dim_matches_torch():
        for lib_a, lib_b in [(npgrad, torch)]:
            a = [tuple(p.shape) for p in lib_a.zeros(0, 2).split(2)]
            b = [tuple(p.shape) for p in lib_b.zeros(0, 2).split(2)]
            assert a == b
            a = [tuple(p.shape) for p in lib_a.zeros(0, 2).chunk(3)]
            b = [tuple(p.shape) for p in lib_b.zeros(0, 2).chunk(3)]
            assert a == b
            assert len(lib_a.zeros(0, 2).unbind(0)) == len(lib_b.zeros(0, 2).unbind(0)) == 0


# -- errors with PyTorch's wording -----------------------------------------------------------------------------

def test_view_of_non_contiguous_raises():
    x = npgrad.ones(3, 4).t()
    with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride"):
        x.view(12)
    assert x.reshape(12).shape == (12,)  # reshape copies instead
    assert x.view(4, 3).shape == (4, 3)  # a view that keeps the layout is fine


if HAS_TORCH:
    # (the operators' errors are the op table's raises rows; here the Tensor methods that are no operator)
    ERRORS = {
        "view_invalid": lambda L: L.ones(2, 3).view(5),
        "view_noncontiguous": lambda L: L.ones(3, 4).t().view(12),
        "mT_1d": lambda L: L.ones(3).mT,
        "expand_mismatch": lambda L: L.ones(2, 3).expand(2, 4),
        "repeat_fewer": lambda L: L.ones(2, 3).repeat(2),
    }

    test_errors_match_torch = errors_like_torch_test(ERRORS)
