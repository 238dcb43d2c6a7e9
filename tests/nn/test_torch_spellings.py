"""The torch.<name> spellings of nn.functional functions (npgrad/_nn_spellings.py), each against PyTorch's
(value, dtype, gradients in float32 and float64) and against finite differences; without PyTorch, the
argument mapping is checked against the nn.functional call it stands for. The random ones (dropout,
alpha_dropout, feature_dropout, rrelu in training) are checked for what is not random: the identity when not
training, the scale, and which elements share a draw."""
import sys

import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad import _nn_spellings
from oracle import HAS_TORCH, In, OpCase
from _table_tests import finite_difference_test, torch_parity_test


def _const(a, dtype=None):
    arr = np.asarray(a, dtype=dtype)
    return In(arr.shape, values=lambda rng: arr, grad=False, dtype=arr.dtype)


def _pos(shape):
    return In(shape, low=0.2, high=2.0)


def _nograd_pos(shape):
    return In(shape, low=0.2, high=2.0, grad=False)


def _probs(shape):
    return In(shape, low=0.05, high=0.95, grad=False)


SIGNS = _const([1.0, -1.0, 1.0, -1.0], np.float32)


def _with_indices(lib, out_idx):
    out, idx = out_idx
    return lib.cat([out.reshape(-1), idx.reshape(-1).to(out.dtype)])


def _batch_norm_train(lib, x, w, b):
    rm, rv = lib.zeros(3, dtype=x.dtype), lib.ones(3, dtype=x.dtype)
    return lib.batch_norm(x, w, b, rm, rv, True, 0.3, 1e-5, False)


