"""Reductions against PyTorch and finite differences: one table row per op and dim/keepdim variant, then
explicit tests for tie rules, empty inputs, result types and errors."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, In, OpCase, torch
from _table_tests import double_backward_test, errors_like_torch_test, finite_difference_test, torch_parity_test


def _with_zeros(shape, where):
    """Random values with exact zeros at the flat positions ``where`` (prod/cumprod's special case)."""
    def make(rng):
        a = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        a.flat[list(where)] = 0.0
        return a
    return make


def _distinct(shape):
    """A random permutation of well-separated values: no ties, so max/min are differentiable."""
    def make(rng):
        n = int(np.prod(shape))
        return (rng.permutation(n).astype(np.float64) * 0.37 - n * 0.15).reshape(shape)
    return make


D = In((3, 4), values=_distinct((3, 4)))
D3 = In((2, 3, 4), values=_distinct((2, 3, 4)))

CASES = [
    # sum / mean
    OpCase("sum_all", lambda lib, x: x.sum(), [In((3, 4))]),
    OpCase("sum_dim0", lambda lib, x: x.sum(0), [In((3, 4))]),
    OpCase("sum_dim_neg_keepdim", lambda lib, x: x.sum(-1, keepdim=True), [In((2, 3, 4))]),
    OpCase("sum_dims_tuple", lambda lib, x: lib.sum(x, (0, 2)), [In((2, 3, 4))]),
    OpCase("sum_dims_tuple_keepdim", lambda lib, x: x.sum(dim=(-1, 0), keepdim=True), [In((2, 3, 4))]),
    OpCase("sum_0d", lambda lib, x: x.sum(), [In(())]),
    OpCase("sum_0d_dim", lambda lib, x: x.sum(0, keepdim=True), [In(())]),
    OpCase("sum_size1", lambda lib, x: x.sum(1), [In((3, 1, 2))]),
    OpCase("sum_dtype64", lambda lib, x: x.sum(1, dtype=lib.float64), [In((3, 4))], dtypes=(np.float32,)),
    OpCase("sum_int", lambda lib, x: x.sum(0), [In((3, 4), -5, 5, dtype=np.int32)]),
    OpCase("sum_bool", lambda lib, x: (x > 0).sum(), [In((3, 4))], fd=False),
    OpCase("mean_all", lambda lib, x: x.mean(), [In((3, 4))]),
    OpCase("mean_dim", lambda lib, x: lib.mean(x, 1), [In((3, 4))]),
    OpCase("mean_dims_keepdim", lambda lib, x: x.mean((0, -1), keepdim=True), [In((2, 3, 4))]),
    OpCase("mean_0d", lambda lib, x: x.mean(), [In(())]),
    OpCase("nansum", lambda lib, x: lib.nansum(x.log(), 1), [In((3, 4))]),
    OpCase("nanmean", lambda lib, x: lib.nanmean(x.log(), 0), [In((3, 4))]),
    # prod (zeros are the interesting case)
    OpCase("prod_all", lambda lib, x: x.prod(), [In((3, 4), 0.5, 1.5)]),
    OpCase("prod_dim", lambda lib, x: x.prod(1), [In((3, 4))]),
    OpCase("prod_dim_keepdim_neg", lambda lib, x: x.prod(-2, keepdim=True), [In((2, 3, 4))]),
    OpCase("prod_one_zero_all", lambda lib, x: x.prod(), [In((3, 4), values=_with_zeros((3, 4), [5]))]),
    OpCase("prod_two_zeros_all", lambda lib, x: x.prod(), [In((3, 4), values=_with_zeros((3, 4), [1, 7]))]),
    OpCase("prod_zeros_dim", lambda lib, x: x.prod(1),
           [In((3, 4), values=_with_zeros((3, 4), [0, 5, 6, 9]))]),  # row 0: one zero, row 1: two zeros
    OpCase("prod_0d", lambda lib, x: x.prod(0), [In(())]),
    OpCase("prod_int", lambda lib, x: x.prod(1), [In((2, 3), -3, 3, dtype=np.int64)]),
    # max / min / amax / amin (distinct values: ties have their own tests below)
    OpCase("max_all", lambda lib, x: x.max(), [D]),
    OpCase("min_all", lambda lib, x: lib.min(x), [D]),
    OpCase("max_dim", lambda lib, x: x.max(1), [D]),
    OpCase("max_dim_keepdim_neg", lambda lib, x: x.max(-1, keepdim=True), [D3]),
    OpCase("max_dim_indices", lambda lib, x: x.max(0).indices, [D3], fd=False),
    OpCase("min_dim", lambda lib, x: lib.min(x, dim=0), [D]),
    OpCase("min_dim_keepdim_indices", lambda lib, x: x.min(1, True)[1], [D3], fd=False),
    OpCase("max_0d_dim", lambda lib, x: x.max(0), [In(())]),
    OpCase("max_binary", lambda lib, x, y: lib.max(x, y), [D, In((4,), values=_distinct((4,)))]),
    OpCase("amax_dims", lambda lib, x: x.amax((0, 2)), [D3]),
    OpCase("amax_default", lambda lib, x: lib.amax(x), [D3]),
    OpCase("amin_keepdim", lambda lib, x: lib.amin(x, -1, keepdim=True), [D3]),
    OpCase("aminmax", lambda lib, x: lib.aminmax(x, dim=1).max, [D]),
    OpCase("argmax_all", lambda lib, x: x.argmax(), [D3], fd=False),
    OpCase("argmax_dim_keepdim", lambda lib, x: lib.argmax(x, 1, keepdim=True), [D3], fd=False),
    OpCase("argmin_dim_neg", lambda lib, x: x.argmin(-1), [D3], fd=False),
    OpCase("argmin_all_keepdim", lambda lib, x: x.argmin(keepdim=True), [D3], fd=False),
    # var / std
    OpCase("var_all", lambda lib, x: x.var(), [In((3, 4))]),
    OpCase("var_dim", lambda lib, x: x.var(1), [In((3, 4))]),
    OpCase("var_unbiased_false", lambda lib, x: lib.var(x, 0, unbiased=False), [In((3, 4))]),
    OpCase("var_positional_unbiased", lambda lib, x: x.var(False), [In((3, 4))]),
    OpCase("var_correction2_dims_keepdim", lambda lib, x: x.var((0, 2), keepdim=True, correction=2),
           [In((2, 3, 4))]),
    OpCase("std_all", lambda lib, x: x.std(), [In((3, 4))]),
    OpCase("std_dim_keepdim", lambda lib, x: lib.std(x, -1, keepdim=True), [In((2, 3, 4))]),
    OpCase("std_correction0", lambda lib, x: x.std(dim=(0, 1), correction=0), [In((2, 3, 4))]),
    OpCase("var_mean", lambda lib, x: lib.var_mean(x, 1)[0] + lib.var_mean(x, 1)[1], [In((3, 4))]),
    OpCase("std_mean", lambda lib, x: lib.std_mean(x, 0, correction=0)[0] * lib.std_mean(x, 0)[1],
           [In((3, 4))]),
    # logsumexp
    OpCase("logsumexp_dim", lambda lib, x: x.logsumexp(1), [In((3, 4))]),
    OpCase("logsumexp_dims_keepdim", lambda lib, x: lib.logsumexp(x, (0, -1), keepdim=True), [In((2, 3, 4))]),
    OpCase("logsumexp_large", lambda lib, x: x.logsumexp(0), [In((3, 4), 500.0, 510.0)]),
    # norm
    OpCase("norm_fro", lambda lib, x: x.norm(), [In((3, 4))]),
    OpCase("norm_fro_dim", lambda lib, x: lib.norm(x, "fro", dim=(0, 1)), [In((2, 3, 4))]),
    OpCase("norm_p1_dim", lambda lib, x: x.norm(1, dim=1), [In((3, 4), nonzero=True)]),
    OpCase("norm_p2_keepdim", lambda lib, x: x.norm(2, dim=-1, keepdim=True), [In((2, 3, 4))]),
    OpCase("norm_inf", lambda lib, x: x.norm(float("inf")), [D]),
    OpCase("norm_neg_inf_dim", lambda lib, x: x.norm(float("-inf"), dim=0), [D]),
    OpCase("norm_p0", lambda lib, x: x.norm(0, dim=1), [In((3, 4), values=_with_zeros((3, 4), [1, 2]))], fd=False),
    OpCase("norm_p3", lambda lib, x: x.norm(3, dim=0), [In((3, 4), nonzero=True)]),
    OpCase("norm_p3_all", lambda lib, x: x.norm(p=3), [In((3, 4), nonzero=True)]),
    # all / any
    OpCase("all", lambda lib, x: (x > -1.5).all(), [In((3, 4))], fd=False),
    OpCase("all_dim", lambda lib, x: lib.all(x > 0, 1), [In((3, 4))], fd=False),
    OpCase("any_dim_keepdim", lambda lib, x: (x > 1).any(0, keepdim=True), [In((3, 4))], fd=False),
    OpCase("any_float", lambda lib, x: lib.any(x), [In((3, 4), values=_with_zeros((3, 4), [0]))], fd=False),
    OpCase("count_nonzero", lambda lib, x: lib.count_nonzero(x, 1),
           [In((3, 4), values=_with_zeros((3, 4), [0, 5, 6]))], fd=False),
    # cumulative
    OpCase("cumsum", lambda lib, x: x.cumsum(1), [In((3, 4))]),
    OpCase("cumsum_neg_dim", lambda lib, x: lib.cumsum(x, dim=-3), [In((2, 3, 4))]),
    OpCase("cumsum_int", lambda lib, x: x.cumsum(0), [In((3, 4), -5, 5, dtype=np.int32)]),
    OpCase("cumsum_0d", lambda lib, x: x.cumsum(0), [In(())]),
    OpCase("cumprod", lambda lib, x: x.cumprod(1), [In((3, 4), 0.5, 1.5)]),
    OpCase("cumprod_neg", lambda lib, x: lib.cumprod(x, -2), [In((2, 3, 4))]),
    OpCase("cumprod_zeros", lambda lib, x: x.cumprod(1),
           [In((3, 5), values=_with_zeros((3, 5), [2, 5, 8, 12, 13]))]),  # zero mid, first, two, last
    OpCase("cumprod_zeros_dim0", lambda lib, x: x.cumprod(0),
           [In((4, 2), values=_with_zeros((4, 2), [0, 3, 5]))]),
]


if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)

    SECOND_ORDER = [c for c in CASES if c.name in {
        "sum_dims_tuple_keepdim", "mean_dims_keepdim", "prod_dim", "prod_zeros_dim", "prod_two_zeros_all",
        "max_dim_keepdim_neg", "max_all", "amax_dims", "var_correction2_dims_keepdim", "std_dim_keepdim",
        "logsumexp_dims_keepdim", "norm_fro_dim", "norm_p3", "norm_p1_dim", "norm_inf", "cumsum_neg_dim",
        "cumprod", "cumprod_zeros"}]

    test_double_backward_matches_torch = double_backward_test(SECOND_ORDER)


