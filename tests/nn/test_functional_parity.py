"""nn.functional against PyTorch (outputs and input gradients, float32 and float64) and finite differences."""
import numpy as np
import pytest

from oracle import HAS_TORCH
from nn._parity import check_function, finite_difference_check

R = np.random.default_rng(1)


def rnd(*shape, scale=1.0):
    return R.standard_normal(shape) * scale


X4 = rnd(2, 3, 5, 6)
Q, K, V = rnd(2, 3, 4, 8), rnd(2, 3, 5, 8), rnd(2, 3, 5, 6)
BOOL_MASK = R.random((4, 5)) > 0.3
BOOL_MASK[:, 0] = True  # every query keeps at least one key
A, B = rnd(4, 5), rnd(4, 5)
RM, RV = rnd(3), np.abs(rnd(3)) + 0.5  # running statistics for batch_norm in eval mode

# (id, fn(lib, *tensors), inputs)
CASES = [
    ("linear", lambda l, x, w, b: l.nn.functional.linear(x, w, b), [rnd(2, 3, 4), rnd(5, 4), rnd(5)]),
    ("linear_nobias", lambda l, x, w: l.nn.functional.linear(x, w), [rnd(3, 4), rnd(5, 4)]),
    ("bilinear", lambda l, a, b, w, c: l.nn.functional.bilinear(a, b, w, c), [rnd(3, 2), rnd(3, 4), rnd(5, 2, 4), rnd(5)]),
]
# The softmax rows (tests/opinfo/family_softmax.py) and the activation functions' rows
# (tests/opinfo/family_activation.py) moved into the op table; their draws (60 + 12 + 12 + 24 + 1 + 12 + 12
# values, then sixteen (4, 5)) stay here so that the rows below keep the inputs they had.
R.standard_normal(133)
R.standard_normal((16, 4, 5))
CASES += [
    ("erf", lambda l, x: l.erf(x) + x.erf() * 2, [rnd(4, 5, scale=2)]),
    ("conv2d", lambda l, x, w, b: l.nn.functional.conv2d(x, w, b, stride=2, padding=1), [X4, rnd(4, 3, 3, 3), rnd(4)]),
    ("conv2d_groups_dil", lambda l, x, w: l.nn.functional.conv2d(x, w, None, 1, (2, 1), (2, 1), 3),
     [X4, rnd(6, 1, 2, 3)]),
    ("conv2d_same", lambda l, x, w: l.nn.functional.conv2d(x, w, padding="same"), [X4, rnd(2, 3, 2, 2)]),
    ("conv1d", lambda l, x, w, b: l.nn.functional.conv1d(x, w, b, padding=1), [rnd(2, 3, 7), rnd(4, 3, 3), rnd(4)]),
    ("conv_transpose2d", lambda l, x, w, b: l.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1),
     [rnd(2, 3, 4, 4), rnd(3, 2, 3, 3), rnd(2)]),
    ("conv_transpose1d", lambda l, x, w: l.nn.functional.conv_transpose1d(x, w, None, 3, 0, 2),
     [rnd(2, 3, 4), rnd(3, 2, 3)]),
    ("unfold", lambda l, x: l.nn.functional.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [X4]),
    ("fold", lambda l, x: l.nn.functional.fold(x, (5, 6), 2, padding=1, stride=(1, 2)), [rnd(2, 12, 24)]),
    ("max_pool2d", lambda l, x: l.nn.functional.max_pool2d(x, 3, 2, 1, ceil_mode=True), [X4]),
    ("max_pool2d_indices", lambda l, x: l.nn.functional.max_pool2d(x, 2, return_indices=True), [X4]),
    ("avg_pool2d", lambda l, x: l.nn.functional.avg_pool2d(x, 2, 1, 1, count_include_pad=False), [X4]),
    ("adaptive_avg_pool2d", lambda l, x: l.nn.functional.adaptive_avg_pool2d(x, (4, 4)), [X4]),
    ("adaptive_max_pool1d", lambda l, x: l.nn.functional.adaptive_max_pool1d(x, 3), [rnd(2, 3, 7)]),
    ("layer_norm", lambda l, x, w, b: l.nn.functional.layer_norm(x, (5, 6), w, b, eps=1e-3),
     [X4, rnd(5, 6), rnd(5, 6)]),
    ("group_norm", lambda l, x, w, b: l.nn.functional.group_norm(x, 3, w, b), [rnd(2, 6, 4), rnd(6), rnd(6)]),
    ("rms_norm", lambda l, x, w: l.nn.functional.rms_norm(x, (6,), w, eps=1e-5), [X4, rnd(6)]),
    ("rms_norm_default_eps", lambda l, x: l.nn.functional.rms_norm(x, (5, 6)), [X4]),
    ("batch_norm_train", lambda l, x, w, b: l.nn.functional.batch_norm(x, None, None, w, b, training=True),
     [X4, rnd(3), rnd(3)]),
    ("batch_norm_eval", lambda l, x, w, b: l.nn.functional.batch_norm(x, l.tensor(RM).to(x.dtype),
                                                                      l.tensor(RV).to(x.dtype), w, b, False),
     [X4, rnd(3), rnd(3)]),
    ("instance_norm", lambda l, x: l.nn.functional.instance_norm(x), [X4]),
    ("normalize", lambda l, x: l.nn.functional.normalize(x, dim=1), [A]),
    ("normalize_p1", lambda l, x: l.nn.functional.normalize(x, p=1.0, dim=0), [A]),
    ("cosine_similarity", lambda l, a, b: l.nn.functional.cosine_similarity(a, b), [A, B]),
    ("cosine_similarity_bcast", lambda l, a, b: l.nn.functional.cosine_similarity(a, b, dim=-1), [A, rnd(1, 5)]),
    ("pairwise_distance", lambda l, a, b: l.nn.functional.pairwise_distance(a, b, keepdim=True), [A, B]),
    ("pad_constant", lambda l, x: l.nn.functional.pad(x, (1, 2, 2, 1), value=1.5), [X4]),
    ("pad_negative", lambda l, x: l.nn.functional.pad(x, (1, -2, 0, 1, 1, 1)), [X4]),
    ("pad_reflect", lambda l, x: l.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect"), [X4]),
    ("pad_replicate", lambda l, x: l.nn.functional.pad(x, (3, 0, 1, 2), mode="replicate"), [X4]),
    ("pad_circular", lambda l, x: l.nn.functional.pad(x, (1, 2, 2, 1), mode="circular"), [X4]),
    ("pad_reflect_1d", lambda l, x: l.nn.functional.pad(x, (2, 1), mode="reflect"), [rnd(2, 3, 5)]),
    ("dropout_eval", lambda l, x: l.nn.functional.dropout(x, 0.3, training=False), [A]),
    ("one_hot", lambda l, t: l.nn.functional.one_hot(t, 6), [np.array([[0, 5, 2], [1, 1, 3]])]),
    ("embedding", lambda l, i, w: l.nn.functional.embedding(i, w, padding_idx=0), [np.array([[0, 2], [3, 0]]), rnd(4, 3)]),
    ("embedding_repeats", lambda l, i, w: l.nn.functional.embedding(i, w), [np.array([[1, 2, 1], [3, 1, 2]]), rnd(4, 3)]),
    ("pixel_shuffle", lambda l, x: l.nn.functional.pixel_shuffle(x, 2), [rnd(2, 8, 3, 3)]),
    ("pixel_unshuffle", lambda l, x: l.nn.functional.pixel_unshuffle(x, 2), [rnd(2, 2, 4, 6)]),
    ("sdpa", lambda l, q, k, v: l.nn.functional.scaled_dot_product_attention(q, k, v), [Q, K, V]),
    ("sdpa_causal_scale", lambda l, q, k, v: l.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                                           scale=0.3), [Q, K, V]),
    ("sdpa_bool_mask", lambda l, q, k, v, m: l.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m),
     [Q, K, V, BOOL_MASK]),
    ("sdpa_float_mask", lambda l, q, k, v, m: l.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m),
     [Q, K, V, rnd(3, 4, 5)]),
]

