"""Op table: the matrix exponential, LAPACK's compact QR and its reflectors (npgrad/ops/matrix_exp.py,
npgrad/ops/householder.py), LDL^T (npgrad/ops/decomp_ldl.py: no gradient, as in PyTorch; its rows check values,
Bunch-Kaufman's pivots and the backward error), and torch.linalg's tensorinv / tensorsolve / vander; family
"decomp", run by tests/test_linalg_namespace.py. Reflector inputs come from geqrf of a random matrix (what
orgqr/ormqr are meant for); their gradients are taken with respect to those compact factors."""
import numpy as np

from oracle import In
from _record import row as _s, row2 as _d, raises_like_torch as _r  # noqa: E402 (shared makers)
from _record import OpInfo
from family_decomp import M4, SING, _wellcond

F = "float32"


def _compact(shape):
    """geqrf's packed factor of a random matrix."""
    def make(rng):
        a = rng.standard_normal(shape)
        return _geqr2_np(a)[0]
    return make


def _taus(shape):
    """tau in [1, 2], geqrf's range for real inputs."""
    return lambda rng: rng.uniform(1.0, 1.9, size=shape)


def _geqr2_np(a):
    """A plain per-matrix Householder QR in LAPACK's compact form (the tests' own, for input values only)."""
    a = np.array(a, dtype=np.float64)
    m, n = a.shape[-2:]
    out, taus = a.reshape(-1, m, n).copy(), []
    for b in out:
        t = []
        for j in range(min(m, n)):
            alpha, x = b[j, j], b[j + 1:, j]
            beta = -np.copysign(np.hypot(alpha, np.linalg.norm(x)), alpha)
            t.append((beta - alpha) / beta)
            v = np.concatenate([[1.0], x / (alpha - beta)])
            b[j + 1:, j], b[j, j] = v[1:], beta
            b[j:, j + 1:] -= t[-1] * np.outer(v, v @ b[j:, j + 1:])
        taus.append(t)
    return out.reshape(a.shape), np.array(taus).reshape(a.shape[:-2] + (min(m, n),))


def _symmetric(shape, zero_diagonal=False):
    """Symmetric indefinite matrices; with a zero diagonal Bunch-Kaufman must take 2x2 pivots."""
    def make(rng):
        a = rng.standard_normal(shape)
        a = a + np.swapaxes(a, -1, -2)
        if zero_diagonal:
            a = a * (1 - np.eye(shape[-1]))
        return a
    return make


SYM5 = In((5, 5), grad=False, values=_symmetric((5, 5)))
SYM_2X2 = In((2, 6, 6), grad=False, values=_symmetric((2, 6, 6), zero_diagonal=True))
QR53 = In((5, 3), values=_compact((5, 3)))
TAU3 = In((3,), values=_taus((3,)))
TAU2 = In((2,), values=_taus((2,)))
WELL6 = In((6, 6), values=_wellcond((6, 6)))