test_finite_differences = finite_difference_test([c for c in CASES if c.fd])


# -- ties: which elements share the gradient ----------------------------------------------------------------

TIED = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, -1.0], [5.0, -4.0, 5.0, 5.0]])

TIE_EXPRS = {
    "max_all": lambda lib, x: x.max(),
    "min_all": lambda lib, x: (-x).min(),
    "max_dim": lambda lib, x: x.max(1).values,
    "max_dim0_keepdim": lambda lib, x: x.max(0, keepdim=True)[0],
    "min_dim": lambda lib, x: (-x).min(dim=1).values,
    "amax_dim": lambda lib, x: x.amax(1),
    "amax_dims": lambda lib, x: x.amax((0, 1)),
    "amin_dim": lambda lib, x: x.amin(0),
    "norm_inf": lambda lib, x: x.norm(float("inf"), dim=1),
    "clamped_max": lambda lib, x: x.clamp(max=2.0).max(),
}


def _tie_grads(lib, expr):
    x = lib.tensor(TIED, requires_grad=True)
    out = expr(lib, x)
    up = np.arange(1.0, 1.0 + out.numel()).reshape(tuple(out.shape))
    out.backward(lib.tensor(up))
    idx = None
    return out.detach().numpy(), x.grad.numpy(), idx


