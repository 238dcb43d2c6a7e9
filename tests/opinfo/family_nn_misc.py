"""Op table: the rest of nn.functional (npgrad/nn/_functional): pad (constant, negative, reflect, replicate,
circular), the dropouts, embedding/embedding_bag/one_hot, pixel_shuffle/pixel_unshuffle, interpolate and the
upsample spellings, cosine_similarity/pairwise_distance/pdist, scaled_dot_product_attention and
multi_head_attention_forward.

tests/nn/test_functional_parity.py runs the samples against PyTorch (float32 and float64, outputs and input
gradients), finite differences and the expected errors; the second-order rows run in
tests/autograd/test_double_backward.py, the float16 forms in the float16 suite. The dropouts draw random masks:
their samples are the deterministic calls (evaluation mode, p=0), their statistics are checked in
tests/nn/test_random_functional.py, as bernoulli's in tests/test_factories.py.
"""
import dataclasses
import warnings

import numpy as np

from _inputs import fixed, normal
from _record import PARITY, ROW, OpInfo, Sample, second
from oracle import In


def F_(lib):
    return lib.nn.functional


def _row(name, fn, inputs, checks=ROW):
    # fd_tol: the finite-difference tolerance these rows had in tests/nn/test_functional_parity.py
    return Sample(name, fn, inputs, checks=checks, fd_tol=1e-5)


def _quiet(fn):
    # the upsample spellings warn of their deprecation in both libraries; the rows use them on purpose
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return call


X4 = normal(2, 3, 5, 6)
A, B = normal(4, 5), normal(4, 5)
Q, K, V = normal(2, 3, 4, 8), normal(2, 3, 5, 8), normal(2, 3, 5, 6)


def _bool_mask(rng):
    m = rng.random((4, 5)) > 0.3
    m[:, 0] = True  # every query keeps at least one key
    return m


BOOL_MASK = In((4, 5), dtype=np.bool_, grad=False, values=_bool_mask)


def _pad(name, pad, x=X4, **kw):
    return _row(name, lambda lib, x: F_(lib).pad(x, pad, **kw), [x])


def _dropout_errors(name, shape):
    return [(f"{name}_p_{p}", lambda lib, p=p: getattr(F_(lib), name)(lib.ones(shape), p), ValueError,
             f"dropout probability has to be between 0 and 1, but got {p}") for p in (1.5, -0.1)]


def _dropout(name, x, float16=()):
    return OpInfo(f"F.{name}", "nn_misc", lambda lib, x: getattr(F_(lib), name)(x, 0.3, training=False),
                  samples=[_row(f"{name}_eval", lambda lib, x: getattr(F_(lib), name)(x, 0.3, training=False), [x]),
                           _row(f"{name}_p0", lambda lib, x: getattr(F_(lib), name)(x, 0.0), [x])],
                  float16=float16, raises=_dropout_errors(name, x.shape))


_INTERP = []
for _kw in [dict(scale_factor=2), dict(size=(7, 4)), dict(scale_factor=(1.5, 0.5)), dict(size=(9, 13)),
            dict(scale_factor=1.7, recompute_scale_factor=True)]:
    for _mode, _ac in [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True),
                       ("area", None)]:
        if _mode == "area" and "recompute_scale_factor" in _kw:
            continue
        _INTERP.append(_row(f"interpolate_{_mode}_{_ac}_{'_'.join(f'{k}={v}' for k, v in _kw.items())}",
                            lambda lib, x, m=_mode, a=_ac, kw=_kw: F_(lib).interpolate(x, mode=m, align_corners=a,
                                                                                       **kw),
                            [X4]))
_INTERP += [_row("interpolate_linear", lambda lib, x: F_(lib).interpolate(x, scale_factor=2.5, mode="linear"),
                 [normal(2, 3, 5)]),
            _row("interpolate_nearest_1d", lambda lib, x: F_(lib).interpolate(x, size=7), [normal(2, 3, 5)])]


def _mha(lib, q, k, v, w_in, b_in, w_out, b_out, **kw):
    return F_(lib).multi_head_attention_forward(q, k, v, 4, 2, w_in, b_in, None, None, False, 0.0, w_out, b_out,
                                                training=False, **kw)


_MHA_INPUTS = [normal(3, 2, 4), normal(5, 2, 4), normal(5, 2, 4), normal(12, 4), normal(12), normal(4, 4), normal(4)]
# the attention weights do not depend on the values (no gradient reaches them), nor on the output projection
_MHA_WEIGHT_INPUTS = [dataclasses.replace(spec, grad=i not in (2, 5, 6)) for i, spec in enumerate(_MHA_INPUTS)]

