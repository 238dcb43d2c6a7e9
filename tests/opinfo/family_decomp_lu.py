"""Op table: LU and the solves built on it (npgrad/ops/decomp_lu.py; family "decomp", run by
tests/test_linalg_namespace.py): torch.lu, lu_solve, lu_unpack, triangular_solve, each with its torch.linalg rows
(linalg.lu_factor/lu_factor_ex/lu/lu_solve). Inputs are well conditioned (random + n I), so the pivots cannot
differ with rounding and finite differences stay on one branch of the pivoting."""
import warnings

import numpy as np

from oracle import In
from _record import row as _s, row2 as _d, raises_like_torch as _r  # noqa: E402 (shared makers)
from _record import OpInfo
from family_decomp import M4, MB, SING, _wellcond

F = "float32"


def _quiet(fn):
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return call


def _cat(ts):
    import npgrad
    lib = npgrad if isinstance(ts[0], npgrad.Tensor) else __import__("torch")
    return lib.cat([t.reshape(-1) for t in ts])


def _lu_mix(L, a):
    r = L.linalg.lu(a)
    return _cat([r.P, r.L * 2, r.U])


def _fixed(values):
    return In(np.shape(values), grad=False, values=lambda rng: np.array(values))


TALL = In((5, 3))
WIDE = In((3, 5))
NOGRAD = In((2, 4, 4), grad=False, values=_wellcond((2, 4, 4)))