def test_tie_rules_by_hand():
    # Checked without torch: max(dim) sends everything to the returned (first) index, amax shares evenly.
    _, g, _ = _tie_grads(npgrad, TIE_EXPRS["max_dim"])
    np.testing.assert_array_equal(g, [[0, 1, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]])
    _, g, _ = _tie_grads(npgrad, TIE_EXPRS["amax_dim"])
    np.testing.assert_allclose(g, [[0, .5, .5, 0], [2 / 3, 2 / 3, 2 / 3, 0], [1, 0, 1, 1]])
    _, g, _ = _tie_grads(npgrad, TIE_EXPRS["max_all"])
    np.testing.assert_allclose(g, [[0, 0, 0, 0], [0, 0, 0, 0], [1 / 3, 0, 1 / 3, 1 / 3]])


def test_max_dim_index_is_first_occurrence():
    r = npgrad.tensor(TIED).max(1)
    assert r.indices.tolist() == [1, 0, 0]
    r = npgrad.tensor(TIED).min(dim=1)
    assert r.indices.tolist() == [3, 3, 1]


if HAS_TORCH:
    @pytest.mark.parametrize("name", sorted(TIE_EXPRS))
    def test_tie_rules_match_torch(name):
        out_n, g_n, _ = _tie_grads(npgrad, TIE_EXPRS[name])
        out_t, g_t, _ = _tie_grads(torch, TIE_EXPRS[name])
        np.testing.assert_allclose(out_n, out_t)
        np.testing.assert_allclose(g_n, g_t, rtol=1e-12)

    @pytest.mark.parametrize("fn", ["max", "min"])
    def test_dim_indices_match_torch_with_ties(fn):
        for dim in (0, 1, -1):
            a = getattr(npgrad.tensor(TIED), fn)(dim)
            b = getattr(torch.tensor(TIED), fn)(dim)
            assert a.indices.tolist() == b.indices.tolist()
            assert a.values.tolist() == b.values.tolist()

    def test_nan_wins_max_min_like_torch():
        x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
        for fn in ("max", "min"):
            a = getattr(npgrad.tensor(x), fn)(1)
            b = getattr(torch.tensor(x), fn)(1)
            np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
            assert a.indices.tolist() == b.indices.tolist()
            assert np.isnan(getattr(npgrad.tensor(x), fn)().item())
            np.testing.assert_array_equal(npgrad.tensor(x).amax(0).numpy(), torch.tensor(x).amax(0).numpy())
            np.testing.assert_array_equal(npgrad.tensor(x).argmax(1).numpy(), torch.tensor(x).argmax(1).numpy())


