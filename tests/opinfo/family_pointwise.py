"""Op table: selection and elementwise n-ary operators (npgrad/ops/pointwise.py): where, maximum/minimum,
fmax/fmin, clamp/clip, atan2, lerp, addcmul/addcdiv, hypot, xlogy, nan_to_num."""
import numpy as np

from oracle import In
from _inputs import POS, SPREAD, SPREAD_SHIFTED, X, mask, separated
from _record import FLOAT16_SWEEP, INTEGER_SWEEP, KINKS_SWEEP, SECOND_ORDER, SPECIAL_SWEEP, Binary, OpInfo, Sample, Unary

A = In((3, 4), values=separated((3, 4), 0.0))
B = In((3, 4), values=separated((3, 4), 0.1))
B_ROW = In((4,), values=separated((4,), 0.1))
X_AWAY = In((3, 4), values=separated((3, 4), 0.05))  # never exactly on a clamp bound of the form k/4
NZ = dict(nonzero=True)


def _second(name, fn, inputs, **kw):
    return Sample(name, fn, inputs, checks=frozenset({SECOND_ORDER}), **kw)


def _no_huge_products(a, b):
    # PyTorch's addcmul is fused (an FMA): -inf + 0.5 * 1e30 * 1e30 stays -inf in float32, where the
    # product rounded to inf first gives NaN
    return a, np.where(np.isfinite(b) & (np.abs(b) > 1e15), np.ones_like(b), b)


def _xlogy(a, b):
    with np.errstate(all="ignore"):
        return np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log(b))


