"""scaled_dot_product_attention and multi_head_attention_forward, composed from matmul, the fused
softmax and dropout (so every gradient, including higher-order ones, comes from those ops)."""
import math
import warnings

import numpy as np

from ... import kernels as _kernels
from ...autograd.function import Op
from ...kernels import attention as _kattention
from ...kernels import softmax as _ksoftmax
from ...ops import _poly as P
from ...ops.movement import cat
from ...ops.softmax import softmax_np
from ...tensor import Tensor
from .dropout import dropout
from .linear import linear
from .padding import pad
from .softmax import softmax


def _bool_to_bias(mask, dtype, masked_when):
    """A boolean mask as an additive bias: -inf where the mask says "masked", 0 elsewhere."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    return Tensor._wrap(np.where(m == masked_when, np.asarray(-np.inf, dtype), np.asarray(0, dtype)))


class ScaledMaskedSoftmax(Op):
    """softmax(scores * scale + mask) over the last axis as one node, on npgrad.kernels.attention (used only where
    the kernels run; the composed ops are the reference). The mask is a constant: none, causal, or an array
    (additive, or boolean where True attends) shaped (Bb, L, S) with Bb 1 or the scores' batch."""

    __slots__ = ()
    node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, s, scale, mask, mode):
        y = _kattention.masked_softmax(s, scale, mask, mode)
        if y is None:  # (numba failed to compile: the same steps in NumPy)
            v = s * np.asarray(scale, s.dtype)
            if mode == 1:
                v[..., ~np.tril(np.ones(v.shape[-2:], bool))] = -np.inf
            elif mode:
                v3 = v.reshape((-1,) + v.shape[-2:])
                v3 = v3 + mask if mode == 2 else np.where(mask, v3, np.asarray(-np.inf, v.dtype))
                v = v3.reshape(s.shape)
            y = softmax_np(v, v.ndim - 1)
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if not P.is_tensor(g) and _kernels.fits(y, g):
            gx = _ksoftmax.softmax_grad(y, g, scale=ctx.scale)
            if gx is not None:
                return gx, None, None, None
        gy = g * y
        return (gy - y * P.sum(gy, axis=-1, keepdims=True)) * ctx.scale, None, None, None


def _fused_mask(scores, attn_mask, is_causal):
    """(mask array, mode) for ScaledMaskedSoftmax, or None where it does not apply (the composed ops run)."""
    if is_causal:
        return (None, 1) if attn_mask is None else None
    if attn_mask is None:
        return None, 0
    m = attn_mask._data
    if attn_mask.requires_grad or m.ndim < 2 or m.ndim > scores.ndim:
        return None
    mode = 3 if m.dtype == np.bool_ else 2
    if mode == 2 and m.dtype != scores._data.dtype:
        return None
    lead, sl = m.shape[:-2], scores.shape[:-2]
    if m.shape[-2:] != scores.shape[-2:]:
        return None
    if all(d == 1 for d in lead):
        return np.ascontiguousarray(m.reshape((1,) + m.shape[-2:])), mode
    if tuple(lead) == tuple(sl):
        return np.ascontiguousarray(m.reshape((-1,) + m.shape[-2:])), mode
    return None


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
    scores = query @ key.transpose(-2, -1)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    fused = _fused_mask(scores, attn_mask, is_causal) if scores.dim() >= 2 and _kernels.fits(scores._data) else None
    if fused is not None:  # the compiled kernel: scale, mask and softmax as one node
        attn = ScaledMaskedSoftmax.apply(scores, float(scale), fused[0], fused[1])
        if dropout_p > 0.0:
            attn = dropout(attn, dropout_p, training=True)
        return attn @ value
    scores = scores * scale
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


def _linear3(inputs, weights, biases):
    return tuple(linear(x, w, b) for x, w, b in zip(inputs, weights, biases))


def _in_projection_packed(q, k, v, w, b):
    # in_proj_weight stacks the q, k and v projections; shared inputs share one matmul.
    if k is v and q is k:
        return linear(q, w, b).chunk(3, -1)
    if k is v:
        E = q.shape[-1]
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        return (linear(q, w_q, b_q),) + tuple(linear(k, w_kv, b_kv).chunk(2, -1))
    return _linear3((q, k, v), w.chunk(3), (None,) * 3 if b is None else b.chunk(3))


