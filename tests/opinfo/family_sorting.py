"""Op table: order statistics, counting, scans and distances (npgrad/ops/sorting.py, counting.py, cumulative.py,
distance.py; family "sorting", run by tests/ops/test_sorting.py): sort/argsort/msort, topk/kthvalue,
median/nanmedian/mode, quantile/nanquantile, cummax/cummin/logcumsumexp/diff, cdist, unique, bincount, histc,
searchsorted/bucketize.

Selections are differentiable only without ties: the float rows draw a permutation of well-separated values.
Besides the table tests (``_s``; ``_d`` adds double backward), ``_x`` rows are calls whose results (values,
indices, counts, NaN placement, dtypes) must equal PyTorch's exactly, and ``_r`` rows calls that must raise
PyTorch's exception with its message."""
import numpy as np

from oracle import In
from _record import EMPTY_INTEGER_SWEEP, EXACT, OpInfo, Sample
from _record import row as _s, row2 as _d, raises_like_torch as _r  # noqa: E402 (shared makers)

F = "float32"
NAN = np.nan


def _x(name, fn):
    return Sample(name, fn, (), checks=frozenset({EXACT}))


def _distinct(shape, scale=0.37):
    """A random permutation of well-separated values: no ties, so selections are differentiable."""
    def make(rng):
        n = int(np.prod(shape))
        return (rng.permutation(n).astype(np.float64) * scale - n * scale / 2.5).reshape(shape)
    return make


D = In((3, 5), values=_distinct((3, 5)))
D3 = In((2, 3, 4), values=_distinct((2, 3, 4)))
Q = In((3,), values=lambda rng: np.array([0.1, 0.55, 0.85]))  # ranks away from integers: q is differentiable