# -- special values: infinities, NaN, zero norms, degenerate variances ---------------------------------------------

if HAS_TORCH:
    NINF, INF, NAN = -np.inf, np.inf, np.nan
    SPECIAL = {
        "logsumexp_all_neg_inf_row": (lambda L, x: x.logsumexp(1), [[NINF, NINF], [0.0, 1.0]]),
        "logsumexp_inf": (lambda L, x: x.logsumexp(1), [[INF, 1.0], [0.0, 1.0]]),
        "norm2_zero_row": (lambda L, x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]]),
        "norm3_zero_row": (lambda L, x: x.norm(3, dim=1), [[0.0, 0.0], [3.0, 4.0]]),
        "norm1_with_zeros": (lambda L, x: x.norm(1), [[0.0, 0.0], [3.0, -4.0]]),
        "norm_inf_all_zero": (lambda L, x: x.norm(float("inf")), [[0.0, 0.0], [0.0, 0.0]]),
        "std_single_element": (lambda L, x: x.std(1), [[1.0], [2.0]]),
        "std_constant_row": (lambda L, x: x.std(1), [[1.0, 1.0], [2.0, 5.0]]),
        "var_correction_exceeds_n": (lambda L, x: x.var(1, correction=3), [[1.0, 2.0], [2.0, 5.0]]),
        "max_dim_nan": (lambda L, x: x.max(1)[0], [[1.0, NAN], [2.0, 5.0]]),
        "max_all_nan": (lambda L, x: x.max(), [[1.0, NAN], [2.0, 5.0]]),
        "amax_nan": (lambda L, x: x.amax(1), [[1.0, NAN], [2.0, 5.0]]),
        "prod_signed_zeros": (lambda L, x: x.prod(1), [[0.0, -0.0], [2.0, 5.0]]),
        "cumprod_several_zeros": (lambda L, x: x.cumprod(1), [[0.0, 0.0, 3.0], [2.0, 0.0, 5.0]]),
        "nansum": (lambda L, x: L.nansum(x), [[1.0, NAN], [2.0, 5.0]]),
        "nanmean_dim": (lambda L, x: L.nanmean(x, 1), [[1.0, NAN], [2.0, 5.0]]),
        "sum_empty_dim_tuple": (lambda L, x: x.sum(()), [[1.0, 2.0], [2.0, 5.0]]),
        "mean_empty_dim_list": (lambda L, x: x.mean([]), [[1.0, 2.0], [2.0, 5.0]]),
        "var_0d": (lambda L, x: x.var(), 3.0),
        "norm_0d": (lambda L, x: x.norm(), -3.0),
        "logsumexp_0d": (lambda L, x: x.logsumexp(0), -3.0),
        "prod_0d": (lambda L, x: x.prod(), -3.0),
        "argmax_0d_keepdim": (lambda L, x: x.argmax(0, keepdim=True), -3.0),
    }

    @pytest.mark.parametrize("name", sorted(SPECIAL))
    def test_special_values_match_torch(name):
        fn, values = SPECIAL[name]
        got = []
        for lib in (npgrad, torch):
            x = lib.tensor(np.array(values), requires_grad=True)
            out = fn(lib, x)
            if out.requires_grad:
                out.sum().backward()
            got.append((out.detach().numpy(), None if x.grad is None else x.grad.numpy()))
        (on, gn), (ot, gt) = got
        np.testing.assert_allclose(on, ot, rtol=1e-12, equal_nan=True)
        assert on.shape == ot.shape and (gn is None) == (gt is None)
        if gn is not None:
            np.testing.assert_allclose(gn, gt, rtol=1e-12, atol=1e-15, equal_nan=True)


