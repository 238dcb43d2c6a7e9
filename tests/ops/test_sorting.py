"""Order statistics, counting, scans and cdist against PyTorch and float64 finite differences: one table
row per op and option, then ties/NaN rules, result types, node names and error messages."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, check_against_torch, torch
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test


def _distinct(shape, scale=0.37):
    """A random permutation of well-separated values: no ties, so selections are differentiable."""
    def make(rng):
        n = int(np.prod(shape))
        return (rng.permutation(n).astype(np.float64) * scale - n * scale / 2.5).reshape(shape)
    return make


def _probabilities(shape):
    return lambda rng: rng.uniform(0.05, 0.95, size=shape)


def _sorted_rows(shape):
    return lambda rng: np.sort(rng.uniform(-2, 2, size=shape), axis=-1)


D = In((3, 5), values=_distinct((3, 5)))
D3 = In((2, 3, 4), values=_distinct((2, 3, 4)))
D1 = In((7,), values=_distinct((7,)))
Q = In((3,), values=lambda rng: np.array([0.1, 0.55, 0.85]))  # ranks away from integers: q is differentiable

CASES = [
    # sort / argsort / msort
    OpCase("sort_last", lambda L, x: L.sort(x), [D]),
    OpCase("sort_dim0_desc", lambda L, x: x.sort(0, descending=True), [D]),
    OpCase("sort_stable_3d", lambda L, x: L.sort(x, dim=1, stable=True), [D3]),
    OpCase("sort_indices", lambda L, x: x.sort(-1, True).indices, [D3], fd=False),
    OpCase("sort_0d", lambda L, x: L.sort(x).values, [In(())]),
    OpCase("argsort", lambda L, x: L.argsort(x, 1), [D], fd=False),
    OpCase("argsort_desc", lambda L, x: x.argsort(dim=0, descending=True), [D3], fd=False),
    OpCase("msort", lambda L, x: L.msort(x), [D]),
    # topk / kthvalue
    OpCase("topk", lambda L, x: L.topk(x, 2), [D]),
    OpCase("topk_smallest_dim0", lambda L, x: x.topk(2, dim=0, largest=False), [D3]),
    OpCase("topk_indices", lambda L, x: x.topk(3, 1).indices, [D], fd=False),
    OpCase("topk_long_rows", lambda L, x: L.topk(x, 3, dim=1), [In((2, 600), values=_distinct((2, 600), 0.01))],
           fd=False),
    OpCase("topk_long_rows_smallest", lambda L, x: L.topk(x, 4, 0, largest=False).indices,
           [In((700, 2), values=_distinct((700, 2), 0.01))], fd=False),
    OpCase("kthvalue", lambda L, x: L.kthvalue(x, 2), [D]),
    OpCase("kthvalue_dim0_keepdim", lambda L, x: x.kthvalue(2, 0, keepdim=True), [D3]),
    OpCase("kthvalue_indices", lambda L, x: x.kthvalue(4, 1).indices, [D], fd=False),
    # median / nanmedian / mode
    OpCase("median_all", lambda L, x: L.median(x), [D]),
    OpCase("median_all_even", lambda L, x: x.median(), [D3]),
    OpCase("median_dim", lambda L, x: x.median(1), [D]),
    OpCase("median_dim0_keepdim", lambda L, x: L.median(x, 0, keepdim=True), [D3]),
    OpCase("median_dim_indices", lambda L, x: x.median(-1).indices, [D3], fd=False),
    OpCase("median_int", lambda L, x: L.median(x, 1).values, [In((3, 5), -9, 9, dtype=np.int64)]),
    OpCase("nanmedian_all", lambda L, x: L.nanmedian(x), [D]),
    OpCase("nanmedian_dim", lambda L, x: x.nanmedian(1), [D]),
    OpCase("mode", lambda L, x: L.mode(x), [In((3, 6), values=lambda rng: rng.integers(0, 3, (3, 6)) * 1.0)],
           fd=False),
    OpCase("mode_indices", lambda L, x: x.mode(0).indices,
           [In((6, 3), values=lambda rng: rng.integers(0, 3, (6, 3)) * 1.0)], fd=False),
    OpCase("mode_grad", lambda L, x: x.mode(1, keepdim=True).values,
           [In((2, 4), values=lambda rng: np.array([[1.0, 2.0, 2.0, 3.0], [5.0, 4.0, 5.0, 5.0]]))], fd=False),
    # quantile / nanquantile
    OpCase("quantile_all", lambda L, x: L.quantile(x, 0.3), [D]),
    OpCase("quantile_dim_vector_q", lambda L, x, q: L.quantile(x, q, dim=1), [D, Q]),
    OpCase("quantile_dim0_keepdim", lambda L, x: x.quantile(0.75, 0, keepdim=True), [D3]),
    OpCase("quantile_all_keepdim_vec", lambda L, x, q: x.quantile(q, keepdim=True), [D, In((3,), grad=False,
           values=lambda rng: np.array([0.0, 0.4, 1.0]))]),
    OpCase("quantile_lower", lambda L, x: x.quantile(0.4, 1, interpolation="lower"), [D]),
    OpCase("quantile_higher", lambda L, x: x.quantile(0.4, 1, interpolation="higher"), [D]),
    OpCase("quantile_midpoint", lambda L, x: x.quantile(0.4, 1, interpolation="midpoint"), [D]),
    OpCase("quantile_nearest", lambda L, x: x.quantile(0.4, 1, interpolation="nearest"), [D]),
    OpCase("nanquantile", lambda L, x: L.nanquantile(x, 0.6, dim=0), [D]),
    # cummax / cummin / logcumsumexp / diff
    OpCase("cummax", lambda L, x: L.cummax(x, 1), [D]),
    OpCase("cummin_dim0", lambda L, x: x.cummin(0), [D3]),
    OpCase("cummax_indices", lambda L, x: x.cummax(-1).indices, [D3], fd=False),
    OpCase("cummin_ties_grad", lambda L, x: x.cummin(0).values,
           [In((6,), values=lambda rng: np.array([3.0, 1.0, 1.0, 2.0, 0.0, 0.0]))], fd=False),  # ties: no FD
    OpCase("logcumsumexp", lambda L, x: L.logcumsumexp(x, 1), [In((3, 5))]),
    OpCase("logcumsumexp_large", lambda L, x: x.logcumsumexp(0), [In((4, 3), 300.0, 320.0)]),
    OpCase("diff", lambda L, x: L.diff(x), [In((3, 5))]),
    OpCase("diff_n2_dim0", lambda L, x: x.diff(2, 0), [In((4, 3))]),
    OpCase("diff_prepend_append", lambda L, x, p, a: L.diff(x, dim=1, prepend=p, append=a),
           [In((3, 4)), In((3, 1)), In((3, 2))]),
    OpCase("diff_int", lambda L, x: L.diff(x), [In((5,), -9, 9, dtype=np.int64)]),
    OpCase("diff_bool", lambda L, x: L.diff(x > 0), [In((6,))], fd=False),
    # cdist
    OpCase("cdist", lambda L, a, b: L.cdist(a, b), [In((4, 3)), In((5, 3))]),
    OpCase("cdist_batched_broadcast", lambda L, a, b: L.cdist(a, b), [In((2, 1, 3, 2)), In((4, 5, 2))]),
    OpCase("cdist_p1", lambda L, a, b: L.cdist(a, b, p=1), [In((4, 3)), In((5, 3))]),
    OpCase("cdist_p3", lambda L, a, b: L.cdist(a, b, p=3), [In((4, 3)), In((5, 3))]),
    OpCase("cdist_p_half", lambda L, a, b: L.cdist(a, b, p=0.5), [In((4, 3)), In((5, 3))]),
    OpCase("cdist_inf", lambda L, a, b: L.cdist(a, b, p=float("inf")), [In((4, 3)), In((5, 3))]),
    OpCase("cdist_p0", lambda L, a, b: L.cdist(a, b, p=0), [In((4, 3)), In((5, 3))], fd=False),
    OpCase("cdist_mm_path", lambda L, a, b: L.cdist(a, b), [In((30, 3)), In((6, 3))],
           grad_tol=dict(rtol=1e-4, atol=1e-5)),
    OpCase("cdist_no_mm", lambda L, a, b: L.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
           [In((30, 3)), In((6, 3))]),
]

# The matrix-product form is less accurate for float32: PyTorch and npgrad round differently there.
_MM_FORWARD_TOL = {"cdist_mm_path"}

if HAS_TORCH:
    @pytest.mark.parametrize("case", CASES, ids=str)
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    def test_matches_torch(case, dtype):
        tol = None
        if case.name in _MM_FORWARD_TOL and dtype == np.float32:
            case = OpCase(case.name, case.fn, case.inputs, grad_tol=dict(rtol=1e-3, atol=1e-4))
            tol = dict(rtol=1e-4, atol=1e-5)
        check_against_torch(case, dtype, tol=tol)

    SECOND_ORDER = [c for c in CASES if c.name in {
        "sort_dim0_desc", "topk_smallest_dim0", "kthvalue_dim0_keepdim", "median_all", "median_dim",
        "nanmedian_dim", "quantile_dim_vector_q", "quantile_midpoint", "cummax", "cummin_ties_grad",
        "logcumsumexp", "diff_prepend_append", "mode_grad"}]

    test_double_backward_matches_torch = double_backward_test(SECOND_ORDER)


test_finite_differences = finite_difference_test([c for c in CASES if c.fd])


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 1.5])
def test_cdist_second_order_finite_differences(p):
    # PyTorch has no double backward for cdist: check ours numerically.
    rng = np.random.default_rng(0)
    a = npgrad.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = npgrad.tensor(rng.standard_normal((2, 4, 2)), requires_grad=True)
    assert npgrad.autograd.gradgradcheck(lambda u, v: npgrad.cdist(u, v, p=p), (a, b), atol=1e-5, rtol=1e-4)


# -- selection rules without torch ---------------------------------------------------------------------------------

def test_sort_is_stable_and_nan_is_largest():
    x = npgrad.tensor([3.0, 1.0, np.nan, 1.0, 2.0, np.nan])
    r = x.sort()
    assert r.indices.tolist() == [1, 3, 4, 0, 2, 5]
    r = x.sort(descending=True)
    assert r.indices.tolist() == [2, 5, 0, 4, 1, 3]
    assert npgrad.sort(npgrad.tensor([1, 2, 1, 2, 0]), descending=True).indices.tolist() == [1, 3, 0, 2, 4]


def test_sort_gradient_goes_to_source_positions():
    x = npgrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    v = x.sort().values
    (v * npgrad.tensor([10.0, 20.0, 30.0])).sum().backward()
    assert x.grad.tolist() == [30.0, 10.0, 20.0]


def test_full_median_shares_gradient_between_ties():
    x = npgrad.tensor([[1.0, 1.0, 2.0], [3.0, 1.0, 1.0]], requires_grad=True)
    m = x.median()
    assert m.item() == 1.0
    m.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.25, 0.25, 0], [0, 0.25, 0.25]])


def test_median_is_the_lower_median():
    assert npgrad.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    r = npgrad.tensor([[4.0, 1.0, 3.0, 2.0]]).median(1)
    assert r.values.tolist() == [2.0] and r.indices.tolist() == [3]


def test_median_with_nan():
    x = npgrad.tensor([[1.0, np.nan, 2.0, np.nan], [3.0, 1.0, 2.0, 0.0]])
    r = x.median(1)
    assert np.isnan(r.values[0].item()) and r.indices[0].item() == 1
    r = x.nanmedian(1)
    assert r.values.tolist() == [1.0, 1.0] and r.indices.tolist() == [0, 1]
    assert np.isnan(x.median().item()) and x.nanmedian().item() == 1.0


def test_mode_prefers_smallest_value_and_last_index():
    r = npgrad.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [3.0, 3.0, 1.0, 1.0, 1.0]]).mode(1)
    assert r.values.tolist() == [1.0, 1.0] and r.indices.tolist() == [3, 4]
    r = npgrad.tensor([1.0, np.nan, np.nan]).mode()  # NaNs never equal each other
    assert r.values.item() == 1.0 and r.indices.item() == 0


def test_cummax_ties_and_nan():
    r = npgrad.tensor([1.0, 3.0, 3.0, 2.0, 5.0, 5.0]).cummax(0)
    assert r.values.tolist() == [1, 3, 3, 3, 5, 5] and r.indices.tolist() == [0, 1, 2, 2, 4, 5]
    r = npgrad.tensor([1.0, np.nan, 3.0, np.nan, 2.0]).cummax(0)
    assert r.indices.tolist() == [0, 1, 1, 3, 3] and np.isnan(r.values[1:].numpy()).all()
    x = npgrad.tensor([2.0, 1.0, 0.5], requires_grad=True)
    x.cummax(0).values.sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 0.0]


def test_quantile_linear_by_hand():
    x = npgrad.tensor([[1.0, 4.0, 2.0, 8.0], [3.0, 0.0, 5.0, 7.0]], dtype=npgrad.float64)
    np.testing.assert_allclose(x.quantile(0.4).item(), 2.8)
    np.testing.assert_allclose(x.quantile(npgrad.tensor([0.25, 0.5], dtype=npgrad.float64), dim=1).numpy(),
                               [[1.75, 2.25], [3.0, 4.0]])


def test_unique_and_counts_by_hand():
    vals, inv, cnt = npgrad.unique(npgrad.tensor([3, 1, 2, 1, 3]), return_inverse=True, return_counts=True)
    assert vals.tolist() == [1, 2, 3] and inv.tolist() == [2, 0, 1, 0, 2] and cnt.tolist() == [2, 1, 2]
    assert npgrad.bincount(npgrad.tensor([0, 2, 2, 5])).tolist() == [1, 0, 2, 0, 0, 1]
    assert npgrad.searchsorted(npgrad.tensor([1.0, 3.0, 5.0]), npgrad.tensor([3.0, 4.0])).tolist() == [1, 2]
    assert npgrad.bucketize(npgrad.tensor([3.0, 4.0]), npgrad.tensor([1.0, 3.0, 5.0]), right=True).tolist() == [2, 2]
    assert npgrad.histc(npgrad.tensor([1.0, 2.0, 1.0, 4.0]), bins=3).tolist() == [2.0, 1.0, 1.0]


def test_logcumsumexp_stable_and_by_hand():
    x = npgrad.tensor([1000.0, 1000.0, -np.inf], dtype=npgrad.float64)
    np.testing.assert_allclose(x.logcumsumexp(0).numpy(), [1000.0, 1000.0 + np.log(2), 1000.0 + np.log(2)])


def test_cdist_by_hand_and_zero_distance_gradient():
    a = npgrad.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
    b = npgrad.tensor([[0.0, 0.0]], requires_grad=True)
    d = npgrad.cdist(a, b)
    assert d.tolist() == [[0.0], [5.0]]
    d.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[0.0, 0.0], [0.6, 0.8]])
    np.testing.assert_allclose(b.grad.numpy(), [[-0.6, -0.8]])


# -- exact-value comparisons with torch (indices, counts, NaN placement) ------------------------------------------

if HAS_TORCH:
    NAN = np.nan
    EXACT = {
        "sort_nan": lambda L: L.sort(L.tensor([3.0, 1.0, NAN, 1.0, 2.0, NAN])),
        "sort_desc_nan": lambda L: L.sort(L.tensor([3.0, 1.0, NAN, 1.0, 2.0, NAN]), descending=True),
        "sort_stable_desc_int": lambda L: L.sort(L.tensor([1, 2, 1, 2, 0]), descending=True, stable=True),
        "sort_bool": lambda L: L.sort(L.tensor([True, False, True])),
        "sort_empty": lambda L: L.sort(L.zeros(2, 0), 1),
        "sort_0d": lambda L: L.sort(L.tensor(3.0)),
        "argsort_stable": lambda L: L.argsort(L.tensor([3, 1, 2, 1]), stable=True),
        "topk_k0": lambda L: L.topk(L.tensor([3.0, 1.0]), 0),
        "topk_0d": lambda L: L.topk(L.tensor(3.0), 1),
        "topk_smallest_nan": lambda L: L.topk(L.tensor([3.0, 1.0, NAN, 1.5, 2.0, NAN]), 3, largest=False),
        "topk_unsorted_values": lambda L: L.topk(L.tensor([1.0, 5.0, 3.0, 4.0, 2.0]), 3, sorted=True),
        "kthvalue_nan": lambda L: L.kthvalue(L.tensor([3.0, 1.0, NAN, 1.5, 2.0, NAN]), 6),
        "kthvalue_0d": lambda L: L.kthvalue(L.tensor(2.0), 1),
        "median_ties_dim": lambda L: L.median(L.tensor([[1.0, 1.0, 1.0, 1.0], [2.0, 1.0, 2.0, 3.0]]), 1),
        "median_nan_dim": lambda L: L.median(L.tensor([[1.0, NAN, 2.0, NAN], [3.0, 1.0, 2.0, 0.0]]), 1),
        "median_empty": lambda L: L.median(L.zeros(0)),
        "median_int": lambda L: L.median(L.tensor([3, 1, 2, 4])),
        "median_empty_rows": lambda L: L.median(L.zeros(2, 0), 0),
        "nanmedian_dim": lambda L: L.nanmedian(L.tensor([[1.0, NAN, 2.0, NAN], [3.0, NAN, 2.0, 0.0]]), 1),
        "mode_ties": lambda L: L.mode(L.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [3.0, 3.0, 1.0, 1.0, 1.0]]), 1),
        "mode_bool": lambda L: L.mode(L.tensor([True, False, True])),
        "mode_0d": lambda L: L.mode(L.tensor(2.0)),
        "cummax_nan": lambda L: L.cummax(L.tensor([1.0, NAN, 3.0, NAN, 2.0]), 0),
        "cummin_ties": lambda L: L.cummin(L.tensor([3.0, 1.0, 1.0, 2.0, 0.0, 0.0]), 0),
        "cummax_int": lambda L: L.cummax(L.tensor([[1, 3, 2], [0, 0, 5]]), 1),
        "cummax_0d": lambda L: L.cummax(L.tensor(1.0), 0),
        "logcumsumexp_inf": lambda L: L.logcumsumexp(L.tensor([-np.inf, 2.0, np.inf]), 0),
        "logcumsumexp_0d": lambda L: L.logcumsumexp(L.tensor(1.5), 0),
        "unique": lambda L: L.unique(L.tensor([3, 1, 2, 1, 3]), return_inverse=True, return_counts=True),
        "unique_unsorted": lambda L: L.unique(L.tensor([3, 1, 2, 1, 3]), sorted=False),
        "unique_2d_inverse": lambda L: L.unique(L.tensor([[3, 1], [1, 2]]), return_inverse=True),
        "unique_dim0": lambda L: L.unique(L.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True,
                                          return_counts=True),
        "unique_dim1": lambda L: L.unique(L.tensor([[1, 0, 1], [2, 5, 2]]), dim=1, return_counts=True),
        "unique_nan": lambda L: L.unique(L.tensor([1.0, NAN, NAN, 1.0])),
        "unique_empty": lambda L: L.unique(L.zeros(0), return_inverse=True, return_counts=True),
        "unique_0d": lambda L: L.unique(L.tensor(3.0), return_inverse=True),
        "unique_bool": lambda L: L.unique(L.tensor([True, False, True]), return_counts=True),
        "unique_consecutive": lambda L: L.unique_consecutive(L.tensor([1, 1, 2, 2, 3, 1, 1, 2]),
                                                             return_inverse=True, return_counts=True),
        "unique_consecutive_dim": lambda L: L.unique_consecutive(L.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]), dim=0,
                                                                 return_inverse=True, return_counts=True),
        "unique_consecutive_nan": lambda L: L.unique_consecutive(L.tensor([NAN, NAN, 1.0, 1.0])),
        "unique_consecutive_empty": lambda L: L.unique_consecutive(L.zeros(0), return_counts=True,
                                                                   return_inverse=True),
        "bincount": lambda L: L.bincount(L.tensor([0, 2, 2, 5])),
        "bincount_minlength": lambda L: L.bincount(L.tensor([0, 2]), minlength=5),
        "bincount_weights32": lambda L: L.bincount(L.tensor([0, 2, 2, 5]), L.tensor([0.5, 1.0, 1.0, 2.0])),
        "bincount_weights64": lambda L: L.bincount(L.tensor([0, 2, 2]), L.tensor([0.5, 1.0, 1.0], dtype=L.float64)),
        "bincount_weights_int": lambda L: L.bincount(L.tensor([0, 2, 2, 5]), weights=L.tensor([1, 2, 3, 4])),
        "bincount_empty": lambda L: L.bincount(L.tensor([], dtype=L.int64)),
        "histc": lambda L: L.histc(L.tensor([1.0, 2.0, 1.0, 4.0, 0.5]), bins=4, min=0, max=4),
        "histc_auto_range": lambda L: L.histc(L.tensor([1.0, 2.0, 1.0, 4.0]), bins=3),
        "histc_constant": lambda L: L.histc(L.tensor([2.0, 2.0]), bins=4),
        "histc_outside": lambda L: L.histc(L.tensor([-1.0, 5.0, 1.0, NAN]), bins=2, min=0, max=2),
        "histc_edges": lambda L: L.histc(L.tensor([0.0, 1.0, 2.0, 3.0]), bins=3, min=0, max=3),
        "histc_float32_bins": lambda L: L.histc(L.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0]), bins=10, min=0, max=1),
        "histc_float64": lambda L: L.histc(L.tensor([0.1, 0.2, 0.3], dtype=L.float64), bins=3),
        "searchsorted": lambda L: L.searchsorted(L.tensor([1.0, 3.0, 5.0, 7.0]), L.tensor([0.0, 3.0, 6.0, 9.0])),
        "searchsorted_right": lambda L: L.searchsorted(L.tensor([1.0, 3.0, 3.0, 7.0]), L.tensor([3.0, 9.0]),
                                                       right=True),
        "searchsorted_side": lambda L: L.searchsorted(L.tensor([1.0, 3.0, 3.0, 7.0]), L.tensor([3.0]), side="right"),
        "searchsorted_scalar": lambda L: L.searchsorted(L.tensor([1.0, 3.0, 5.0]), 4.0),
        "searchsorted_int32": lambda L: L.searchsorted(L.tensor([1.0, 3.0]), L.tensor([2.0]), out_int32=True),
        "searchsorted_nd": lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]), L.tensor([[3, 6], [1, 7]])),
        "searchsorted_sorter": lambda L: L.searchsorted(L.tensor([5.0, 1.0, 3.0]), L.tensor([2.0, 4.0]),
                                                        sorter=L.tensor([1, 2, 0])),
        "searchsorted_mixed": lambda L: L.searchsorted(L.tensor([1, 3, 5]), L.tensor([2.5, 4.0])),
        "searchsorted_2d_values": lambda L: L.searchsorted(L.tensor([1.0, 3.0]), L.tensor([[0.0, 3.0], [6.0, 2.0]])),
        "bucketize": lambda L: L.bucketize(L.tensor([0.0, 3.0, 6.0, 9.0]), L.tensor([1.0, 3.0, 5.0, 7.0])),
        "bucketize_right": lambda L: L.bucketize(L.tensor([0.0, 3.0, 6.0]), L.tensor([1.0, 3.0, 5.0]), right=True),
        "bucketize_scalar": lambda L: L.bucketize(3.0, L.tensor([1.0, 3.0, 5.0])),
        "diff_n0": lambda L: L.diff(L.tensor([1, 2])),
        "diff_n_exceeds": lambda L: L.diff(L.tensor([1, 2]), n=5),
        "diff_bool": lambda L: L.diff(L.tensor([True, False, False])),
        "diff_promotes_prepend": lambda L: L.diff(L.tensor([1, 2]), prepend=L.tensor([0.5])),
        "quantile_nan": lambda L: L.quantile(L.tensor([1.0, NAN, 3.0]), 0.5),
        "nanquantile_all_nan_row": lambda L: L.nanquantile(L.tensor([[1.0, NAN, 3.0], [NAN, NAN, NAN]]), 0.5, dim=1),
        "quantile_nearest_half_even": lambda L: L.quantile(L.tensor([0.0, 1.0, 2.0, 3.0]),
                                                           L.tensor([1 / 6, 0.5, 5 / 6]), interpolation="nearest"),
        "cdist_empty_rows": lambda L: L.cdist(L.zeros(0, 2), L.ones(3, 2)),
        "cdist_empty_cols": lambda L: L.cdist(L.zeros(2, 0), L.ones(3, 0)),
    }

    def _flatten(out):
        if isinstance(out, tuple):
            return [o for part in out for o in _flatten(part)]
        return [out]

    @pytest.mark.parametrize("name", sorted(EXACT))
    def test_exact_results_match_torch(name):
        got_n = _flatten(EXACT[name](npgrad))
        got_t = _flatten(EXACT[name](torch))
        assert len(got_n) == len(got_t)
        for a, b in zip(got_n, got_t):
            an, bn = a.numpy(), b.numpy()
            assert an.shape == bn.shape and an.dtype == bn.dtype, (an, bn)
            np.testing.assert_array_equal(an, bn)

    def test_result_types_match_torch():
        for name, fn in {
            "sort": lambda L: L.sort(L.tensor([[2.0, 1.0]])),
            "topk": lambda L: L.tensor([[2.0, 1.0]]).topk(1),
            "kthvalue": lambda L: L.kthvalue(L.tensor([[2.0, 1.0]]), 1),
            "median": lambda L: L.tensor([[2.0, 1.0]]).median(1),
            "nanmedian": lambda L: L.nanmedian(L.tensor([[2.0, 1.0]]), 1),
            "mode": lambda L: L.tensor([[2.0, 1.0]]).mode(),
            "cummax": lambda L: L.cummax(L.tensor([[2.0, 1.0]]), 1),
            "cummin": lambda L: L.tensor([[2.0, 1.0]]).cummin(1),
        }.items():
            rn, rt = fn(npgrad), fn(torch)
            assert type(rn).__name__ == type(rt).__name__ == name
            assert isinstance(rn, getattr(npgrad.return_types, name)) and isinstance(rn, tuple)
            assert repr(rn) == repr(rt)
            assert rn.values is rn[0] and rn.indices is rn[1]

    NODE_EXPRS = {
        "sort": lambda L, x: L.sort(x).values,
        "sort_stable": lambda L, x: L.sort(x, stable=True).values,
        "msort": lambda L, x: L.msort(x),
        "topk": lambda L, x: L.topk(x, 2).values,
        "kthvalue": lambda L, x: L.kthvalue(x, 1).values,
        "median": lambda L, x: L.median(x),
        "median_dim": lambda L, x: L.median(x, 0).values,
        "nanmedian": lambda L, x: L.nanmedian(x),
        "nanmedian_dim": lambda L, x: L.nanmedian(x, 0).values,
        "mode": lambda L, x: L.mode(x).values,
        "cummax": lambda L, x: L.cummax(x, 0).values,
        "cummin": lambda L, x: L.cummin(x, 0).values,
        "logcumsumexp": lambda L, x: L.logcumsumexp(x, 0),
        "diff": lambda L, x: L.diff(x),
        "cdist": lambda L, x: L.cdist(x.reshape(3, 1), x.reshape(3, 1)),
    }

    @pytest.mark.parametrize("name", sorted(NODE_EXPRS))
    def test_node_names_match_torch(name):
        names = [NODE_EXPRS[name](L, L.tensor([3.0, 1.0, 2.0], requires_grad=True)).grad_fn.name()
                 for L in (npgrad, torch)]
        assert names[0] == names[1]

    ERRORS = {
        "sort_dim": lambda L: L.sort(L.tensor([1.0, 2.0]), dim=1),
        "topk_k_too_big": lambda L: L.topk(L.tensor([3.0, 1.0]), 3),
        "topk_negative_k": lambda L: L.topk(L.tensor([3.0, 1.0]), -1),
        "topk_bool": lambda L: L.topk(L.tensor([True, False]), 1),
        "kthvalue_k_big": lambda L: L.kthvalue(L.tensor([3.0, 1.0, 2.0]), 4),
        "kthvalue_k0": lambda L: L.kthvalue(L.tensor([3.0, 1.0, 2.0]), 0),
        "kthvalue_bool": lambda L: L.kthvalue(L.tensor([True, False]), 1),
        "median_bool": lambda L: L.median(L.tensor([True, False])),
        "median_empty_dim": lambda L: L.median(L.zeros(2, 0), 1),
        "mode_empty_dim": lambda L: L.mode(L.zeros(2, 0), 1),
        "quantile_q_range": lambda L: L.quantile(L.ones(3), 1.5),
        "quantile_interp": lambda L: L.quantile(L.ones(3), 0.5, interpolation="foo"),
        "quantile_int": lambda L: L.quantile(L.tensor([1, 2]), 0.5),
        "quantile_q_dtype": lambda L: L.quantile(L.ones(3), L.tensor([0.5], dtype=L.float64)),
        "quantile_q_2d": lambda L: L.quantile(L.ones(3), L.tensor([[0.5]])),
        "quantile_empty": lambda L: L.quantile(L.zeros(0), 0.5),
        "unique_dim_0d": lambda L: L.unique(L.tensor(3.0), dim=0),
        "bincount_negative": lambda L: L.bincount(L.tensor([0, -1])),
        "bincount_float": lambda L: L.bincount(L.tensor([0.0, 1.0])),
        "bincount_2d": lambda L: L.bincount(L.tensor([[0, 1]])),
        "bincount_weights_len": lambda L: L.bincount(L.tensor([0, 1]), weights=L.tensor([1.0])),
        "bincount_minlength": lambda L: L.bincount(L.tensor([0, 1]), minlength=-1),
        "histc_int": lambda L: L.histc(L.tensor([1, 2]), bins=2),
        "histc_bad_range": lambda L: L.histc(L.tensor([1.0, 2.0]), bins=2, min=3, max=1),
        "histc_bins0": lambda L: L.histc(L.tensor([1.0, 2.0]), bins=0),
        "histc_inf": lambda L: L.histc(L.tensor([1.0, np.inf]), bins=2),
        "searchsorted_side": lambda L: L.searchsorted(L.tensor([1.0]), L.tensor([1.0]), side="foo"),
        "searchsorted_conflict": lambda L: L.searchsorted(L.tensor([1.0]), L.tensor([1.0]), side="left",
                                                          right=True),
        "searchsorted_0d": lambda L: L.searchsorted(L.tensor(1.0), L.tensor([2.0])),
        "searchsorted_leading": lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]), L.tensor([[3, 6]])),
        "bucketize_2d": lambda L: L.bucketize(L.tensor([1.0]), L.tensor([[1.0, 2.0]])),
        "logcumsumexp_int": lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
        "diff_0d": lambda L: L.diff(L.tensor(1.0)),
        "diff_negative_n": lambda L: L.diff(L.tensor([1, 2]), n=-1),
        "diff_prepend_ndim": lambda L: L.diff(L.tensor([1, 2]), prepend=L.tensor(0)),
        "cdist_1d": lambda L: L.cdist(L.tensor([0.0, 0.0]), L.tensor([[1.0, 0.0]])),
        "cdist_columns": lambda L: L.cdist(L.tensor([[0.0, 0.0]]), L.tensor([[1.0, 0.0, 1.0]])),
        "cdist_negative_p": lambda L: L.cdist(L.tensor([[0.0, 0.0]]), L.tensor([[1.0, 0.0]]), p=-1),
        "cdist_int": lambda L: L.cdist(L.tensor([[0, 0]]), L.tensor([[1, 0]])),
        "cdist_batch": lambda L: L.cdist(L.ones(2, 3, 2), L.ones(4, 5, 2)),
        "cdist_dtypes": lambda L: L.cdist(L.ones(3, 2), L.ones(5, 2, dtype=L.float64)),
    }

    test_errors_match_torch = errors_like_torch_test(ERRORS)

    def test_quantile_q_gradient_matches_torch():
        x = np.random.default_rng(0).standard_normal((3, 5))
        x[0, 1] = np.nan
        for name in ("quantile", "nanquantile"):
            grads = []
            for L in (npgrad, torch):
                xt = L.tensor(x, requires_grad=True)
                q = L.tensor([0.2, 0.7], dtype=L.float64, requires_grad=True)
                out = getattr(L, name)(xt, q, dim=1)
                out.backward(L.tensor(np.ones(tuple(out.shape))))
                grads.append((q.grad.numpy(), xt.grad.numpy()))
            np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, equal_nan=True)
            np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12, equal_nan=True)


def test_topk_partition_path_selects_the_extremes():
    rng = np.random.default_rng(1)
    a = rng.permutation(1000).astype(np.float64).reshape(2, 500)
    r = npgrad.topk(npgrad.tensor(a), 3, dim=1)
    np.testing.assert_array_equal(r.values.numpy(), -np.sort(-a, axis=1)[:, :3])
    np.testing.assert_array_equal(np.take_along_axis(a, r.indices.numpy(), 1), r.values.numpy())
