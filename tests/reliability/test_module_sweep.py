"""Every nn module and nn.functional function takes the edge-case inputs PyTorch takes, with PyTorch's result:
an empty batch, a batch of one, NaN/inf values, and a non-contiguous (strided) input. For each (entry, input
kind) the output's shape, dtype and values (NaN where PyTorch gives NaN) equal PyTorch's, or both raise
the same exception class with the same message.

The entries are listed programmatically from ``npgrad.nn`` and ``npgrad.nn.functional``; a call table gives
the constructor/call arguments where the default (``Module()`` / ``f(x)`` on a (N, 3, 8) float32 input) does
not apply. ``test_every_entry_is_swept`` fails when a module or function is neither in the tables nor in
``NOT_SWEPT`` (with its reason). A combination npgrad cannot match yet is in ``KNOWN_MISMATCHES`` with the
reason: it still runs, and fails once it matches, so the list cannot go stale.
"""
import inspect

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
import npgrad.nn.functional as NF
from _fuzz import flat as _flat, outcome as _outcome
from oracle import HAS_TORCH, torch

if HAS_TORCH:
    import torch.nn.functional as TF

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")

KINDS = ("empty", "size1", "naninf", "strided")
SHAPE = (2, 3, 8)  # the default input: batch, channels, length

# -- the call tables ------------------------------------------------------------------------------------------
# module name -> (constructor(L), input shape, call(L, module, x)); None parts take the defaults.
_4D, _5D, _2D = (2, 3, 6, 6), (2, 3, 4, 4, 4), (2, 8)


def _tgt_like(L, x):
    return L.full(tuple(x.shape), 0.25, dtype=x.dtype)


def _classes(L, x):
    return L.zeros((x.shape[0],), dtype=L.long)


def _indices(L, x):
    """Integer indices of x's shape and layout (NaN/inf kinds: the weights, not indices, take them)."""
    return (L.nan_to_num(x, 0.0, 0.0, 0.0) * 0).long() + 3


def _pm1(L, x):
    return L.ones((x.shape[0],))


