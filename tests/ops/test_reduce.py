"""Reductions against PyTorch and finite differences: one table row per op and dim/keepdim variant, then
explicit tests for tie rules, empty inputs, result types and errors."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from opinfo import DOUBLE_BACKWARD, FD, PARITY, raised, samples
from _table_tests import double_backward_test, expected_errors_test, finite_difference_test, torch_parity_test


# The rows live in the op table: tests/opinfo/family_reduce.py.
if HAS_TORCH:
    test_matches_torch = torch_parity_test(samples(PARITY, "reduce"))
    test_double_backward_matches_torch = double_backward_test(samples(DOUBLE_BACKWARD, "reduce"))
test_finite_differences = finite_difference_test([c for c in samples(FD, "reduce") if c.fd])


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


# -- errors ----------------------------------------------------------------------------------------------------

# (the errors of single calls are the op table's raises rows)
test_expected_errors = expected_errors_test(raised("reduce"))


def test_dim_error_wording():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        npgrad.ones(2, 3).sum(2)
