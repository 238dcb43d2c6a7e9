"""torch.nn.functional: the stateless form of every layer, losses, and related helpers.

The implementations live in ``npgrad.nn._functional``, one module per family (activation, softmax,
linear, conv, pooling, normalization, dropout, sparse, padding, sampling, attention, loss, distance).
"""
from ._functional.activation import (relu, relu_, relu6, leaky_relu, leaky_relu_, hardtanh, hardtanh_, threshold,  # noqa
                                     threshold_, elu, elu_, selu, celu, gelu, silu, mish, softplus, logsigmoid,
                                     sigmoid, tanh, softsign, tanhshrink, hardsigmoid, hardswish, softshrink,
                                     hardshrink, glu, prelu, rrelu)
from ._functional.activation_inplace import celu_, selu_, rrelu_  # noqa: F401
from ._functional.feature_alpha_dropout import feature_alpha_dropout  # noqa: F401
from ._functional.arg_checks import assert_int_or_pair  # noqa: F401
from ._functional.attention import (scaled_dot_product_attention, multi_head_attention_forward,  # noqa: F401
                                    _canonical_mask, _in_projection_packed)
from ._functional.ctc import ctc_loss  # noqa: F401
from ._functional.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,  # noqa
                               unfold, fold)
from ._functional.distance import cosine_similarity, pairwise_distance, pdist  # noqa: F401
from ._functional.dropout import dropout, dropout1d, dropout2d, dropout3d, alpha_dropout  # noqa: F401
from ._functional.grid import affine_grid, grid_sample  # noqa: F401
from ._functional.linear import linear, bilinear  # noqa: F401
from ._functional.loss_linear import linear_cross_entropy  # noqa: F401
from ._functional.loss_margin import (multi_margin_loss, multilabel_margin_loss,  # noqa: F401
                                      triplet_margin_with_distance_loss)
from ._functional.loss import (cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss, huber_loss,  # noqa: F401
                               binary_cross_entropy, binary_cross_entropy_with_logits, kl_div, poisson_nll_loss,
                               margin_ranking_loss, hinge_embedding_loss, soft_margin_loss, cosine_embedding_loss,
                               gaussian_nll_loss, triplet_margin_loss, multilabel_soft_margin_loss)
from ._functional.lrn import local_response_norm  # noqa: F401
from ._functional.normalization import (layer_norm, batch_norm, group_norm, instance_norm, rms_norm,  # noqa: F401
                                        normalize)
from ._functional.padding import pad  # noqa: F401
from ._functional.pooling import (max_pool1d, max_pool2d, max_pool2d_with_indices, avg_pool1d, avg_pool2d,  # noqa
                                  adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool2d,
                                  lp_pool1d, lp_pool2d)
from ._functional.pooling import (max_pool3d, max_pool1d_with_indices, max_pool3d_with_indices, avg_pool3d,  # noqa
                                  adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool1d_with_indices,
                                  adaptive_max_pool2d_with_indices, adaptive_max_pool3d_with_indices, lp_pool3d)
from ._functional.fractional import (fractional_max_pool2d, fractional_max_pool3d,  # noqa: F401
                                     fractional_max_pool2d_with_indices, fractional_max_pool3d_with_indices)
from ._functional.unpooling import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: F401
from ._functional.shuffle import channel_shuffle  # noqa: F401
from ._functional.sampling import (interpolate, upsample, upsample_nearest, upsample_bilinear, pixel_shuffle,  # noqa
                                   pixel_unshuffle)
from ._functional.softmax import softmax, log_softmax, softmin  # noqa: F401
from ._functional.sparse import embedding, embedding_bag, one_hot  # noqa: F401


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    import numpy as np
    from ..random import rng
    from ..tensor import Tensor
    g = -np.log(rng().exponential(size=tuple(logits.shape)).astype(logits._data.dtype))
    y_soft = softmax((logits + Tensor._wrap(g)) / tau, dim)
    if not hard:
        return y_soft
    idx = y_soft._data.argmax(dim)
    y_hard = np.zeros_like(y_soft._data)
    np.put_along_axis(y_hard, np.expand_dims(idx, dim), 1.0, axis=dim)
    return Tensor._wrap(y_hard) - y_soft.detach() + y_soft
