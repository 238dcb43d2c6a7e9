"""Op table: matrix functions and decompositions (npgrad/ops/decomp.py; family "decomp", run by
tests/test_linalg_namespace.py): inverse, det/slogdet/logdet, cholesky/cholesky_solve/cholesky_inverse, qr, svd,
pinverse, matrix_power, each with its torch.linalg namespace rows (linalg.inv/inv_ex, linalg.det,
linalg.cholesky/cholesky_ex, linalg.qr, linalg.svd/svdvals, linalg.pinv, linalg.matrix_power).

Inputs are well conditioned. Eigenvectors and singular vectors are only defined up to sign, and LAPACK builds
may pick different signs, so rows that differentiate through them use sign-invariant expressions (squares,
|.|, U diag(s) V^H). Symmetric inputs are built inside the expression (X X^T + n I) so finite differences over
X see the same function as autograd. ``_r`` rows are calls that must raise PyTorch's exception (class,
LinAlgError or not, and message)."""
import warnings

import numpy as np

from oracle import In
from _record import FD, PARITY, OpInfo
from _record import row as _s, row2 as _d, raises_like_torch as _r  # noqa: E402 (shared makers)

F = "float32"
S = frozenset({PARITY, FD})
SING = [[1.0, 2.0], [2.0, 4.0]]
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]


def _wellcond(shape):
    n = shape[-1]
    return lambda rng: rng.standard_normal(shape) + n * np.eye(n)


def _spd(L, x):
    n = x.shape[-1]
    return x @ x.mT + n * L.eye(n, dtype=x.dtype)


def _svd_mix(L, a, full=False):
    """U, S and Vh all contribute, through expressions that do not see the sign of a singular pair."""
    r = L.linalg.svd(a, full_matrices=full)
    k = r.S.shape[-1]
    u, vh = r.U[..., :k], r.Vh[..., :k, :]
    return L.cat([(u ** 2).reshape(-1) * 0.3, r.S.reshape(-1), (vh ** 3).abs().reshape(-1)])


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


M4 = In((4, 4), values=_wellcond((4, 4)))
MB = In((2, 3, 3), values=_wellcond((2, 3, 3)))
TALL = In((5, 3))
WIDE = In((3, 5))

