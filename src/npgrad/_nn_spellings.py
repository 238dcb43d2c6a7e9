"""The torch.<name> spellings of nn.functional functions (``torch.conv2d``, ``torch.dropout``, ``torch.embedding``
...), and the Tensor methods among them (``Tensor.prelu``, ``Tensor.hardshrink``).

They sit at the package root's layer because they are nn.functional's functions: the operators below it may
not import nn. nn.functional is imported only when one is first used (``npgrad.__getattr__`` asks
``resolve``), so ``import npgrad`` does not load nn.

Several of PyTorch's top-level spellings are ATen's signatures, not nn.functional's: ``torch.dropout(input, p,
train)`` with ``train`` required, ``torch.embedding(weight, indices, ...)`` with the weight first,
``torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)``,
a loss's ``reduction`` as an int (0 none, 1 mean, 2 sum; omitted: 0), an empty ``stride`` for the kernel size. Those get
an adapter in ``ADAPTED``; a spelling whose signature is nn.functional's is a name in ``SAME`` (one line).
"""
from .ops._registry import method

# torch.<name> is nn.functional.<name> itself.
SAME = frozenset({
    "adaptive_avg_pool1d", "bilinear", "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d",
    "cosine_similarity", "hardshrink", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu",
})

# ATen's Reduction enum. Omitted, it is 0 (none) in torch.<loss>(...), though the schemas print 1: a call
# without it returns the unreduced loss in PyTorch 2.13.
_REDUCTION = ("none", "mean", "sum")
ADAPTED = {}


def _F():
    from .nn import functional
    return functional


def _adapter(fn):
    ADAPTED[fn.__name__] = fn
    return fn


def _reduction(r):
    return _REDUCTION[r]


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride


@_adapter
def adaptive_max_pool1d(input, output_size):
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


@_adapter
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _F().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def _max_pool(name):
    """torch.max_pool<n>d: no return_indices, and an empty stride for the kernel size."""
    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return getattr(_F(), name)(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)
    pool.__name__ = pool.__qualname__ = name
    return _adapter(pool)


def _dropout(name):
    """torch.<dropout>(input, p, train): ``train`` has no default."""
    def dropout(input, p, train):
        return getattr(_F(), name)(input, p, train)
    dropout.__name__ = dropout.__qualname__ = name
    return _adapter(dropout)


max_pool1d, max_pool2d, max_pool3d = _max_pool("max_pool1d"), _max_pool("max_pool2d"), _max_pool("max_pool3d")
dropout, alpha_dropout = _dropout("dropout"), _dropout("alpha_dropout")
feature_alpha_dropout = _dropout("feature_alpha_dropout")


@_adapter
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                         zero_infinity)


@_adapter
def feature_dropout(input, p, train):
    """Dropout of whole features: one draw per (sample, channel), shared by the rest of the dims."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not train or p == 0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    return input * _F().dropout(input.new_ones(shape), p, True)


@_adapter
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@_adapter
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@_adapter
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


@_adapter
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F().group_norm(input, num_groups, weight, bias, eps)


@_adapter
def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


@_adapter
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    # ATen's padding_idx is an index already made non-negative, or -1 for none
    return _F().embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


@_adapter
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """ATen's embedding_bag: the bags, and three bookkeeping tensors that PyTorch's CPU kernel returns for its
    backward (in the indices' dtype), computed as it computes them: each index's bag (offset2bag), each bag's
    size with padding left out, and for max the row each maximum came from (for mean: the sizes again). In
    sum mode the sizes and maxima are zeros, and offset2bag is empty for float16/float32 weights (the fast
    kernel PyTorch takes for them does not fill it)."""
    import numpy as np
    from .tensor import Tensor
    out = _F().embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                             mode=("sum", "mean", "max")[mode], sparse=sparse, per_sample_weights=per_sample_weights,
                             include_last_offset=include_last_offset, padding_idx=padding_idx)
    idx, off = indices._data.reshape(-1), offsets._data.astype(np.int64)
    bounds = list(off) + ([] if include_last_offset else [idx.size])
    n, it = len(bounds) - 1, idx.dtype
    pad = -1 if padding_idx is None else padding_idx % weight.shape[0]
    offset2bag = np.zeros(idx.size, it)
    sizes = np.zeros(n, it)
    argmax = np.zeros((n, weight.shape[1]), it)
    w = weight._data
    for b, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        offset2bag[lo:hi] = b
        rows = idx[lo:hi][idx[lo:hi] != pad]
        sizes[b] = rows.size
        if rows.size:
            argmax[b] = rows[np.argmax(w[rows], axis=0)]
    if mode == 0:
        fast = w.dtype in (np.float16, np.float32)
        zeros = np.zeros(n, it)
        return out, Tensor._wrap(offset2bag[:0] if fast else offset2bag), Tensor._wrap(zeros), Tensor._wrap(zeros.copy())
    return out, Tensor._wrap(offset2bag), Tensor._wrap(sizes), Tensor._wrap(argmax if mode == 2 else sizes.copy())


@_adapter
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


@_adapter
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


@_adapter
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


@_adapter
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


@_adapter
def kl_div(input, target, reduction=0, *, log_target=False):
    # reduction 1 is the element mean, which F.kl_div's "mean" is (F only adds a warning about it)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


@_adapter
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


@_adapter
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=0):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


@_adapter
def celu(input, alpha=1.0):
    return _F().celu(input, alpha)


@_adapter
def selu(input):
    return _F().selu(input)


@_adapter
def threshold(input, threshold, value):
    return _F().threshold(input, threshold, value)


@_adapter
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    if not training or generator is None:
        return _F().rrelu(input, lower, upper, training)
    from .ops import where
    from .random import rng
    from .tensor import Tensor
    slopes = rng(generator).uniform(lower, upper, tuple(input.shape)).astype(input._data.dtype)
    return where(input >= 0, input, input * Tensor._wrap(slopes))


NAMES = SAME | set(ADAPTED)


def resolve(name):
    """torch.<name> for a name in ``NAMES`` (importing nn.functional)."""
    return getattr(_F(), name) if name in SAME else ADAPTED[name]


def _hardshrink(self, lambd=0.5):
    return _F().hardshrink(self, lambd)


def _prelu(self, weight):
    return _F().prelu(self, weight)


method("hardshrink", _hardshrink)
method("prelu", _prelu)
