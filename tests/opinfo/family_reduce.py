"""Op table: reductions (npgrad/ops/reduce.py): sum/mean/prod, max/min/amax/amin/aminmax/argmax/argmin,
var/std (and their _mean forms), logsumexp, norm, all/any/count_nonzero, cumsum/cumprod.

Each sample is one operator with a dim/keepdim variant; tests/ops/test_reduce.py runs them against PyTorch
(float32 and float64) and finite differences (``fd``), and the ones marked for it against PyTorch's double
backward. The tie rules, special values, empty inputs and errors stay there as tests of their own.
"""
import numpy as np

from oracle import In
from _inputs import X
from _record import EMPTY_INTEGER_SWEEP, OpInfo, Reduction
from _record import row as _row, row2 as _row2, second as _second  # noqa: E402 (shared makers)

F = "float32"


def _dim_range(low, high, got):
    return f"Dimension out of range (expected to be in range of [{low}, {high}], but got {got})"


def _no_dim(name):
    return (f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument.")


def _empty_dim(name):
    return f"{name}(): Expected reduction dim 0 to have non-zero size."


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


def _spd(rng):  # well away from ties and zeros for ops with kinks
    return rng.permutation(np.linspace(0.3, 2.0, 6)).reshape(2, 3) * rng.choice([-1, 1], size=(2, 3))


D = In((3, 4), values=_distinct((3, 4)))
D3 = In((2, 3, 4), values=_distinct((2, 3, 4)))
SPD = In((2, 3), values=_spd)


def _m(name):
    return lambda lib, x, y: getattr(x, name)()


def _kw(dim, keepdim):
    return {} if dim is None else {"dim": dim, "keepdim": keepdim}


def _np_reduce(np_fn):
    return lambda x, dim, keepdim: np_fn(x, axis=dim, keepdims=keepdim if dim is not None else False)


def _logsumexp(x, dim, keepdim):
    m = np.max(x, axis=dim, keepdims=True) if x.size else np.zeros((1,) * x.ndim)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True)) + m
    return out if keepdim or dim is None and x.ndim == 0 else np.squeeze(out, axis=dim)


def _norm(p):
    def ref(x, dim, keepdim):
        kd = keepdim if dim is not None else False
        a = np.abs(x)
        if p == float("inf"):
            return np.max(a, axis=dim, keepdims=kd)
        return np.sum(a ** p, axis=dim, keepdims=kd) ** (1 / p)
    return ref


_INT_EMPTY = frozenset({EMPTY_INTEGER_SWEEP})