MODULES = {
    "AdaptiveAvgPool1d": (lambda L: L.nn.AdaptiveAvgPool1d(4), None, None),
    "AdaptiveAvgPool2d": (lambda L: L.nn.AdaptiveAvgPool2d(3), _4D, None),
    "AdaptiveMaxPool1d": (lambda L: L.nn.AdaptiveMaxPool1d(4), None, None),
    "AdaptiveMaxPool2d": (lambda L: L.nn.AdaptiveMaxPool2d(3), _4D, None),
    "AvgPool1d": (lambda L: L.nn.AvgPool1d(2), None, None),
    "AvgPool2d": (lambda L: L.nn.AvgPool2d(2), _4D, None),
    "MaxPool1d": (lambda L: L.nn.MaxPool1d(2), None, None),
    "MaxPool2d": (lambda L: L.nn.MaxPool2d(2), _4D, None),
    "LPPool1d": (lambda L: L.nn.LPPool1d(2, 2), None, None),
    "LPPool2d": (lambda L: L.nn.LPPool2d(2, 2), _4D, None),
    "BatchNorm1d": (lambda L: L.nn.BatchNorm1d(3), None, None),
    "BatchNorm2d": (lambda L: L.nn.BatchNorm2d(3), _4D, None),
    "BatchNorm3d": (lambda L: L.nn.BatchNorm3d(3), _5D, None),
    "InstanceNorm1d": (lambda L: L.nn.InstanceNorm1d(3, affine=True), None, None),
    "InstanceNorm2d": (lambda L: L.nn.InstanceNorm2d(3, track_running_stats=True), _4D, None),
    "InstanceNorm3d": (lambda L: L.nn.InstanceNorm3d(3), _5D, None),
    "GroupNorm": (lambda L: L.nn.GroupNorm(3, 3), None, None),
    "LayerNorm": (lambda L: L.nn.LayerNorm(8), None, None),
    "RMSNorm": (lambda L: L.nn.RMSNorm(8), None, None),
    "Bilinear": (lambda L: L.nn.Bilinear(8, 8, 4), _2D, lambda L, m, x: m(x, x)),
    "Linear": (lambda L: L.nn.Linear(8, 4), None, None),
    "NonDynamicallyQuantizableLinear": (lambda L: L.nn.Linear(8, 4), None, None),  # (torch's is internal)
    "Conv1d": (lambda L: L.nn.Conv1d(3, 4, 3, padding=1), None, None),
    "Conv2d": (lambda L: L.nn.Conv2d(3, 4, 3), _4D, None),
    "ConvTranspose1d": (lambda L: L.nn.ConvTranspose1d(3, 4, 3, stride=2), None, None),
    "ConvTranspose2d": (lambda L: L.nn.ConvTranspose2d(3, 4, 3), _4D, None),
    "Embedding": (lambda L: L.nn.Embedding(10, 4), None, lambda L, m, x: m(_indices(L, x))),
    "EmbeddingBag": (lambda L: L.nn.EmbeddingBag(10, 4), _2D, lambda L, m, x: m(_indices(L, x))),
    "PReLU": (lambda L: L.nn.PReLU(3), None, None),
    "GLU": (None, None, None),
    "Softmax": (lambda L: L.nn.Softmax(1), None, None),
    "LogSoftmax": (lambda L: L.nn.LogSoftmax(1), None, None),
    "Softmin": (lambda L: L.nn.Softmin(1), None, None),
    "Softmax2d": (None, _4D, None),
    "Threshold": (lambda L: L.nn.Threshold(0.1, 20.0), None, None),
    "CosineSimilarity": (None, None, lambda L, m, x: m(x, x * 2 + 1)),
    "PairwiseDistance": (None, _2D, lambda L, m, x: m(x, x * 2 + 1)),
    "PixelShuffle": (lambda L: L.nn.PixelShuffle(2), (2, 4, 3, 3), None),
    "PixelUnshuffle": (lambda L: L.nn.PixelUnshuffle(2), _4D, None),
    "Flatten": (None, _4D, None),
    "Unflatten": (lambda L: L.nn.Unflatten(2, (2, 4)), None, None),
    "Upsample": (lambda L: L.nn.Upsample(scale_factor=2), None, None),
    "UpsamplingNearest2d": (lambda L: L.nn.UpsamplingNearest2d(scale_factor=2), _4D, None),
    "UpsamplingBilinear2d": (lambda L: L.nn.UpsamplingBilinear2d(scale_factor=2), _4D, None),
    "MultiheadAttention": (lambda L: L.nn.MultiheadAttention(8, 2, batch_first=True), None,
                           lambda L, m, x: m(x, x, x)),
    "TransformerEncoderLayer": (lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                                None, None),
    "TransformerDecoderLayer": (lambda L: L.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                                None, lambda L, m, x: m(x, x)),
    "TransformerEncoder": (lambda L: L.nn.TransformerEncoder(
        L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2, enable_nested_tensor=False),
        None, None),
    "TransformerDecoder": (lambda L: L.nn.TransformerDecoder(
        L.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2), None, lambda L, m, x: m(x, x)),
    "Transformer": (lambda L: L.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True), None,
                    lambda L, m, x: m(x, x)),
    "Sequential": (lambda L: L.nn.Sequential(L.nn.Linear(8, 4), L.nn.ReLU()), None, None),
    # losses
    "BCELoss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "BCEWithLogitsLoss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "MSELoss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "L1Loss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "SmoothL1Loss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "HuberLoss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "SoftMarginLoss": (None, None, lambda L, m, x: m(x, L.ones(tuple(x.shape)))),
    "KLDivLoss": (lambda L: L.nn.KLDivLoss(reduction="batchmean"), None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "PoissonNLLLoss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x))),
    "GaussianNLLLoss": (None, None, lambda L, m, x: m(x, _tgt_like(L, x), L.ones(tuple(x.shape)))),
    "HingeEmbeddingLoss": (None, None, lambda L, m, x: m(x, L.ones(tuple(x.shape)))),
    "MultiLabelSoftMarginLoss": (None, _2D, lambda L, m, x: m(x, _tgt_like(L, x))),
    "CrossEntropyLoss": (None, None, lambda L, m, x: m(x, L.zeros((x.shape[0], x.shape[2]), dtype=L.long))),
    "NLLLoss": (None, None, lambda L, m, x: m(x, L.zeros((x.shape[0], x.shape[2]), dtype=L.long))),
    "CosineEmbeddingLoss": (None, _2D, lambda L, m, x: m(x, x * 2 + 1, _pm1(L, x))),
    "MarginRankingLoss": (None, (2,), lambda L, m, x: m(x, x * 2 + 1, _pm1(L, x))),
    "TripletMarginLoss": (None, _2D, lambda L, m, x: m(x, x * 2 + 1, x - 1)),
}


def _primed(L, mod, shape):
    """A lazy layer after a first forward on zeros of ``shape`` (its placeholders sized, its weights then copied
    between the libraries like any layer's); tests/nn/test_volumetric.py covers the lazy behaviour itself."""
    with L.no_grad():
        mod(L.zeros(shape))
    return mod


def _unpool_call(n):
    def call(L, m, x):
        v, i = (L.nn.functional.max_pool1d, L.nn.functional.max_pool2d, L.nn.functional.max_pool3d)[n - 1](
            x, 2, return_indices=True)
        return m(v, i)
    return call