OPS = [
    OpInfo("inverse", "decomp", lambda lib, a: lib.inverse(a),
           samples=[
               _d("inv", lambda L, a: L.linalg.inv(a), [M4]),
               _s("inv_batched_tensor_method", lambda L, a: a.inverse(), [MB]),
               _s("torch_inverse", lambda L, a: L.inverse(a), [M4]),
               _s("inv_ex", lambda L, a: L.linalg.inv_ex(a).inverse, [M4]),
               _r("inv_nonsquare", lambda L: L.linalg.inv(L.ones(2, 3))),
               _r("inv_1d", lambda L: L.linalg.inv(L.ones(3))),
               _r("inv_singular", lambda L: L.linalg.inv(L.tensor(SING))),
               _r("inv_singular_batch", lambda L: L.linalg.inv(L.stack([L.eye(2), L.tensor(SING)]))),
               _r("inv_int", lambda L: L.linalg.inv(L.tensor([[1, 2], [3, 4]]))),
               _r("inverse_singular",
                  lambda L: L.inverse(L.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]))),
           ],
           empty=[
               ("batch of 0", lambda L, x: L.inverse(x), ((0, 3, 3), F)),
           ]),
    OpInfo("det", "decomp", lambda lib, a: lib.det(a),
           samples=[
               _d("det", lambda L, a: L.linalg.det(a), [M4]),
               _s("det_batched", lambda L, a: L.det(a), [MB]),
               _s("det_method", lambda L, a: a.det(), [In((3, 3))]),
               _r("det_nonsquare", lambda L: L.linalg.det(L.ones(2, 3))),
               _r("det_1d", lambda L: L.det(L.ones(3))),
               _r("det_int", lambda L: L.linalg.det(L.tensor([[1, 2], [3, 4]]))),
           ],
           empty=[
               ("batch of 0", lambda L, x: L.det(x), ((0, 2, 2), F)),
               ("0x0 matrix", lambda L, x: L.det(x), ((0, 0), F)),
           ]),
    OpInfo("slogdet", "decomp", lambda lib, a: lib.slogdet(a),
           samples=[
               _d("slogdet_logabs", lambda L, a: L.linalg.slogdet(a).logabsdet, [In((3, 3))]),
               _s("slogdet_sign", lambda L, a: L.slogdet(a).sign, [In((3, 3))], fd=False),
           ],
           empty=[
               ("batch of 0", lambda L, x: L.slogdet(x)[1], ((0, 3, 3), F)),
           ]),
    OpInfo("logdet", "decomp", lambda lib, a: lib.logdet(a),
           samples=[
               _s("logdet_spd", lambda L, a: L.logdet(_spd(L, a)), [In((2, 3, 3))]),
           ],
           empty=[
               ("batch of 0", lambda L, x: L.logdet(x), ((0, 3, 3), F)),
           ]),
    OpInfo("cholesky", "decomp", lambda lib, a: lib.linalg.cholesky(a),
           samples=[
               _d("cholesky", lambda L, a: L.linalg.cholesky(_spd(L, a)), [In((4, 4))]),
               _s("cholesky_upper_batched", lambda L, a: L.linalg.cholesky(_spd(L, a), upper=True), [In((2, 3, 3))]),
               _s("cholesky_ex", lambda L, a: L.linalg.cholesky_ex(_spd(L, a)).L, [In((3, 3))]),
               _r("cholesky_not_pd", lambda L: L.linalg.cholesky(L.tensor(NOT_PD))),
               _r("cholesky_not_pd_batch", lambda L: L.linalg.cholesky(L.stack([L.eye(2), L.tensor(NOT_PD)]))),
               _r("cholesky_nonsquare", lambda L: L.linalg.cholesky(L.ones(2, 3))),
           ],
           empty=[
               ("batch of 0", lambda L, x: L.cholesky(x), ((0, 2, 2), F)),
           ]),
    OpInfo("cholesky_solve", "decomp", lambda lib, b, u: lib.cholesky_solve(b, u),
           samples=[
               _d("cholesky_solve", lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(_spd(L, a))),
                  [In((3, 2)), In((3, 3))]),
               _s("cholesky_solve_upper",
                  lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(_spd(L, a)).mT, upper=True),
                  [In((3, 2)), In((3, 3))]),
           ],
           empty=[
               ("0x0 system", lambda L, b, u: L.cholesky_solve(b, u), ((0, 2), F), ((0, 0), F)),
           ]),
    OpInfo("cholesky_inverse", "decomp", lambda lib, u: lib.cholesky_inverse(u),
           samples=[
               _s("cholesky_inverse", lambda L, a: L.cholesky_inverse(L.linalg.cholesky(_spd(L, a))), [In((3, 3))]),
           ],
           empty=[
               ("0x0", lambda L, x: L.cholesky_inverse(x), ((0, 0), F)),
           ]),
    OpInfo("qr", "decomp", lambda lib, a: lib.linalg.qr(a),
           samples=[
               _s("qr_tall_Q", lambda L, a: L.linalg.qr(a).Q, [TALL]),
               _s("qr_tall_R", lambda L, a: L.linalg.qr(a).R, [TALL]),
               _d("qr_tall_both", lambda L, a: (lambda r: r.Q.sum(0) * 2 + r.R.sum(0))(L.linalg.qr(a)), [In((4, 3))]),
               _s("qr_square_batched", lambda L, a: (lambda r: r.Q * 3 + r.R)(L.linalg.qr(a)), [In((2, 3, 3))]),
               _d("qr_wide", lambda L, a: (lambda r: r.Q.sum() * r.R)(L.linalg.qr(a)), [WIDE]),
               _s("qr_complete_wide", lambda L, a: L.linalg.qr(a, mode="complete").Q, [WIDE]),
               _s("torch_qr", lambda L, a: _quiet(lambda: L.qr(a).R), [TALL]),
               _r("qr_mode", lambda L: L.linalg.qr(L.ones(2, 3), mode="foo")),
           ]),
    OpInfo("svd", "decomp", lambda lib, a: lib.linalg.svd(a),
           samples=[
               _d("svd_tall", lambda L, a: _svd_mix(L, a), [TALL]),
               _d("svd_wide", lambda L, a: _svd_mix(L, a), [WIDE]),
               _s("svd_batched", lambda L, a: _svd_mix(L, a), [In((2, 3, 4))]),
               _s("svd_full_matrices", lambda L, a: _svd_mix(L, a, full=True), [TALL]),
               _s("svd_reconstruct", lambda L, a: (lambda r: (r.U * r.S.unsqueeze(-2)) @ r.Vh)(
                  L.linalg.svd(a, full_matrices=False)), [TALL]),
               _d("svdvals", lambda L, a: L.linalg.svdvals(a), [TALL]),
               _s("torch_svd", lambda L, a: (lambda r: (r.U * r.S) @ r.V.mT)(L.svd(a)), [TALL]),
               _r("svd_1d", lambda L: L.linalg.svd(L.ones(3))),
           ]),
    OpInfo("pinverse", "decomp", lambda lib, a: lib.pinverse(a),
           samples=[
               _d("pinv_tall", lambda L, a: L.linalg.pinv(a), [TALL]),
               _s("pinverse_wide", lambda L, a: L.pinverse(a), [WIDE]),
           ]),
    OpInfo("matrix_power", "decomp", lambda lib, a, n: lib.matrix_power(a, n),
           samples=[
               _s("matrix_power_5", lambda L, a: L.linalg.matrix_power(a * 0.25, 5), [M4]),
               _d("matrix_power_neg2", lambda L, a: L.matrix_power(a, -2), [M4]),
               _s("matrix_power_0", lambda L, a: a.matrix_power(0), [M4]),
               _r("matrix_power_singular", lambda L: L.linalg.matrix_power(L.tensor(SING), -1)),
               _r("matrix_power_nonsquare", lambda L: L.linalg.matrix_power(L.ones(2, 3), 2)),
           ],
           empty=[
               ("batch of 0", lambda L, x: L.matrix_power(x, 3), ((0, 2, 2), F)),
               ("0x0", lambda L, x: L.matrix_power(x, 2), ((0, 0), F)),
           ]),
]
