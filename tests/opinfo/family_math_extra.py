"""Op table: the less common math, arrangement, integration, histogram, predicate and sampling functions
(npgrad/ops/pointwise_extra.py, movement_extra.py, integrate.py, histogram.py, predicates.py, sampling.py; family
"math_extra", run by tests/ops/test_math_extra.py).

``_s`` rows run torch parity and finite differences (``_d`` adds double backward); ``_x`` rows are argument-free
calls whose results (values, dtypes, shapes, Python answers) must equal PyTorch's exactly; ``_r`` rows must raise
PyTorch's exception with its message."""
import numpy as np

from oracle import In
from _inputs import POS, SPREAD, SPREAD_SHIFTED, X
from _record import EXACT, FD, OpInfo, Sample
from _record import row as _s, row2 as _d, raises_like_torch as _r  # noqa: E402 (shared makers)

F = "math_extra"


def _x(name, fn):
    return Sample(name, fn, (), checks=frozenset({EXACT}))


def T(L, *a, **k):
    return L.tensor(*a, **k)


Y = In((2, 3, 4))
M = In((3, 4))
V = In((5,))
NZ = In((2, 3), nonzero=True)
ROWS = In((4, 3), 0.5, 2.0)  # rows of norm well above and below the renorm bound
MAT = In((3, 4), values=lambda r: np.array([[3.0, 2.0, 1.0, 0.5], [0.1, 0.2, 0.1, 0.3], [2.0, -2.0, 1.5, 1.0]]))


def _entry(name, fn, samples=(), **kw):
    return OpInfo(name, F, fn, samples=samples, **kw)