# -- result types --------------------------------------------------------------------------------------------

def test_max_dim_returns_named_tuple():
    x = npgrad.tensor([[1.0, 5.0], [7.0, 2.0]])
    r = x.max(dim=1)
    values, indices = r
    assert r.values is values and r.indices is indices and r[0] is values
    assert type(r).__name__ == "max" and r._fields == ("values", "indices")
    assert indices.dtype == npgrad.int64 and values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    r = npgrad.min(x, 0, keepdim=True)
    assert type(r).__name__ == "min" and r.values.shape == (1, 2) and r.indices.tolist() == [[0, 1]]
    if HAS_TORCH:
        t = torch.tensor([[1.0, 5.0], [7.0, 2.0]]).max(dim=1)
        assert repr(r) == repr(torch.min(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 0, keepdim=True))
        assert type(t).__name__ == type(x.max(dim=1)).__name__


def test_reduction_dtypes():
    i = npgrad.tensor([[1, 2], [3, 4]], dtype=npgrad.int32)
    assert i.sum().dtype == npgrad.int64 and i.prod().dtype == npgrad.int64 and i.cumsum(0).dtype == npgrad.int64
    assert npgrad.tensor([True, False, True]).sum().item() == 2
    assert i.max().dtype == npgrad.int32 and i.amax(0).dtype == npgrad.int32 and i.argmax().dtype == npgrad.int64
    assert i.all().dtype == npgrad.bool and i.any(0).dtype == npgrad.bool
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        i.mean()
    assert i.mean(dtype=npgrad.float32).item() == 2.5
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        i.var()


# -- empty tensors -------------------------------------------------------------------------------------------