OPS = [
    OpInfo("F.pad", "nn_misc", lambda lib, x: F_(lib).pad(x, (1, 2)),
           samples=[_pad("pad_constant", (1, 2, 2, 1), value=1.5), _pad("pad_negative", (1, -2, 0, 1, 1, 1)),
                    _pad("pad_reflect", (1, 2, 2, 1), mode="reflect"),
                    _pad("pad_replicate", (3, 0, 1, 2), mode="replicate"),
                    _pad("pad_circular", (1, 2, 2, 1), mode="circular"),
                    _pad("pad_reflect_1d", (2, 1), normal(2, 3, 5), mode="reflect")],
           float16=[("F.pad", lambda L, x, y: F_(L).pad(x, (1, 2)))]),
    _dropout("dropout", A, float16=[("F.dropout_eval", lambda L, x, y: F_(L).dropout(x, 0.5, training=False))]),
    _dropout("dropout1d", normal(2, 3, 4)),
    _dropout("dropout2d", normal(2, 3, 4, 4)),
    _dropout("dropout3d", normal(2, 3, 2, 2, 2)),
    _dropout("alpha_dropout", A),
    OpInfo("F.one_hot", "nn_misc", lambda lib, t: F_(lib).one_hot(t, 6),
           samples=[_row("one_hot", lambda lib, t: F_(lib).one_hot(t, 6), [fixed([[0, 5, 2], [1, 1, 3]])],
                         checks=frozenset({PARITY}))]),  # (no gradient)
    OpInfo("F.embedding", "nn_misc", lambda lib, i, w: F_(lib).embedding(i, w),
           # the padding row gets no gradient by design (finite differences disagree): parity only
           samples=[_row("embedding", lambda lib, i, w: F_(lib).embedding(i, w, padding_idx=0),
                         [fixed([[0, 2], [3, 0]]), normal(4, 3)], checks=frozenset({PARITY})),
                    _row("embedding_repeats", lambda lib, i, w: F_(lib).embedding(i, w),
                         [fixed([[1, 2, 1], [3, 1, 2]]), normal(4, 3)]),
                    second("embedding", lambda lib, w: F_(lib).embedding(lib.tensor([0, 2, 0]), w) ** 2, [In((3, 2))])],
           float16=[("F.embedding", lambda L, x, y: F_(L).embedding(L.tensor([2, 0]), x))]),
    OpInfo("F.embedding_bag", "nn_misc", lambda lib, i, w: F_(lib).embedding_bag(i, w),
           samples=[_row("embedding_bag_mean", lambda lib, i, w: F_(lib).embedding_bag(i, w),
                         [fixed([[0, 2, 2], [3, 1, 0]]), normal(4, 3)]),
                    _row("embedding_bag_sum_offsets", lambda lib, i, o, w: F_(lib).embedding_bag(i, w, o, mode="sum"),
                         [fixed([0, 2, 4, 1, 3]), fixed([0, 2]), normal(5, 3)]),
                    _row("embedding_bag_max", lambda lib, i, w: F_(lib).embedding_bag(i, w, mode="max"),
                         [fixed([[0, 2], [3, 1]]), normal(4, 3)])]),
    OpInfo("F.pixel_shuffle", "nn_misc", lambda lib, x: F_(lib).pixel_shuffle(x, 2),
           samples=[_row("pixel_shuffle", lambda lib, x: F_(lib).pixel_shuffle(x, 2), [normal(2, 8, 3, 3)])]),
    OpInfo("F.pixel_unshuffle", "nn_misc", lambda lib, x: F_(lib).pixel_unshuffle(x, 2),
           samples=[_row("pixel_unshuffle", lambda lib, x: F_(lib).pixel_unshuffle(x, 2), [normal(2, 2, 4, 6)])]),
    OpInfo("F.interpolate", "nn_misc", lambda lib, x: F_(lib).interpolate(x, scale_factor=2), samples=_INTERP),
    OpInfo("F.upsample", "nn_misc", lambda lib, x: F_(lib).upsample(x, scale_factor=2),
           samples=[_row("upsample_linear", _quiet(lambda lib, x: F_(lib).upsample(x, scale_factor=2, mode="linear")),
                         [normal(2, 3, 5)]),
                    _row("upsample_nearest_size", _quiet(lambda lib, x: F_(lib).upsample(x, size=(7, 9))), [X4])]),
    OpInfo("F.upsample_nearest", "nn_misc", lambda lib, x: F_(lib).upsample_nearest(x, scale_factor=2),
           samples=[_row("upsample_nearest", _quiet(lambda lib, x: F_(lib).upsample_nearest(x, scale_factor=2)),
                         [X4])]),
    OpInfo("F.upsample_bilinear", "nn_misc", lambda lib, x: F_(lib).upsample_bilinear(x, scale_factor=2),
           samples=[_row("upsample_bilinear", _quiet(lambda lib, x: F_(lib).upsample_bilinear(x, size=(7, 4))), [X4])]),
    OpInfo("F.cosine_similarity", "nn_misc", lambda lib, a, b: F_(lib).cosine_similarity(a, b),
           samples=[_row("cosine_similarity", lambda lib, a, b: F_(lib).cosine_similarity(a, b), [A, B]),
                    _row("cosine_similarity_bcast", lambda lib, a, b: F_(lib).cosine_similarity(a, b, dim=-1),
                         [A, normal(1, 5)])],
           float16=[("F.cosine_similarity", lambda L, x, y: F_(L).cosine_similarity(x, y))]),
    OpInfo("F.pairwise_distance", "nn_misc", lambda lib, a, b: F_(lib).pairwise_distance(a, b),
           samples=[_row("pairwise_distance", lambda lib, a, b: F_(lib).pairwise_distance(a, b, keepdim=True),
                         [A, B])]),
    OpInfo("F.pdist", "nn_misc", lambda lib, x: F_(lib).pdist(x),
           samples=[_row("pdist", lambda lib, x: F_(lib).pdist(x), [A]),
                    _row("pdist_p1.5", lambda lib, x: F_(lib).pdist(x, p=1.5), [A])]),
    OpInfo("F.scaled_dot_product_attention", "nn_misc",
           lambda lib, q, k, v: F_(lib).scaled_dot_product_attention(q, k, v),
           samples=[_row("sdpa", lambda lib, q, k, v: F_(lib).scaled_dot_product_attention(q, k, v), [Q, K, V]),
                    _row("sdpa_causal_scale", lambda lib, q, k, v: F_(lib).scaled_dot_product_attention(
                        q, k, v, is_causal=True, scale=0.3), [Q, K, V]),
                    _row("sdpa_bool_mask", lambda lib, q, k, v, m: F_(lib).scaled_dot_product_attention(
                        q, k, v, attn_mask=m), [Q, K, V, BOOL_MASK]),
                    _row("sdpa_float_mask", lambda lib, q, k, v, m: F_(lib).scaled_dot_product_attention(
                        q, k, v, attn_mask=m), [Q, K, V, normal(3, 4, 5)]),
                    second("sdpa", lambda lib, q, k, v: F_(lib).scaled_dot_product_attention(q, k, v),
                           [In((1, 2, 3)), In((1, 2, 3)), In((1, 2, 3))])],
           float16=[("F.scaled_dot_product_attention", lambda L, x, y: F_(L).scaled_dot_product_attention(
               x.unsqueeze(0), y.unsqueeze(0), x.unsqueeze(0)))]),
    OpInfo("F.multi_head_attention_forward", "nn_misc", _mha,
           samples=[_row("mha_forward", _mha, _MHA_INPUTS),
                    _row("mha_forward_head_weights", lambda lib, *xs: _mha(lib, *xs, average_attn_weights=False)[1],
                         _MHA_WEIGHT_INPUTS)]),
]

