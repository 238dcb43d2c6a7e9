"""Op table: products (npgrad/ops/products.py; family "linalg", run by tests/ops/test_linalg.py): matmul in
every rank combination, mm/bmm/mv, dot/vdot/inner, outer/ger, cross, addmm/baddbmm, tensordot, trace, kron and
einsum (explicit and implicit output, ellipsis, diagonals, summed-out and broadcast subscripts)."""
from oracle import In
from _inputs import V3, X
from _record import DOUBLE_BACKWARD, FD, PARITY, RAISES_LIKE_TORCH, SECOND_ORDER, OpInfo, Sample

F = "float32"
# The products' table tests: PyTorch parity and finite differences; _d adds double backward.
S = frozenset({PARITY, FD})


def _s(*args, **kw):
    return Sample(*args, checks=S, **kw)


def _d(*args, **kw):
    return Sample(*args, checks=S | {DOUBLE_BACKWARD}, **kw)


def _r(name, fn):
    """A call that must raise PyTorch's exception class with its message."""
    return Sample(name, fn, (), checks=frozenset({RAISES_LIKE_TORCH}))


def _second(name, fn, inputs):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}))


OPS = [
    OpInfo("matmul", "linalg", lambda lib, a, b: lib.matmul(a, b),
           samples=[
               _d("matmul_1d_1d", lambda lib, a, b: a @ b, [In((4,)), In((4,))]),
               _d("matmul_1d_2d", lambda lib, a, b: a @ b, [In((3,)), In((3, 4))]),
               _d("matmul_2d_1d", lambda lib, a, b: lib.matmul(a, b), [In((2, 3)), In((3,))]),
               _s("matmul_2d_2d", lambda lib, a, b: a @ b, [In((2, 3)), In((3, 4))]),
               _s("matmul_3d_3d", lambda lib, a, b: a @ b, [In((2, 3, 4)), In((2, 4, 5))]),
               _s("matmul_3d_2d", lambda lib, a, b: a @ b, [In((2, 3, 4)), In((4, 5))]),
               _s("matmul_2d_3d", lambda lib, a, b: a @ b, [In((3, 4)), In((2, 4, 5))]),
               _d("matmul_3d_1d", lambda lib, a, b: a @ b, [In((2, 3, 4)), In((4,))]),
               _d("matmul_1d_3d", lambda lib, a, b: a @ b, [In((4,)), In((2, 4, 5))]),
               _d("matmul_batch_broadcast", lambda lib, a, b: a @ b, [In((2, 1, 3, 4)), In((5, 4, 2))]),
               _s("matmul_batch_broadcast_both", lambda lib, a, b: a @ b, [In((3, 1, 2, 3)), In((1, 2, 3, 2))]),
               _s("matmul_4d_1d", lambda lib, a, b: a @ b, [In((2, 2, 3, 4)), In((4,))]),
               _s("matmul_size1", lambda lib, a, b: a @ b, [In((1, 1)), In((1, 3))]),
               _s("matmul_transposed_input", lambda lib, a, b: a.t() @ b.mT, [In((3, 2)), In((4, 3))]),
               _second("matmul_2d", lambda lib, a, b: (a @ b).tanh(), [In((2, 3)), In((3, 2))]),
               _second("matmul_batched", lambda lib, a, b: (a @ b) ** 2, [In((2, 2, 3)), In((3, 2))]),
               _second("matmul_vec_mat", lambda lib, a, b: (a @ b) ** 2, [V3, In((3, 2))]),
               _second("matmul_mat_vec", lambda lib, a, b: (a @ b) ** 2, [In((2, 3)), V3]),
               _r("2d_2d", lambda L: L.ones(3, 2) @ L.ones(3, 2)),
               _r("1d_1d", lambda L: L.ones(3) @ L.ones(2)),
               _r("1d_2d", lambda L: L.ones(3) @ L.ones(2, 4)),
               _r("2d_1d", lambda L: L.ones(3, 2) @ L.ones(3)),
               _r("3d_3d", lambda L: L.ones(2, 3, 2) @ L.ones(2, 3, 2)),
               _r("3d_2d_folded", lambda L: L.ones(2, 3, 2) @ L.ones(3, 2)),
               _r("2d_3d", lambda L: L.ones(3, 2) @ L.ones(2, 3, 2)),
               _r("3d_1d_folded", lambda L: L.ones(2, 3, 2) @ L.ones(3)),
               _r("4d_1d_folded", lambda L: L.ones(2, 3, 3, 2) @ L.ones(3)),
               _r("1d_4d", lambda L: L.ones(3) @ L.ones(4, 2, 5, 2)),
               _r("batch_broadcast_k", lambda L: L.ones(2, 1, 3, 2) @ L.ones(5, 3, 4)),
               _r("batch_mismatch", lambda L: L.ones(2, 3, 2) @ L.ones(3, 2, 4)),
               _r("batch_mismatch_dim1", lambda L: L.ones(4, 2, 3, 2) @ L.ones(3, 2, 4)),
               _r("0d", lambda L: L.ones(()) @ L.ones(3)),
               _r("dtype", lambda L: L.ones(2, 2) @ L.ones(2, 2, dtype=L.float64)),
           ],
           float16=[("matmul", lambda lib, x, y: x @ y.t())],
           empty=[
               ("(2,0)@(0,3)", lambda L, a, b: a @ b, ((2, 0), F), ((0, 3), F)),
               ("(0,2)@(2,3)", lambda L, a, b: L.matmul(a, b), ((0, 2), F), ((2, 3), F)),
               ("(4,2,0)@(0,3) batched", lambda L, a, b: L.matmul(a, b), ((4, 2, 0), F), ((0, 3), F)),
               ("(0,)@(0,)", lambda L, a, b: L.matmul(a, b), ((0,), F), ((0,), F)),
               ("(0,2,3)@(3,4)", lambda L, a, b: L.matmul(a, b), ((0, 2, 3), F), ((3, 4), F)),
           ]),
    OpInfo("mm", "linalg", lambda lib, a, b: lib.mm(a, b),
           samples=[
               _s("mm", lambda lib, a, b: lib.mm(a, b), [In((2, 3)), In((3, 4))]),
               _s("mm_method", lambda lib, a, b: a.mm(b), [In((3, 3)), In((3, 1))]),
               _r("mm_1d", lambda L: L.mm(L.ones(2), L.ones(2, 2))),
               _r("mm_mat2_1d", lambda L: L.mm(L.ones(2, 2), L.ones(2))),
               _r("mm", lambda L: L.mm(L.ones(2, 3), L.ones(2, 2))),
           ],
           empty=[
               ("(3,0)@(0,2)", lambda L, a, b: L.mm(a, b), ((3, 0), F), ((0, 2), F)),
           ]),
    OpInfo("bmm", "linalg", lambda lib, a, b: lib.bmm(a, b),
           samples=[
               _s("bmm", lambda lib, a, b: lib.bmm(a, b), [In((2, 3, 4)), In((2, 4, 2))]),
               _second("bmm", lambda lib, a, b: lib.bmm(a, b) ** 2, [In((2, 2, 3)), In((2, 3, 2))]),
               _r("bmm_batch", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 2, 2))),
               _r("bmm_k", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 2, 2))),
               _r("bmm_2d", lambda L: L.bmm(L.ones(2, 3), L.ones(2, 3, 2))),
               _r("bmm_2d_second", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 2))),
           ],
           empty=[
               ("(0,2,3)@(0,3,1)", lambda L, a, b: L.bmm(a, b), ((0, 2, 3), F), ((0, 3, 1), F)),
               ("(2,2,0)@(2,0,1)", lambda L, a, b: L.bmm(a, b), ((2, 2, 0), F), ((2, 0, 1), F)),
           ]),
    OpInfo("mv", "linalg", lambda lib, a, b: lib.mv(a, b),
           samples=[
               _s("mv", lambda lib, a, b: lib.mv(a, b), [In((2, 3)), In((3,))]),
               _second("mv", lambda lib, a, b: lib.mv(a, b).exp(), [In((2, 3)), V3]),
               _r("mv_size", lambda L: L.mv(L.ones(2, 3), L.ones(2))),
               _r("mv_rank", lambda L: L.mv(L.ones(2, 3), L.ones(2, 3))),
           ],
           empty=[
               ("(2,0)@(0,)", lambda L, a, b: L.mv(a, b), ((2, 0), F), ((0,), F)),
           ]),
    OpInfo("dot", "linalg", lambda lib, a, b: lib.dot(a, b),
           samples=[
               _s("dot", lambda lib, a, b: lib.dot(a, b), [In((5,)), In((5,))]),
               _second("dot", lambda lib, a, b: lib.dot(a * a, b), [V3, V3]),
               _r("dot_size", lambda L: L.dot(L.ones(3), L.ones(2))),
               _r("dot_rank", lambda L: L.dot(L.ones(3, 1), L.ones(3))),
               _r("dot_dtype", lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64))),
           ],
           empty=[
               ("(0,).(0,)", lambda L, a, b: L.dot(a, b), ((0,), F), ((0,), F)),
           ]),
    OpInfo("vdot", "linalg", lambda lib, a, b: lib.vdot(a, b),
           samples=[
               _s("vdot", lambda lib, a, b: lib.vdot(a, b), [In((5,)), In((5,))]),
           ],
           empty=[
               ("(0,).(0,)", lambda L, a, b: L.vdot(a, b), ((0,), F), ((0,), F)),
           ]),
    OpInfo("inner", "linalg", lambda lib, a, b: lib.inner(a, b),
           samples=[
               _s("inner_1d", lambda lib, a, b: lib.inner(a, b), [In((4,)), In((4,))]),
               _s("inner_2d_3d", lambda lib, a, b: lib.inner(a, b), [In((2, 3)), In((4, 2, 3))]),
               _s("inner_3d_2d", lambda lib, a, b: a.inner(b), [In((2, 2, 3)), In((4, 3))]),
               _second("inner", lambda lib, a, b: lib.inner(a * a, b), [X, X]),
               _r("inner_sizes", lambda L: L.inner(L.ones(2, 3), L.ones(2))),
           ],
           empty=[
               ("(2,0).(3,0)", lambda L, a, b: L.inner(a, b), ((2, 0), F), ((3, 0), F)),
           ]),
    OpInfo("outer", "linalg", lambda lib, a, b: lib.outer(a, b),
           samples=[
               _s("outer", lambda lib, a, b: lib.outer(a, b), [In((3,)), In((4,))]),
               _second("outer", lambda lib, a, b: lib.outer(a, b) ** 2, [V3, In((2,))]),
               _r("outer_self", lambda L: L.outer(L.ones(3, 1), L.ones(3))),
               _r("outer_vec2", lambda L: L.outer(L.ones(3), L.ones(3, 1))),
           ],
           empty=[
               ("(0,)x(3,)", lambda L, a, b: L.outer(a, b), ((0,), F), ((3,), F)),
           ]),
    OpInfo("ger", "linalg", lambda lib, a, b: lib.ger(a, b),
           samples=[
               _s("ger", lambda lib, a, b: a.ger(b), [In((3,)), In((2,))]),
           ],
           empty=[
               ("(2,)x(0,)", lambda L, a, b: L.ger(a, b), ((2,), F), ((0,), F)),
           ]),
    OpInfo("cross", "linalg", lambda lib, a, b: lib.cross(a, b, dim=-1),
           samples=[
               _s("cross_default_dim", lambda lib, a, b: lib.cross(a, b), [In((2, 3)), In((2, 3))]),
               _s("cross_dim0", lambda lib, a, b: lib.cross(a, b, dim=0), [In((3, 3)), In((3, 3))]),
               _d("cross_dim_neg_broadcast", lambda lib, a, b: a.cross(b, dim=-1), [In((2, 1, 3)), In((1, 4, 3))]),
               _s("cross_dim1", lambda lib, a, b: lib.cross(a, b, dim=1), [In((2, 3)), In((2, 3))]),
               _second("cross", lambda lib, a, b: lib.cross(a, b, dim=1) ** 2, [In((2, 3)), In((2, 3))]),
               _r("cross_len", lambda L: L.cross(L.ones(3, 2), L.ones(3, 2), dim=1)),
               _r("cross_rank", lambda L: L.cross(L.ones(2, 3), L.ones(3), dim=1)),
           ],
           empty=[
               ("(0,3)x(0,3)", lambda L, a, b: L.cross(a, b, dim=1), ((0, 3), F), ((0, 3), F)),
           ]),
    OpInfo("addmm", "linalg", lambda lib, c, a, b: lib.addmm(c, a, b),
           samples=[
               _s("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), [In((2, 4)), In((2, 3)), In((3, 4))]),
               _d("addmm_bias_alpha_beta", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0),
                  [In((4,)), In((2, 3)), In((3, 4))]),
               _s("addmm_method", lambda lib, c, a, b: c.addmm(a, b, alpha=-1), [In((2, 1)), In((2, 3)), In((3, 4))]),
               _second("addmm", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0) ** 2,
                    [In((2, 2)), In((2, 3)), In((3, 2))]),
               _r("addmm_mat", lambda L: L.addmm(L.ones(2, 2), L.ones(2, 3), L.ones(2, 2))),
               _r("addmm_bias", lambda L: L.addmm(L.ones(3, 3), L.ones(2, 3), L.ones(3, 2))),
               _r("addmm_mat1_1d", lambda L: L.addmm(L.ones(2, 2), L.ones(2), L.ones(2, 2))),
               _r("addmm_mat2_1d", lambda L: L.addmm(L.ones(2, 2), L.ones(2, 2), L.ones(2))),
           ],
           empty=[
               ("(2,3)+(2,0)@(0,3)", lambda L, c, a, b: L.addmm(c, a, b), ((2, 3), F), ((2, 0), F), ((0, 3), F)),
           ]),
    OpInfo("baddbmm", "linalg", lambda lib, c, a, b: lib.baddbmm(c, a, b),
           samples=[
               _s("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=2.0, alpha=0.5),
                  [In((2, 3, 4)), In((2, 3, 5)), In((2, 5, 4))]),
               _s("baddbmm_bias", lambda lib, c, a, b: lib.baddbmm(c, a, b), [In((4,)), In((2, 3, 5)), In((2, 5, 4))]),
               _second("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, alpha=0.5) ** 2,
                    [In((2, 2, 2)), In((2, 2, 3)), In((2, 3, 2))]),
               _r("baddbmm_bias", lambda L: L.baddbmm(L.ones(3, 3, 3), L.ones(2, 3, 5), L.ones(2, 5, 4))),
               _r("baddbmm_k", lambda L: L.baddbmm(L.ones(2, 3, 4), L.ones(2, 3, 5), L.ones(2, 4, 4))),
           ],
           empty=[
               ("batch 0", lambda L, c, a, b: L.baddbmm(c, a, b), ((0, 2, 3), F), ((0, 2, 4), F), ((0, 4, 3), F)),
           ]),
    OpInfo("tensordot", "linalg", lambda lib, a, b: lib.tensordot(a, b, dims=1),
           samples=[
               _s("tensordot_int", lambda lib, a, b: lib.tensordot(a, b, dims=2), [In((2, 3, 4)), In((3, 4, 5))]),
               _d("tensordot_lists", lambda lib, a, b: lib.tensordot(a, b, dims=([0, 2], [2, 0])),
                  [In((2, 3, 4)), In((4, 5, 2))]),
               _s("tensordot_zero", lambda lib, a, b: lib.tensordot(a, b, dims=0), [In((2, 3)), In((2,))]),
               _s("tensordot_int_pair", lambda lib, a, b: lib.tensordot(a, b, ([1], [0])), [In((2, 3)), In((3, 2))]),
               _second("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=1) ** 2, [In((2, 3)), In((3, 2))]),
               _r("tensordot_lengths", lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), ([1, 0], [0]))),
               _r("tensordot_sizes", lambda L: L.tensordot(L.ones(2, 3), L.ones(2, 3), dims=([1], [0]))),
           ],
           empty=[
               ("dims=1 over 0", lambda L, a, b: L.tensordot(a, b, dims=1), ((2, 0), F), ((0, 3), F)),
           ]),
    OpInfo("trace", "linalg", lambda lib, a: lib.trace(a),
           samples=[
               _d("trace", lambda lib, a: lib.trace(a), [In((3, 3))]),
               _s("trace_rect", lambda lib, a: a.trace(), [In((2, 4))]),
               _second("trace", lambda lib, x: (x * x).trace(), [In((3, 3))]),
               _r("trace_3d", lambda L: L.trace(L.ones(2, 2, 2))),
           ]),
    OpInfo("kron", "linalg", lambda lib, a, b: lib.kron(a, b),
           samples=[
               _d("kron", lambda lib, a, b: lib.kron(a, b), [In((2, 3)), In((3, 2))]),
               _s("kron_mixed_rank", lambda lib, a, b: lib.kron(a, b), [In((2,)), In((2, 2))]),
               _second("kron", lambda lib, a, b: lib.kron(a, b) ** 2, [In((2, 2)), In((2,))]),
           ],
           empty=[
               ("(0,2)x(2,2)", lambda L, a, b: L.kron(a, b), ((0, 2), F), ((2, 2), F)),
           ]),
    OpInfo("einsum", "linalg", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b),
           samples=[
               _s("einsum_matmul", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [In((2, 3)), In((3, 4))]),
               _s("einsum_implicit", lambda lib, a, b: lib.einsum("ij,jk", a, b), [In((2, 3)), In((3, 4))]),
               _s("einsum_implicit_order", lambda lib, a, b: lib.einsum("ba,ca", a, b), [In((2, 3)), In((4, 3))]),
               _s("einsum_implicit_upper", lambda lib, a: lib.einsum("bA", a), [In((2, 3))]),
               _s("einsum_transpose", lambda lib, a: lib.einsum("ij->ji", a), [In((2, 3))]),
               _s("einsum_sum_all", lambda lib, a: lib.einsum("ijk->", a), [In((2, 3, 4))]),
               _d("einsum_sum_out", lambda lib, a: lib.einsum("ijk->ki", a), [In((2, 3, 4))]),
               _d("einsum_diag", lambda lib, a: lib.einsum("ii->i", a), [In((3, 3))]),
               _s("einsum_trace_implicit", lambda lib, a: lib.einsum("ii", a), [In((3, 3))]),
               _d("einsum_triple_diag", lambda lib, a: lib.einsum("iii->i", a), [In((3, 3, 3))]),
               _s("einsum_diag_batched", lambda lib, a: lib.einsum("bii->bi", a), [In((2, 3, 3))]),
               _s("einsum_diag_times_vec", lambda lib, a, b: lib.einsum("ii,i->i", a, b), [In((3, 3)), In((3,))]),
               _d("einsum_repeated_index_two_ops", lambda lib, a, b: lib.einsum("iji,j->", a, b),
                  [In((3, 2, 3)), In((2,))]),
               _s("einsum_outer", lambda lib, a, b: lib.einsum("i,j->ij", a, b), [In((3,)), In((4,))]),
               _s("einsum_dot", lambda lib, a, b: lib.einsum("i,i", a, b), [In((4,)), In((4,))]),
               _s("einsum_hadamard", lambda lib, a, b: lib.einsum("ij,ij->ij", a, b), [In((2, 3)), In((2, 3))]),
               _s("einsum_bmm", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b), [In((2, 3, 4)), In((2, 4, 2))]),
               _s("einsum_ellipsis", lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b),
                  [In((2, 3, 4)), In((2, 4, 2))]),
               _d("einsum_ellipsis_broadcast", lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b),
                  [In((2, 1, 3, 4)), In((5, 4, 2))]),
               _s("einsum_ellipsis_implicit", lambda lib, a, b: lib.einsum("...i,...i", a, b),
                  [In((2, 3, 4)), In((3, 4))]),
               _s("einsum_ellipsis_middle", lambda lib, a: lib.einsum("a...b->b...a", a), [In((2, 3, 4, 5))]),
               _s("einsum_ellipsis_sum", lambda lib, a: lib.einsum("...i->...", a), [In((2, 3))]),
               _s("einsum_ellipsis_empty", lambda lib, a, b: lib.einsum("...i,i->...", a, b), [In((3,)), In((3,))]),
               _d("einsum_size1_broadcast", lambda lib, a, b: lib.einsum("ij,ij->i", a, b), [In((2, 1)), In((2, 3))]),
               _d("einsum_three_operands", lambda lib, a, b, c: lib.einsum("ij,jk,kl->il", a, b, c),
                  [In((2, 3)), In((3, 4)), In((4, 2))]),
               _s("einsum_bilinear", lambda lib, x, w, y: lib.einsum("bi,oij,bj->bo", x, w, y),
                  [In((2, 3)), In((4, 3, 2)), In((2, 2))]),
               _s("einsum_list_operands", lambda lib, a, b: lib.einsum("i j , j k -> i k", [a, b]),
                  [In((2, 3)), In((3, 2))]),
               _s("einsum_0d", lambda lib, a, b: lib.einsum(",i->i", a, b), [In(()), In((3,))]),
               _s("einsum_bmm_blas_path", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b),
                  [In((4, 32, 16)), In((4, 16, 32))], fd=False),
               _s("einsum_attention_blas_path", lambda lib, q, k: lib.einsum("bhqd,bhkd->bhqk", q, k),
                  [In((2, 2, 16, 8)), In((2, 2, 24, 8))], fd=False),
               _s("einsum_one_const_operand", lambda lib, a, b: lib.einsum("ij,j->i", a, b),
                  [In((2, 3)), In((3,), grad=False)]),
               _second("einsum", lambda lib, a, b: lib.einsum("ij,jk->ik", a * a, b), [In((2, 3)), In((3, 2))]),
               _second("einsum_trace", lambda lib, a: lib.einsum("ii->", a) * a.sum(), [In((3, 3))]),
               _r("einsum_too_few", lambda L: L.einsum("ij,jk", L.ones(2, 2))),
               _r("einsum_too_many", lambda L: L.einsum("ij", L.ones(2, 2), L.ones(2, 2))),
               _r("einsum_ndim", lambda L: L.einsum("ijk", L.ones(2, 2))),
               _r("einsum_size", lambda L: L.einsum("ij,jk", L.ones(2, 3), L.ones(2, 2))),
               _r("einsum_unknown_output", lambda L: L.einsum("ij->k", L.ones(2, 3))),
               _r("einsum_repeated_output", lambda L: L.einsum("ij->ii", L.ones(2, 3))),
               _r("einsum_diag_sizes", lambda L: L.einsum("ii->i", L.ones(2, 3))),
               _r("einsum_diag_size1", lambda L: L.einsum("ii->i", L.ones(1, 3))),
               _r("einsum_ellipsis_sizes", lambda L: L.einsum("...i,...i", L.ones(2, 3), L.ones(4, 3))),
               _r("einsum_ellipsis_too_few_dims", lambda L: L.einsum("ijk...", L.ones(2, 2))),
               _r("einsum_two_ellipses", lambda L: L.einsum("...i...", L.ones(2, 2))),
               _r("einsum_two_ellipses_output", lambda L: L.einsum("...i->...i...", L.ones(2, 2))),
               _r("einsum_lone_dot", lambda L: L.einsum("i.j", L.ones(2, 2))),
               _r("einsum_bad_arrow", lambda L: L.einsum("ij-k", L.ones(2, 2))),
               _r("einsum_digit_output", lambda L: L.einsum("ij->i1", L.ones(2, 2))),
               _r("einsum_mixed_dtype", lambda L: L.einsum("ij,jk", L.ones(2, 2, dtype=L.long), L.ones(2, 2))),
           ],
           empty=[
               ("ij,jk (j=0)", lambda L, a, b: L.einsum("ij,jk->ik", a, b), ((2, 0), F), ((0, 3), F)),
               ("trace of (0,0)", lambda L, a: L.einsum("ii->", a), ((0, 0), F)),
           ]),
]
