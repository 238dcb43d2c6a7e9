"""scaled_dot_product_attention and multi_head_attention_forward, composed from matmul, the fused
softmax and dropout (so every gradient, including higher-order ones, comes from those ops)."""
import math
import warnings

import numpy as np

from ...ops.movement import cat
from ...tensor import Tensor
from .dropout import dropout
from .linear import linear
from .padding import pad
from .softmax import softmax


def _bool_to_bias(mask, dtype, masked_when):
    """A boolean mask as an additive bias: -inf where the mask says "masked", 0 elsewhere."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    return Tensor._wrap(np.where(m == masked_when, np.asarray(-np.inf, dtype), np.asarray(0, dtype)))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q @ k^T * scale + bias) @ v; a boolean attn_mask marks the positions that MAY be attended."""
    L, S = query.shape[-2], key.shape[-2]
    E = query.shape[-1]
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    dt = query._data.dtype
    if key.shape[-1] != E:
        raise RuntimeError(f"Expected query, key, and value to have the same embedding dimension, but got query: "
                           f"{E}, key: {key.shape[-1]}")
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    scores = (query @ key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        causal = np.tril(np.ones((L, S), bool))
        scores = scores + _bool_to_bias(causal, dt, False)
    if attn_mask is not None:
        if attn_mask._data.dtype == np.bool_:
            scores = scores + _bool_to_bias(attn_mask, dt, False)
        else:
            scores = scores + attn_mask
    attn = softmax(scores, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, training=True)
    return attn @ value


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    if mask is None:
        return None
    kind = mask._data.dtype.kind
    if kind != "b" and kind != "f":
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and other_type != mask._data.dtype:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if kind == "b":
        return _bool_to_bias(mask, np.dtype(target_type), True)
    return mask


def _in_projection_packed(q, k, v, w, b):
    E = q.shape[-1]
    if k is v:
        if q is k:
            return linear(q, w, b).chunk(3, -1)
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        return (linear(q, w_q, b_q),) + tuple(linear(k, w_kv, b_kv).chunk(2, -1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Sequence-first (L, N, E) multi-head attention, as torch.nn.functional.multi_head_attention_forward."""
    is_batched = query.dim() == 3
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    dt = query._data.dtype
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask._data.dtype, "attn_mask", dt)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dt, check_other=False)
    if use_separate_proj_weight:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    else:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v)
    if add_zero_attn:
        zeros = Tensor._wrap(np.zeros((bsz * num_heads, 1, head_dim), dt))
        k = cat([k, zeros], dim=1)
        v = cat([v, zeros], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{key_padding_mask.shape}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
    if attn_mask is not None:
        scores = scores + attn_mask
    w = softmax(scores, -1)
    if dropout_p > 0.0:
        w = dropout(w, dropout_p)
    out = (w @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    weights = None
    if need_weights:
        weights = w.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            weights = weights.squeeze(0)
    if not is_batched:
        out = out.squeeze(1)
    return out, weights
