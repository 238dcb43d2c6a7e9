"""TransformerEncoderLayer / TransformerEncoder and TransformerDecoderLayer / TransformerDecoder, with
PyTorch's sub-module names (so state_dicts match) and its norm_first / batch_first / activation options."""
import copy

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from .. import functional as F
from .activation import MultiheadAttention, ReLU, GELU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
           "Transformer"]


_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _get_activation_fn(activation):
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    dt = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
    return Tensor._wrap(np.triu(np.full((sz, sz), -np.inf, dt.np), k=1))


class _Layer(Module):
    """What the encoder and decoder layers share: attention blocks, then a feed-forward block, each with dropout
    and a residual connection around it, and a LayerNorm before (norm_first) or after the sum.

    Sub-modules are built (and so registered, and initialised from the random stream) in PyTorch's order:
    the attentions, linear1, dropout, linear2, one norm per block, one dropout per block."""

    __constants__ = ["norm_first"]
    _attentions = ()  # the attention sub-modules' names, one block each

    def _build(self, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first,
               norm_first, bias, device, dtype):
        kw = dict(device=device, dtype=dtype)
        for name in self._attentions:
            setattr(self, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                   batch_first=batch_first, **kw))
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        blocks = range(1, len(self._attentions) + 2)
        for k in blocks:
            setattr(self, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for k in blocks:
            setattr(self, f"dropout{k}", Dropout(dropout))

    def _residuals(self, x, blocks):
        # blocks: (its norm, the block) in order; pre-norm adds block(norm(x)), post-norm normalises x + block(x)
        for norm, block in blocks:
            x = x + block(norm(x)) if self.norm_first else norm(x + block(x))
        return x

    def _attend(self, attention, dropout, x, memory, attn_mask, key_padding_mask, is_causal):
        out = attention(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                        need_weights=False, is_causal=is_causal)[0]
        return dropout(out)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        return self._attend(self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal)

    def _ff_block(self, x):
        last_dropout = getattr(self, f"dropout{len(self._attentions) + 1}")
        return last_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_Layer):
    """Self-attention then a feed-forward block, each with dropout, a residual and LayerNorm."""

    _attentions = ("self_attn",)

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first,
                    norm_first, bias, device, dtype)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # PyTorch's marker for its fast path: 1 for ReLU, 2 for GELU, 0 for anything else.
        kinds = ((1, F.relu, ReLU), (2, F.gelu, GELU))
        self.activation_relu_or_gelu = next((k for k, fn, cls in kinds
                                             if activation is fn or isinstance(activation, cls)), 0)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        return self._residuals(src, [
            (self.norm1, lambda x: self._sa_block(x, src_mask, src_key_padding_mask, is_causal)),
            (self.norm2, self._ff_block)])


class TransformerDecoderLayer(_Layer):
    _attentions = ("self_attn", "multihead_attn")

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, layer_norm_eps,
                    batch_first, norm_first, bias, device, dtype)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        return self._residuals(tgt, [
            (self.norm1, lambda x: self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal)),
            (self.norm2, lambda x: self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                                   memory_is_causal)),
            (self.norm3, self._ff_block)])

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        return self._attend(self.multihead_attn, self.dropout2, x, mem, attn_mask, key_padding_mask, is_causal)


class _Stack(Module):
    """``num_layers`` deep copies of a layer, run in turn, then an optional final norm."""

    __constants__ = ["norm"]

    def __init__(self, layer, num_layers, norm):
        super().__init__()
        self.layers = _get_clones(layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def _run(self, x, *args, **kwargs):
        for layer in self.layers:
            x = layer(x, *args, **kwargs)
        return x if self.norm is None else self.norm(x)


class TransformerEncoder(_Stack):
    """``num_layers`` deep copies of an encoder layer, then an optional final norm."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__(encoder_layer, num_layers, norm)
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = False  # npgrad has no nested tensors
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        return self._run(src, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)


class TransformerDecoder(_Stack):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__(decoder_layer, num_layers, norm)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        return self._run(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        # The encoder is built (and draws its initial weights) before the decoder, as in PyTorch.
        for name, custom, layer_cls, stack_cls, depth in (
                ("encoder", custom_encoder, TransformerEncoderLayer, TransformerEncoder, num_encoder_layers),
                ("decoder", custom_decoder, TransformerDecoderLayer, TransformerDecoder, num_decoder_layers)):
            if custom is None:
                custom = stack_cls(layer_cls(*layer_args, **kw), depth, LayerNorm(d_model, eps=layer_norm_eps,
                                                                                    bias=bias, **kw))
            setattr(self, name, custom)
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def _reset_parameters(self):
        from .. import init
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        return _generate_square_subsequent_mask(sz, device, dtype)