INTERP = []
for _kw in [dict(scale_factor=2), dict(size=(7, 4)), dict(scale_factor=(1.5, 0.5)), dict(size=(9, 13)),
            dict(scale_factor=1.7, recompute_scale_factor=True)]:
    for _mode, _ac in [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True),
                       ("area", None)]:
        if _mode == "area" and "recompute_scale_factor" in _kw:
            continue
        INTERP.append((f"interpolate_{_mode}_{_ac}_{'_'.join(f'{k}={v}' for k, v in _kw.items())}",
                       (lambda m, a, kw: lambda l, x: l.nn.functional.interpolate(x, mode=m, align_corners=a, **kw))(
                           _mode, _ac, _kw), [X4]))
INTERP.append(("interpolate_linear", lambda l, x: l.nn.functional.interpolate(x, scale_factor=2.5, mode="linear"),
               [rnd(2, 3, 5)]))
INTERP.append(("interpolate_nearest_1d", lambda l, x: l.nn.functional.interpolate(x, size=7), [rnd(2, 3, 5)]))
CASES += INTERP

if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
    @pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
    def test_functional_matches_torch(name, fn, inputs, dtype):
        check_function(fn, inputs, dtype=dtype, what=name)


# one_hot has no gradient; the padding row of an embedding gets none by design (finite differences disagree).
FD_CASES = [c for c in CASES if c[0] not in ("one_hot", "embedding")]


@pytest.mark.parametrize("name,fn,inputs", FD_CASES, ids=[c[0] for c in FD_CASES])
def test_functional_finite_differences(name, fn, inputs):
    finite_difference_check(fn, inputs, tol=1e-5, what=name)