# (name, fn(lib, *inputs), inputs): every spelling has at least one row; the names are the test ids
ROWS = [
    ("adaptive_avg_pool1d", lambda lib, x: lib.adaptive_avg_pool1d(x, 3), [In((2, 3, 7))]),
    ("adaptive_max_pool1d", lambda lib, x: _with_indices(lib, lib.adaptive_max_pool1d(x, 3)), [In((2, 3, 7))]),
    ("alpha_dropout_eval", lambda lib, x: lib.alpha_dropout(x, 0.5, False), [In((3, 4))]),
    ("avg_pool1d", lambda lib, x: lib.avg_pool1d(x, 2), [In((2, 3, 7))]),
    ("avg_pool1d_all_args", lambda lib, x: lib.avg_pool1d(x, 3, [], 1, True, False), [In((2, 3, 7))]),
    ("batch_norm_train", _batch_norm_train, [In((4, 3, 2)), In((3,)), In((3,))]),
    ("batch_norm_eval", lambda lib, x, w, b, rm, rv: lib.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, True),
     [In((4, 3)), In((3,)), In((3,)), In((3,), grad=False), In((3,), low=0.5, high=2.0, grad=False)]),
    ("bilinear", lambda lib, a, b, w, bias: lib.bilinear(a, b, w, bias), [In((4, 3)), In((4, 2)), In((5, 3, 2)), In((5,))]),
    ("binary_cross_entropy_with_logits",
     lambda lib, x, t, pw: lib.binary_cross_entropy_with_logits(x, t, None, pw, 1), [In((3, 4)), _probs((3, 4)), _nograd_pos((4,))]),
    # an omitted reduction is 0 (none) in PyTorch's top-level losses
    ("binary_cross_entropy_with_logits_default", lambda lib, x, t, w: lib.binary_cross_entropy_with_logits(x, t, w),
     [In((3, 4)), _probs((3, 4)), _nograd_pos((3, 4))]),
    ("celu", lambda lib, x: lib.celu(x, 0.7), [In((3, 4))]),
    ("conv1d", lambda lib, x, w, b: lib.conv1d(x, w, b, 2, 1, 1, 1), [In((2, 4, 9)), In((6, 4, 3)), In((6,))]),
    ("conv2d", lambda lib, x, w: lib.conv2d(x, w, None, 1, 1, 2, 2), [In((1, 4, 6, 6)), In((4, 2, 3, 3))]),
    ("conv_transpose1d", lambda lib, x, w, b: lib.conv_transpose1d(x, w, b, 2, 1, 1), [In((2, 3, 5)), In((3, 2, 3)), In((2,))]),
    ("conv_transpose2d", lambda lib, x, w: lib.conv_transpose2d(x, w, None, 2, 1, 1, 1, 1),
     [In((1, 2, 4, 4)), In((2, 3, 3, 3))]),
    ("cosine_embedding_loss", lambda lib, a, b, y: lib.cosine_embedding_loss(a, b, y, 0.1, 2), [In((4, 5)), In((4, 5)), SIGNS]),
    ("cosine_embedding_loss_default", lambda lib, a, b, y: lib.cosine_embedding_loss(a, b, y), [In((4, 5)), In((4, 5)), SIGNS]),
    ("cosine_similarity", lambda lib, a, b: lib.cosine_similarity(a, b, 0), [In((4, 5)), In((4, 5))]),
    ("dropout_eval", lambda lib, x: lib.dropout(x, 0.5, False), [In((3, 4))]),
    ("dropout_p0", lambda lib, x: lib.dropout(x, 0.0, True), [In((3, 4))]),
    ("embedding", lambda lib, w: lib.embedding(w, lib.tensor([[0, 2], [1, 1]])), [In((4, 3))]),
    ("embedding_padding_idx", lambda lib, w: lib.embedding(w, lib.tensor([0, 2, 1, 1]), 1), [In((4, 3))]),
    ("embedding_bag", lambda lib, w: lib.embedding_bag(w, lib.tensor([0, 2, 4, 1, 1]), lib.tensor([0, 2]), False, 1)[0],
     [In((5, 3))]),
    ("embedding_bag_max_empty_bag", lambda lib, w: lib.embedding_bag(w, lib.tensor([0, 2, 4, 1]), lib.tensor([0, 2, 2]),
                                                                      False, 2)[0], [In((5, 3))]),
    ("embedding_bag_sum_weighted", lambda lib, w, psw: lib.embedding_bag(
        w, lib.tensor([0, 2, 4, 1]), lib.tensor([0, 1, 4]), False, 0, False, psw, True)[0], [In((5, 3)), In((4,))]),
    ("embedding_bag_mean_padding", lambda lib, w: lib.embedding_bag(w, lib.tensor([0, 2, 1, 1]), lib.tensor([0, 2]),
                                                                     False, 1, False, None, False, 1)[0], [In((5, 3))]),
    ("feature_dropout_eval", lambda lib, x: lib.feature_dropout(x, 0.5, False), [In((3, 4, 2))]),
    ("group_norm", lambda lib, x, w, b: lib.group_norm(x, 2, w, b, 1e-5, True), [In((3, 4, 5)), In((4,)), In((4,))]),
    ("group_norm_defaults", lambda lib, x: lib.group_norm(x, 1), [In((2, 3, 4))]),
    ("hardshrink", lambda lib, x: lib.hardshrink(x, 0.3), [In((3, 4))]),
    ("hardshrink_method", lambda lib, x: x.hardshrink(), [In((3, 4))]),
    ("hinge_embedding_loss", lambda lib, x, y: lib.hinge_embedding_loss(x, y, 1.5, 2), [In((4,)), SIGNS]),
    ("hinge_embedding_loss_default", lambda lib, x, y: lib.hinge_embedding_loss(x, y), [In((4,)), SIGNS]),
    ("instance_norm", lambda lib, x, w, b: lib.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
     [In((2, 3, 5)), In((3,)), In((3,))]),
    ("kl_div", lambda lib, x, t: lib.kl_div(x, t), [In((3, 4)), _probs((3, 4))]),
    ("kl_div_mean", lambda lib, x, t: lib.kl_div(x, t, 1), [In((3, 4)), _probs((3, 4))]),
    ("kl_div_none_log_target", lambda lib, x, t: lib.kl_div(x, t, 0, log_target=True), [In((3, 4)), In((3, 4))]),
    ("kl_div_sum", lambda lib, x, t: lib.kl_div(x, t, 2), [In((3, 4)), _probs((3, 4))]),
    ("layer_norm", lambda lib, x, w, b: lib.layer_norm(x, [4], w, b, 1e-5, False), [In((3, 4)), In((4,)), In((4,))]),
    ("layer_norm_defaults", lambda lib, x: lib.layer_norm(x, (3, 4)), [In((2, 3, 4))]),
    ("margin_ranking_loss", lambda lib, a, b, y: lib.margin_ranking_loss(a, b, y, 0.2, 1), [In((4,)), In((4,)), SIGNS]),
    ("margin_ranking_loss_default", lambda lib, a, b, y: lib.margin_ranking_loss(a, b, y), [In((4,)), In((4,)), SIGNS]),
    ("max_pool1d", lambda lib, x: lib.max_pool1d(x, 2), [In((2, 3, 7))]),
    ("max_pool1d_all_args", lambda lib, x: lib.max_pool1d(x, 3, 1, 1, 1, True), [In((2, 3, 7))]),
    ("max_pool2d", lambda lib, x: lib.max_pool2d(x, 2), [In((1, 2, 5, 5))]),
    ("max_pool2d_all_args", lambda lib, x: lib.max_pool2d(x, (3, 2), (1, 2), 1, 1, True), [In((1, 2, 5, 5))]),
    ("max_pool3d", lambda lib, x: lib.max_pool3d(x, 2), [In((1, 2, 4, 4, 4))]),
    ("max_pool3d_all_args", lambda lib, x: lib.max_pool3d(x, 3, [], 1, 1, True), [In((1, 2, 5, 4, 4))]),
    ("conv3d", lambda lib, x, w, b: lib.conv3d(x, w, b, 1, 1), [In((2, 2, 3, 4, 3)), In((3, 2, 2, 2, 2)), In((3,))]),
    ("conv_transpose3d", lambda lib, x, w: lib.conv_transpose3d(x, w, None, 2), [In((1, 2, 2, 3, 2)),
                                                                               In((2, 3, 2, 2, 2))]),
    ("channel_shuffle", lambda lib, x: lib.channel_shuffle(x, 2), [In((2, 4, 3))]),
    ("ctc_loss", lambda lib, x: lib.ctc_loss(x.log_softmax(2), lib.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]),
     [In((5, 2, 4))]),
    ("ctc_loss_mean", lambda lib, x: lib.ctc_loss(x.log_softmax(2), lib.tensor([[1, 2], [3, 3]]),
                                                  lib.tensor([5, 4]), lib.tensor([2, 1]), 0, 1, True), [In((5, 2, 4))]),
    ("feature_alpha_dropout_eval", lambda lib, x: lib.feature_alpha_dropout(x, 0.5, False), [In((2, 3, 4))]),
    ("pairwise_distance", lambda lib, a, b: lib.pairwise_distance(a, b, 3.0, 1e-6, True), [In((4, 5)), In((4, 5))]),
    ("pdist", lambda lib, x: lib.pdist(x), [In((4, 3))]),
    ("pixel_shuffle", lambda lib, x: lib.pixel_shuffle(x, 2), [In((1, 8, 2, 3))]),
    ("pixel_unshuffle", lambda lib, x: lib.pixel_unshuffle(x, 2), [In((1, 2, 4, 6))]),
    ("poisson_nll_loss", lambda lib, x, t: lib.poisson_nll_loss(x, t, True, False, 1e-8, 1), [In((3, 4)), _pos((3, 4))]),
    ("poisson_nll_loss_full", lambda lib, x, t: lib.poisson_nll_loss(x, t, False, True, 1e-6, 0),
     [_pos((3, 4)), In((3, 4), low=1.5, high=4.0, grad=False)]),
    ("prelu", lambda lib, x, w: lib.prelu(x, w), [In((2, 3, 4)), In((3,))]),
    ("prelu_method", lambda lib, x, w: x.prelu(w), [In((2, 3)), In((1,))]),
    ("rms_norm", lambda lib, x, w: lib.rms_norm(x, [4], w, 1e-3), [In((3, 4)), In((4,))]),
    ("rms_norm_defaults", lambda lib, x: lib.rms_norm(x, (4,)), [In((3, 4))]),
    ("rrelu_eval", lambda lib, x: lib.rrelu(x, 0.1, 0.3), [In((3, 4))]),
    ("selu", lambda lib, x: lib.selu(x), [In((3, 4))]),
    ("threshold", lambda lib, x: lib.threshold(x, 0.1, -2.0), [In((3, 4))]),
    ("triplet_margin_loss", lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n, 1.0, 2.0, 1e-6, True, 1),
     [In((4, 5)), In((4, 5)), In((4, 5))]),
    ("triplet_margin_loss_default", lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n, 0.5, 1.5),
     [In((4, 5)), In((4, 5)), In((4, 5))]),
]
# PyTorch's embedding gives the padding row no gradient, though the output depends on it
NO_FD = {"embedding_padding_idx"}
CASES = [OpCase(name, fn, inputs, fd=name not in NO_FD) for name, fn, inputs in ROWS]