OPS = [
    OpInfo("sum", "reduce", lambda lib, x: x.sum(), np.sum, sweeps=_INT_EMPTY,
           raises=[("sum_dim_out_of_range", lambda lib: lib.ones(2, 3).sum(2), IndexError, _dim_range(-2, 1, 2)),
                   ("sum_dim_neg_out_of_range", lambda lib: lib.ones(2, 3).sum(-3), IndexError, _dim_range(-2, 1, -3)),
                   ("sum_repeated_dim", lambda lib: lib.ones(2, 3).sum((1, -1)), RuntimeError,
                    "dim 1 appears multiple times in the list of dims")],
           samples=[
               _row("sum_all", lambda lib, x: x.sum(), [In((3, 4))]),
               _row("sum_dim0", lambda lib, x: x.sum(0), [In((3, 4))]),
               _row("sum_dim_neg_keepdim", lambda lib, x: x.sum(-1, keepdim=True), [In((2, 3, 4))]),
               _row("sum_dims_tuple", lambda lib, x: lib.sum(x, (0, 2)), [In((2, 3, 4))]),
               _row2("sum_dims_tuple_keepdim", lambda lib, x: x.sum(dim=(-1, 0), keepdim=True), [In((2, 3, 4))]),
               _row("sum_0d", lambda lib, x: x.sum(), [In(())]),
               _row("sum_0d_dim", lambda lib, x: x.sum(0, keepdim=True), [In(())]),
               _row("sum_size1", lambda lib, x: x.sum(1), [In((3, 1, 2))]),
               _row("sum_dtype64", lambda lib, x: x.sum(1, dtype=lib.float64), [In((3, 4))], dtypes=(np.float32,)),
               _row("sum_int", lambda lib, x: x.sum(0), [In((3, 4), -5, 5, dtype=np.int32)]),
               _row("sum_bool", lambda lib, x: (x > 0).sum(), [In((3, 4))], fd=False),
               _second("sum", lambda lib, x: (x * x).sum(), [X]),
               _second("sum_dim", lambda lib, x: (x * x).sum(1), [X]),
               _second("sum_keepdim", lambda lib, x: (x * x).sum(0, keepdim=True) * x, [X]),
           ],
           properties=[Reduction("sum", lambda lib, x, d, k: x.sum(**_kw(d, k)), _np_reduce(np.sum))],
           float16=[("sum", _m("sum")), ("sum_dim", lambda lib, x, y: x.sum(1, keepdim=True))]),
    OpInfo("mean", "reduce", lambda lib, x: x.mean(), np.mean, sweeps=_INT_EMPTY,
           raises=[("mean_0d_dim", lambda lib: lib.tensor(1.0).mean(1), IndexError, _dim_range(-1, 0, 1))],
           samples=[
               _row("mean_all", lambda lib, x: x.mean(), [In((3, 4))]),
               _row("mean_dim", lambda lib, x: lib.mean(x, 1), [In((3, 4))]),
               _row2("mean_dims_keepdim", lambda lib, x: x.mean((0, -1), keepdim=True), [In((2, 3, 4))]),
               _row("mean_0d", lambda lib, x: x.mean(), [In(())]),
               _second("mean", lambda lib, x: (x * x).mean(), [X]),
               _second("mean_dim", lambda lib, x: (x.exp()).mean(dim=(0, 1)) * x, [X]),
           ],
           properties=[Reduction("mean", lambda lib, x, d, k: x.mean(**_kw(d, k)), _np_reduce(np.mean))],
           float16=[("mean", _m("mean"))]),
    OpInfo("nansum", "reduce", lambda lib, x: lib.nansum(x), np.nansum, sweeps=_INT_EMPTY,
           samples=[
               _row("nansum", lambda lib, x: lib.nansum(x.log(), 1), [In((3, 4))]),
               _second("nansum", lambda lib, x: lib.nansum(x * x, 1), [X]),
           ],
           properties=[Reduction("nansum", lambda lib, x, d, k: lib.nansum(x, **_kw(d, k)), _np_reduce(np.nansum))],
           float16=[("nansum", _m("nansum"))]),
    OpInfo("nanmean", "reduce", lambda lib, x: lib.nanmean(x), np.nanmean,
           samples=[
               _row("nanmean", lambda lib, x: lib.nanmean(x.log(), 0), [In((3, 4))]),
               _second("nanmean", lambda lib, x: lib.nanmean(x.exp(), 0), [X]),
           ]),
    # prod (zeros are the interesting case)
    OpInfo("prod", "reduce", lambda lib, x: x.prod(), np.prod, sweeps=_INT_EMPTY,
           samples=[
               _row("prod_all", lambda lib, x: x.prod(), [In((3, 4), 0.5, 1.5)]),
               _row2("prod_dim", lambda lib, x: x.prod(1), [In((3, 4))]),
               _row("prod_dim_keepdim_neg", lambda lib, x: x.prod(-2, keepdim=True), [In((2, 3, 4))]),
               _row("prod_one_zero_all", lambda lib, x: x.prod(), [In((3, 4), values=_with_zeros((3, 4), [5]))]),
               _row2("prod_two_zeros_all", lambda lib, x: x.prod(), [In((3, 4), values=_with_zeros((3, 4), [1, 7]))]),
               _row2("prod_zeros_dim", lambda lib, x: x.prod(1),
                     [In((3, 4), values=_with_zeros((3, 4), [0, 5, 6, 9]))]),  # row 0: one zero, row 1: two zeros
               _row("prod_0d", lambda lib, x: x.prod(0), [In(())]),
               _row("prod_int", lambda lib, x: x.prod(1), [In((2, 3), -3, 3, dtype=np.int64)]),
               _second("prod", lambda lib, x: x.prod(), [In((2, 3), nonzero=True)]),
               _second("prod_dim", lambda lib, x: x.prod(1), [In((2, 3), nonzero=True)]),
           ],
           properties=[Reduction("prod", lambda lib, x, d, k: x.prod(**_kw(d, k)), _np_reduce(np.prod), dims="int",
                                 special_grads=False)],
           float16=[("prod", _m("prod"))]),
    # max / min / amax / amin (distinct values: ties have their own tests in tests/ops/test_reduce.py)
    OpInfo("max", "reduce", lambda lib, x: x.max(), np.max, sweeps=_INT_EMPTY,
           raises=[("max_dim_out_of_range", lambda lib: lib.ones(2, 3).max(5), IndexError, _dim_range(-2, 1, 5)),
                   ("empty_max", lambda lib: lib.zeros(0, 3).max(), RuntimeError, _no_dim("max")),
                   ("empty_max0", lambda lib: lib.zeros(0, 3).max(0), IndexError, _empty_dim("max"))],
           samples=[
               _row2("max_all", lambda lib, x: x.max(), [D]),
               _row("max_dim", lambda lib, x: x.max(1), [D]),
               _row2("max_dim_keepdim_neg", lambda lib, x: x.max(-1, keepdim=True), [D3]),
               _row("max_dim_indices", lambda lib, x: x.max(0).indices, [D3], fd=False),
               _row("max_0d_dim", lambda lib, x: x.max(0), [In(())]),
               _row("max_binary", lambda lib, x, y: lib.max(x, y), [D, In((4,), values=_distinct((4,)))]),
               _second("max_all", lambda lib, x: x.max() * x, [SPD]),
               _second("max_dim", lambda lib, x: x.max(0)[0] * x, [SPD]),
           ],
           properties=[Reduction("max", lambda lib, x, d, k: x.max(**_kw(d, k)),
                                 lambda x, d, k: _np_reduce(np.max)(x, d, k), dims="int")],
           float16=[("max_dim", lambda lib, x, y: x.max(0)[0])],
           empty=[("dim 0 of (0,3)", lambda L, x: L.max(x, 0), ((0, 3), F)),
                  ("dim 1 of (0,3)", lambda L, x: L.max(x, 1), ((0, 3), F))]),
    OpInfo("min", "reduce", lambda lib, x: x.min(), np.min,
           raises=[("empty_min", lambda lib: lib.zeros(0, 3).min(), RuntimeError, _no_dim("min"))],
           samples=[
               _row("min_all", lambda lib, x: lib.min(x), [D]),
               _row("min_dim", lambda lib, x: lib.min(x, dim=0), [D]),
               _row("min_dim_keepdim_indices", lambda lib, x: x.min(1, True)[1], [D3], fd=False),
               _second("min_dim", lambda lib, x: x.min(1).values.exp(), [SPD]),
           ],
           properties=[Reduction("min", lambda lib, x, d, k: x.min(**_kw(d, k)),
                                 lambda x, d, k: _np_reduce(np.min)(x, d, k), dims="int")],
           empty=[("elementwise with empty", lambda L, a, b: L.min(a, b), ((0, 3), F), ((1, 3), F))]),
    OpInfo("amax", "reduce", lambda lib, x: x.amax(), np.max, sweeps=_INT_EMPTY,
           raises=[("empty_amax", lambda lib: lib.zeros(0, 3).amax(), RuntimeError, _no_dim("amax"))],
           samples=[
               _row2("amax_dims", lambda lib, x: x.amax((0, 2)), [D3]),
               _row("amax_default", lambda lib, x: lib.amax(x), [D3]),
               _second("amax", lambda lib, x: x.amax(1) * x.sum(1), [SPD]),
           ],
           properties=[Reduction("amax", lambda lib, x, d, k: x.amax(**_kw(d, k)) if d is not None else x.amax(),
                                 _np_reduce(np.max))],
           float16=[("amax", _m("amax"))],
           empty=[("dim (0,1)", lambda L, x: L.amax(x, (0, 1)), ((2, 0), F))]),
    OpInfo("amin", "reduce", lambda lib, x: x.amin(), np.min,
           raises=[("empty_amin0", lambda lib: lib.zeros(0, 3).amin(0), IndexError, _empty_dim("amin"))],
           samples=[_row("amin_keepdim", lambda lib, x: lib.amin(x, -1, keepdim=True), [D3])],
           properties=[Reduction("amin", lambda lib, x, d, k: x.amin(**_kw(d, k)) if d is not None else x.amin(),
                                 _np_reduce(np.min))],
           float16=[("amin", _m("amin"))]),
    OpInfo("aminmax", "reduce", lambda lib, x: lib.aminmax(x).max,
           samples=[
               _row("aminmax", lambda lib, x: lib.aminmax(x, dim=1).max, [D]),
               _second("aminmax", lambda lib, x: lib.aminmax(x * x, dim=1).max * x.sum(1), [SPD]),
           ],
           empty=[("dim=0", lambda L, x: L.aminmax(x, dim=0), ((2, 0), F))]),
    OpInfo("argmax", "reduce", lambda lib, x: x.argmax(), np.argmax, sweeps=_INT_EMPTY,
           raises=[("argmax_bool", lambda lib: lib.tensor([True, False]).argmax(), RuntimeError,
                    "argmax(): does not support bool input"),
                   ("empty_argmax", lambda lib: lib.zeros(0, 3).argmax(), IndexError,
                    "argmax(): Expected reduction dim to be specified for input.numel() == 0.")],
           samples=[
               _row("argmax_all", lambda lib, x: x.argmax(), [D3], fd=False),
               _row("argmax_dim_keepdim", lambda lib, x: lib.argmax(x, 1, keepdim=True), [D3], fd=False),
           ],
           properties=[Reduction("argmax", lambda lib, x, d, k: x.argmax(**_kw(d, k)),
                                 lambda x, d, k: _np_reduce(np.argmax)(x, d, k) if d is not None else np.argmax(x),
                                 dims="int")],
           float16=[("argmax", _m("argmax"))]),
    OpInfo("argmin", "reduce", lambda lib, x: x.argmin(), np.argmin,
           raises=[("argmin_bool_dim", lambda lib: lib.tensor([True, False]).argmin(0), RuntimeError,
                    "argmin(): does not support bool input"),
                   ("empty_argmin0", lambda lib: lib.zeros(0, 3).argmin(0), IndexError, _empty_dim("argmin"))],
           samples=[
               _row("argmin_dim_neg", lambda lib, x: x.argmin(-1), [D3], fd=False),
               _row("argmin_all_keepdim", lambda lib, x: x.argmin(keepdim=True), [D3], fd=False),
           ]),
    # var / std
    OpInfo("var", "reduce", lambda lib, x: x.var(), lambda x: np.var(x, ddof=1),
           raises=[("var_dim", lambda lib: lib.ones(2, 3).var(4), IndexError, _dim_range(-2, 1, 4))],
           samples=[
               _row("var_all", lambda lib, x: x.var(), [In((3, 4))]),
               _row("var_dim", lambda lib, x: x.var(1), [In((3, 4))]),
               _row("var_unbiased_false", lambda lib, x: lib.var(x, 0, unbiased=False), [In((3, 4))]),
               _row("var_positional_unbiased", lambda lib, x: x.var(False), [In((3, 4))]),
               _row2("var_correction2_dims_keepdim", lambda lib, x: x.var((0, 2), keepdim=True, correction=2),
                     [In((2, 3, 4))]),
               _second("var", lambda lib, x: x.var(1), [X]),
               _second("var_all", lambda lib, x: x.var(), [X]),
           ],
           properties=[Reduction("var", lambda lib, x, d, k: x.var(**_kw(d, k)),
                                 lambda x, d, k: np.var(x, axis=d, ddof=1, keepdims=k if d is not None else False),
                                 special_huge=False)],
           float16=[("var", _m("var"))],
           empty=[("correction=0", lambda L, x: L.var(x, 0, correction=0), ((0, 3), F))]),
    OpInfo("std", "reduce", lambda lib, x: x.std(), lambda x: np.std(x, ddof=1),
           samples=[
               _row("std_all", lambda lib, x: x.std(), [In((3, 4))]),
               _row2("std_dim_keepdim", lambda lib, x: lib.std(x, -1, keepdim=True), [In((2, 3, 4))]),
               _row("std_correction0", lambda lib, x: x.std(dim=(0, 1), correction=0), [In((2, 3, 4))]),
               _second("std", lambda lib, x: x.std(0), [X]),
               _second("std_all", lambda lib, x: x.std(), [X]),
           ],
           properties=[Reduction("std_c0", lambda lib, x, d, k: x.std(correction=0, **_kw(d, k)), _np_reduce(np.std),
                                 special_huge=False)],
           float16=[("std", _m("std"))],
           empty=[("of an empty dim", lambda L, x: L.std(x, 0), ((0, 3), F))]),
    OpInfo("var_mean", "reduce", lambda lib, x: lib.var_mean(x)[0],
           samples=[
               _row("var_mean", lambda lib, x: lib.var_mean(x, 1)[0] + lib.var_mean(x, 1)[1], [In((3, 4))]),
               _second("var_mean", lambda lib, x: lib.var_mean(x, 1)[0] * lib.var_mean(x, 1)[1], [X]),
           ],
           properties=[Reduction("var_mean", lambda lib, x, d, k: lib.var_mean(x, correction=0, **_kw(d, k)),
                                 _np_reduce(np.var), special_grads=False)],
           empty=[("dim 1", lambda L, x: L.var_mean(x, 1), ((0, 3), F))]),
    OpInfo("std_mean", "reduce", lambda lib, x: lib.std_mean(x)[0],
           samples=[
               _row("std_mean", lambda lib, x: lib.std_mean(x, 0, correction=0)[0] * lib.std_mean(x, 0)[1],
                    [In((3, 4))]),
               _second("std_mean", lambda lib, x: lib.std_mean(x, 0)[0] + lib.std_mean(x, 0)[1] ** 2, [X]),
           ],
           empty=[("dim 0", lambda L, x: L.std_mean(x, 0), ((0, 3), F))]),
    OpInfo("logsumexp", "reduce", lambda lib, x: lib.logsumexp(x, 0),
           samples=[
               _row("logsumexp_dim", lambda lib, x: x.logsumexp(1), [In((3, 4))]),
               _row2("logsumexp_dims_keepdim", lambda lib, x: lib.logsumexp(x, (0, -1), keepdim=True),
                     [In((2, 3, 4))]),
               _row("logsumexp_large", lambda lib, x: x.logsumexp(0), [In((3, 4), 500.0, 510.0)]),
               _second("logsumexp", lambda lib, x: x.logsumexp(1), [X]),
           ],
           properties=[Reduction("logsumexp", lambda lib, x, d, k: lib.logsumexp(x, d, keepdim=k), _logsumexp,
                                 dims="required")],
           float16=[("logsumexp", lambda lib, x, y: lib.logsumexp(x, 1))],
           empty=[("over the empty dim", lambda L, x: L.logsumexp(x, 0), ((0, 3), F))]),
    OpInfo("norm", "reduce", lambda lib, x: x.norm(),
           samples=[
               _row("norm_fro", lambda lib, x: x.norm(), [In((3, 4))]),
               _row2("norm_fro_dim", lambda lib, x: lib.norm(x, "fro", dim=(0, 1)), [In((2, 3, 4))]),
               _row2("norm_p1_dim", lambda lib, x: x.norm(1, dim=1), [In((3, 4), nonzero=True)]),
               _row("norm_p2_keepdim", lambda lib, x: x.norm(2, dim=-1, keepdim=True), [In((2, 3, 4))]),
               _row2("norm_inf", lambda lib, x: x.norm(float("inf")), [D]),
               _row("norm_neg_inf_dim", lambda lib, x: x.norm(float("-inf"), dim=0), [D]),
               _row("norm_p0", lambda lib, x: x.norm(0, dim=1), [In((3, 4), values=_with_zeros((3, 4), [1, 2]))],
                    fd=False),
               _row2("norm_p3", lambda lib, x: x.norm(3, dim=0), [In((3, 4), nonzero=True)]),
               _row("norm_p3_all", lambda lib, x: x.norm(p=3), [In((3, 4), nonzero=True)]),
               _second("norm2", lambda lib, x: x.norm(), [X]),
               _second("norm2_dim", lambda lib, x: x.norm(2, dim=1), [X]),
               _second("norm1", lambda lib, x: x.norm(1) * x, [In((2, 3), nonzero=True)]),
               _second("norm3", lambda lib, x: x.norm(3, dim=0), [In((2, 3), nonzero=True)]),
           ],
           properties=[
               Reduction("norm2", lambda lib, x, d, k: x.norm(2, **_kw(d, k)), _norm(2), low=0.3, high=2.0),
               Reduction("norm1", lambda lib, x, d, k: x.norm(1, **_kw(d, k)), _norm(1), low=0.3, high=2.0),
               Reduction("norm3", lambda lib, x, d, k: x.norm(3, **_kw(d, k)), _norm(3), low=0.3, high=2.0),
               Reduction("norm_inf", lambda lib, x, d, k: x.norm(float("inf"), **_kw(d, k)), _norm(float("inf")),
                         low=0.3, high=2.0),
           ],
           float16=[("norm", _m("norm"))],
           empty=[("p=2 dim=1", lambda L, x: L.norm(x, 2, 1), ((0, 3), F)),
                  ("p=inf empty", lambda L, x: L.norm(x, float("inf")), ((0, 3), F))]),
    # all / any / count_nonzero: no gradient
    OpInfo("all", "reduce", lambda lib, x: x.all(), np.all, sweeps=_INT_EMPTY,
           samples=[
               _row("all", lambda lib, x: (x > -1.5).all(), [In((3, 4))], fd=False),
               _row("all_dim", lambda lib, x: lib.all(x > 0, 1), [In((3, 4))], fd=False),
           ],
           properties=[Reduction("all", lambda lib, x, d, k: (x > 0).all(**_kw(d, k)), _np_reduce(
               lambda a, axis, keepdims: np.all(a > 0, axis=axis, keepdims=keepdims)), dims="int", fd=False)]),
    OpInfo("any", "reduce", lambda lib, x: x.any(), np.any, sweeps=_INT_EMPTY,
           samples=[
               _row("any_dim_keepdim", lambda lib, x: (x > 1).any(0, keepdim=True), [In((3, 4))], fd=False),
               _row("any_float", lambda lib, x: lib.any(x), [In((3, 4), values=_with_zeros((3, 4), [0]))], fd=False),
           ]),
    OpInfo("count_nonzero", "reduce", lambda lib, x: lib.count_nonzero(x), np.count_nonzero, sweeps=_INT_EMPTY,
           samples=[_row("count_nonzero", lambda lib, x: lib.count_nonzero(x, 1),
                         [In((3, 4), values=_with_zeros((3, 4), [0, 5, 6]))], fd=False)],
           properties=[Reduction("count_nonzero", lambda lib, x, d, k: lib.count_nonzero(x > 0, dim=d),
                                 lambda x, d, k: np.count_nonzero(x > 0, axis=d), fd=False)],
           empty=[("dim 0", lambda L, x: L.count_nonzero(x, 0), ((0, 3), F))]),
    # cumulative sums and products
    OpInfo("cumsum", "reduce", lambda lib, x: x.cumsum(0), sweeps=_INT_EMPTY,
           raises=[("cumsum_dim", lambda lib: lib.ones(2, 3).cumsum(2), IndexError, _dim_range(-2, 1, 2))],
           samples=[
               _row("cumsum", lambda lib, x: x.cumsum(1), [In((3, 4))]),
               _row2("cumsum_neg_dim", lambda lib, x: lib.cumsum(x, dim=-3), [In((2, 3, 4))]),
               _row("cumsum_int", lambda lib, x: x.cumsum(0), [In((3, 4), -5, 5, dtype=np.int32)]),
               _row("cumsum_0d", lambda lib, x: x.cumsum(0), [In(())]),
               _second("cumsum", lambda lib, x: (x * x).cumsum(1), [X]),
           ],
           properties=[Reduction("cumsum", lambda lib, x, d, k: x.cumsum(d),
                                 lambda x, d, k: np.cumsum(x, axis=d) if x.ndim else x, dims="required")],
           float16=[("cumsum", lambda lib, x, y: x.cumsum(1))],
           empty=[("dim 1", lambda L, x: L.cumsum(x, 1), ((3, 0), F))]),
    OpInfo("cumprod", "reduce", lambda lib, x: x.cumprod(0),
           samples=[
               _row2("cumprod", lambda lib, x: x.cumprod(1), [In((3, 4), 0.5, 1.5)]),
               _row("cumprod_neg", lambda lib, x: lib.cumprod(x, -2), [In((2, 3, 4))]),
               _row2("cumprod_zeros", lambda lib, x: x.cumprod(1),
                     [In((3, 5), values=_with_zeros((3, 5), [2, 5, 8, 12, 13]))]),  # zero mid, first, two, last
               _row("cumprod_zeros_dim0", lambda lib, x: x.cumprod(0),
                    [In((4, 2), values=_with_zeros((4, 2), [0, 3, 5]))]),
               _second("cumprod", lambda lib, x: x.cumprod(1), [In((2, 3), nonzero=True)]),
           ],
           properties=[Reduction("cumprod", lambda lib, x, d, k: x.cumprod(d),
                                 lambda x, d, k: np.cumprod(x, axis=d) if x.ndim else x, dims="required",
                                 special_grads=False)],
           float16=[("cumprod", lambda lib, x, y: x.cumprod(0))],
           empty=[("dim 0", lambda L, x: L.cumprod(x, 0), ((0, 3), F))]),
]
