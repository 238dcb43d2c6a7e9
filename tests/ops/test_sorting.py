"""Order statistics, counting, scans and cdist against PyTorch and float64 finite differences: one table
row per op and option, then ties/NaN rules, result types, node names and error messages."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, OpCase, check_against_torch, torch
from opinfo import DOUBLE_BACKWARD, FD, PARITY, RAISES_LIKE_TORCH, samples
from opinfo import EXACT as EXACT_CHECK
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test


# The rows live in the op table: tests/opinfo/family_sorting.py (with those of counting, cumulative and cdist).
CASES = samples(PARITY, "sorting")

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

    test_double_backward_matches_torch = double_backward_test(samples(DOUBLE_BACKWARD, "sorting"))


test_finite_differences = finite_difference_test([c for c in samples(FD, "sorting") if c.fd])


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
    EXACT = {c.name: c.fn for c in samples(EXACT_CHECK, "sorting")}

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

    ERRORS = {c.name: c.fn for c in samples(RAISES_LIKE_TORCH, "sorting")}

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