if HAS_TORCH:
    test_matches_torch = torch_parity_test(CASES)
test_finite_differences = finite_difference_test([c for c in CASES if c.fd and any(i.grad for i in c.inputs)])


@pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch, which is not installed")
def test_batch_norm_updates_the_running_statistics_as_pytorch():
    import torch
    x = np.random.default_rng(0).standard_normal((4, 3, 2))
    stats = []
    for lib in (npgrad, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        lib.batch_norm(lib.tensor(x), None, None, rm, rv, True, 0.3, 1e-5, True)
        stats.append(np.concatenate([rm.numpy(), rv.numpy()]))
    np.testing.assert_allclose(*stats, rtol=1e-12)

RANDOM = {"dropout", "alpha_dropout", "feature_dropout"}


def test_every_spelling_has_a_row():
    tested = {name.split("_eval")[0].split("_p0")[0] for name, _, _ in ROWS}
    missing = {n for n in _nn_spellings.NAMES if not any(t == n or t.startswith(n + "_") for t in tested)}
    assert not missing, sorted(missing)


def test_methods_exist_where_pytorchs_do():
    for name in ("prelu", "hardshrink"):
        assert callable(getattr(npgrad.Tensor, name))
    if HAS_TORCH:
        import torch
        for name in _nn_spellings.NAMES:
            assert hasattr(torch, name), name
            assert hasattr(torch.Tensor, name) == hasattr(npgrad.Tensor, name), name


# without PyTorch: each spelling maps its arguments onto the nn.functional call it stands for
MAPPED = [  # (name, input shapes, torch.<name> call, the nn.functional call)
    ("batch_norm", [(4, 3), (3,), (3,), (3,), (3,)],
     lambda x, w, b, rm, rv: npgrad.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-3, True),
     lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-3)),
    ("embedding", [(4, 3)], lambda w: npgrad.embedding(w, npgrad.tensor([3, 0, 0]), 0),
     lambda w: F.embedding(npgrad.tensor([3, 0, 0]), w, padding_idx=0)),
    ("kl_div", [(3, 4), (3, 4)], lambda x, t: npgrad.kl_div(x, t, 2), lambda x, t: F.kl_div(x, t, reduction="sum")),
    ("max_pool1d", [(1, 3, 8)], lambda x: npgrad.max_pool1d(x, 2, []), lambda x: F.max_pool1d(x, 2, 2)),
    ("triplet_margin_loss", [(4, 5), (4, 5)],
     lambda a, p: npgrad.triplet_margin_loss(a, p, a * 2, 0.5, 1.0, 1e-6, False, 0),
     lambda a, p: F.triplet_margin_loss(a, p, a * 2, 0.5, 1.0, 1e-6, False, reduction="none")),
]