def test_sum_prod_of_empty_and_backward():
    x = npgrad.zeros(0, 3, requires_grad=True)
    s = x.sum()
    assert s.item() == 0.0 and s.shape == ()
    s.backward()
    assert x.grad.shape == (0, 3)
    assert x.sum(0).tolist() == [0.0, 0.0, 0.0] and x.sum(1).shape == (0,)
    assert npgrad.zeros(0).prod().item() == 1.0
    assert x.prod(0).tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(npgrad.zeros(0).mean().item())
    assert x.mean(1).shape == (0,)
    assert x.cumsum(0).shape == (0, 3) and x.cumprod(1).shape == (0, 3)
    assert npgrad.zeros(0, 3).all().item() is True and npgrad.zeros(0, 3).any().item() is False
    assert npgrad.zeros(0, 3).logsumexp(0).tolist() == [-np.inf] * 3
    assert npgrad.zeros(0, 3).norm().item() == 0.0


if HAS_TORCH:
    EMPTY_OK = {
        "sum": lambda lib, x: x.sum(),
        "sum0": lambda lib, x: x.sum(0),
        "sum1": lambda lib, x: x.sum(1),
        "mean0": lambda lib, x: x.mean(0),
        "prod0": lambda lib, x: x.prod(0),
        "max1": lambda lib, x: x.max(1).values,
        "amax1": lambda lib, x: x.amax(1),
        "argmax1": lambda lib, x: x.argmax(1),
        "var1": lambda lib, x: x.var(1),
        "std0": lambda lib, x: x.std(0),
        "logsumexp0": lambda lib, x: x.logsumexp(0),
        "norm0": lambda lib, x: x.norm(dim=0),
        "cumsum": lambda lib, x: x.cumsum(1),
        "cumprod": lambda lib, x: x.cumprod(0),
    }

    @pytest.mark.parametrize("name", sorted(EMPTY_OK))
    def test_empty_reductions_match_torch(name):
        outs = []
        for lib in (npgrad, torch):
            x = lib.zeros(0, 3, requires_grad=True)
            out = EMPTY_OK[name](lib, x)
            if out.requires_grad:
                out.sum().backward()
                assert x.grad.shape == (0, 3)
            outs.append(out.detach().numpy())
        np.testing.assert_array_equal(outs[0], outs[1])
        assert outs[0].dtype == outs[1].dtype

    EMPTY_RAISES = {
        "max": lambda lib, x: x.max(),
        "min": lambda lib, x: x.min(),
        "max0": lambda lib, x: x.max(0),
        "amax": lambda lib, x: x.amax(),
        "amin0": lambda lib, x: x.amin(0),
        "argmax": lambda lib, x: x.argmax(),
        "argmin0": lambda lib, x: x.argmin(0),
    }

    @pytest.mark.parametrize("name", sorted(EMPTY_RAISES))
    def test_empty_reduction_errors_match_torch(name):
        fn = EMPTY_RAISES[name]
        with pytest.raises(Exception) as et:
            fn(torch, torch.zeros(0, 3))
        with pytest.raises(type(et.value)) as en:
            fn(npgrad, npgrad.zeros(0, 3))
        assert str(en.value) == str(et.value)


# -- errors ----------------------------------------------------------------------------------------------------

if HAS_TORCH:
    ERRORS = {
        "sum_dim_out_of_range": lambda lib: lib.ones(2, 3).sum(2),
        "sum_dim_neg_out_of_range": lambda lib: lib.ones(2, 3).sum(-3),
        "sum_repeated_dim": lambda lib: lib.ones(2, 3).sum((1, -1)),
        "max_dim_out_of_range": lambda lib: lib.ones(2, 3).max(5),
        "mean_0d_dim": lambda lib: lib.tensor(1.0).mean(1),
        "cumsum_dim": lambda lib: lib.ones(2, 3).cumsum(2),
        "var_dim": lambda lib: lib.ones(2, 3).var(4),
        "argmax_bool": lambda lib: lib.tensor([True, False]).argmax(),
        "argmin_bool_dim": lambda lib: lib.tensor([True, False]).argmin(0),
    }

    test_errors_match_torch = errors_like_torch_test(ERRORS)


def test_dim_error_wording():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        npgrad.ones(2, 3).sum(2)