# Empty batches, empty index lists, attention over no queries or no keys (tests/reliability/test_empty_tensors.py)
F32 = "float32"
_EMPTY = {
    "F.pad": [("empty batch", lambda L, x: F_(L).pad(x, (1, 2)), ((0, 3, 5), F32)),
              ("empty batch, reflect", lambda L, x: F_(L).pad(x, (1, 2), mode="reflect"), ((0, 3, 5), F32))],
    "F.dropout": [("empty", lambda L, x: F_(L).dropout(x, 0.5), ((0, 3), F32))],
    "F.one_hot": [("empty indices", lambda L, i: F_(L).one_hot(i, 4), ((0,), "index4")),
                  ("empty indices, classes inferred", lambda L, i: F_(L).one_hot(i), ((0,), "index4"))],
    "F.embedding": [("empty indices", lambda L, i, w: F_(L).embedding(i, w), ((0,), "index4"), ((4, 3), F32))],
    "F.embedding_bag": [("no bags", lambda L, i, w: F_(L).embedding_bag(i, w), ((0, 2), "index4"), ((4, 3), F32))],
    # (pixel_shuffle/pixel_unshuffle: PyTorch 2.13's backward of an empty batch raises, its gradient shape check
    # taking the output's shape for the input's; npgrad gives the zero gradient)
    "F.interpolate": [("empty batch, bilinear", lambda L, x: F_(L).interpolate(x, scale_factor=2, mode="bilinear"),
                       ((0, 3, 5, 6), F32)),
                      ("empty batch, nearest", lambda L, x: F_(L).interpolate(x, size=7), ((0, 3, 5), F32))],
    "F.cosine_similarity": [("empty batch", lambda L, a, b: F_(L).cosine_similarity(a, b), ((0, 5), F32),
                             ((0, 5), F32))],
    "F.pairwise_distance": [("empty batch", lambda L, a, b: F_(L).pairwise_distance(a, b), ((0, 5), F32),
                             ((0, 5), F32))],
    # (no rows: PyTorch 2.13's backward of pdist of a (0, n) input crashes the process)
    "F.pdist": [("one row", lambda L, x: F_(L).pdist(x), ((1, 3), F32))],
    "F.scaled_dot_product_attention": [
        ("no queries", lambda L, q, k, v: F_(L).scaled_dot_product_attention(q, k, v), ((2, 0, 4), F32),
         ((2, 5, 4), F32), ((2, 5, 6), F32)),
        ("no keys", lambda L, q, k, v: F_(L).scaled_dot_product_attention(q, k, v), ((2, 3, 4), F32),
         ((2, 0, 4), F32), ((2, 0, 6), F32))],
}
for _op in OPS:
    _op.empty = _EMPTY.get(_op.name, ())