OPS = [
    OpInfo(
        "where", "pointwise", lambda lib, a, b: lib.where(a > 0, a, b),
        samples=[
            # (the mask is listed last: the second-order helper takes its dtype from the first input)
            Sample("where", lambda lib, x, y, c: lib.where(c, x, y), [In((3, 4)), In((3, 4)), mask((3, 4))]),
            Sample("where_broadcast", lambda lib, x, y, c: lib.where(c, x, y), [In((4,)), In((2, 1, 1)), mask((3, 1))]),
            Sample("where_scalar_other", lambda lib, x, c: lib.where(c, x, 0.0), [In((3, 4)), mask((3, 4))]),
            Sample("where_scalar_input", lambda lib, y, c: lib.where(c, -1.5, y), [In((2, 3)), mask((2, 3))]),
            Sample("where_method", lambda lib, x, y, c: x.where(c, y), [In((4,)), In(()), mask((4,))]),
            Sample("where_from_compare", lambda lib, x: lib.where(x > 0, x * x, -x), [In((5,), nonzero=True)]),
            _second("where", lambda lib, c, x, y: lib.where(c, x * x, y.exp()),
                    [In((2, 3), values=lambda r: r.random((2, 3)) < 0.5, grad=False), X, In((3,))]),
            _second("where_scalar", lambda lib, x: lib.where(x > 0, x * x, 0.5), [X]),
        ],
        properties=[Binary("where", lambda lib, a, b: lib.where(a > b, a, b * 2),
                           lambda a, b: np.where(a > b, a, b * 2), kinked=True)],
        float16=[("where", lambda lib, x, y: lib.where(x > y, x, y))],
        integer=[
            ("where_int", lambda lib, c, a, b: lib.where(c, a, b)),
            ("where_int_scalar", lambda lib, c, a, b: lib.where(c, a, 7)),
            ("where_int_float_scalar", lambda lib, c, a, b: lib.where(c, a, 0.5)),
            ("where_scalars", lambda lib, c, a, b: lib.where(c, 1, 0)),
            ("where_scalars_float", lambda lib, c, a, b: lib.where(c, 1.0, 0)),
            ("where_mixed_tensors", lambda lib, c, a, b: lib.where(c, a, b.double())),
        ],
        errors=True, promotion="none"),
    OpInfo(
        "maximum", "pointwise", lambda lib, a, b: lib.maximum(a, b), np.maximum,
        samples=[
            Sample("maximum", inputs=[A, B]),
            Sample("maximum_broadcast", inputs=[A, B_ROW]),
            _second("maximum", lambda lib, x, y: lib.maximum(x, y) * x, [SPREAD, SPREAD_SHIFTED]),
        ],
        properties=[Binary("maximum", kinked=True)], float16=True, integer=[("maximum_int", None)], errors=True,
        promotion="none"),
    OpInfo(
        "minimum", "pointwise", lambda lib, a, b: lib.minimum(a, b), np.minimum,
        samples=[
            Sample("minimum", inputs=[A, B]),
            Sample("minimum_method_broadcast", lambda lib, x, y: x.minimum(y), [B_ROW, A]),
            _second("minimum", lambda lib, x, y: lib.minimum(x, y) * y, [SPREAD, SPREAD_SHIFTED]),
        ],
        properties=[Binary("minimum", kinked=True)],
        integer=[("minimum_int_float", lambda lib, c, a, b: lib.minimum(a, b.float() + 0.5))], errors=True,
        promotion="none"),
    OpInfo(
        "fmax", "pointwise", lambda lib, a, b: lib.fmax(a, b), np.fmax,
        samples=[
            Sample("fmax", inputs=[A, B]),
            _second("fmax", lambda lib, x, y: lib.fmax(x, y) * x, [SPREAD, SPREAD_SHIFTED]),
        ],
        properties=[Binary("fmax", kinked=True)], integer=[("fmax_int", None)], errors=True),
    OpInfo(
        "fmin", "pointwise", lambda lib, a, b: lib.fmin(a, b), np.fmin,
        samples=[Sample("fmin", inputs=[A, B_ROW])],
        properties=[Binary("fmin", kinked=True)]),
    OpInfo(
        "clamp", "pointwise", lambda lib, x: x.clamp(-0.7, 0.9), lambda x: np.clip(x, -0.7, 0.9), aliases=["clip"],
        samples=[
            Sample("clamp", lambda lib, x: x.clamp(-0.5, 0.5), [X_AWAY]),
            Sample("clamp_fn", lambda lib, x: lib.clamp(x, min=-1.0), [X_AWAY]),
            Sample("clamp_max_kw", lambda lib, x: lib.clamp(x, max=0.25), [X_AWAY]),
            Sample("clamp_int_bounds", lambda lib, x: x.clamp(-1, 1), [X_AWAY]),
            Sample("clip", lambda lib, x: x.clip(-0.5, 1.0), [X_AWAY]),
            Sample("clip_fn", lambda lib, x: lib.clip(x, -0.5, 1.0), [X_AWAY]),
            Sample("clamp_tensor_bounds", lambda lib, x, lo, hi: x.clamp(lo, hi),
                   [A, In((4,), values=separated((4,), -1.1)), In((3, 1), values=separated((3, 1), 1.2))]),
            Sample("clamp_tensor_min", lambda lib, x, lo: lib.clamp(x, min=lo), [A, B]),
            Sample("clamp_tensor_max", lambda lib, x, hi: x.clamp(max=hi), [A, B_ROW]),
            Sample("clamp_inverted_bounds", lambda lib, x: x.clamp(1.0, -1.0), [X_AWAY]),  # PyTorch: all -> max
            _second("clamp", lambda lib, x: x.clamp(-0.5, 0.7) * x, [SPREAD]),
            _second("clamp_tensor", lambda lib, x, lo: x.clamp(min=lo) * x, [SPREAD, SPREAD_SHIFTED]),
        ],
        properties=[Unary("clamp", away=(-0.7, 0.9)),
                    Binary("clamp_tensor", lambda lib, a, b: a.clamp(min=b), np.maximum, kinked=True)],
        float16=[("clamp", lambda lib, x, y: x.clamp(0.5, 1.5))],
        integer=[
            ("clamp_int", lambda lib, c, a, b: a.clamp(-1, 2)),
            ("clamp_int_float_bound", lambda lib, c, a, b: a.clamp(-0.5, 2)),
            ("clamp_int_tensor_bound", lambda lib, c, a, b: a.clamp(min=b)),
        ],
        errors=[("clamp_tensor", lambda lib, a, b: a.clamp(min=b))]),
    OpInfo(
        "clamp_min", "pointwise", lambda lib, x: x.clamp(min=0.2), lambda x: np.maximum(x, 0.2),
        samples=[
            Sample("clamp_min", lambda lib, x: x.clamp_min(0.3), [X_AWAY]),
            Sample("clamp_min_tensor", lambda lib, x, lo: x.clamp_min(lo), [A, B]),
            _second("clamp_min", lambda lib, x: x.clamp_min(0.5) * x, [SPREAD]),
        ],
        properties=[Unary("clamp_min", away=(0.2,))],
        integer=[("clamp_min_int", lambda lib, c, a, b: a.clamp_min(0))]),
    OpInfo(
        "clamp_max", "pointwise", lambda lib, x: lib.clamp_max(x, 0.3),
        samples=[
            Sample("clamp_max", inputs=[X_AWAY]),
            _second("clamp_max", lambda lib, x: lib.clamp_max(x, 0.5) * x, [SPREAD]),
        ],
        integer=[("clamp_max_int_float", lambda lib, c, a, b: a.clamp_max(0.5))]),
    OpInfo(
        "atan2", "pointwise", lambda lib, a, b: lib.atan2(a, b), np.arctan2, aliases=["arctan2"],
        samples=[
            Sample("atan2", inputs=[In((3, 4), **NZ), In((3, 4), **NZ)]),
            Sample("atan2_broadcast", lambda lib, y, x: y.atan2(x), [In((3, 1), **NZ), In((4,), **NZ)]),
            Sample("arctan2", lambda lib, y, x: lib.arctan2(y, x), [In((4,), **NZ), In((), 0.5, 2.0)]),
            _second("atan2", None, [X, In((2, 3), **NZ)]),
        ],
        properties=[Binary("atan2", b_away=(0,))], float16=True, integer=[("atan2_int", None)], errors=True,
        promotion="none"),
    OpInfo(
        "lerp", "pointwise", lambda lib, a, b: lib.lerp(a, b, 0.3), lambda a, b: a + 0.3 * (b - a),
        samples=[
            Sample("lerp_scalar_weight", inputs=[In((3, 4)), In((4,))]),
            Sample("lerp_tensor_weight", lambda lib, a, b, w: a.lerp(b, w), [In((3, 4)), In((3, 4)), In((4,), 0, 1)]),
            _second("lerp", lambda lib, x, y: lib.lerp(x, y, 0.3) * x, [X, X]),
        ],
        properties=[Binary("lerp")],
        float16=[("lerp", lambda lib, x, y: lib.lerp(x, y, 0.25))],
        integer=[("lerp_int", lambda lib, c, a, b: lib.lerp(a, b, 0.5))],
        errors=[("lerp", lambda lib, a, b: lib.lerp(a, b, 0.5))]),
    OpInfo(
        "addcmul", "pointwise", lambda lib, a, b: lib.addcmul(a, b, b, value=0.5), lambda a, b: a + 0.5 * b * b,
        samples=[
            Sample("addcmul", lambda lib, x, a, b: lib.addcmul(x, a, b, value=0.5), [In((3, 4)), In((4,)), In((3, 1))]),
            Sample("addcmul_method", lambda lib, x, a, b: x.addcmul(a, b), [In((3,)), In((3,)), In((3,))]),
            _second("addcmul", lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5) * y, [X, X, X]),
        ],
        properties=[Binary("addcmul", special_filter=_no_huge_products)],
        float16=[("addcmul", lambda lib, x, y: lib.addcmul(x, x, y, value=0.5))],
        integer=[("addcmul_int", lambda lib, c, a, b: lib.addcmul(a, a, b, value=2))],
        errors=[("addcmul", lambda lib, a, b: lib.addcmul(a, a, b))]),
    OpInfo(
        "addcdiv", "pointwise", lambda lib, a, b: lib.addcdiv(a, a, b, value=2), lambda a, b: a + 2 * a / b,
        samples=[
            Sample("addcdiv", lambda lib, x, a, b: lib.addcdiv(x, a, b, value=-2), [In((3, 4)), In((4,)), In((3, 4), **NZ)]),
            _second("addcdiv", lambda lib, x, y, z: lib.addcdiv(x, y, z, value=0.5), [X, X, In((2, 3), **NZ)]),
        ],
        properties=[Binary("addcdiv", b_away=(0,), special_grads=False)],
        integer=[("addcdiv_int", lambda lib, c, a, b: lib.addcdiv(a, a, b))]),
    OpInfo(
        "hypot", "pointwise", lambda lib, a, b: lib.hypot(a, b), np.hypot,
        samples=[
            Sample("hypot", inputs=[In((3, 4), **NZ), In((4,), **NZ)]),
            _second("hypot", None, [In((2, 3), **NZ), X]),
        ],
        properties=[Binary("hypot", b_away=(0,))], float16=True, integer=[("hypot_int", None)], errors=True),
    OpInfo(
        "xlogy", "pointwise", lambda lib, a, b: lib.xlogy(a, b), _xlogy,
        samples=[
            Sample("xlogy", inputs=[In((3, 4)), In((3, 4), 0.2, 3.0)]),
            Sample("xlogy_scalar_other", lambda lib, x: lib.xlogy(x, 2.5), [In((4,))]),
            Sample("xlogy_scalar_input", lambda lib, y: lib.xlogy(2.0, y), [In((4,), 0.2, 3.0)]),
            Sample("xlogy_zero_x", lambda lib, x, y: x.xlogy(y),
                   [In((4,), values=lambda r: np.array([0.0, 1.5, 0.0, -2.0]), grad=False), In((4,), 0.2, 3.0)]),
            _second("xlogy", None, [X, POS]),
        ],
        properties=[Binary("xlogy", b=(0.1, 3.0))], float16=True,
        integer=[("xlogy_int", lambda lib, c, a, b: lib.xlogy(a.abs(), b.abs()))], errors=True),
    OpInfo(
        "nan_to_num", "pointwise", lambda lib, x: x.nan_to_num(), np.nan_to_num,
        samples=[Sample("nan_to_num_method", lambda lib, x: x.nan_to_num(), [In((3, 4))]),
                 Sample("nan_to_num_0d", lambda lib, x: x.nan_to_num(), [In(())]),
                 _second("nan_to_num", lambda lib, x: lib.nan_to_num(x * x) * x, [X])],
        sweeps=frozenset({INTEGER_SWEEP, FLOAT16_SWEEP, SPECIAL_SWEEP, KINKS_SWEEP}),
        properties=[Unary("nan_to_num")], float16=[("nan_to_num", lambda lib, x, y: x.nan_to_num())],
        integer=[("nan_to_num_int", lambda lib, c, a, b: lib.nan_to_num(a))]),
]