OPS = [
    OpInfo("lu", "decomp", lambda lib, a: lib.lu(a),
           samples=[
               _d("linalg_lu_factor", lambda L, a: L.linalg.lu_factor(a).LU, [M4]),
               _s("linalg_lu_factor_batched_wide", lambda L, a: L.linalg.lu_factor(a).LU, [In((2, 3, 5))]),
               _s("linalg_lu_factor_tall", lambda L, a: L.linalg.lu_factor(a).LU, [TALL]),
               _d("linalg_lu_tall", _lu_mix, [TALL]),
               _d("linalg_lu_wide", _lu_mix, [WIDE]),
               _s("linalg_lu_batched", _lu_mix, [MB]),
               _s("linalg_lu_factor_ex", lambda L, a: L.linalg.lu_factor_ex(a).LU, [MB]),
               _s("lu_pivots", lambda L, a: L.linalg.lu_factor(a).pivots, [NOGRAD]),
               _s("lu_info_singular", lambda L, a: L.linalg.lu_factor_ex(a).info, [_fixed(SING)]),
               _s("lu_singular_factor", lambda L, a: L.linalg.lu_factor_ex(a).LU, [_fixed(SING)]),
               _s("torch_lu", _quiet(lambda L, a: L.lu(a)[0]), [M4]),
               _s("torch_lu_method_infos", _quiet(lambda L, a: a.lu(get_infos=True)[0] * 2), [MB]),
               _r("lu_factor_singular", lambda L: L.linalg.lu_factor(L.tensor(SING))),
               _r("lu_factor_singular_batch", lambda L: L.linalg.lu_factor(L.stack([L.eye(2), L.tensor(SING)]))),
               _r("lu_factor_ex_check_errors", lambda L: L.linalg.lu_factor_ex(L.tensor(SING), check_errors=True)),
               _r("lu_factor_1d", lambda L: L.linalg.lu_factor(L.ones(3))),
               _r("lu_factor_int", lambda L: L.linalg.lu_factor(L.ones(3, 3, dtype=L.int64))),
               _r("lu_factor_no_pivot", lambda L: L.linalg.lu_factor(L.eye(3), pivot=False)),
               _r("lu_no_pivot", lambda L: L.linalg.lu(L.eye(3), pivot=False)),
           ],
           empty=[
               ("0x0", lambda L, x: L.linalg.lu_factor(x).LU, ((0, 0), F)),
               ("batch of 0", lambda L, x: L.linalg.lu_factor(x).LU, ((0, 3, 3), F)),
           ]),
    OpInfo("lu_solve", "decomp", lambda lib, b, lu, piv: lib.lu_solve(b, lu, piv),
           samples=[
               _d("linalg_lu_solve", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [M4, In((4, 2))]),
               _s("linalg_lu_solve_adjoint_broadcast",
                  lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True), [MB, In((3, 2))]),
               _s("linalg_lu_solve_right", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
                  [M4, In((2, 4))]),
               _d("linalg_lu_solve_right_adjoint",
                  lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False, adjoint=True),
                  [M4, In((2, 4))]),
               _d("linalg_lu_solve_packed_leaf",  # the gradient with respect to LU itself
                  lambda L, lu, b: L.linalg.lu_solve(lu, L.tensor([2, 2, 4, 4], dtype=L.int32), b), [M4, In((4, 2))]),
               _s("torch_lu_solve", _quiet(lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a))), [MB, In((2, 3, 1))]),
               _s("lu_solve_method", _quiet(lambda L, a, b: b.lu_solve(*L.linalg.lu_factor(a))), [M4, In((4, 3))]),
               _r("lu_solve_b_1d", lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3))),
               _r("lu_solve_pivots_int64",
                  lambda L: L.linalg.lu_solve(L.linalg.lu_factor(L.eye(3)).LU, L.tensor([1, 2, 3]), L.ones(3, 1))),
               _r("lu_solve_dtype", lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)),
                                                                L.ones(3, 1, dtype=L.float64))),
               _r("lu_solve_nonsquare", lambda L: L.linalg.lu_solve(L.ones(3, 4), L.tensor([1, 2, 3], dtype=L.int32),
                                                                    L.ones(3, 1))),
               _r("lu_solve_shapes", lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(2, 2))),
               _r("lu_solve_shapes_right",
                  lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(2, 2), left=False)),
               _r("lu_solve_pivot_count", lambda L: L.linalg.lu_solve(L.eye(3), L.tensor([1, 2], dtype=L.int32),
                                                                      L.ones(3, 2))),
               _r("lu_solve_pivot_batch", lambda L: L.linalg.lu_solve(
                   L.eye(3), L.tensor([[1, 2, 3], [1, 2, 3]], dtype=L.int32), L.ones(3, 2))),
           ],
           empty=[
               ("no right-hand sides", lambda L, b, a: _quiet(L.lu_solve)(b, *L.linalg.lu_factor(a)),
                ((3, 0), F), ((3, 3), F, False)),
               ("batch of 0", lambda L, b, a: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), ((0, 2, 1), F),
                ((0, 2, 2), F)),
           ]),
    OpInfo("lu_unpack", "decomp", lambda lib, lu, piv: lib.lu_unpack(lu, piv),
           samples=[
               _d("lu_unpack", lambda L, a: (lambda r: r.P @ r.L @ r.U + r.L * r.U)(L.lu_unpack(*L.linalg.lu_factor(a))),
                  [M4]),
               _s("lu_unpack_tall", lambda L, a: (lambda r: _cat([r.L, r.U]))(L.lu_unpack(*L.linalg.lu_factor(a))),
                  [TALL]),
               _s("lu_unpack_batched_wide", lambda L, a: (lambda r: _cat([r.P, r.L, r.U]))(
                   L.lu_unpack(*L.linalg.lu_factor(a))), [In((2, 3, 4))]),
               _s("lu_unpack_no_data", lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a), unpack_data=False).P, [NOGRAD]),
               _s("lu_unpack_no_pivots",
                  lambda L, a: (lambda r: _cat([r.P, r.L, r.U]))(L.lu_unpack(*L.linalg.lu_factor(a), unpack_pivots=False)),
                  [M4]),
               _r("lu_unpack_int64", lambda L: L.lu_unpack(L.eye(3), L.tensor([1, 2, 3]))),
               _r("lu_unpack_1d", lambda L: L.lu_unpack(L.ones(3), L.tensor([1, 2, 3], dtype=L.int32))),
           ],
           empty=[
               ("batch of 0", lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)).L, ((0, 3, 3), F)),
               ("0x0", lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)).U, ((0, 0), F)),
           ]),
    OpInfo("triangular_solve", "decomp", lambda lib, b, a: lib.triangular_solve(b, a),
           samples=[
               _d("triangular_solve", _quiet(lambda L, b, a: L.triangular_solve(b, a).solution), [In((4, 2)), M4]),
               _s("triangular_solve_lower_transpose",
                  _quiet(lambda L, b, a: L.triangular_solve(b, a, upper=False, transpose=True).solution),
                  [In((4, 3)), M4]),
               _s("triangular_solve_unit_method",
                  _quiet(lambda L, b, a: b.triangular_solve(a, unitriangular=True).solution), [In((4, 1)), M4]),
               _s("triangular_solve_broadcast",
                  _quiet(lambda L, b, a: (lambda r: _cat([r.solution, r.cloned_coefficient]))(L.triangular_solve(b, a))),
                  [In((2, 3, 2)), In((3, 3), values=_wellcond((3, 3)))]),
               _r("triangular_solve_b_1d", _quiet(lambda L: L.triangular_solve(L.ones(3), L.eye(3)))),
               _r("triangular_solve_sizes", _quiet(lambda L: L.triangular_solve(L.ones(2, 2), L.eye(3)))),
               _r("triangular_solve_nonsquare", _quiet(lambda L: L.triangular_solve(L.ones(3, 2), L.ones(3, 2)))),
               _r("triangular_solve_dtype",
                  _quiet(lambda L: L.triangular_solve(L.ones(3, 2, dtype=L.float64), L.eye(3)))),
               _r("triangular_solve_int", _quiet(lambda L: L.triangular_solve(L.ones(2, 2, dtype=L.int64),
                                                                              L.ones(2, 2, dtype=L.int64)))),
           ],
           empty=[
               ("no right-hand sides", lambda L, b, a: _quiet(L.triangular_solve)(b, a).solution,
                ((3, 0), F), ((3, 3), F, False)),
               ("batch of 0", lambda L, b, a: _quiet(L.triangular_solve)(b, a, upper=False).solution,
                ((0, 2, 1), F), ((0, 2, 2), F)),
           ]),
]