OPS = [
    OpInfo("sort", "sorting", lambda lib, x: lib.sort(x),
           samples=[
               _s("sort_last", lambda L, x: L.sort(x), [D]),
               _d("sort_dim0_desc", lambda L, x: x.sort(0, descending=True), [D]),
               _s("sort_stable_3d", lambda L, x: L.sort(x, dim=1, stable=True), [D3]),
               _s("sort_indices", lambda L, x: x.sort(-1, True).indices, [D3], fd=False),
               _s("sort_0d", lambda L, x: L.sort(x).values, [In(())]),
               _x("sort_nan", lambda L: L.sort(L.tensor([3.0, 1.0, NAN, 1.0, 2.0, NAN]))),
               _x("sort_desc_nan", lambda L: L.sort(L.tensor([3.0, 1.0, NAN, 1.0, 2.0, NAN]), descending=True)),
               _x("sort_stable_desc_int", lambda L: L.sort(L.tensor([1, 2, 1, 2, 0]), descending=True, stable=True)),
               _x("sort_bool", lambda L: L.sort(L.tensor([True, False, True]))),
               _x("sort_empty", lambda L: L.sort(L.zeros(2, 0), 1)),
               _x("sort_0d", lambda L: L.sort(L.tensor(3.0))),
               _r("sort_dim", lambda L: L.sort(L.tensor([1.0, 2.0]), dim=1)),
           ],
           sweeps=frozenset({EMPTY_INTEGER_SWEEP}),
           empty=[
               ("empty dim", lambda L, x: L.sort(x, 1), ((2, 0), F)),
           ]),
    OpInfo("argsort", "sorting", lambda lib, x: lib.argsort(x),
           samples=[
               _s("argsort", lambda L, x: L.argsort(x, 1), [D], fd=False),
               _s("argsort_desc", lambda L, x: x.argsort(dim=0, descending=True), [D3], fd=False),
               _x("argsort_stable", lambda L: L.argsort(L.tensor([3, 1, 2, 1]), stable=True)),
           ]),
    OpInfo("msort", "sorting", lambda lib, x: lib.msort(x),
           samples=[
               _s("msort", lambda L, x: L.msort(x), [D]),
           ]),
    OpInfo("topk", "sorting", lambda lib, x: lib.topk(x, 2),
           samples=[
               _s("topk", lambda L, x: L.topk(x, 2), [D]),
               _d("topk_smallest_dim0", lambda L, x: x.topk(2, dim=0, largest=False), [D3]),
               _s("topk_indices", lambda L, x: x.topk(3, 1).indices, [D], fd=False),
               _s("topk_long_rows", lambda L, x: L.topk(x, 3, dim=1), [In((2, 600), values=_distinct((2, 600), 0.01))],
                  fd=False),
               _s("topk_long_rows_smallest", lambda L, x: L.topk(x, 4, 0, largest=False).indices,
                  [In((700, 2), values=_distinct((700, 2), 0.01))], fd=False),
               _x("topk_k0", lambda L: L.topk(L.tensor([3.0, 1.0]), 0)),
               _x("topk_0d", lambda L: L.topk(L.tensor(3.0), 1)),
               _x("topk_smallest_nan", lambda L: L.topk(L.tensor([3.0, 1.0, NAN, 1.5, 2.0, NAN]), 3, largest=False)),
               _x("topk_unsorted_values", lambda L: L.topk(L.tensor([1.0, 5.0, 3.0, 4.0, 2.0]), 3, sorted=True)),
               _r("topk_k_too_big", lambda L: L.topk(L.tensor([3.0, 1.0]), 3)),
               _r("topk_negative_k", lambda L: L.topk(L.tensor([3.0, 1.0]), -1)),
               _r("topk_bool", lambda L: L.topk(L.tensor([True, False]), 1)),
           ],
           empty=[
               ("k=0", lambda L, x: L.topk(x, 0, 1), ((2, 0), F)),
               ("k=1 of empty dim", lambda L, x: L.topk(x, 1, 1), ((2, 0), F)),
           ]),
    OpInfo("kthvalue", "sorting", lambda lib, x: lib.kthvalue(x, 2),
           samples=[
               _s("kthvalue", lambda L, x: L.kthvalue(x, 2), [D]),
               _d("kthvalue_dim0_keepdim", lambda L, x: x.kthvalue(2, 0, keepdim=True), [D3]),
               _s("kthvalue_indices", lambda L, x: x.kthvalue(4, 1).indices, [D], fd=False),
               _x("kthvalue_nan", lambda L: L.kthvalue(L.tensor([3.0, 1.0, NAN, 1.5, 2.0, NAN]), 6)),
               _x("kthvalue_0d", lambda L: L.kthvalue(L.tensor(2.0), 1)),
               _r("kthvalue_k_big", lambda L: L.kthvalue(L.tensor([3.0, 1.0, 2.0]), 4)),
               _r("kthvalue_k0", lambda L: L.kthvalue(L.tensor([3.0, 1.0, 2.0]), 0)),
               _r("kthvalue_bool", lambda L: L.kthvalue(L.tensor([True, False]), 1)),
           ],
           empty=[
               ("k=1 of empty dim", lambda L, x: L.kthvalue(x, 1, 0), ((0, 3), F)),
           ]),
    OpInfo("median", "sorting", lambda lib, x: lib.median(x),
           samples=[
               _d("median_all", lambda L, x: L.median(x), [D]),
               _s("median_all_even", lambda L, x: x.median(), [D3]),
               _d("median_dim", lambda L, x: x.median(1), [D]),
               _s("median_dim0_keepdim", lambda L, x: L.median(x, 0, keepdim=True), [D3]),
               _s("median_dim_indices", lambda L, x: x.median(-1).indices, [D3], fd=False),
               _s("median_int", lambda L, x: L.median(x, 1).values, [In((3, 5), -9, 9, dtype=np.int64)]),
               _x("median_ties_dim", lambda L: L.median(L.tensor([[1.0, 1.0, 1.0, 1.0], [2.0, 1.0, 2.0, 3.0]]), 1)),
               _x("median_nan_dim", lambda L: L.median(L.tensor([[1.0, NAN, 2.0, NAN], [3.0, 1.0, 2.0, 0.0]]), 1)),
               _x("median_empty", lambda L: L.median(L.zeros(0))),
               _x("median_int", lambda L: L.median(L.tensor([3, 1, 2, 4]))),
               _x("median_empty_rows", lambda L: L.median(L.zeros(2, 0), 0)),
               _r("median_bool", lambda L: L.median(L.tensor([True, False]))),
               _r("median_empty_dim", lambda L: L.median(L.zeros(2, 0), 1)),
           ],
           empty=[
               ("dim 1", lambda L, x: L.median(x, 1), ((2, 0), F)),
           ]),
    OpInfo("nanmedian", "sorting", lambda lib, x: lib.nanmedian(x),
           samples=[
               _s("nanmedian_all", lambda L, x: L.nanmedian(x), [D]),
               _d("nanmedian_dim", lambda L, x: x.nanmedian(1), [D]),
               _x("nanmedian_dim", lambda L: L.nanmedian(L.tensor([[1.0, NAN, 2.0, NAN], [3.0, NAN, 2.0, 0.0]]), 1)),
           ]),
    OpInfo("mode", "sorting", lambda lib, x: lib.mode(x),
           samples=[
               _s("mode", lambda L, x: L.mode(x), [In((3, 6), values=lambda rng: rng.integers(0, 3, (3, 6)) * 1.0)],
                  fd=False),
               _s("mode_indices", lambda L, x: x.mode(0).indices,
                  [In((6, 3), values=lambda rng: rng.integers(0, 3, (6, 3)) * 1.0)], fd=False),
               _d("mode_grad", lambda L, x: x.mode(1, keepdim=True).values,
                  [In((2, 4), values=lambda rng: np.array([[1.0, 2.0, 2.0, 3.0], [5.0, 4.0, 5.0, 5.0]]))], fd=False),
               _x("mode_ties", lambda L: L.mode(L.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [3.0, 3.0, 1.0, 1.0, 1.0]]), 1)),
               _x("mode_bool", lambda L: L.mode(L.tensor([True, False, True]))),
               _x("mode_0d", lambda L: L.mode(L.tensor(2.0))),
               _r("mode_empty_dim", lambda L: L.mode(L.zeros(2, 0), 1)),
           ]),
    OpInfo("quantile", "sorting", lambda lib, x: lib.quantile(x, 0.3),
           samples=[
               _s("quantile_all", lambda L, x: L.quantile(x, 0.3), [D]),
               _d("quantile_dim_vector_q", lambda L, x, q: L.quantile(x, q, dim=1), [D, Q]),
               _s("quantile_dim0_keepdim", lambda L, x: x.quantile(0.75, 0, keepdim=True), [D3]),
               _s("quantile_all_keepdim_vec", lambda L, x, q: x.quantile(q, keepdim=True), [D, In((3,), grad=False,
                  values=lambda rng: np.array([0.0, 0.4, 1.0]))]),
               _s("quantile_lower", lambda L, x: x.quantile(0.4, 1, interpolation="lower"), [D]),
               _s("quantile_higher", lambda L, x: x.quantile(0.4, 1, interpolation="higher"), [D]),
               _d("quantile_midpoint", lambda L, x: x.quantile(0.4, 1, interpolation="midpoint"), [D]),
               _s("quantile_nearest", lambda L, x: x.quantile(0.4, 1, interpolation="nearest"), [D]),
               _x("quantile_nan", lambda L: L.quantile(L.tensor([1.0, NAN, 3.0]), 0.5)),
               _x("quantile_nearest_half_even", lambda L: L.quantile(L.tensor([0.0, 1.0, 2.0, 3.0]),
                  L.tensor([1 / 6, 0.5, 5 / 6]), interpolation="nearest")),
               _r("quantile_q_range", lambda L: L.quantile(L.ones(3), 1.5)),
               _r("quantile_interp", lambda L: L.quantile(L.ones(3), 0.5, interpolation="foo")),
               _r("quantile_int", lambda L: L.quantile(L.tensor([1, 2]), 0.5)),
               _r("quantile_q_dtype", lambda L: L.quantile(L.ones(3), L.tensor([0.5], dtype=L.float64))),
               _r("quantile_q_2d", lambda L: L.quantile(L.ones(3), L.tensor([[0.5]]))),
               _r("quantile_empty", lambda L: L.quantile(L.zeros(0), 0.5)),
           ],
           empty=[
               ("empty", lambda L, x: L.quantile(x, 0.5), ((0,), F)),
           ]),
    OpInfo("nanquantile", "sorting", lambda lib, x: lib.nanquantile(x, 0.3),
           samples=[
               _s("nanquantile", lambda L, x: L.nanquantile(x, 0.6, dim=0), [D]),
               _x("nanquantile_all_nan_row", lambda L: L.nanquantile(L.tensor([[1.0, NAN, 3.0], [NAN, NAN, NAN]]),
                  0.5, dim=1)),
           ]),
    OpInfo("cummax", "sorting", lambda lib, x: lib.cummax(x, 0),
           samples=[
               _d("cummax", lambda L, x: L.cummax(x, 1), [D]),
               _s("cummax_indices", lambda L, x: x.cummax(-1).indices, [D3], fd=False),
               _x("cummax_nan", lambda L: L.cummax(L.tensor([1.0, NAN, 3.0, NAN, 2.0]), 0)),
               _x("cummax_int", lambda L: L.cummax(L.tensor([[1, 3, 2], [0, 0, 5]]), 1)),
               _x("cummax_0d", lambda L: L.cummax(L.tensor(1.0), 0)),
           ],
           empty=[
               ("dim 0", lambda L, x: L.cummax(x, 0), ((0, 3), F)),
           ]),
    OpInfo("cummin", "sorting", lambda lib, x: lib.cummin(x, 0),
           samples=[
               _s("cummin_dim0", lambda L, x: x.cummin(0), [D3]),
               _d("cummin_ties_grad", lambda L, x: x.cummin(0).values,
                  [In((6,), values=lambda rng: np.array([3.0, 1.0, 1.0, 2.0, 0.0, 0.0]))], fd=False),  # ties: no FD
               _x("cummin_ties", lambda L: L.cummin(L.tensor([3.0, 1.0, 1.0, 2.0, 0.0, 0.0]), 0)),
           ]),
    OpInfo("logcumsumexp", "sorting", lambda lib, x: lib.logcumsumexp(x, 0),
           samples=[
               _d("logcumsumexp", lambda L, x: L.logcumsumexp(x, 1), [In((3, 5))]),
               _s("logcumsumexp_large", lambda L, x: x.logcumsumexp(0), [In((4, 3), 300.0, 320.0)]),
               _x("logcumsumexp_inf", lambda L: L.logcumsumexp(L.tensor([-np.inf, 2.0, np.inf]), 0)),
               _x("logcumsumexp_0d", lambda L: L.logcumsumexp(L.tensor(1.5), 0)),
               _r("logcumsumexp_int", lambda L: L.logcumsumexp(L.tensor([1, 2]), 0)),
           ],
           empty=[
               ("dim 0", lambda L, x: L.logcumsumexp(x, 0), ((0, 3), F)),
           ]),
    OpInfo("diff", "sorting", lambda lib, x: lib.diff(x),
           samples=[
               _s("diff", lambda L, x: L.diff(x), [In((3, 5))]),
               _s("diff_n2_dim0", lambda L, x: x.diff(2, 0), [In((4, 3))]),
               _d("diff_prepend_append", lambda L, x, p, a: L.diff(x, dim=1, prepend=p, append=a),
                  [In((3, 4)), In((3, 1)), In((3, 2))]),
               _s("diff_int", lambda L, x: L.diff(x), [In((5,), -9, 9, dtype=np.int64)]),
               _s("diff_bool", lambda L, x: L.diff(x > 0), [In((6,))], fd=False),
               _x("diff_n0", lambda L: L.diff(L.tensor([1, 2]))),
               _x("diff_n_exceeds", lambda L: L.diff(L.tensor([1, 2]), n=5)),
               _x("diff_bool", lambda L: L.diff(L.tensor([True, False, False]))),
               _x("diff_promotes_prepend", lambda L: L.diff(L.tensor([1, 2]), prepend=L.tensor([0.5]))),
               _r("diff_0d", lambda L: L.diff(L.tensor(1.0))),
               _r("diff_negative_n", lambda L: L.diff(L.tensor([1, 2]), n=-1)),
               _r("diff_prepend_ndim", lambda L: L.diff(L.tensor([1, 2]), prepend=L.tensor(0))),
           ],
           empty=[
               ("dim 1", lambda L, x: L.diff(x, dim=1), ((2, 0), F)),
           ]),
    OpInfo("cdist", "sorting", lambda lib, a, b: lib.cdist(a, b),
           samples=[
               _s("cdist", lambda L, a, b: L.cdist(a, b), [In((4, 3)), In((5, 3))]),
               _s("cdist_batched_broadcast", lambda L, a, b: L.cdist(a, b), [In((2, 1, 3, 2)), In((4, 5, 2))]),
               _s("cdist_p1", lambda L, a, b: L.cdist(a, b, p=1), [In((4, 3)), In((5, 3))]),
               _s("cdist_p3", lambda L, a, b: L.cdist(a, b, p=3), [In((4, 3)), In((5, 3))]),
               _s("cdist_p_half", lambda L, a, b: L.cdist(a, b, p=0.5), [In((4, 3)), In((5, 3))]),
               _s("cdist_inf", lambda L, a, b: L.cdist(a, b, p=float("inf")), [In((4, 3)), In((5, 3))]),
               _s("cdist_p0", lambda L, a, b: L.cdist(a, b, p=0), [In((4, 3)), In((5, 3))], fd=False),
               _s("cdist_mm_path", lambda L, a, b: L.cdist(a, b), [In((30, 3)), In((6, 3))],
                  grad_tol=dict(rtol=1e-4, atol=1e-5)),
               _s("cdist_no_mm", lambda L, a, b: L.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
                  [In((30, 3)), In((6, 3))]),
               _x("cdist_empty_rows", lambda L: L.cdist(L.zeros(0, 2), L.ones(3, 2))),
               _x("cdist_empty_cols", lambda L: L.cdist(L.zeros(2, 0), L.ones(3, 0))),
               _r("cdist_1d", lambda L: L.cdist(L.tensor([0.0, 0.0]), L.tensor([[1.0, 0.0]]))),
               _r("cdist_columns", lambda L: L.cdist(L.tensor([[0.0, 0.0]]), L.tensor([[1.0, 0.0, 1.0]]))),
               _r("cdist_negative_p", lambda L: L.cdist(L.tensor([[0.0, 0.0]]), L.tensor([[1.0, 0.0]]), p=-1)),
               _r("cdist_int", lambda L: L.cdist(L.tensor([[0, 0]]), L.tensor([[1, 0]]))),
               _r("cdist_batch", lambda L: L.cdist(L.ones(2, 3, 2), L.ones(4, 5, 2))),
               _r("cdist_dtypes", lambda L: L.cdist(L.ones(3, 2), L.ones(5, 2, dtype=L.float64))),
           ],
           empty=[
               ("(0,3) to (2,3)", lambda L, a, b: L.cdist(a, b), ((0, 3), F), ((2, 3), F)),
           ]),
    OpInfo("unique", "sorting", lambda lib, x: lib.unique(x),
           samples=[
               _x("unique", lambda L: L.unique(L.tensor([3, 1, 2, 1, 3]), return_inverse=True, return_counts=True)),
               _x("unique_unsorted", lambda L: L.unique(L.tensor([3, 1, 2, 1, 3]), sorted=False)),
               _x("unique_2d_inverse", lambda L: L.unique(L.tensor([[3, 1], [1, 2]]), return_inverse=True)),
               _x("unique_dim0", lambda L: L.unique(L.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True,
                  return_counts=True)),
               _x("unique_dim1", lambda L: L.unique(L.tensor([[1, 0, 1], [2, 5, 2]]), dim=1, return_counts=True)),
               _x("unique_nan", lambda L: L.unique(L.tensor([1.0, NAN, NAN, 1.0]))),
               _x("unique_empty", lambda L: L.unique(L.zeros(0), return_inverse=True, return_counts=True)),
               _x("unique_0d", lambda L: L.unique(L.tensor(3.0), return_inverse=True)),
               _x("unique_bool", lambda L: L.unique(L.tensor([True, False, True]), return_counts=True)),
               _r("unique_dim_0d", lambda L: L.unique(L.tensor(3.0), dim=0)),
           ],
           sweeps=frozenset({EMPTY_INTEGER_SWEEP}),
           empty=[
               ("dim 0", lambda L, x: L.unique(x, dim=0), ((0, 3), F)),
           ]),
    OpInfo("unique_consecutive", "sorting", lambda lib, x: lib.unique_consecutive(x),
           samples=[
               _x("unique_consecutive", lambda L: L.unique_consecutive(L.tensor([1, 1, 2, 2, 3, 1, 1, 2]),
                  return_inverse=True, return_counts=True)),
               _x("unique_consecutive_dim", lambda L: L.unique_consecutive(
                  L.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]), dim=0, return_inverse=True, return_counts=True)),
               _x("unique_consecutive_nan", lambda L: L.unique_consecutive(L.tensor([NAN, NAN, 1.0, 1.0]))),
               _x("unique_consecutive_empty", lambda L: L.unique_consecutive(L.zeros(0), return_counts=True,
                  return_inverse=True)),
           ]),
    OpInfo("bincount", "sorting", lambda lib, x: lib.bincount(x),
           samples=[
               _x("bincount", lambda L: L.bincount(L.tensor([0, 2, 2, 5]))),
               _x("bincount_minlength", lambda L: L.bincount(L.tensor([0, 2]), minlength=5)),
               _x("bincount_weights32", lambda L: L.bincount(L.tensor([0, 2, 2, 5]), L.tensor([0.5, 1.0, 1.0, 2.0]))),
               _x("bincount_weights64", lambda L: L.bincount(L.tensor([0, 2, 2]),
                                                             L.tensor([0.5, 1.0, 1.0], dtype=L.float64))),
               _x("bincount_weights_int", lambda L: L.bincount(L.tensor([0, 2, 2, 5]), weights=L.tensor([1, 2, 3, 4]))),
               _x("bincount_empty", lambda L: L.bincount(L.tensor([], dtype=L.int64))),
               _r("bincount_negative", lambda L: L.bincount(L.tensor([0, -1]))),
               _r("bincount_float", lambda L: L.bincount(L.tensor([0.0, 1.0]))),
               _r("bincount_2d", lambda L: L.bincount(L.tensor([[0, 1]]))),
               _r("bincount_weights_len", lambda L: L.bincount(L.tensor([0, 1]), weights=L.tensor([1.0]))),
               _r("bincount_minlength", lambda L: L.bincount(L.tensor([0, 1]), minlength=-1)),
           ],
           empty=[
               ("empty", lambda L, x: L.bincount(x), ((0,), "int64")),
           ]),
    OpInfo("histc", "sorting", lambda lib, x: lib.histc(x),
           samples=[
               _x("histc", lambda L: L.histc(L.tensor([1.0, 2.0, 1.0, 4.0, 0.5]), bins=4, min=0, max=4)),
               _x("histc_auto_range", lambda L: L.histc(L.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)),
               _x("histc_constant", lambda L: L.histc(L.tensor([2.0, 2.0]), bins=4)),
               _x("histc_outside", lambda L: L.histc(L.tensor([-1.0, 5.0, 1.0, NAN]), bins=2, min=0, max=2)),
               _x("histc_edges", lambda L: L.histc(L.tensor([0.0, 1.0, 2.0, 3.0]), bins=3, min=0, max=3)),
               _x("histc_float32_bins", lambda L: L.histc(L.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0]), bins=10,
                                                          min=0, max=1)),
               _x("histc_float64", lambda L: L.histc(L.tensor([0.1, 0.2, 0.3], dtype=L.float64), bins=3)),
               _r("histc_int", lambda L: L.histc(L.tensor([1, 2]), bins=2)),
               _r("histc_bad_range", lambda L: L.histc(L.tensor([1.0, 2.0]), bins=2, min=3, max=1)),
               _r("histc_bins0", lambda L: L.histc(L.tensor([1.0, 2.0]), bins=0)),
               _r("histc_inf", lambda L: L.histc(L.tensor([1.0, np.inf]), bins=2)),
           ],
           empty=[
               ("empty", lambda L, x: L.histc(x, 4), ((0,), F)),
           ]),
    OpInfo("searchsorted", "sorting", lambda lib, s, v: lib.searchsorted(s, v),
           samples=[
               _x("searchsorted", lambda L: L.searchsorted(L.tensor([1.0, 3.0, 5.0, 7.0]),
                                                           L.tensor([0.0, 3.0, 6.0, 9.0]))),
               _x("searchsorted_right", lambda L: L.searchsorted(L.tensor([1.0, 3.0, 3.0, 7.0]), L.tensor([3.0, 9.0]),
                  right=True)),
               _x("searchsorted_side", lambda L: L.searchsorted(L.tensor([1.0, 3.0, 3.0, 7.0]), L.tensor([3.0]),
                  side="right")),
               _x("searchsorted_scalar", lambda L: L.searchsorted(L.tensor([1.0, 3.0, 5.0]), 4.0)),
               _x("searchsorted_int32", lambda L: L.searchsorted(L.tensor([1.0, 3.0]), L.tensor([2.0]),
                  out_int32=True)),
               _x("searchsorted_nd", lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]),
                                                              L.tensor([[3, 6], [1, 7]]))),
               _x("searchsorted_sorter", lambda L: L.searchsorted(L.tensor([5.0, 1.0, 3.0]), L.tensor([2.0, 4.0]),
                  sorter=L.tensor([1, 2, 0]))),
               _x("searchsorted_mixed", lambda L: L.searchsorted(L.tensor([1, 3, 5]), L.tensor([2.5, 4.0]))),
               _x("searchsorted_2d_values", lambda L: L.searchsorted(L.tensor([1.0, 3.0]),
                                                                     L.tensor([[0.0, 3.0], [6.0, 2.0]]))),
               _r("searchsorted_side", lambda L: L.searchsorted(L.tensor([1.0]), L.tensor([1.0]), side="foo")),
               _r("searchsorted_conflict", lambda L: L.searchsorted(L.tensor([1.0]), L.tensor([1.0]), side="left",
                  right=True)),
               _r("searchsorted_0d", lambda L: L.searchsorted(L.tensor(1.0), L.tensor([2.0]))),
               _r("searchsorted_leading", lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]),
                                                                   L.tensor([[3, 6]]))),
           ],
           empty=[
               ("empty values", lambda L, s, v: L.searchsorted(s, v), ((3,), F, False), ((0,), F, False)),
           ]),
    OpInfo("bucketize", "sorting", lambda lib, v, b: lib.bucketize(v, b),
           samples=[
               _x("bucketize", lambda L: L.bucketize(L.tensor([0.0, 3.0, 6.0, 9.0]), L.tensor([1.0, 3.0, 5.0, 7.0]))),
               _x("bucketize_right", lambda L: L.bucketize(L.tensor([0.0, 3.0, 6.0]), L.tensor([1.0, 3.0, 5.0]),
                  right=True)),
               _x("bucketize_scalar", lambda L: L.bucketize(3.0, L.tensor([1.0, 3.0, 5.0]))),
               _r("bucketize_2d", lambda L: L.bucketize(L.tensor([1.0]), L.tensor([[1.0, 2.0]]))),
           ],
           empty=[
               ("empty input", lambda L, v, b: L.bucketize(v, b), ((0,), F, False), ((3,), F, False)),
           ]),
]