@pytest.mark.parametrize("name, shapes, spelling, functional", MAPPED, ids=[m[0] for m in MAPPED])
def test_arguments_map_onto_nn_functional(name, shapes, spelling, functional):
    rng = np.random.default_rng(0)
    args = [npgrad.tensor(rng.uniform(0.5, 2.0, s)) for s in shapes]
    np.testing.assert_allclose(spelling(*args).numpy(), functional(*args).numpy())


EMBEDDING_BAG_CALLS = [  # (id, weight dtype, index dtype, (offsets, mode, per_sample_weights?, include_last, padding))
    ("sum", "float32", "int64", ([0, 2], 0, False, False, None)),
    ("sum_float64", "float64", "int64", ([0, 2], 0, False, False, None)),
    ("sum_weighted", "float64", "int64", ([0, 2], 0, True, False, None)),
    ("mean_padding", "float32", "int64", ([0, 2], 1, False, False, 1)),
    ("mean_last_offset", "float64", "int32", ([0, 2, 5], 1, False, True, None)),
    ("max_empty_bag", "float32", "int64", ([0, 2, 2], 2, False, False, None)),
    ("max_negative_padding", "float64", "int64", ([0, 2, 2], 2, False, False, -1)),
]


@pytest.mark.skipif(not HAS_TORCH, reason="compares with PyTorch, which is not installed")
@pytest.mark.parametrize("wdt, idt, call", [c[1:] for c in EMBEDDING_BAG_CALLS], ids=[c[0] for c in EMBEDDING_BAG_CALLS])
def test_embedding_bag_returns_pytorchs_four_tensors(wdt, idt, call):
    import torch
    offsets, mode, weighted, last, padding = call
    w = np.random.default_rng(0).standard_normal((5, 3)).astype(wdt)
    got = []
    for lib in (npgrad, torch):
        psw = lib.tensor(np.linspace(0.5, 2.0, 5).astype(wdt)) if weighted else None
        out = lib.embedding_bag(lib.tensor(w), lib.tensor(np.array([0, 2, 4, 1, 1], idt)), lib.tensor(np.array(offsets, idt)),
                                False, mode, False, psw, last, padding)
        got.append([(t.numpy(), str(t.dtype).split(".")[-1]) for t in out])
    for (a, da), (b, db) in zip(*got):
        assert da == db and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_embedding_bag_leaves_padding_out_and_gives_empty_bags_zeros():
    # nn.functional's (which torch.embedding_bag calls): the padding rows are not in the sum nor in the count
    w = npgrad.tensor(np.arange(10.0).reshape(5, 2))
    out = F.embedding_bag(npgrad.tensor([0, 2, 4, 1, 1]), w, npgrad.tensor([0, 2, 2]), mode="mean", padding_idx=1)
    np.testing.assert_allclose(out.numpy(), [[2.0, 3.0], [0.0, 0.0], [8.0, 9.0]])
    out = F.embedding_bag(npgrad.tensor([[0, 1], [1, 1]]), w, mode="max", padding_idx=1)
    np.testing.assert_allclose(out.numpy(), [[0.0, 1.0], [0.0, 0.0]])


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_spellings_scale_what_they_keep(name):
    npgrad.manual_seed(0)
    x = npgrad.ones(64, 8, 4)
    out = getattr(npgrad, name)(x, 0.25, True)
    if name == "alpha_dropout":  # kept and dropped elements take two values, one affine map of 1 and of 0
        assert len(np.unique(np.round(out.numpy(), 5))) == 2
        return
    vals = np.unique(np.round(out.numpy(), 6))
    np.testing.assert_allclose(vals, [0.0, 1 / 0.75], rtol=1e-6)
    if name == "feature_dropout":  # one draw per (sample, channel)
        assert (out.numpy() == out.numpy()[..., :1]).all()
    assert 0.15 < (out.numpy() == 0).mean() < 0.35


def test_feature_dropout_needs_two_dims():
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        npgrad.feature_dropout(npgrad.ones(4), 0.5, True)


def test_rrelu_training_draws_from_the_generator_it_is_given():
    x = -npgrad.ones(50)
    a = npgrad.rrelu(x, 0.1, 0.3, True, npgrad.Generator().manual_seed(3))
    b = npgrad.rrelu(x, 0.1, 0.3, True, npgrad.Generator().manual_seed(3))
    assert (a == b).all() and ((-a >= 0.1) & (-a <= 0.3)).all() and len(np.unique(a.numpy())) > 10


def test_using_one_loads_nn_only_then():
    import subprocess
    code = ("import sys, npgrad; assert 'npgrad.nn' not in sys.modules; x = npgrad.ones(2, 3);"
            "npgrad.selu(x); assert 'npgrad.nn' in sys.modules; assert 'conv2d' in dir(npgrad)")
    subprocess.run([sys.executable, "-c", code], check=True)
