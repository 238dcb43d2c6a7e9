"""Products (matmul and friends, einsum, cross, tensordot ...) against PyTorch and finite differences, plus
their shape errors with PyTorch's wording and zero-size dims."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test, torch_parity_test

CASES = [
    # matmul in every rank combination
    OpCase("matmul_1d_1d", lambda lib, a, b: a @ b, [In((4,)), In((4,))]),
    OpCase("matmul_1d_2d", lambda lib, a, b: a @ b, [In((3,)), In((3, 4))]),
    OpCase("matmul_2d_1d", lambda lib, a, b: lib.matmul(a, b), [In((2, 3)), In((3,))]),
    OpCase("matmul_2d_2d", lambda lib, a, b: a @ b, [In((2, 3)), In((3, 4))]),
    OpCase("matmul_3d_3d", lambda lib, a, b: a @ b, [In((2, 3, 4)), In((2, 4, 5))]),
    OpCase("matmul_3d_2d", lambda lib, a, b: a @ b, [In((2, 3, 4)), In((4, 5))]),
    OpCase("matmul_2d_3d", lambda lib, a, b: a @ b, [In((3, 4)), In((2, 4, 5))]),
    OpCase("matmul_3d_1d", lambda lib, a, b: a @ b, [In((2, 3, 4)), In((4,))]),
    OpCase("matmul_1d_3d", lambda lib, a, b: a @ b, [In((4,)), In((2, 4, 5))]),
    OpCase("matmul_batch_broadcast", lambda lib, a, b: a @ b, [In((2, 1, 3, 4)), In((5, 4, 2))]),
    OpCase("matmul_batch_broadcast_both", lambda lib, a, b: a @ b, [In((3, 1, 2, 3)), In((1, 2, 3, 2))]),
    OpCase("matmul_4d_1d", lambda lib, a, b: a @ b, [In((2, 2, 3, 4)), In((4,))]),
    OpCase("matmul_size1", lambda lib, a, b: a @ b, [In((1, 1)), In((1, 3))]),
    OpCase("matmul_transposed_input", lambda lib, a, b: a.t() @ b.mT, [In((3, 2)), In((4, 3))]),
    OpCase("mm", lambda lib, a, b: lib.mm(a, b), [In((2, 3)), In((3, 4))]),
    OpCase("mm_method", lambda lib, a, b: a.mm(b), [In((3, 3)), In((3, 1))]),
    OpCase("bmm", lambda lib, a, b: lib.bmm(a, b), [In((2, 3, 4)), In((2, 4, 2))]),
    OpCase("mv", lambda lib, a, b: lib.mv(a, b), [In((2, 3)), In((3,))]),
    OpCase("dot", lambda lib, a, b: lib.dot(a, b), [In((5,)), In((5,))]),
    OpCase("vdot", lambda lib, a, b: lib.vdot(a, b), [In((5,)), In((5,))]),
    OpCase("inner_1d", lambda lib, a, b: lib.inner(a, b), [In((4,)), In((4,))]),
    OpCase("inner_2d_3d", lambda lib, a, b: lib.inner(a, b), [In((2, 3)), In((4, 2, 3))]),
    OpCase("inner_3d_2d", lambda lib, a, b: a.inner(b), [In((2, 2, 3)), In((4, 3))]),
    OpCase("outer", lambda lib, a, b: lib.outer(a, b), [In((3,)), In((4,))]),
    OpCase("ger", lambda lib, a, b: a.ger(b), [In((3,)), In((2,))]),
    OpCase("cross_default_dim", lambda lib, a, b: lib.cross(a, b), [In((2, 3)), In((2, 3))]),
    OpCase("cross_dim0", lambda lib, a, b: lib.cross(a, b, dim=0), [In((3, 3)), In((3, 3))]),
    OpCase("cross_dim_neg_broadcast", lambda lib, a, b: a.cross(b, dim=-1), [In((2, 1, 3)), In((1, 4, 3))]),
    OpCase("cross_dim1", lambda lib, a, b: lib.cross(a, b, dim=1), [In((2, 3)), In((2, 3))]),
    OpCase("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), [In((2, 4)), In((2, 3)), In((3, 4))]),
    OpCase("addmm_bias_alpha_beta", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0),
           [In((4,)), In((2, 3)), In((3, 4))]),
    OpCase("addmm_method", lambda lib, c, a, b: c.addmm(a, b, alpha=-1), [In((2, 1)), In((2, 3)), In((3, 4))]),
    OpCase("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=2.0, alpha=0.5),
           [In((2, 3, 4)), In((2, 3, 5)), In((2, 5, 4))]),
    OpCase("baddbmm_bias", lambda lib, c, a, b: lib.baddbmm(c, a, b), [In((4,)), In((2, 3, 5)), In((2, 5, 4))]),
    OpCase("tensordot_int", lambda lib, a, b: lib.tensordot(a, b, dims=2), [In((2, 3, 4)), In((3, 4, 5))]),
    OpCase("tensordot_lists", lambda lib, a, b: lib.tensordot(a, b, dims=([0, 2], [2, 0])),
           [In((2, 3, 4)), In((4, 5, 2))]),
    OpCase("tensordot_zero", lambda lib, a, b: lib.tensordot(a, b, dims=0), [In((2, 3)), In((2,))]),
    OpCase("tensordot_int_pair", lambda lib, a, b: lib.tensordot(a, b, ([1], [0])), [In((2, 3)), In((3, 2))]),
    OpCase("trace", lambda lib, a: lib.trace(a), [In((3, 3))]),
    OpCase("trace_rect", lambda lib, a: a.trace(), [In((2, 4))]),
    OpCase("kron", lambda lib, a, b: lib.kron(a, b), [In((2, 3)), In((3, 2))]),
    OpCase("kron_mixed_rank", lambda lib, a, b: lib.kron(a, b), [In((2,)), In((2, 2))]),
    # einsum: explicit and implicit output, ellipsis, diagonals, summed-out and broadcast subscripts
    OpCase("einsum_matmul", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [In((2, 3)), In((3, 4))]),
    OpCase("einsum_implicit", lambda lib, a, b: lib.einsum("ij,jk", a, b), [In((2, 3)), In((3, 4))]),
    OpCase("einsum_implicit_order", lambda lib, a, b: lib.einsum("ba,ca", a, b), [In((2, 3)), In((4, 3))]),
    OpCase("einsum_implicit_upper", lambda lib, a: lib.einsum("bA", a), [In((2, 3))]),
    OpCase("einsum_transpose", lambda lib, a: lib.einsum("ij->ji", a), [In((2, 3))]),
    OpCase("einsum_sum_all", lambda lib, a: lib.einsum("ijk->", a), [In((2, 3, 4))]),
    OpCase("einsum_sum_out", lambda lib, a: lib.einsum("ijk->ki", a), [In((2, 3, 4))]),
    OpCase("einsum_diag", lambda lib, a: lib.einsum("ii->i", a), [In((3, 3))]),
    OpCase("einsum_trace_implicit", lambda lib, a: lib.einsum("ii", a), [In((3, 3))]),
    OpCase("einsum_triple_diag", lambda lib, a: lib.einsum("iii->i", a), [In((3, 3, 3))]),
    OpCase("einsum_diag_batched", lambda lib, a: lib.einsum("bii->bi", a), [In((2, 3, 3))]),
    OpCase("einsum_diag_times_vec", lambda lib, a, b: lib.einsum("ii,i->i", a, b), [In((3, 3)), In((3,))]),
    OpCase("einsum_repeated_index_two_ops", lambda lib, a, b: lib.einsum("iji,j->", a, b),
           [In((3, 2, 3)), In((2,))]),
    OpCase("einsum_outer", lambda lib, a, b: lib.einsum("i,j->ij", a, b), [In((3,)), In((4,))]),
    OpCase("einsum_dot", lambda lib, a, b: lib.einsum("i,i", a, b), [In((4,)), In((4,))]),
    OpCase("einsum_hadamard", lambda lib, a, b: lib.einsum("ij,ij->ij", a, b), [In((2, 3)), In((2, 3))]),
    OpCase("einsum_bmm", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b), [In((2, 3, 4)), In((2, 4, 2))]),
    OpCase("einsum_ellipsis", lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b),
           [In((2, 3, 4)), In((2, 4, 2))]),
    OpCase("einsum_ellipsis_broadcast", lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b),
           [In((2, 1, 3, 4)), In((5, 4, 2))]),
    OpCase("einsum_ellipsis_implicit", lambda lib, a, b: lib.einsum("...i,...i", a, b),
           [In((2, 3, 4)), In((3, 4))]),
    OpCase("einsum_ellipsis_middle", lambda lib, a: lib.einsum("a...b->b...a", a), [In((2, 3, 4, 5))]),
    OpCase("einsum_ellipsis_sum", lambda lib, a: lib.einsum("...i->...", a), [In((2, 3))]),
    OpCase("einsum_ellipsis_empty", lambda lib, a, b: lib.einsum("...i,i->...", a, b), [In((3,)), In((3,))]),
    OpCase("einsum_size1_broadcast", lambda lib, a, b: lib.einsum("ij,ij->i", a, b), [In((2, 1)), In((2, 3))]),
    OpCase("einsum_three_operands", lambda lib, a, b, c: lib.einsum("ij,jk,kl->il", a, b, c),
           [In((2, 3)), In((3, 4)), In((4, 2))]),
    OpCase("einsum_bilinear", lambda lib, x, w, y: lib.einsum("bi,oij,bj->bo", x, w, y),
           [In((2, 3)), In((4, 3, 2)), In((2, 2))]),
    OpCase("einsum_list_operands", lambda lib, a, b: lib.einsum("i j , j k -> i k", [a, b]),
           [In((2, 3)), In((3, 2))]),
    OpCase("einsum_0d", lambda lib, a, b: lib.einsum(",i->i", a, b), [In(()), In((3,))]),
    OpCase("einsum_bmm_blas_path", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b),
           [In((4, 32, 16)), In((4, 16, 32))], fd=False),
    OpCase("einsum_attention_blas_path", lambda lib, q, k: lib.einsum("bhqd,bhkd->bhqk", q, k),
           [In((2, 2, 16, 8)), In((2, 2, 24, 8))], fd=False),
    OpCase("einsum_one_const_operand", lambda lib, a, b: lib.einsum("ij,j->i", a, b),
           [In((2, 3)), In((3,), grad=False)]),
]


if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)

    SECOND_ORDER = [c for c in CASES if c.name in {
        "matmul_1d_1d", "matmul_1d_2d", "matmul_2d_1d", "matmul_batch_broadcast", "matmul_3d_1d", "matmul_1d_3d",
        "cross_dim_neg_broadcast", "addmm_bias_alpha_beta", "tensordot_lists", "trace", "kron",
        "einsum_diag", "einsum_triple_diag", "einsum_ellipsis_broadcast", "einsum_three_operands",
        "einsum_repeated_index_two_ops", "einsum_size1_broadcast", "einsum_sum_out"}]

    test_double_backward_matches_torch = double_backward_test(SECOND_ORDER)


test_finite_differences = finite_difference_test([c for c in CASES if c.fd])


# -- zero-size dims --------------------------------------------------------------------------------------------

ZERO_SIZE = {
    "matmul_k0": ((2, 0), (0, 3)),
    "matmul_n0": ((0, 4), (4, 3)),
    "matmul_m0": ((2, 4), (4, 0)),
    "matmul_batch0": ((0, 2, 3), (0, 3, 4)),
    "matmul_1d_k0": ((0,), (0,)),
    "matmul_bcast_batch0": ((0, 1, 2, 3), (5, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(ZERO_SIZE))
def test_matmul_zero_size_dims(name):
    sa, sb = ZERO_SIZE[name]
    a = npgrad.ones(*sa, requires_grad=True)
    b = npgrad.ones(*sb, requires_grad=True)
    out = a @ b
    expected = np.ones(sa) @ np.ones(sb)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.detach().numpy(), expected)  # a k=0 product is all zeros
    out.sum().backward()
    assert a.grad.shape == sa and b.grad.shape == sb
    assert not a.grad.numpy().any() and not b.grad.numpy().any()
    if HAS_TORCH:
        t = torch.ones(*sa) @ torch.ones(*sb)
        assert tuple(t.shape) == out.shape


# -- errors with PyTorch's wording --------------------------------------------------------------------------------

def test_matmul_error_wording():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(3x2 and 3x2\)$"):
        npgrad.ones(3, 2) @ npgrad.ones(3, 2)


if HAS_TORCH:
    ERRORS = {
        "2d_2d": lambda L: L.ones(3, 2) @ L.ones(3, 2),
        "1d_1d": lambda L: L.ones(3) @ L.ones(2),
        "1d_2d": lambda L: L.ones(3) @ L.ones(2, 4),
        "2d_1d": lambda L: L.ones(3, 2) @ L.ones(3),
        "3d_3d": lambda L: L.ones(2, 3, 2) @ L.ones(2, 3, 2),
        "3d_2d_folded": lambda L: L.ones(2, 3, 2) @ L.ones(3, 2),
        "2d_3d": lambda L: L.ones(3, 2) @ L.ones(2, 3, 2),
        "3d_1d_folded": lambda L: L.ones(2, 3, 2) @ L.ones(3),
        "4d_1d_folded": lambda L: L.ones(2, 3, 3, 2) @ L.ones(3),
        "1d_4d": lambda L: L.ones(3) @ L.ones(4, 2, 5, 2),
        "batch_broadcast_k": lambda L: L.ones(2, 1, 3, 2) @ L.ones(5, 3, 4),
        "batch_mismatch": lambda L: L.ones(2, 3, 2) @ L.ones(3, 2, 4),
        "batch_mismatch_dim1": lambda L: L.ones(4, 2, 3, 2) @ L.ones(3, 2, 4),
        "0d": lambda L: L.ones(()) @ L.ones(3),
        "dtype": lambda L: L.ones(2, 2) @ L.ones(2, 2, dtype=L.float64),
        "mm_1d": lambda L: L.mm(L.ones(2), L.ones(2, 2)),
        "mm_mat2_1d": lambda L: L.mm(L.ones(2, 2), L.ones(2)),
        "mm": lambda L: L.mm(L.ones(2, 3), L.ones(2, 2)),
        "bmm_batch": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 2, 2)),
        "bmm_k": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 2, 2)),
        "bmm_2d": lambda L: L.bmm(L.ones(2, 3), L.ones(2, 3, 2)),
        "bmm_2d_second": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 2)),
        "mv_size": lambda L: L.mv(L.ones(2, 3), L.ones(2)),
        "mv_rank": lambda L: L.mv(L.ones(2, 3), L.ones(2, 3)),
        "dot_size": lambda L: L.dot(L.ones(3), L.ones(2)),
        "dot_rank": lambda L: L.dot(L.ones(3, 1), L.ones(3)),
        "dot_dtype": lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64)),
        "outer_self": lambda L: L.outer(L.ones(3, 1), L.ones(3)),
        "outer_vec2": lambda L: L.outer(L.ones(3), L.ones(3, 1)),
        "cross_len": lambda L: L.cross(L.ones(3, 2), L.ones(3, 2), dim=1),
        "cross_rank": lambda L: L.cross(L.ones(2, 3), L.ones(3), dim=1),
        "einsum_too_few": lambda L: L.einsum("ij,jk", L.ones(2, 2)),
        "einsum_too_many": lambda L: L.einsum("ij", L.ones(2, 2), L.ones(2, 2)),
        "einsum_ndim": lambda L: L.einsum("ijk", L.ones(2, 2)),
        "einsum_size": lambda L: L.einsum("ij,jk", L.ones(2, 3), L.ones(2, 2)),
        "einsum_unknown_output": lambda L: L.einsum("ij->k", L.ones(2, 3)),
        "einsum_repeated_output": lambda L: L.einsum("ij->ii", L.ones(2, 3)),
        "einsum_diag_sizes": lambda L: L.einsum("ii->i", L.ones(2, 3)),
        "einsum_diag_size1": lambda L: L.einsum("ii->i", L.ones(1, 3)),
        "einsum_ellipsis_sizes": lambda L: L.einsum("...i,...i", L.ones(2, 3), L.ones(4, 3)),
        "einsum_ellipsis_too_few_dims": lambda L: L.einsum("ijk...", L.ones(2, 2)),
        "einsum_two_ellipses": lambda L: L.einsum("...i...", L.ones(2, 2)),
        "einsum_two_ellipses_output": lambda L: L.einsum("...i->...i...", L.ones(2, 2)),
        "einsum_lone_dot": lambda L: L.einsum("i.j", L.ones(2, 2)),
        "einsum_bad_arrow": lambda L: L.einsum("ij-k", L.ones(2, 2)),
        "einsum_digit_output": lambda L: L.einsum("ij->i1", L.ones(2, 2)),
        "einsum_mixed_dtype": lambda L: L.einsum("ij,jk", L.ones(2, 2, dtype=L.long), L.ones(2, 2)),
        "addmm_mat": lambda L: L.addmm(L.ones(2, 2), L.ones(2, 3), L.ones(2, 2)),
        "addmm_bias": lambda L: L.addmm(L.ones(3, 3), L.ones(2, 3), L.ones(3, 2)),
        "baddbmm_bias": lambda L: L.baddbmm(L.ones(3, 3, 3), L.ones(2, 3, 5), L.ones(2, 5, 4)),
        "baddbmm_k": lambda L: L.baddbmm(L.ones(2, 3, 4), L.ones(2, 3, 5), L.ones(2, 4, 4)),
        "addmm_mat1_1d": lambda L: L.addmm(L.ones(2, 2), L.ones(2), L.ones(2, 2)),
        "addmm_mat2_1d": lambda L: L.addmm(L.ones(2, 2), L.ones(2, 2), L.ones(2)),
        "tensordot_lengths": lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), ([1, 0], [0])),
        "inner_sizes": lambda L: L.inner(L.ones(2, 3), L.ones(2)),
        "tensordot_sizes": lambda L: L.tensordot(L.ones(2, 3), L.ones(2, 3), dims=([1], [0])),
        "trace_3d": lambda L: L.trace(L.ones(2, 2, 2)),
    }

    test_errors_match_torch = errors_like_torch_test(ERRORS)


    def test_addmm_beta_zero_ignores_nan_but_gives_zero_grad():
        got = []
        for lib in (npgrad, torch):
            c = lib.tensor([[float("nan"), 1.0], [float("inf"), 2.0]], requires_grad=True)
            a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
            out = lib.addmm(c, a, a, beta=0, alpha=2.0)
            out.sum().backward()
            got.append((out.detach().numpy(), c.grad.numpy(), a.grad.numpy()))
        for x, y in zip(*got):
            np.testing.assert_array_equal(x, y)

    def test_integer_products_match_torch():
        a = np.arange(6).reshape(2, 3)
        for expr in (lambda L, x: x @ x.T, lambda L, x: L.einsum("ij,kj->ik", x, x), lambda L, x: L.mv(x, x[0])):
            n, t = expr(npgrad, npgrad.tensor(a)), expr(torch, torch.tensor(a))
            assert n.dtype == npgrad.int64
            np.testing.assert_array_equal(n.numpy(), t.numpy())



def test_ndarray_at_tensor_is_differentiable():
    x = npgrad.ones(3, 2, requires_grad=True)
    out = np.arange(6.0, dtype=np.float32).reshape(2, 3) @ x  # NumPy hands the product to Tensor.__rmatmul__
    assert isinstance(out, npgrad.Tensor) and out.shape == (2, 2)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.repeat([[3.0], [5.0], [7.0]], 2, axis=1))