MODULES.update({  # the volumetric family and the lazy layers
    "Conv3d": (lambda L: L.nn.Conv3d(3, 4, 2, padding=1), _5D, None),
    "ConvTranspose3d": (lambda L: L.nn.ConvTranspose3d(3, 4, 2, stride=2), _5D, None),
    "MaxPool3d": (lambda L: L.nn.MaxPool3d(3, 2, 1), _5D, None),
    "AvgPool3d": (lambda L: L.nn.AvgPool3d(2, padding=1, ceil_mode=True), _5D, None),
    "LPPool3d": (lambda L: L.nn.LPPool3d(2, 2), _5D, None),
    "AdaptiveAvgPool3d": (lambda L: L.nn.AdaptiveAvgPool3d(3), _5D, None),
    "AdaptiveMaxPool3d": (lambda L: L.nn.AdaptiveMaxPool3d(3), _5D, None),
    "MaxUnpool1d": (lambda L: L.nn.MaxUnpool1d(2), None, _unpool_call(1)),
    "MaxUnpool2d": (lambda L: L.nn.MaxUnpool2d(2), _4D, _unpool_call(2)),
    "MaxUnpool3d": (lambda L: L.nn.MaxUnpool3d(2), _5D, _unpool_call(3)),
    "FractionalMaxPool2d": (lambda L: L.nn.FractionalMaxPool2d(2, 3, _random_samples=L.full((2, 3, 2), 0.5)), _4D,
                            None),
    "FractionalMaxPool3d": (lambda L: L.nn.FractionalMaxPool3d(2, 2, _random_samples=L.full((2, 3, 3), 0.5)), _5D,
                            None),
    "Fold": (lambda L: L.nn.Fold((3, 3), 2), (2, 12, 4), None),
    "Unfold": (lambda L: L.nn.Unfold(2), _4D, None),
    "ChannelShuffle": (lambda L: L.nn.ChannelShuffle(3), None, None),
    "LazyLinear": (lambda L: _primed(L, L.nn.LazyLinear(4), SHAPE), None, None),
    "LazyConv1d": (lambda L: _primed(L, L.nn.LazyConv1d(4, 3), SHAPE), None, None),
    "LazyConv2d": (lambda L: _primed(L, L.nn.LazyConv2d(4, 3), _4D), _4D, None),
    "LazyConv3d": (lambda L: _primed(L, L.nn.LazyConv3d(4, 2), _5D), _5D, None),
    "LazyConvTranspose1d": (lambda L: _primed(L, L.nn.LazyConvTranspose1d(4, 3), SHAPE), None, None),
    "LazyConvTranspose2d": (lambda L: _primed(L, L.nn.LazyConvTranspose2d(4, 3), _4D), _4D, None),
    "LazyConvTranspose3d": (lambda L: _primed(L, L.nn.LazyConvTranspose3d(4, 2), _5D), _5D, None),
    "LazyBatchNorm1d": (lambda L: _primed(L, L.nn.LazyBatchNorm1d(), SHAPE), None, None),
    "LazyBatchNorm2d": (lambda L: _primed(L, L.nn.LazyBatchNorm2d(), _4D), _4D, None),
    "LazyBatchNorm3d": (lambda L: _primed(L, L.nn.LazyBatchNorm3d(), _5D), _5D, None),
    "LazyInstanceNorm1d": (lambda L: _primed(L, L.nn.LazyInstanceNorm1d(), SHAPE), None, None),
    "LazyInstanceNorm2d": (lambda L: _primed(L, L.nn.LazyInstanceNorm2d(), _4D), _4D, None),
    "LazyInstanceNorm3d": (lambda L: _primed(L, L.nn.LazyInstanceNorm3d(), _5D), _5D, None),
})


