"""Op table: the less common products and matrix statistics (npgrad/ops/products_extra.py; family "linalg", run
by tests/ops/test_linalg.py): addbmm/addmv/addr and their in-place forms, chain_matmul, dist, nuclear_norm,
frobenius_norm, cov, corrcoef. The deprecated spellings warn as PyTorch's do; the rows silence that."""
import warnings

import numpy as np

from oracle import In
from _record import OpInfo
from _record import row as _s, row2 as _d, raises_like_torch as _r  # noqa: E402 (shared makers)

F = "float32"


def _quiet(fn):
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return call


def _weights(rng):
    return rng.integers(1, 4, size=5)


FW = In((5,), dtype=np.int64, grad=False, values=_weights)
AW = In((5,), 0.2, 2.0)

OPS = [
    OpInfo("addbmm", "linalg", lambda lib, c, a, b: lib.addbmm(c, a, b),
           samples=[
               _d("addbmm", lambda lib, c, a, b: lib.addbmm(c, a, b, beta=0.5, alpha=2.0),
                  [In((3, 4)), In((2, 3, 5)), In((2, 5, 4))]),
               _s("addbmm_bias_broadcast", lambda lib, c, a, b: lib.addbmm(c, a, b), [In((4,)), In((2, 3, 5)), In((2, 5, 4))]),
               _s("addbmm_method", lambda lib, c, a, b: c.addbmm(a, b, alpha=-1), [In((3, 1)), In((2, 3, 2)), In((2, 2, 4))]),
               _s("addbmm_inplace", lambda lib, c, a, b: (c * 1).addbmm_(a, b, beta=2), [In((3, 4)), In((2, 3, 2)), In((2, 2, 4))]),
               _r("addbmm_batches", lambda L: L.addbmm(L.ones(3, 4), L.ones(2, 3, 5), L.ones(3, 5, 4))),
               _r("addbmm_sizes", lambda L: L.addbmm(L.ones(3, 4), L.ones(2, 3, 5), L.ones(2, 4, 4))),
               _r("addbmm_bias", lambda L: L.addbmm(L.ones(2, 4), L.ones(2, 3, 5), L.ones(2, 5, 4))),
               _r("addbmm_dtype", lambda L: L.addbmm(L.ones(3, 4), L.ones(2, 3, 2, dtype=L.float64), L.ones(2, 2, 4))),
               _r("addbmm_self_dtype", lambda L: L.addbmm(L.ones(3, 4, dtype=L.float64), L.ones(2, 3, 2), L.ones(2, 2, 4))),
           ],
           empty=[
               ("k=0", lambda L, c, a, b: L.addbmm(c, a, b), ((2, 3), F), ((2, 2, 0), F), ((2, 0, 3), F)),
           ]),
    OpInfo("addmv", "linalg", lambda lib, c, a, v: lib.addmv(c, a, v),
           samples=[
               _d("addmv", lambda lib, c, a, v: lib.addmv(c, a, v, beta=0.5, alpha=2.0), [In((3,)), In((3, 4)), In((4,))]),
               _s("addmv_bias_1", lambda lib, c, a, v: c.addmv(a, v), [In((1,)), In((3, 4)), In((4,))]),
               _s("addmv_inplace", lambda lib, c, a, v: (c * 1).addmv_(a, v, alpha=3), [In((3,)), In((3, 2)), In((2,))]),
               _r("addmv_sizes", lambda L: L.addmv(L.ones(3), L.ones(3, 5), L.ones(4))),
               _r("addmv_input", lambda L: L.addmv(L.ones(2), L.ones(3, 5), L.ones(5))),
               _r("addmv_rank", lambda L: L.addmv(L.ones(3), L.ones(3, 5, 1), L.ones(5))),
               _r("addmv_dtype", lambda L: L.addmv(L.ones(3), L.ones(3, 2, dtype=L.float64), L.ones(2))),
           ],
           empty=[
               ("k=0", lambda L, c, a, v: L.addmv(c, a, v), ((3,), F), ((3, 0), F), ((0,), F)),
           ]),
    OpInfo("addr", "linalg", lambda lib, c, a, b: lib.addr(c, a, b),
           samples=[
               _d("addr", lambda lib, c, a, b: lib.addr(c, a, b, beta=0.5, alpha=2.0), [In((3, 4)), In((3,)), In((4,))]),
               _s("addr_bias_broadcast", lambda lib, c, a, b: c.addr(a, b), [In((4,)), In((3,)), In((4,))]),
               _s("addr_inplace", lambda lib, c, a, b: (c * 1).addr_(a, b, beta=-1), [In((3, 4)), In((3,)), In((4,))]),
               _r("addr_vec1", lambda L: L.addr(L.ones(3, 4), L.ones(3, 1), L.ones(4))),
               _r("addr_vec2", lambda L: L.addr(L.ones(3, 4), L.ones(3), L.ones(4, 1))),
               _r("addr_bias", lambda L: L.addr(L.ones(2, 4), L.ones(3), L.ones(4))),
               _r("addr_int_beta", lambda L: L.addr(L.ones(3, 4, dtype=L.int64), L.ones(3, dtype=L.int64),
                                                   L.ones(4, dtype=L.int64), beta=0.5)),
           ],
           empty=[
               ("(0,)x(3,)", lambda L, c, a, b: L.addr(c, a, b), ((0, 3), F), ((0,), F), ((3,), F)),
           ]),
    OpInfo("chain_matmul", "linalg", lambda lib, *ms: lib.chain_matmul(*ms),
           samples=[
               _d("chain_matmul", _quiet(lambda lib, a, b, c: lib.chain_matmul(a, b, c)),
                  [In((2, 5)), In((5, 1)), In((1, 3))]),
               _s("chain_matmul_one", _quiet(lambda lib, a: lib.chain_matmul(a)), [In((2, 3))]),
               _r("chain_matmul_none", _quiet(lambda L: L.chain_matmul())),
           ]),
    OpInfo("dist", "linalg", lambda lib, a, b: lib.dist(a, b),
           samples=[
               _d("dist", lambda lib, a, b: lib.dist(a, b), [In((2, 3)), In((2, 3))]),
               _s("dist_p3_broadcast", lambda lib, a, b: a.dist(b, 3), [In((3,)), In((2, 3))]),
               _s("dist_inf", lambda lib, a, b: lib.dist(a, b, float("inf")), [In((4,)), In((4,))]),
               _s("dist_p1", lambda lib, a, b: lib.dist(a, b, 1), [In((4,)), In((4,), 3.0, 4.0)]),
               _s("dist_p0", lambda lib, a, b: lib.dist(a, b, 0), [In((4,), grad=False), In((4,), grad=False)]),  # torch: no backward
               _r("dist_int", lambda L: L.dist(L.tensor([1, 2]), L.tensor([1, 3]))),
           ]),
    OpInfo("nuclear_norm", "linalg", lambda lib, a: lib.nuclear_norm(a),
           samples=[
               _d("nuclear_norm", _quiet(lambda lib, a: lib.nuclear_norm(a)), [In((3, 4))]),
               _s("nuclear_norm_dim_keepdim", _quiet(lambda lib, a: lib.nuclear_norm(a, (0, 2), True)), [In((2, 3, 4))]),
               _s("nuclear_norm_keepdim", _quiet(lambda lib, a: lib.nuclear_norm(a, True)), [In((3, 3))]),
               _r("nuclear_norm_1d", _quiet(lambda L: L.nuclear_norm(L.ones(3)))),
           ]),
    OpInfo("frobenius_norm", "linalg", lambda lib, a: lib.frobenius_norm(a, (0, 1)),
           samples=[
               _d("frobenius_norm", _quiet(lambda lib, a: lib.frobenius_norm(a, (0, 1))), [In((3, 4))]),
               _s("frobenius_norm_dim_keepdim", _quiet(lambda lib, a: lib.frobenius_norm(a, 1, True)), [In((2, 3, 4))]),
               _r("frobenius_norm_3_dims", _quiet(lambda L: L.frobenius_norm(L.ones(3, 4), dim=(0, 1, 1)))),
           ]),
    OpInfo("cov", "linalg", lambda lib, a: lib.cov(a),
           samples=[
               _d("cov", lambda lib, a: lib.cov(a), [In((3, 5))]),
               _s("cov_1d", lambda lib, a: a.cov(), [In((5,))]),
               _s("cov_correction0", lambda lib, a: lib.cov(a, correction=0), [In((2, 5))]),
               _d("cov_weights", lambda lib, a, f, w: lib.cov(a, fweights=f, aweights=w), [In((3, 5)), FW, AW]),
               _s("cov_fweights", lambda lib, a, f: lib.cov(a, correction=2, fweights=f), [In((3, 5)), FW]),
               _s("cov_aweights_widen", lambda lib, a, w: lib.cov(a, aweights=w),
                  [In((3, 5)), In((5,), 0.2, 2.0, dtype=np.float64)]),
               _r("cov_3d", lambda L: L.cov(L.ones(2, 3, 5))),
               _r("cov_fweights_float", lambda L: L.cov(L.ones(3, 5), fweights=L.ones(5))),
               _r("cov_fweights_negative", lambda L: L.cov(L.ones(3, 5), fweights=L.tensor([1, -2, 1, 1, 3]))),
               _r("cov_aweights_negative", lambda L: L.cov(L.ones(3, 5), aweights=L.tensor([1, -2, 1, 1, 3.0]))),
               _r("cov_aweights_numel", lambda L: L.cov(L.ones(3, 5), aweights=L.ones(4))),
               _r("cov_aweights_2d", lambda L: L.cov(L.ones(3, 5), aweights=L.ones(1, 5))),
               _r("cov_aweights_int", lambda L: L.cov(L.ones(3, 5), aweights=L.tensor([1, 2, 1, 1, 3]))),
           ]),
    OpInfo("corrcoef", "linalg", lambda lib, a: lib.corrcoef(a),
           samples=[
               _d("corrcoef", lambda lib, a: lib.corrcoef(a), [In((3, 6))]),
               _s("corrcoef_method", lambda lib, a: a.corrcoef(), [In((2, 4))]),
               _r("corrcoef_3d", lambda L: L.corrcoef(L.ones(2, 3, 5))),
           ]),
]