OPS = [
    OpInfo("matrix_exp", "decomp", lambda lib, a: lib.matrix_exp(a),
           samples=[
               _d("matrix_exp", lambda L, a: L.linalg.matrix_exp(a), [In((3, 3))]),
               _s("matrix_exp_batched_large_norm", lambda L, a: L.matrix_exp(a * 3), [In((2, 4, 4))]),
               _s("matrix_exp_method", lambda L, a: a.matrix_exp(), [In((1, 1))]),
               _s("matrix_exp_small", lambda L, a: L.matrix_exp(a * 1e-3), [In((3, 3))]),
               _r("matrix_exp_1d", lambda L: L.matrix_exp(L.ones(3))),
               _r("matrix_exp_nonsquare", lambda L: L.linalg.matrix_exp(L.ones(2, 3))),
               _r("matrix_exp_int", lambda L: L.matrix_exp(L.ones(2, 2, dtype=L.int64))),
           ],
           empty=[
               ("0x0", lambda L, a: L.matrix_exp(a), ((0, 0), F)),
               ("batch of 0", lambda L, a: L.matrix_exp(a), ((0, 2, 2), F)),
           ]),
    OpInfo("geqrf", "decomp", lambda lib, a: lib.geqrf(a),
           samples=[
               _s("geqrf_a", lambda L, a: L.geqrf(a).a, [In((5, 3), grad=False)]),
               _s("geqrf_tau_wide_batched", lambda L, a: a.geqrf().tau, [In((2, 3, 4), grad=False)]),
               _s("geqrf_zero_column", lambda L, a: L.geqrf(a * L.tensor([0.0, 1.0, 1.0], dtype=a.dtype)).a,
                  [In((4, 3), grad=False)]),
               _r("geqrf_1d", lambda L: L.geqrf(L.ones(3))),
               _r("geqrf_int", lambda L: L.geqrf(L.ones(3, 3, dtype=L.int64))),
               _r("geqrf_backward", lambda L: L.geqrf(L.ones(3, 2, requires_grad=True)).a.sum().backward()),
           ]),
    OpInfo("orgqr", "decomp", lambda lib, a, tau: lib.orgqr(a, tau),
           samples=[
               _d("householder_product", lambda L, a, t: L.linalg.householder_product(a, t), [QR53, TAU3]),
               _s("householder_product_fewer", lambda L, a, t: L.linalg.householder_product(a, t), [QR53, TAU2]),
               _s("orgqr", lambda L, a, t: L.orgqr(a, t), [QR53, TAU3]),
               _s("orgqr_method_batched", lambda L, a, t: a.orgqr(t),
                  [In((2, 4, 3), values=_compact((2, 4, 3))), In((2, 3), values=_taus((2, 3)))]),
               _s("orgqr_of_geqrf", lambda L, a: L.orgqr(*L.geqrf(a)), [In((4, 3), grad=False)]),
               _r("householder_tau_long", lambda L: L.linalg.householder_product(L.ones(4, 3), L.ones(4))),
               _r("householder_wide", lambda L: L.linalg.householder_product(L.ones(3, 4), L.ones(2))),
               _r("householder_1d", lambda L: L.linalg.householder_product(L.ones(4), L.ones(2))),
               _r("householder_batch", lambda L: L.linalg.householder_product(L.ones(2, 4, 3), L.ones(3, 2))),
               _r("orgqr_int", lambda L: L.orgqr(L.ones(3, 2, dtype=L.int64), L.ones(2, dtype=L.int64))),
               _r("householder_half", lambda L: L.linalg.householder_product(L.ones(3, 2, dtype=L.float16),
                                                                             L.ones(2, dtype=L.float16))),
               _r("householder_dtype",
                  lambda L: L.linalg.householder_product(L.ones(4, 3), L.ones(2, dtype=L.float64))),
           ],
           empty=[
               ("no reflectors", lambda L, a, t: L.orgqr(a, t), ((3, 2), F), ((0,), F)),
               ("batch of 0", lambda L, a, t: L.orgqr(a, t), ((0, 3, 2), F), ((0, 2), F)),
           ]),
    OpInfo("ormqr", "decomp", lambda lib, a, tau, c: lib.ormqr(a, tau, c),
           samples=[
               _d("ormqr", lambda L, a, t, c: L.ormqr(a, t, c), [QR53, TAU3, In((5, 2))]),
               _s("ormqr_transpose", lambda L, a, t, c: L.ormqr(a, t, c, transpose=True), [QR53, TAU3, In((5, 2))]),
               _s("ormqr_right", lambda L, a, t, c: L.ormqr(a, t, c, left=False), [QR53, TAU3, In((2, 5))]),
               _s("ormqr_right_transpose_method", lambda L, a, t, c: a.ormqr(t, c, left=False, transpose=True),
                  [QR53, TAU3, In((2, 5))]),
               _r("ormqr_other_dtype", lambda L: L.ormqr(L.ones(3, 2), L.ones(2), L.ones(3, 2, dtype=L.float64))),
               _r("ormqr_tau_dtype", lambda L: L.ormqr(L.ones(3, 2), L.ones(2, dtype=L.float64), L.ones(3, 2))),
               _r("ormqr_int", lambda L: L.ormqr(L.ones(3, 2, dtype=L.int64), L.ones(2, dtype=L.int64),
                                                 L.ones(3, 2, dtype=L.int64))),
               _r("ormqr_tau", lambda L: L.ormqr(L.ones(4, 3), L.ones(2), L.ones(4, 2))),
               _r("ormqr_rows", lambda L: L.ormqr(L.ones(4, 3), L.ones(2), L.ones(3, 2))),
               _r("ormqr_right_tau", lambda L: L.ormqr(L.ones(4, 3), L.ones(2), L.ones(2, 4), left=False)),
           ],
           empty=[
               ("no columns", lambda L, a, t, c: L.ormqr(a, t, c), ((3, 2), F), ((2,), F), ((3, 0), F)),
           ]),
    OpInfo("linalg.ldl_factor", "decomp", lambda lib, a: lib.linalg.ldl_factor(a),
           samples=[
               _s("ldl_factor", lambda L, a: L.linalg.ldl_factor(a).LD, [SYM5]),
               _s("ldl_factor_lower_only", lambda L, a: L.linalg.ldl_factor(a.tril() + a.triu(1) * 7).LD, [SYM5]),
               _s("ldl_factor_2x2_pivots", lambda L, a: L.linalg.ldl_factor(a, hermitian=True).LD, [SYM_2X2]),
               _s("ldl_pivots", lambda L, a: L.linalg.ldl_factor_ex(a).pivots, [SYM_2X2]),
               _s("ldl_info_zero", lambda L, a: L.linalg.ldl_factor_ex(a * 0).info, [SYM5]),
               _s("ldl_solve", lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
                  [SYM5, In((5, 2), grad=False)]),
               _s("ldl_solve_2x2_broadcast", lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
                  [SYM_2X2, In((6, 3), grad=False)]),
               _r("ldl_nonsquare", lambda L: L.linalg.ldl_factor(L.ones(2, 3))),
               _r("ldl_1d", lambda L: L.linalg.ldl_factor(L.ones(3))),
               _r("ldl_int", lambda L: L.linalg.ldl_factor(L.ones(3, 3, dtype=L.int64))),
               _r("ldl_half", lambda L: L.linalg.ldl_factor(L.eye(3, dtype=L.float16))),
               _r("ldl_solve_dtype", lambda L: L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(3)),
                                                                  L.ones(3, 1, dtype=L.float64))),
               _r("ldl_solve_nonsquare", lambda L: L.linalg.ldl_solve(L.ones(3, 4), L.ones(3, dtype=L.int32),
                                                                      L.ones(3, 1))),
               _r("ldl_solve_sizes", lambda L: L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(3)), L.ones(2, 1))),
               _r("ldl_factor_backward",
                  lambda L: L.linalg.ldl_factor(L.eye(3).requires_grad_()).LD.sum().backward()),
               _r("ldl_solve_backward", lambda L: L.linalg.ldl_solve(
                   *L.linalg.ldl_factor(L.eye(3)), L.ones(3, 1).requires_grad_()).sum().backward()),
           ]),
    OpInfo("linalg.tensorinv", "decomp", lambda lib, a: lib.linalg.tensorinv(a),
           samples=[
               _d("tensorinv", lambda L, a: L.linalg.tensorinv(a.reshape(2, 3, 6)), [WELL6]),
               _s("tensorinv_ind1", lambda L, a: L.linalg.tensorinv(a, ind=1), [M4]),
               _r("tensorinv_ind0", lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 3), ind=0)),
               _r("tensorinv_shape", lambda L: L.linalg.tensorinv(L.ones(4, 6, 8, 2))),
               _r("tensorinv_singular", lambda L: L.linalg.tensorinv(L.zeros(2, 2), ind=1)),
           ]),
    OpInfo("linalg.tensorsolve", "decomp", lambda lib, a, b: lib.linalg.tensorsolve(a, b),
           samples=[
               _d("tensorsolve", lambda L, a, b: L.linalg.tensorsolve(a.reshape(2, 3, 6), b), [WELL6, In((2, 3))]),
               _s("tensorsolve_dims", lambda L, a, b: L.linalg.tensorsolve(a.reshape(6, 2, 3).permute(1, 0, 2), b,
                                                                           dims=(1,)),
                  [WELL6, In((2, 3))]),
               _r("tensorsolve_shape", lambda L: L.linalg.tensorsolve(L.ones(2, 3, 6), L.ones(2, 4))),
               _r("tensorsolve_singular", lambda L: L.linalg.tensorsolve(L.tensor(SING), L.ones(2))),
           ]),
    OpInfo("linalg.vander", "decomp", lambda lib, x: lib.linalg.vander(x),
           samples=[
               _d("vander", lambda L, x: L.linalg.vander(x), [In((3,))]),
               _s("vander_N_batched", lambda L, x: L.linalg.vander(x, N=5), [In((2, 3))]),
               _s("vander_int", lambda L, x: L.linalg.vander(x), [In((4,), dtype=np.int32, low=-3, high=3)]),
               _s("vander_at_zero", lambda L, x: L.linalg.vander(x * 0, N=4), [In((2,))]),
               _r("vander_N1", lambda L: L.linalg.vander(L.ones(3), N=1)),
               _r("vander_0d", lambda L: L.linalg.vander(L.tensor(1.0))),
               _r("vander_bool", lambda L: L.linalg.vander(L.tensor([True, False]))),
           ]),
]