OPS = [
    # -- elementwise ---------------------------------------------------------------------------------------------
    _entry("copysign", lambda L, a, b: L.copysign(a, b), [
        _d("copysign", lambda L, a, b: L.copysign(a, b), [SPREAD, SPREAD_SHIFTED]),
        _s("copysign_scalar_method", lambda L, a: a.copysign(-1.5), [NZ]),
        _s("copysign_inplace", lambda L, a, b: (a * 1).copysign_(b), [SPREAD, In((3,))]),
        _x("copysign_int_scalar", lambda L: L.copysign(T(L, [1, -2, 3]), -1)),
        _x("copysign_bool", lambda L: L.copysign(T(L, [True, False]), T(L, [True, True]))),
        _x("copysign_half_float", lambda L: L.copysign(T(L, [1.0, 2]).half(), T(L, [-1.0, 2]))),
        _x("copysign_grad_at_zero", lambda L: L.autograd.grad(L.copysign(t := T(L, [0.0, -0.0, 2.0], requires_grad=True),
                                                                         -1.0).sum(), t)),
        _r("copysign_int_inplace", lambda L: T(L, [1, 2]).copysign_(-1)),
    ]),
    _entry("logaddexp", lambda L, a, b: L.logaddexp(a, b), [
        _d("logaddexp", lambda L, a, b: L.logaddexp(a, b), [M, In((4,))]),
        _s("logaddexp_method", lambda L, a, b: a.logaddexp(b), [X, X]),
        _x("logaddexp_int_float", lambda L: L.logaddexp(T(L, [1.0, 2]), T(L, [1, 2]))),
        _x("logaddexp_inf", lambda L: L.logaddexp(T(L, [float("-inf"), 1e30, float("inf")]), T(L, [0.0, 1e30, 1.0]))),
        _r("logaddexp_long", lambda L: L.logaddexp(T(L, [1]), T(L, [2]))),
        _r("logaddexp_scalar", lambda L: L.logaddexp(T(L, [1.0]), 2)),
        _r("logaddexp_shapes", lambda L: L.logaddexp(L.ones(2), L.ones(3))),
    ]),
    _entry("logaddexp2", lambda L, a, b: L.logaddexp2(a, b), [
        _d("logaddexp2", lambda L, a, b: L.logaddexp2(a, b), [M, M]),
        _s("logaddexp2_method", lambda L, a, b: a.logaddexp2(b), [In(()), X]),
        _r("logaddexp2_bool", lambda L: L.logaddexp2(T(L, [True]), T(L, [False]))),
    ]),
    _entry("gcd", lambda L, a, b: L.gcd(a, b), empty=[
        ("int", lambda L, a, b: L.gcd(a, b), ((0, 3), "int64"), ((3,), "int64")),
        ("method", lambda L, a, b: a.gcd(b), ((2, 0), "int16"), ((2, 1), "uint8"))], samples=[
        _x("gcd", lambda L: L.gcd(T(L, [-4, 0, 0, 12, 7]), T(L, [6, 0, -3, 18, 5]))),
        _x("gcd_promotes", lambda L: L.gcd(T(L, [4], dtype=L.uint8), T(L, [6], dtype=L.int8))),
        _x("gcd_inplace_keeps_dtype", lambda L: T(L, [4, 6], dtype=L.int32).gcd_(T(L, [6, 4]))),
        _x("gcd_broadcast_method", lambda L: T(L, [[4], [9]]).gcd(T(L, [6, 3]))),
        _r("gcd_float", lambda L: L.gcd(T(L, [4.0]), T(L, [6.0]))),
        _r("gcd_bool", lambda L: L.gcd(T(L, [True]), T(L, [True]))),
        _r("gcd_scalar", lambda L: L.gcd(T(L, [4]), 2)),
        _r("gcd_inplace_float_other", lambda L: T(L, [1, 2]).gcd_(T(L, [2.0]))),
    ]),
    _entry("lcm", lambda L, a, b: L.lcm(a, b), empty=[
        ("int", lambda L, a, b: L.lcm(a, b), ((0,), "int32"), ((0,), "int64")),
        ("method", lambda L, a, b: a.lcm(b), ((3, 0, 2), "int64"), ((2,), "int64"))], samples=[
        _x("lcm", lambda L: L.lcm(T(L, [-4, 0, 0, 12, 7]), T(L, [6, 0, -3, 18, 5]))),
        _x("lcm_inplace", lambda L: T(L, [4, 6]).lcm_(T(L, [6, 4]))),
        _r("lcm_float", lambda L: L.lcm(T(L, [4.0]), T(L, [6]))),
    ]),
    _entry("ldexp", lambda L, a, b: L.ldexp(a, b), [
        _d("ldexp", lambda L, a, b: L.ldexp(a, b), [X, In((2, 3), -2.0, 2.0)]),
        # (non-negative: PyTorch's gradient takes 2**other in integer arithmetic, 2**-2 == 0)
        _s("ldexp_int_exponent", lambda L, a: L.ldexp(a, L.tensor([1, 0, 3])), [X]),
        _s("ldexp_inplace", lambda L, a, b: (a * 1).ldexp_(b), [X, In((3,))]),
        _x("ldexp_int_int", lambda L: L.ldexp(T(L, [1, 2]), T(L, [1, 2]))),
        _x("ldexp_half_long", lambda L: L.ldexp(T(L, [1.0, 2]).half(), T(L, [1, 2]))),
        _x("ldexp_float_double", lambda L: L.ldexp(T(L, [1.0, 2]), T(L, [1.0, 2], dtype=L.float64))),
        _r("ldexp_inplace_long", lambda L: T(L, [1, 2]).ldexp_(T(L, [1]))),
        _r("ldexp_scalar", lambda L: L.ldexp(T(L, [1.0]), 2)),
    ]),
    _entry("frexp", lambda L, a: L.frexp(a), [
        _d("frexp_mantissa", lambda L, a: L.frexp(a).mantissa, [In((3, 4), -50.0, 50.0)]),
        _s("frexp_method", lambda L, a: a.frexp()[0] * 2, [X]),
        _x("frexp", lambda L: L.frexp(T(L, [1.5, -2, 0, float("inf"), float("nan"), 1e-40]))),
        _x("frexp_half", lambda L: L.frexp(T(L, [1.5, -2, 0]).half())),
        _r("frexp_int", lambda L: L.frexp(T(L, [1]))),
    ]),
    _entry("heaviside", lambda L, a, b: L.heaviside(a, b), [
        _x("heaviside", lambda L: L.heaviside(T(L, [1.0, 0, -1, 0]), T(L, [0.5]))),
        _x("heaviside_int", lambda L: L.heaviside(T(L, [1, 0, -1]), T(L, [7, 8, 9]))),
        _x("heaviside_inplace", lambda L: T(L, [1.5, 0, -2]).heaviside_(T(L, [3.0]))),
        _r("heaviside_dtypes", lambda L: L.heaviside(T(L, [1.0]), T(L, 0.5, dtype=L.float64))),
        _r("heaviside_scalar", lambda L: L.heaviside(T(L, [1.0]), 0.5)),
        _r("heaviside_backward", lambda L: L.heaviside(T(L, [1.0, 0.0], requires_grad=True), T(L, [0.5])).sum()
           .backward()),
    ]),
    _entry("nextafter", lambda L, a, b: L.nextafter(a, b), [
        _s("nextafter", lambda L, a, b: L.nextafter(a, b), [SPREAD, SPREAD_SHIFTED], fd=False),
        _x("nextafter", lambda L: L.nextafter(T(L, [0.0, 1, 1, -0.0]), T(L, [1.0, 0, 1, 0]))),
        _x("nextafter_double_scalar_other", lambda L: L.nextafter(T(L, [0.0, 2.0]), T(L, 10.0, dtype=L.float64))),
        _x("nextafter_grad", lambda L: L.autograd.grad(
            L.nextafter(*(t := [T(L, [1.5, -2, 0, 0, 3], requires_grad=True), T(L, [-1.0, 0, -0.0, 1, 3],
                                                                                   requires_grad=True)])).sum(), t)),
        _x("nextafter_inplace", lambda L: T(L, [1.0, 2.0], dtype=L.float64).nextafter_(T(L, [2.0, 1.0],
                                                                                        dtype=L.float64))),
        _r("nextafter_long", lambda L: L.nextafter(T(L, [1]), T(L, [2]))),
    ]),
    _entry("rad2deg", lambda L, a: L.rad2deg(a), [
        _d("rad2deg", lambda L, a: L.rad2deg(a), [X]),
        _s("rad2deg_inplace", lambda L, a: (a * 1).rad2deg_(), [X]),
        _x("rad2deg_int_bool_half", lambda L: [L.rad2deg(T(L, [1, -2])), L.rad2deg(T(L, [True, False])),
                                               T(L, [1.5, 0.3]).half().rad2deg()]),
        _r("rad2deg_inplace_long", lambda L: T(L, [1, 2]).rad2deg_()),
    ]),
    _entry("deg2rad", lambda L, a: L.deg2rad(a), [
        _s("deg2rad", lambda L, a: a.deg2rad(), [X]),
        _s("deg2rad_inplace", lambda L, a: (a * 1).deg2rad_(), [X]),
        _x("deg2rad_half_int", lambda L: [T(L, [1.0, 90, 180]).half().deg2rad(), L.deg2rad(T(L, [90]))]),
    ]),
    _entry("fix", lambda L, a: L.fix(a), [
        _s("fix", lambda L, a: L.fix(a) * a, [In((2, 3), -5.0, 5.0)]),
        _x("fix_int_inplace", lambda L: [L.fix(T(L, [1, -2])), T(L, [1.5, -1.5]).fix_(), T(L, [-2.5]).fix()]),
    ]),
    _entry("sgn", lambda L, a: L.sgn(a), [
        _s("sgn", lambda L, a: L.sgn(a) * a, [NZ]),
        _x("sgn_int_bool_inplace", lambda L: [L.sgn(T(L, [3, 0, -2])), L.sgn(T(L, [True, False])),
                                              T(L, [-3, 0, 2]).sgn_(), T(L, [-0.5, 0.0, float("nan")]).sgn()]),
    ]),
    _entry("isin", lambda L, a, b: L.isin(a, b), [
        _x("isin", lambda L: L.isin(T(L, [1, 2, 3, 2]), T(L, [[1.0], [2.0]]))),
        _x("isin_invert", lambda L: L.isin(T(L, [[1, 2], [3, 4]]), T(L, [1, 3]), invert=True)),
        _x("isin_scalars", lambda L: [L.isin(T(L, [1, 2, 3]), 3), L.isin(2, T(L, [1, 2, 3])),
                                      L.isin(T(L, [1.0, float("nan")]), T(L, [float("nan"), 1.0]))]),
        _x("isin_unique", lambda L: L.isin(T(L, [4, 1, 2]), T(L, [2, 3]), assume_unique=True)),
        _r("isin_bool", lambda L: L.isin(T(L, [True]), T(L, [True]))),
    ]),
    _entry("renorm", lambda L, a: L.renorm(a, 2, 0, 1.5), empty=[
        ("no rows", lambda L, x: L.renorm(x, 2, 0, 1.0), ((0, 3), "float32")),
        ("empty rows", lambda L, x: x.renorm(1, 0, 1.0), ((2, 0), "float32"))], samples=[
        _d("renorm_rows", lambda L, a: L.renorm(a, 2, 0, 1.5), [MAT]),
        _s("renorm_p1_last", lambda L, a: a.renorm(1, -1, 2.0), [MAT]),
        _s("renorm_3d", lambda L, a: L.renorm(a, 3, 1, 2.0), [Y]),
        _s("renorm_inplace", lambda L, a: (a * 1).renorm_(2, 1, 1.0), [ROWS]),
        _x("renorm_inf", lambda L: T(L, [[1.0, 2], [3, 4]]).renorm(float("inf"), 1, 3)),
        _r("renorm_long", lambda L: L.renorm(T(L, [[1, 2], [3, 4]]), 2, 0, 3)),
        _r("renorm_p", lambda L: L.renorm(T(L, [[1.0, 2], [3, 4]]), 0, 0, 3)),
        _r("renorm_maxnorm", lambda L: L.renorm(T(L, [[1.0, 2], [3, 4]]), 2, 0, -3)),
        _r("renorm_1d", lambda L: L.renorm(T(L, [1.0, 2]), 2, 0, 3)),
    ]),
    # -- arrangement -----------------------------------------------------------------------------------------------
    # PyTorch 2.13's own vander backward fails ("modified by an inplace operation"): its values are compared, the
    # gradient is checked by finite differences only.
    _entry("vander", lambda L, a: L.vander(a), [
        _x("vander_values", lambda L: [L.vander(T(L, [1.0, 2, -3])), L.vander(T(L, [1, 2, 3]), N=4),
                                       L.vander(T(L, [0.5, 2], dtype=L.float64), 3, increasing=True),
                                       L.vander(T(L, [2.0, 3]), N=0).shape, L.vander(T(L, [], dtype=L.int32)).shape]),
        Sample("vander_grad", lambda L, a: L.vander(a, N=4), [V], checks=frozenset({FD})),
        Sample("vander_grad_increasing", lambda L, a: L.vander(a, increasing=True), [In((3,))],
               checks=frozenset({FD})),
        _r("vander_2d", lambda L: L.vander(L.ones(2, 2))),
        _r("vander_negative_n", lambda L: L.vander(L.ones(2), N=-1)),
    ]),
    _entry("fill", lambda L, a: L.fill(a, 2.5), [
        _s("fill", lambda L, a: L.fill(a, 2.5), [M]),
        _s("fill_tensor_value", lambda L, a, v: L.fill(a, v), [M, In(())]),
        _x("fill_dtypes", lambda L: [L.fill(T(L, [1, 2]), 3), L.fill(T(L, [1.0, 2]), True),
                                     L.fill(T(L, [True, False]), 0)]),
        _r("fill_nonscalar_value", lambda L: L.fill(L.ones(2), L.ones(2))),
    ]),
    _entry("cartesian_prod", lambda L, a, b: L.cartesian_prod(a, b), [
        _s("cartesian_prod", lambda L, a, b: L.cartesian_prod(a, b), [In((3,)), In((2,))]),
        _s("cartesian_prod_three", lambda L, a, b, c: L.cartesian_prod(a, b, c), [In((2,)), In((3,)), In((2,))]),
        _x("cartesian_prod_one", lambda L: L.cartesian_prod(T(L, [1, 2]))),
        _x("cartesian_prod_empty", lambda L: L.cartesian_prod(T(L, [1.0, 2]), T(L, [])).shape),
        _r("cartesian_prod_dtypes", lambda L: L.cartesian_prod(T(L, [1]), T(L, [1.0]))),
        _r("cartesian_prod_2d", lambda L: L.cartesian_prod(T(L, [1]), L.ones(2, 2, dtype=L.int64))),
    ]),
    _entry("combinations", lambda L, a: L.combinations(a), [
        _s("combinations", lambda L, a: L.combinations(a), [V]),
        _s("combinations_r3_rep", lambda L, a: L.combinations(a, 3, with_replacement=True), [In((4,))]),
        _x("combinations_shapes", lambda L: [L.combinations(T(L, [3.0, 4, 5]), r).shape for r in range(5)]
           + [L.combinations(T(L, []), 2).shape, L.combinations(T(L, [1, 2]), 3, True)]),
        _r("combinations_neg", lambda L: L.combinations(T(L, [1.0, 2]), -1)),
        _r("combinations_2d", lambda L: L.combinations(L.ones(2, 2))),
    ]),
    _entry("block_diag", lambda L, a, b: L.block_diag(a, b), [
        _s("block_diag", lambda L, a, b, c: L.block_diag(a, b, c), [X, In((3,)), In(())]),
        _x("block_diag_dtypes", lambda L: L.block_diag(T(L, [1, 2]), T(L, [[2.0]], dtype=L.float64), T(L, True))),
        _x("block_diag_empty", lambda L: [L.block_diag(), L.block_diag(L.ones(0, 2), L.ones(2, 0))]),
        _r("block_diag_3d", lambda L: L.block_diag(L.ones(2), L.ones(2, 2, 2))),
    ]),
    _entry("column_stack", lambda L, a, b: L.column_stack([a, b]), [
        _s("column_stack", lambda L, a, b, c: L.column_stack([a, b, c]), [In((2,)), X, In((2, 1))]),
        _x("column_stack_0d", lambda L: L.column_stack((T(L, 1), T(L, 2.0)))),
        _r("column_stack_empty", lambda L: L.column_stack([])),
    ]),
    _entry("dstack", lambda L, a, b: L.dstack([a, b]), [
        _s("dstack", lambda L, a, b: L.dstack([a, b]), [X, X]),
        _s("dstack_1d", lambda L, a, b: L.dstack((a, b)), [In((3,)), In((1, 3))]),
        _x("dstack_int", lambda L: L.dstack([T(L, [1, 2]), T(L, [3, 4])])),
        _r("dstack_empty", lambda L: L.dstack([])),
    ]),
    _entry("row_stack", lambda L, a, b: L.row_stack([a, b]), [
        _s("row_stack", lambda L, a, b: L.row_stack([a, b]), [In((3,)), X]),
    ]),
    _entry("atleast_3d", lambda L, a: L.atleast_3d(a), [
        _s("atleast_3d_1d", lambda L, a: L.atleast_3d(a), [In((3,))]),
        _s("atleast_3d_2d", lambda L, a: L.atleast_3d(a), [X]),
        _x("atleast_3d_forms", lambda L: [L.atleast_3d(T(L, 1.0)).shape, L.atleast_3d(L.ones(2, 3, 4, 5)).shape,
                                          L.atleast_3d(T(L, [1]), L.ones(2, 2)), L.atleast_3d([T(L, [1])]),
                                          L.atleast_3d()]),
    ]),
    _entry("hsplit", lambda L, a: L.hsplit(a, 2), [
        _s("hsplit", lambda L, a: L.cat(L.hsplit(a, [1, 3])[::-1], 1), [M]),
        _s("hsplit_1d_method", lambda L, a: a.hsplit(2)[1], [In((4,))]),
        _x("hsplit", lambda L: L.hsplit(L.arange(12).reshape(3, 4), (1,))),
        _r("hsplit_indivisible", lambda L: L.hsplit(L.arange(12).reshape(3, 4), 3)),
        _r("hsplit_0d", lambda L: L.hsplit(T(L, 1), 2)),
    ]),
    _entry("vsplit", lambda L, a: L.vsplit(a, 2), [
        _s("vsplit", lambda L, a: a.vsplit(2)[0] * 2, [In((4, 3))]),
        _x("vsplit", lambda L: L.vsplit(L.arange(12).reshape(4, 3), [1, 1, 5])),
        _r("vsplit_1d", lambda L: L.vsplit(L.arange(4), 2)),
        _r("vsplit_indivisible", lambda L: L.vsplit(L.arange(12).reshape(4, 3), 5)),
    ]),
    _entry("dsplit", lambda L, a: L.dsplit(a, 2), [
        _s("dsplit", lambda L, a: L.dsplit(a, 2)[1], [Y]),
        _x("dsplit", lambda L: L.arange(12).reshape(2, 3, 2).dsplit([1])),
        _r("dsplit_2d", lambda L: L.dsplit(L.arange(12).reshape(2, 6), 2)),
    ]),
    _entry("rot90", lambda L, a: L.rot90(a), [
        _s("rot90", lambda L, a: L.rot90(a), [M]),
        _s("rot90_k3_dims", lambda L, a: a.rot90(3, [2, 0]), [Y]),
        _s("rot90_k2", lambda L, a: L.rot90(a, -2, (1, 2)), [Y]),
        _x("rot90_every_k", lambda L: [L.rot90(L.arange(6).reshape(2, 3), k) for k in range(-5, 6)]),
        _r("rot90_1d", lambda L: L.rot90(L.arange(6), 1)),
        _r("rot90_same_dims", lambda L: L.rot90(L.arange(6).reshape(2, 3), 1, [0, 0])),
        _r("rot90_three_dims", lambda L: L.rot90(L.arange(6).reshape(2, 3), 1, [0, 1, 2])),
        _r("rot90_dim_range", lambda L: L.rot90(L.arange(6).reshape(2, 3), 1, [0, 2])),
    ]),
    _entry("diagflat", lambda L, a: L.diagflat(a), [
        _s("diagflat", lambda L, a: L.diagflat(a, 1), [X]),
        _s("diagflat_method_neg", lambda L, a: a.diagflat(-2), [In((3,))]),
        _s("diag_embed_method", lambda L, a: a.diag_embed(1, 0, 2), [X]),
        _x("diagflat_int_0d_empty", lambda L: [L.diagflat(T(L, [[1, 2], [3, 4]])), L.diagflat(T(L, 3.0)),
                                               L.diagflat(T(L, []))]),
    ]),
    _entry("ravel", lambda L, a: L.ravel(a), [
        _s("ravel", lambda L, a: L.ravel(a.transpose(0, 2)), [Y]),
        _s("ravel_method", lambda L, a: a.ravel(), [X]),
    ]),
    _entry("unravel_index", lambda L: L.unravel_index(T(L, [4, 1]), (2, 3)), empty=[
        ("no indices", lambda L, i: L.unravel_index(i, (2, 3)), ((0,), "int64")),
        ("empty shape", lambda L, i: L.unravel_index(i, (2, 0)), ((2, 0), "int64"))], samples=[
        _x("unravel_index", lambda L: L.unravel_index(T(L, [[1, 5], [2, -1], [7, 0]]), (2, 3))),
        _x("unravel_index_forms", lambda L: [L.unravel_index(T(L, 4), 6), L.unravel_index(T(L, [1], dtype=L.int32),
                                                                                         (2, 3, 1)),
                                             L.unravel_index(T(L, [1]), ())]),
        _r("unravel_index_float", lambda L: L.unravel_index(T(L, [1.0]), (2, 3))),
        _r("unravel_index_negative_shape", lambda L: L.unravel_index(T(L, [1]), (2, -3))),
    ]),
    # -- integration and differences -------------------------------------------------------------------------------
    _entry("trapezoid", lambda L, y: L.trapezoid(y), [
        _d("trapezoid", lambda L, y: L.trapezoid(y), [M]),
        _s("trapezoid_dx_dim", lambda L, y: L.trapezoid(y, dx=0.5, dim=1), [Y]),
        _s("trapezoid_x", lambda L, y, x: L.trapezoid(y, x), [M, In((4,))]),
        _s("trapezoid_x_nd", lambda L, y, x: L.trapezoid(y, x, dim=0), [M, In((3, 1))]),
        _x("trapezoid_int_empty", lambda L: [L.trapezoid(T(L, [1, 2, 4])), L.trapezoid(L.ones(2, 0)),
                                             L.trapezoid(T(L, [1, 2, 4]), T(L, [0, 1, 3]))]),
        _r("trapezoid_x_length", lambda L: L.trapezoid(L.ones(2, 3), T(L, [0.0, 1]))),
        _r("trapezoid_0d", lambda L: L.trapezoid(T(L, 1.0))),
    ]),
    _entry("trapz", lambda L, y: L.trapz(y), [
        _s("trapz_x", lambda L, y, x: L.trapz(y, x), [M, In((4,))]),
        _s("trapz_dx", lambda L, y: L.trapz(y, dx=3.0, dim=0), [M]),
    ]),
    _entry("cumulative_trapezoid", lambda L, y: L.cumulative_trapezoid(y), [
        _d("cumulative_trapezoid", lambda L, y: L.cumulative_trapezoid(y), [M]),
        _s("cumulative_trapezoid_x", lambda L, y, x: L.cumulative_trapezoid(y, x, dim=1), [Y, In((3,))]),
        _x("cumulative_trapezoid_int_short", lambda L: [L.cumulative_trapezoid(T(L, [1, 2, 4]), dx=2),
                                                        L.cumulative_trapezoid(L.ones(2, 1))]),
    ]),
    _entry("gradient", lambda L, a: L.gradient(a)[0], [
        _d("gradient", lambda L, a: L.stack(L.gradient(a)), [In((4, 5))]),
        _s("gradient_edge2_dim", lambda L, a: L.gradient(a, spacing=0.5, dim=-1, edge_order=2)[0], [In((3, 5))]),
        _s("gradient_coords", lambda L, a: L.stack(L.gradient(
            a, spacing=(L.tensor([0.0, 1, 3, 3.5]), L.tensor([0.0, 0.5, 2, 3, 4.5])), edge_order=2)), [In((4, 5))]),
        _s("gradient_coords_e1", lambda L, a: L.gradient(a, spacing=(L.tensor([0.0, 0.5, 2, 3]),), dim=[1])[0],
           [In((3, 4))]),
        _x("gradient_int_spacings", lambda L: [L.gradient(T(L, [1, 2, 4, 8])), L.gradient(
            T(L, [[1.0, 2, 4], [3, 5, 9]]), spacing=[2.0, 3.0]), L.gradient(T(L, 1.0))]),
        _r("gradient_edge_order", lambda L: L.gradient(L.ones(2, 3), edge_order=2)),
        _r("gradient_edge_order_3", lambda L: L.gradient(L.ones(3, 3), edge_order=3)),
        _r("gradient_spacing_dim", lambda L: L.gradient(L.ones(3, 3), spacing=[2.0, 3.0], dim=1)),
        _r("gradient_spacing_length", lambda L: L.gradient(L.ones(3, 3), spacing=[2.0, 3.0, 4.0])),
        _r("gradient_repeated_dim", lambda L: L.gradient(L.ones(3, 3), dim=[0, 0])),
        _r("gradient_2d_coords", lambda L: L.gradient(L.ones(3, 3), spacing=(L.ones(1, 3), L.ones(3)))),
    ]),
    # -- histograms ---------------------------------------------------------------------------------------------------
    _entry("histogram", lambda L, a: L.histogram(a, 4), [
        _x("histogram", lambda L: L.histogram(T(L, [1.0, 2, 1]), bins=4, range=(0.0, 3.0))),
        _x("histogram_edges_weight", lambda L: L.histogram(T(L, [1.0, 2, 1, 7]), T(L, [0.0, 1, 2, 3]),
                                                           weight=T(L, [1.0, 2, 4, 8]))),
        _x("histogram_density", lambda L: L.histogram(T(L, [1.0, 2, 1, 5], dtype=L.float64), 3, density=True)),
        _x("histogram_method_2d", lambda L: T(L, [[1.0, 2], [1, 5]]).histogram(3)),
        _x("histogram_degenerate", lambda L: [L.histogram(T(L, [2.0, 2.0]), 2), L.histogram(T(L, []), 3)]),
        _r("histogram_long", lambda L: L.histogram(T(L, [1, 2]), 3)),
        _r("histogram_range", lambda L: L.histogram(T(L, [1.0, 2]), 3, range=(3.0, 1.0))),
        _r("histogram_nan", lambda L: L.histogram(T(L, [1.0, float("nan")]), 3)),
    ]),
    _entry("histogramdd", lambda L, a: L.histogramdd(a, 3), [
        _x("histogramdd", lambda L: L.histogramdd(T(L, [[0.0, 1], [1, 0], [2, 0], [2, 2]]), bins=[3, 3])),
        _x("histogramdd_range_weight", lambda L: L.histogramdd(T(L, [[0.0, 1], [1, 0], [2, 0], [0.2, 0.7]]), bins=2,
                                                               range=[0.0, 1.0, 0.0, 1.0], weight=T(L, [1.0, 2, 4, 8]))),
        _x("histogramdd_edges_density", lambda L: L.histogramdd(T(L, [[0.0, 1], [1, 0], [2, 0], [2, 2]]), bins=[
            T(L, [0.0, 1, 2]), T(L, [0.0, 0.5, 2])], density=True)),
        _x("histogramdd_3d_input", lambda L: L.histogramdd(L.arange(12.0).reshape(2, 2, 3), 2)),
    ]),
    # -- predicates ----------------------------------------------------------------------------------------------------
    _entry("is_floating_point", lambda L, a: L.is_floating_point(a), [
        _x("is_floating_point", lambda L: [L.is_floating_point(T(L, 1)), L.is_floating_point(T(L, 1.0).half())]),
        _r("is_floating_point_scalar", lambda L: L.is_floating_point(1.0)),
    ]),
    _entry("is_signed", lambda L, a: L.is_signed(a), [
        _x("is_signed", lambda L: [L.is_signed(T(L, [1], dtype=d)) for d in (L.uint8, L.int8, L.bool, L.float32)]),
    ]),
    _entry("is_nonzero", lambda L, a: L.is_nonzero(a), empty=[
        ("refused", lambda L, x: L.is_nonzero(x), ((0,), "float32")),
        ("method refused", lambda L, x: x.is_nonzero(), ((2, 0), "float32"))], samples=[
        _x("is_nonzero", lambda L: [L.is_nonzero(T(L, [0.0])), T(L, 3).is_nonzero(), L.is_nonzero(T(L, float("nan"))),
                                    L.is_nonzero(T(L, [[False]]))]),
        _r("is_nonzero_many", lambda L: L.is_nonzero(T(L, [1, 2]))),
        _r("is_nonzero_empty", lambda L: L.is_nonzero(T(L, []))),
    ]),
    _entry("is_same_size", lambda L, a, b: L.is_same_size(a, b), [
        _x("is_same_size", lambda L: [L.is_same_size(L.ones(2), L.ones(1, 2)), L.ones(2, 3).is_same_size(L.zeros(2, 3))]),
        _r("is_same_size_scalar", lambda L: L.is_same_size(L.ones(2), 2)),
    ]),
    _entry("get_device", lambda L, a: L.get_device(a), [
        _x("get_device", lambda L: [L.get_device(L.ones(1)), L.ones(2).get_device()]),
    ]),
    _entry("detach", lambda L, a: L.detach(a), [
        _x("detach", lambda L: [(d := L.detach(L.ones(2, requires_grad=True) * 2)).requires_grad, d.grad_fn, d]),
    ]),
    # -- sampling: only the draws that are certain compare with PyTorch (tests/test_tensor_extras.py checks the
    # statistics)
    _entry("poisson", lambda L, a: L.poisson(a), [
        _x("poisson_zero_rate", lambda L: L.poisson(L.zeros(2, 3))),
        _x("poisson_grad_is_zero", lambda L: L.autograd.grad(L.poisson(t := T(L, [1.0, 5.0], requires_grad=True)).sum(),
                                                              t)),
        _r("poisson_long", lambda L: L.poisson(L.zeros(3, dtype=L.int64))),
        _r("poisson_negative", lambda L: L.poisson(T(L, [-1.0]))),
    ]),
    _entry("binomial", lambda L, a, b: L.binomial(a, b), [
        _x("binomial_certain", lambda L: L.binomial(T(L, [3.0, 2.0, 4.0]), T(L, [1.0, 0.0, 1.5]))),
        _x("binomial_broadcast", lambda L: L.binomial(T(L, [3.0, 2.0]), T(L, [1.0]))),
        _r("binomial_long", lambda L: L.binomial(T(L, [3, 2]), T(L, [1.0, 0.0]))),
        _r("binomial_dtypes", lambda L: L.binomial(T(L, [3.0]), T(L, [1.0], dtype=L.float64))),
        _r("binomial_backward", lambda L: L.binomial(T(L, [3.0], requires_grad=True), T(L, [0.5])).sum().backward()),
    ]),
]