# modules whose forward draws random numbers: swept in eval mode (deterministic); train mode is covered by
# the dropout tests
EVAL_ONLY = {"AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "RReLU", "FeatureAlphaDropout"}
# padding modules, with a pad of 1 on each side, for 1d/2d/3d inputs
for _n, _shape in (("1d", None), ("2d", _4D), ("3d", _5D)):
    for _kind in ("CircularPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "ZeroPad"):
        _args = (1, 0.5) if _kind == "ConstantPad" else (1,)
        MODULES[_kind + _n] = (lambda L, k=_kind + _n, a=_args: getattr(L.nn, k)(*a), _shape, None)
for _name in ("Dropout2d", "Dropout3d"):
    MODULES[_name] = (None, _4D if _name == "Dropout2d" else _5D, None)

NOT_SWEPT_MODULES = {
    "Module": "abstract base class",
    "ModuleDict": "container without a forward",
    "ModuleList": "container without a forward",
    "ParameterDict": "container without a forward",
    "ParameterList": "container without a forward",
}

# functional name -> (input shape, call(L, F, x)); None parts take the defaults.
FUNCTIONALS = {
    "adaptive_avg_pool1d": (None, lambda L, F, x: F.adaptive_avg_pool1d(x, 4)),
    "adaptive_avg_pool2d": (_4D, lambda L, F, x: F.adaptive_avg_pool2d(x, 3)),
    "adaptive_max_pool1d": (None, lambda L, F, x: F.adaptive_max_pool1d(x, 4)),
    "adaptive_max_pool2d": (_4D, lambda L, F, x: F.adaptive_max_pool2d(x, 3)),
    "avg_pool1d": (None, lambda L, F, x: F.avg_pool1d(x, 2)),
    "avg_pool2d": (_4D, lambda L, F, x: F.avg_pool2d(x, 2, padding=1, ceil_mode=True)),
    "max_pool1d": (None, lambda L, F, x: F.max_pool1d(x, 2)),
    "max_pool2d": (_4D, lambda L, F, x: F.max_pool2d(x, 3, 2, 1)),
    "max_pool2d_with_indices": (_4D, lambda L, F, x: F.max_pool2d(x, 2, return_indices=True)),
    "lp_pool1d": (None, lambda L, F, x: F.lp_pool1d(x, 2, 2)),
    "lp_pool2d": (_4D, lambda L, F, x: F.lp_pool2d(x, 2, 2)),
    "batch_norm": (None, lambda L, F, x: F.batch_norm(x, None, None, training=True)),
    "instance_norm": (None, lambda L, F, x: F.instance_norm(x)),
    "group_norm": (None, lambda L, F, x: F.group_norm(x, 3)),
    "layer_norm": (None, lambda L, F, x: F.layer_norm(x, (8,))),
    "rms_norm": (None, lambda L, F, x: F.rms_norm(x, (8,))),
    "normalize": (None, lambda L, F, x: F.normalize(x, dim=1)),
    "bilinear": (_2D, lambda L, F, x: F.bilinear(x, x, L.ones((2, 8, 8)))),
    "linear": (None, lambda L, F, x: F.linear(x, L.ones((4, 8)))),
    "conv1d": (None, lambda L, F, x: F.conv1d(x, L.ones((4, 3, 3)), padding=1)),
    "conv2d": (_4D, lambda L, F, x: F.conv2d(x, L.ones((4, 3, 3, 3)))),
    "conv_transpose1d": (None, lambda L, F, x: F.conv_transpose1d(x, L.ones((3, 4, 3)), stride=2)),
    "conv_transpose2d": (_4D, lambda L, F, x: F.conv_transpose2d(x, L.ones((3, 4, 3, 3)))),
    "embedding": (None, lambda L, F, x: F.embedding(_indices(L, x), L.ones((4, 3)))),
    "embedding_bag": (_2D, lambda L, F, x: F.embedding_bag(_indices(L, x), L.ones((4, 3)))),
    "one_hot": (None, lambda L, F, x: F.one_hot(_indices(L, x), 4)),
    "fold": ((2, 12, 4), lambda L, F, x: F.fold(x, (3, 3), 2)),
    "unfold": (_4D, lambda L, F, x: F.unfold(x, 2)),
    "glu": (None, lambda L, F, x: F.glu(x)),
    "prelu": (None, lambda L, F, x: F.prelu(x, L.full((3,), 0.25))),
    "softmax": (None, lambda L, F, x: F.softmax(x, 1)),
    "log_softmax": (None, lambda L, F, x: F.log_softmax(x, 1)),
    "softmin": (None, lambda L, F, x: F.softmin(x, 1)),
    "threshold": (None, lambda L, F, x: F.threshold(x, 0.1, 20.0)),
    "threshold_": (None, lambda L, F, x: F.threshold_(x.clone(), 0.1, 20.0)),
    "cosine_similarity": (None, lambda L, F, x: F.cosine_similarity(x, x * 2 + 1)),
    "pairwise_distance": (_2D, lambda L, F, x: F.pairwise_distance(x, x * 2 + 1)),
    "pdist": (_2D, lambda L, F, x: F.pdist(x)),
    "pixel_shuffle": ((2, 4, 3, 3), lambda L, F, x: F.pixel_shuffle(x, 2)),
    "pixel_unshuffle": (_4D, lambda L, F, x: F.pixel_unshuffle(x, 2)),
    "pad": (None, lambda L, F, x: F.pad(x, (1, 2), mode="reflect")),
    "interpolate": (None, lambda L, F, x: F.interpolate(x, scale_factor=2, mode="linear")),
    "upsample": (None, lambda L, F, x: F.upsample(x, scale_factor=2)),
    "upsample_nearest": (_4D, lambda L, F, x: F.upsample_nearest(x, scale_factor=2)),
    "upsample_bilinear": (_4D, lambda L, F, x: F.upsample_bilinear(x, scale_factor=2)),
    "scaled_dot_product_attention": (None, lambda L, F, x: F.scaled_dot_product_attention(x, x, x)),
    "binary_cross_entropy": (None, lambda L, F, x: F.binary_cross_entropy(x.sigmoid(), _tgt_like(L, x))),
    "binary_cross_entropy_raw": (None, lambda L, F, x: F.binary_cross_entropy(x, _tgt_like(L, x))),
    "binary_cross_entropy_with_logits": (None, lambda L, F, x: F.binary_cross_entropy_with_logits(x, _tgt_like(L, x))),
    "cross_entropy": (None, lambda L, F, x: F.cross_entropy(x, L.zeros((x.shape[0], 8), dtype=L.long))),
    "nll_loss": (None, lambda L, F, x: F.nll_loss(x, L.zeros((x.shape[0], 8), dtype=L.long))),
    "cosine_embedding_loss": (_2D, lambda L, F, x: F.cosine_embedding_loss(x, x * 2 + 1, _pm1(L, x))),
    "margin_ranking_loss": ((2,), lambda L, F, x: F.margin_ranking_loss(x, x * 2 + 1, _pm1(L, x))),
    "triplet_margin_loss": (_2D, lambda L, F, x: F.triplet_margin_loss(x, x * 2 + 1, x - 1)),
    "gaussian_nll_loss": (None, lambda L, F, x: F.gaussian_nll_loss(x, _tgt_like(L, x), L.ones(tuple(x.shape)))),
    "hinge_embedding_loss": (None, lambda L, F, x: F.hinge_embedding_loss(x, L.ones(tuple(x.shape)))),
    "soft_margin_loss": (None, lambda L, F, x: F.soft_margin_loss(x, L.ones(tuple(x.shape)))),
    "multilabel_soft_margin_loss": (_2D, lambda L, F, x: F.multilabel_soft_margin_loss(x, _tgt_like(L, x))),
}


def _unpooled(F, x, n):
    v, i = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[n - 1](x, 2, return_indices=True)
    return (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[n - 1](v, i, 2)


def _half(L, x, n):
    """fractional max pooling's _random_samples, fixed at 0.5 (both libraries pick the same windows)."""
    return L.full((x.shape[0], x.shape[1], n), 0.5, dtype=x.dtype)


FUNCTIONALS.update({  # the volumetric family (tests/opinfo/family_volumetric.py)
    "conv3d": (_5D, lambda L, F, x: F.conv3d(x, L.ones((4, 3, 2, 2, 2)), padding=1)),
    "conv_transpose3d": (_5D, lambda L, F, x: F.conv_transpose3d(x, L.ones((3, 4, 2, 2, 2)), stride=2)),
    "max_pool3d": (_5D, lambda L, F, x: F.max_pool3d(x, 3, 2, 1)),
    "max_pool3d_with_indices": (_5D, lambda L, F, x: F.max_pool3d_with_indices(x, 2)),
    "max_pool1d_with_indices": (None, lambda L, F, x: F.max_pool1d_with_indices(x, 3, 2, 1)),
    "avg_pool3d": (_5D, lambda L, F, x: F.avg_pool3d(x, 2, padding=1, ceil_mode=True)),
    "lp_pool3d": (_5D, lambda L, F, x: F.lp_pool3d(x, 2, 2)),
    "adaptive_avg_pool3d": (_5D, lambda L, F, x: F.adaptive_avg_pool3d(x, 3)),
    "adaptive_max_pool3d": (_5D, lambda L, F, x: F.adaptive_max_pool3d(x, 3)),
    "adaptive_max_pool1d_with_indices": (None, lambda L, F, x: F.adaptive_max_pool1d_with_indices(x, 3)),
    "adaptive_max_pool2d_with_indices": (_4D, lambda L, F, x: F.adaptive_max_pool2d_with_indices(x, 4)),
    "adaptive_max_pool3d_with_indices": (_5D, lambda L, F, x: F.adaptive_max_pool3d_with_indices(x, 2)),
    "max_unpool1d": (None, lambda L, F, x: _unpooled(F, x, 1)),
    "max_unpool2d": (_4D, lambda L, F, x: _unpooled(F, x, 2)),
    "max_unpool3d": (_5D, lambda L, F, x: _unpooled(F, x, 3)),
    "fractional_max_pool2d": (_4D, lambda L, F, x: F.fractional_max_pool2d(x, 2, 3, _random_samples=_half(L, x, 2))),
    "fractional_max_pool2d_with_indices": (_4D, lambda L, F, x: F.fractional_max_pool2d_with_indices(
        x, 2, (4, 3), _random_samples=_half(L, x, 2))),
    "fractional_max_pool3d": (_5D, lambda L, F, x: F.fractional_max_pool3d(x, 2, 2, _random_samples=_half(L, x, 3))),
    "fractional_max_pool3d_with_indices": (_5D, lambda L, F, x: F.fractional_max_pool3d_with_indices(
        x, (1, 2, 2), 2, _random_samples=_half(L, x, 3))),
    "channel_shuffle": (_5D, lambda L, F, x: F.channel_shuffle(x, 3)),
})
for _name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss"):
    FUNCTIONALS[_name] = (None, lambda L, F, x, n=_name: getattr(F, n)(x, _tgt_like(L, x)))
for _name in ("alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d", "rrelu"):  # (training off)
    FUNCTIONALS[_name] = (_4D if _name == "dropout3d" else None,
                          lambda L, F, x, n=_name: getattr(F, n)(x, training=False))

NOT_SWEPT_FUNCTIONALS = {
    "gumbel_softmax": "draws random numbers on every call (no deterministic comparison with PyTorch)",
    "multi_head_attention_forward": "covered through MultiheadAttention (its 20 positional arguments)",
    "elu_": "in-place twin of elu (swept), on a leaf it refuses as elu does",
    "hardtanh_": "in-place twin of hardtanh (swept)",
    "leaky_relu_": "in-place twin of leaky_relu (swept)",
    "relu_": "in-place twin of relu (swept)",
}

# (entry, kind): why npgrad does not match PyTorch yet. Each still runs and must still differ.
# (entry, kind): where PyTorch's own result depends on the CPU kernel it picks. Its vectorised erf returns NaN
# for gelu(+inf) on some processors (seen on one development VM) and inf, the limit, on others (seen on another);
# npgrad always returns inf. Either PyTorch result is accepted, and nothing else.
_GELU_INF = "PyTorch's CPU gelu(+inf) is NaN or inf depending on the processor's vector kernel; npgrad gives inf"
KERNEL_DEPENDENT = {
    ("GELU", "naninf"): _GELU_INF,
    ("F.gelu", "naninf"): _GELU_INF,
}
KNOWN_MISMATCHES = {
    ("InstanceNorm1d", "empty"): "PyTorch's affine InstanceNorm fails on an empty batch with an internal "
                                 "'select(): index 0 out of range' IndexError; npgrad returns the empty output",
}
_UNINITIALISED = ("PyTorch's CPU kernel returns uninitialised memory as the mean of an empty batch (a different "
                  "number on each call); npgrad returns NaN, the mean of nothing")
for _key in ("MultiMarginLoss", "F.multi_margin_loss", "MultiLabelMarginLoss", "F.multilabel_margin_loss"):
    KNOWN_MISMATCHES[(_key, "empty")] = _UNINITIALISED


# the losses, sampling grids and response norms of nn/_functional/{loss_margin,loss_linear,ctc,grid,lrn}.py
_CTC_SHAPE = (6, 2, 5)  # (T, N, C): the "batch" the edge kinds vary is the time axis


def _labels(L, x):
    """multilabel_margin_loss targets: class 1, then the -1 that ends each row's list."""
    t = L.full(tuple(x.shape), -1, dtype=L.long)
    t[:, 0] = 1
    return t


def _ctc_args(L, x):
    N = x.shape[1]
    return (x.log_softmax(2), L.ones((N, 2), dtype=L.long), L.full((N,), x.shape[0], dtype=L.long),
            L.full((N,), 2, dtype=L.long))


def _nll_loss2d(L):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # its deprecation, in both libraries
        return L.nn.NLLLoss2d()


def _grid_for(L, x):
    n = x.shape[0]
    return L.tensor(np.linspace(-1.1, 1.1, n * 18).reshape(n, 3, 3, 2).astype(np.float32))


MODULES.update({
    "MultiMarginLoss": (None, _2D, lambda L, m, x: m(x, _classes(L, x))),
    "MultiLabelMarginLoss": (None, _2D, lambda L, m, x: m(x, _labels(L, x))),
    "TripletMarginWithDistanceLoss": (None, _2D, lambda L, m, x: m(x, x * 2 + 1, x - 1)),
    "CTCLoss": (None, _CTC_SHAPE, lambda L, m, x: m(*_ctc_args(L, x))),
    "LinearCrossEntropyLoss": (lambda L: L.nn.LinearCrossEntropyLoss(8, 4), _2D, lambda L, m, x: m(x, _classes(L, x))),
    "NLLLoss2d": (_nll_loss2d, _4D, lambda L, m, x: m(x, L.zeros((x.shape[0], 6, 6), dtype=L.long))),
    "LocalResponseNorm": (lambda L: L.nn.LocalResponseNorm(2), None, None),
    "CrossMapLRN2d": (lambda L: L.nn.CrossMapLRN2d(3), _4D, None),
    "AdaptiveLogSoftmaxWithLoss": (lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(8, 6, [2, 4]), _2D,
                                   lambda L, m, x: m(x, _classes(L, x))),
    # recurrent layers on a (batch, 3 steps, 8 features) input; the bases have no forward, in both libraries
    "RNN": (lambda L: L.nn.RNN(8, 4, batch_first=True), None, None),
    "LSTM": (lambda L: L.nn.LSTM(8, 4, 2, batch_first=True, bidirectional=True, proj_size=2), None, None),
    "GRU": (lambda L: L.nn.GRU(8, 4, batch_first=True), None, None),
    "RNNBase": (lambda L: L.nn.RNNBase("RNN_TANH", 8, 4, batch_first=True), None, None),
    "RNNCell": (lambda L: L.nn.RNNCell(8, 4), _2D, None),
    "LSTMCell": (lambda L: L.nn.LSTMCell(8, 4), _2D, None),
    "GRUCell": (lambda L: L.nn.GRUCell(8, 4), _2D, None),
    "RNNCellBase": (lambda L: L.nn.RNNCellBase(8, 4, True, 2), _2D, None),
})
FUNCTIONALS.update({
    "multi_margin_loss": (_2D, lambda L, F, x: F.multi_margin_loss(x, _classes(L, x))),
    "multilabel_margin_loss": (_2D, lambda L, F, x: F.multilabel_margin_loss(x, _labels(L, x))),
    "triplet_margin_with_distance_loss": (_2D, lambda L, F, x: F.triplet_margin_with_distance_loss(x, x * 2 + 1, x - 1)),
    "linear_cross_entropy": (_2D, lambda L, F, x: F.linear_cross_entropy(x, L.ones((4, 8)), _classes(L, x))),
    "ctc_loss": (_CTC_SHAPE, lambda L, F, x: F.ctc_loss(*_ctc_args(L, x))),
    "local_response_norm": (None, lambda L, F, x: F.local_response_norm(x, 2)),
    "grid_sample": (_4D, lambda L, F, x: F.grid_sample(x, _grid_for(L, x), align_corners=False)),
    "affine_grid": ((2, 2, 3), lambda L, F, x: F.affine_grid(x, [x.shape[0], 1, 3, 4], align_corners=False)),
})
for _n in ("1d", "2d", "3d"):  # the lazy instance norms are affine by default
    KNOWN_MISMATCHES[("LazyInstanceNorm" + _n, "empty")] = KNOWN_MISMATCHES[("InstanceNorm1d", "empty")]


# -- running one entry in both libraries -------------------------------------------------------------------

def _base(shape):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 1.7) * 2).reshape(shape).astype(np.float32)  # deterministic, mixed signs


def _make_input(L, shape, kind):
    shape = tuple(shape)
    if kind == "empty":
        a = np.zeros((0,) + shape[1:], np.float32)
    elif kind == "size1":
        a = _base((1,) + shape[1:])
    else:
        a = _base(shape)
    if kind == "naninf":
        flat = a.reshape(-1)
        flat[0], flat[min(1, flat.size - 1)], flat[min(3, flat.size - 1)] = np.nan, np.inf, -np.inf
    if kind == "strided":  # a view every other element along the last axis of a wider array
        wide = np.repeat(a, 2, axis=-1)
        wide[..., 1::2] = 7.0
        t = L.tensor(wide)[..., ::2]
        assert not t.is_contiguous()
        return t
    return L.tensor(a)


def _copy_params(n_mod, t_mod):
    state = {k: torch.tensor(v.detach().numpy()) for k, v in n_mod.state_dict().items()}
    t_mod.load_state_dict(state)


def _module_call(name, L, shape_kind, n_mod=None):
    ctor, shape, call = MODULES.get(name, (None, None, None))
    mod = ctor(L) if ctor else getattr(L.nn, name)()
    if name in EVAL_ONLY:
        mod.eval()
    if n_mod is not None:
        _copy_params(n_mod, mod)
    x = _make_input(L, shape or SHAPE, shape_kind)
    return mod, lambda: (call or (lambda L_, m, x_: m(x_)))(L, mod, x)


def _functional_call(name, L, F, kind):
    shape, call = FUNCTIONALS.get(name, (None, None))
    x = _make_input(L, shape or SHAPE, kind)
    fn = call or (lambda L_, F_, x_: getattr(F_, name)(x_))
    return lambda: fn(L, F, x)


def _mismatch(n_res, t_res):
    """None when npgrad's outcome equals PyTorch's, else what differs."""
    (n_out, n_err), (t_out, t_err) = n_res, t_res
    if t_err is not None or n_err is not None:
        if t_err is None or n_err is None:
            return f"npgrad: {n_err!r}, PyTorch: {t_err!r}"
        if not isinstance(n_err, type(t_err)) and not isinstance(t_err, type(n_err)):
            return f"error class {type(n_err).__name__}, PyTorch {type(t_err).__name__}"
        if str(n_err) != str(t_err).split("\n")[0] and str(n_err) != str(t_err):
            return f"message {str(n_err)!r}, PyTorch {str(t_err)!r}"
        return None
    ns, ts = _flat(n_out), _flat(t_out)
    if len(ns) != len(ts):
        return f"{len(ns)} results, PyTorch {len(ts)}"
    for a, b in zip(ns, ts):
        if not isinstance(b, torch.Tensor):
            continue
        if tuple(a.shape) != tuple(b.shape):
            return f"shape {tuple(a.shape)}, PyTorch {tuple(b.shape)}"
        if str(a.dtype).split(".")[-1] != str(b.dtype).split(".")[-1]:
            return f"dtype {a.dtype}, PyTorch {b.dtype}"
        av, bv = a.detach().numpy().astype(np.float64), b.detach().numpy().astype(np.float64)
        if not np.array_equal(np.isnan(av), np.isnan(bv)):
            return f"NaN at {np.argwhere(np.isnan(av) != np.isnan(bv))[:3].tolist()} (one library only)"
        if not np.allclose(av, bv, rtol=1e-4, atol=1e-5, equal_nan=True):
            return f"values differ by {np.nanmax(np.abs(av - bv)):.3g}"
    return None


def _posinf_as_nan(res):
    """The outcome with every +inf output turned into NaN: PyTorch's result where its kernel gives NaN for +inf."""
    out, err = res
    if err is not None or not hasattr(out, "detach"):
        return res
    arr = out.detach().numpy().copy()
    arr[np.isposinf(arr)] = np.nan
    return torch.from_numpy(arr), None


def _check(key, n_res, t_res):
    why = _mismatch(n_res, t_res)
    if key in KERNEL_DEPENDENT and why is not None:
        why = _mismatch(_posinf_as_nan(n_res), t_res)
    if key in KNOWN_MISMATCHES:
        assert why is not None, f"{key} now matches PyTorch: remove it from KNOWN_MISMATCHES"
        return
    assert why is None, why


needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")

_ALL_MODULES = sorted(n for n in dir(nn) if inspect.isclass(getattr(nn, n)) and issubclass(getattr(nn, n), nn.Module))
_ALL_FUNCTIONALS = sorted(n for n in dir(NF) if not n.startswith("_") and inspect.isfunction(getattr(NF, n)))
SWEPT_MODULES = [n for n in _ALL_MODULES if n not in NOT_SWEPT_MODULES]
SWEPT_FUNCTIONALS = [n for n in _ALL_FUNCTIONALS if n not in NOT_SWEPT_FUNCTIONALS] + [
    n for n in FUNCTIONALS if n not in _ALL_FUNCTIONALS]  # (extra call forms, e.g. binary_cross_entropy_raw)


@needs_torch
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SWEPT_MODULES)
def test_module_edge_inputs(name, kind):
    n_mod, n_call = _module_call(name, npgrad, kind)
    t_mod, t_call = _module_call(name, torch, kind, n_mod)
    _check((name, kind), _outcome(n_call), _outcome(t_call))


@needs_torch
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SWEPT_FUNCTIONALS)
def test_functional_edge_inputs(name, kind):
    _check(("F." + name, kind), _outcome(_functional_call(name, npgrad, NF, kind)),
           _outcome(_functional_call(name, torch, TF, kind)))


def test_every_entry_is_swept():
    """A new module or function is swept (with the default call or a table entry) or excluded with a reason."""
    assert set(NOT_SWEPT_MODULES) <= set(_ALL_MODULES), "stale NOT_SWEPT_MODULES entries"
    assert set(NOT_SWEPT_FUNCTIONALS) <= set(_ALL_FUNCTIONALS), "stale NOT_SWEPT_FUNCTIONALS entries"
    assert set(MODULES) <= set(_ALL_MODULES), "MODULES names something npgrad.nn does not have"
    assert len(SWEPT_MODULES) + len(NOT_SWEPT_MODULES) == len(_ALL_MODULES)