def _prepared_masks(attn_mask, key_padding_mask, is_causal, dt):
    # Both masks as additive float biases (or None); the padding mask is checked against attn_mask's dtype.
    other = None if attn_mask is None else attn_mask._data.dtype
    padding = _canonical_mask(key_padding_mask, "key_padding_mask", other, "attn_mask", dt)
    if attn_mask is None:
        if is_causal:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                               "method `generate_square_subsequent_mask` to create this mask.")
        return None, padding
    return _canonical_mask(attn_mask, "attn_mask", None, "", dt, check_other=False), padding


def _as_3d_mask(mask, rows, L, S):
    """attn_mask as (batch * heads, L, S): a 2D mask is shared by every batch row and head."""
    rank = mask.dim()
    want = {2: (L, S), 3: (rows, L, S)}.get(rank)
    if want is None:
        raise RuntimeError(f"attn_mask's dimension {rank} is not supported")
    if tuple(mask.shape) != want:
        raise RuntimeError(f"The shape of the {rank}D attn_mask is {mask.shape}, but should be {want}.")
    return mask if rank == 3 else mask.unsqueeze(0)


def _one_more_key(k, v, k_new, v_new, dim, *masks):
    """Append one key/value position along ``dim``; each mask present gains an attended (0) column for it."""
    return [cat([k, k_new], dim), cat([v, v_new], dim)] + [m if m is None else pad(m, (0, 1)) for m in masks]


def _with_padding(attn_mask, padding, n, heads, s):
    if tuple(padding.shape) != (n, s):
        raise AssertionError(f"expecting key_padding_mask shape of {(n, s)}, but got {padding.shape}")
    per_row = padding.reshape(n, 1, 1, s).expand(-1, heads, -1, -1).reshape(n * heads, 1, s)
    return per_row if attn_mask is None else attn_mask + per_row


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Sequence-first (L, N, E) multi-head attention, as torch.nn.functional.multi_head_attention_forward."""
    rank = query.dim()
    if rank not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {rank}-D query "
                             "tensor")
    batched = rank == 3
    if not batched:  # an unbatched call runs as a batch of one
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    head_dim, left_over = divmod(E, num_heads)
    if left_over:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    dt = query._data.dtype
    attn_mask, padding = _prepared_masks(attn_mask, key_padding_mask, is_causal, dt)
    if use_separate_proj_weight:
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _linear3((query, key, value), (q_proj_weight, k_proj_weight, v_proj_weight), biases)
    else:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    rows = N * num_heads  # attention runs on (batch * heads, positions, head_dim)
    if attn_mask is not None:
        attn_mask = _as_3d_mask(attn_mask, rows, L, key.shape[0])
    if bias_k is not None and bias_v is not None:
        k, v, attn_mask, padding = _one_more_key(k, v, bias_k.repeat(1, N, 1), bias_v.repeat(1, N, 1), 0,
                                                 attn_mask, padding)

    def split_heads(t):
        return t.reshape(t.shape[0], rows, head_dim).transpose(0, 1)
    q = split_heads(q)
    k = split_heads(k) if static_k is None else static_k
    v = split_heads(v) if static_v is None else static_v
    if add_zero_attn:
        nothing = Tensor._wrap(np.zeros((rows, 1, head_dim), dt))
        k, v, attn_mask, padding = _one_more_key(k, v, nothing, nothing, 1, attn_mask, padding)
    S = k.shape[1]
    if padding is not None:
        attn_mask = _with_padding(attn_mask, padding, N, num_heads, S)
    scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
    if attn_mask is not None:
        scores = scores + attn_mask
    w = softmax(scores, -1)
    if training and dropout_p > 0.0:
        w = dropout(w, dropout_p)
    heads_out = (w @ v).transpose(0, 1).reshape(L * N, E)
    out = linear(heads_out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    weights = None
    if need_weights:
        weights = w.reshape(N, num_heads, L, S)
        weights = weights.mean(1) if average_attn_weights else weights
    if batched:
        return out, weights
    return out.squeeze(1), (None if weights is None else weights.squeeze(0))
