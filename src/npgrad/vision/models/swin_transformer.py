"""Swin Transformer (Liu et al., "Swin Transformer: Hierarchical Vision Transformer using Shifted Windows")
T/S/B, and Swin Transformer V2 (Liu et al., "Swin Transformer V2: Scaling Up Capacity and Resolution") T/S/B.

Attention runs inside non-overlapping windows of the channels-last feature map; every other block shifts the
windows by half a window (a cyclic roll, with a mask keeping pixels that were not neighbours apart)."""
import math
from functools import partial
from typing import Optional

import numpy as np

from ... import nn
from ...factories import ones, tensor, zeros
from ...nn import functional as F
from ...ops import cat, roll
from ..ops.misc import MLP, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, handle_weights, register_model
from ._imagenet_weights import _REFS, _imagenet, _load, _num_classes

__all__ = ["SwinTransformer", "Swin_T_Weights", "Swin_S_Weights", "Swin_B_Weights", "Swin_V2_T_Weights",
           "Swin_V2_S_Weights", "Swin_V2_B_Weights", "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s",
           "swin_v2_b"]


def _merge_neighbours(x):
    """(..., H, W, C) -> (..., ceil(H/2), ceil(W/2), 4C): each 2x2 neighbourhood's features side by side
    (odd sizes padded with zeros)."""
    h, w = x.shape[-3], x.shape[-2]
    x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
    return cat([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :], x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]], -1)


class PatchMerging(nn.Module):
    """Halve the resolution, double the width: merge 2x2 neighbours, normalise, project 4C -> 2C."""

    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x):
        return self.reduction(self.norm(_merge_neighbours(x)))


class PatchMergingV2(nn.Module):
    """V2's merging: project first, normalise after (res-post-norm)."""

    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(2 * dim)

    def forward(self, x):
        return self.norm(self.reduction(_merge_neighbours(x)))


def _window_index(window_size):
    """For each pair of positions (i, j) of a window, the row of the bias table for their offset."""
    wh, ww = window_size
    rows, cols = np.meshgrid(np.arange(wh), np.arange(ww), indexing="ij")
    rows, cols = rows.reshape(-1), cols.reshape(-1)
    dr = rows[:, None] - rows[None, :] + (wh - 1)
    dc = cols[:, None] - cols[None, :] + (ww - 1)
    return tensor((dr * (2 * ww - 1) + dc).reshape(-1).astype(np.int64))


def _shift_mask(pad_h, pad_w, window_size, shift_size, dtype):
    """(windows, N, N): -100 between two positions of a shifted window that came from different regions of the
    unrolled map (so were not adjacent), 0 elsewhere."""
    def regions(n, win, shift):
        r = np.zeros(n, dtype=np.int64)
        if shift:  # an axis that is not shifted keeps its pixels' neighbours
            r[n - win:n - shift] = 1
            r[n - shift:] = 2
        return r
    ids = regions(pad_h, window_size[0], shift_size[0])[:, None] * 3 + regions(pad_w, window_size[1], shift_size[1])
    ids = ids.reshape(pad_h // window_size[0], window_size[0], pad_w // window_size[1], window_size[1])
    ids = ids.transpose(0, 2, 1, 3).reshape(-1, window_size[0] * window_size[1])
    mask = np.where(ids[:, None, :] != ids[:, :, None], -100.0, 0.0)
    return tensor(mask, dtype=dtype)


def shifted_window_attention(input, qkv_weight, proj_weight, relative_position_bias, window_size, num_heads,
                             shift_size, attention_dropout=0.0, dropout=0.0, qkv_bias=None, proj_bias=None,
                             logit_scale=None, training=True):
    """Multi-head self-attention within (shifted) windows of a (B, H, W, C) map; the map is padded up to whole
    windows and cropped back. ``logit_scale`` selects V2's scaled cosine attention."""
    b, h, w, c = input.shape
    wh, ww = window_size
    x = F.pad(input, (0, 0, 0, (ww - w % ww) % ww, 0, (wh - h % wh) % wh))
    _, ph, pw, _ = x.shape
    # a window covering the whole (padded) side has nothing to shift to
    shift = [0 if wh >= ph else shift_size[0], 0 if ww >= pw else shift_size[1]]
    shifted = sum(shift) > 0
    if shifted:
        x = roll(x, shifts=(-shift[0], -shift[1]), dims=(1, 2))
    nh, nw = ph // wh, pw // ww
    n = wh * ww
    windows = x.view(b, nh, wh, nw, ww, c).permute(0, 1, 3, 2, 4, 5).reshape(b * nh * nw, n, c)
    if logit_scale is not None and qkv_bias is not None:
        # V2 has no key bias: the middle third of the qkv bias stays zero
        third = qkv_bias.numel() // 3
        qkv_bias = cat([qkv_bias[:third], zeros(third, dtype=qkv_bias.dtype), qkv_bias[2 * third:]])
    qkv = F.linear(windows, qkv_weight, qkv_bias)
    q, k, v = qkv.reshape(windows.size(0), n, 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    if logit_scale is None:
        attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1))
    else:
        attn = F.normalize(q, dim=-1).matmul(F.normalize(k, dim=-1).transpose(-2, -1))
        attn = attn * logit_scale.clamp(max=math.log(100.0)).exp()
    attn = attn + relative_position_bias
    if shifted:
        mask = _shift_mask(ph, pw, window_size, shift, attn.dtype)
        attn = (attn.view(b, nh * nw, num_heads, n, n) + mask.unsqueeze(1)).view(-1, num_heads, n, n)
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    out = attn.matmul(v).transpose(1, 2).reshape(windows.size(0), n, c)
    out = F.dropout(F.linear(out, proj_weight, proj_bias), p=dropout, training=training)
    out = out.view(b, nh, nw, wh, ww, c).permute(0, 1, 3, 2, 4, 5).reshape(b, ph, pw, c)
    if shifted:
        out = roll(out, shifts=(shift[0], shift[1]), dims=(1, 2))
    return out[:, :h, :w, :].contiguous()


class ShiftedWindowAttention(nn.Module):
    """Window attention with a learned bias per relative offset and head."""

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("window_size and shift_size must be of length 2")
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self):
        offsets = (2 * self.window_size[0] - 1) * (2 * self.window_size[1] - 1)
        self.relative_position_bias_table = nn.Parameter(zeros(offsets, self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self):
        self.register_buffer("relative_position_index", _window_index(self.window_size))

    def _bias(self, table):
        n = self.window_size[0] * self.window_size[1]
        return table[self.relative_position_index].view(n, n, -1).permute(2, 0, 1).contiguous().unsqueeze(0)

    def get_relative_position_bias(self):
        return self._bias(self.relative_position_bias_table)

    def forward(self, x):
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(), self.window_size,
            self.num_heads, shift_size=self.shift_size, attention_dropout=self.attention_dropout,
            dropout=self.dropout, qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, training=self.training)


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """V2's window attention: cosine similarity with a learned per-head temperature, and the bias produced by a
    small MLP from log-spaced relative coordinates (so it transfers across window sizes)."""

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__(dim, window_size, shift_size, num_heads, qkv_bias=qkv_bias, proj_bias=proj_bias,
                         attention_dropout=attention_dropout, dropout=dropout)
        self.logit_scale = nn.Parameter((10 * ones(num_heads, 1, 1)).log())
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True),
                                     nn.Linear(512, num_heads, bias=False))
        if qkv_bias:
            third = self.qkv.bias.numel() // 3
            self.qkv.bias.data[third:2 * third] = 0.0

    def define_relative_position_bias_table(self):
        wh, ww = self.window_size
        dh = np.arange(-(wh - 1), wh, dtype=np.float32) / np.float32(wh - 1)
        dw = np.arange(-(ww - 1), ww, dtype=np.float32) / np.float32(ww - 1)
        grid = np.stack(np.meshgrid(dh, dw, indexing="ij"), axis=-1)[None] * np.float32(8)
        table = np.sign(grid) * np.log2(np.abs(grid) + np.float32(1.0)) / np.float32(3.0)
        self.register_buffer("relative_coords_table", tensor(table.astype(np.float32)))

    def get_relative_position_bias(self):
        table = self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads)
        return 16 * self._bias(table).sigmoid()

    def forward(self, x):
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(), self.window_size,
            self.num_heads, shift_size=self.shift_size, attention_dropout=self.attention_dropout,
            dropout=self.dropout, qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, logit_scale=self.logit_scale,
            training=self.training)


class SwinTransformerBlock(nn.Module):
    """Pre-norm window attention and MLP, each a residual through stochastic depth."""

    def __init__(self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0, attention_dropout=0.0,
                 stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm, attn_layer=ShiftedWindowAttention):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, window_size, shift_size, num_heads, attention_dropout=attention_dropout,
                               dropout=dropout)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(dim, [int(dim * mlp_ratio), dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """V2's block: the norms come after attention and MLP (res-post-norm)."""

    def __init__(self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0, attention_dropout=0.0,
                 stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm, attn_layer=ShiftedWindowAttentionV2):
        super().__init__(dim, num_heads, window_size, shift_size, mlp_ratio=mlp_ratio, dropout=dropout,
                         attention_dropout=attention_dropout, stochastic_depth_prob=stochastic_depth_prob,
                         norm_layer=norm_layer, attn_layer=attn_layer)

    def forward(self, x):
        x = x + self.stochastic_depth(self.norm1(self.attn(x)))
        return x + self.stochastic_depth(self.norm2(self.mlp(x)))


class SwinTransformer(nn.Module):
    def __init__(self, patch_size, embed_dim, depths, num_heads, window_size, mlp_ratio=4.0, dropout=0.0,
                 attention_dropout=0.0, stochastic_depth_prob=0.1, num_classes=1000, norm_layer=None, block=None,
                 downsample_layer=PatchMerging):
        super().__init__()
        self.num_classes = num_classes
        block = SwinTransformerBlock if block is None else block
        norm_layer = partial(nn.LayerNorm, eps=1e-5) if norm_layer is None else norm_layer
        layers = [nn.Sequential(
            nn.Conv2d(3, embed_dim, kernel_size=(patch_size[0], patch_size[1]),
                      stride=(patch_size[0], patch_size[1])),
            Permute([0, 2, 3, 1]),
            norm_layer(embed_dim))]
        total = sum(depths)
        index = 0
        for stage, depth in enumerate(depths):
            dim = embed_dim * 2 ** stage
            blocks = []
            for i in range(depth):
                blocks.append(block(
                    dim, num_heads[stage], window_size=window_size,
                    shift_size=[0 if i % 2 == 0 else s // 2 for s in window_size], mlp_ratio=mlp_ratio,
                    dropout=dropout, attention_dropout=attention_dropout,
                    stochastic_depth_prob=stochastic_depth_prob * float(index) / (total - 1), norm_layer=norm_layer))
                index += 1
            layers.append(nn.Sequential(*blocks))
            if stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        width = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(width)
        self.permute = Permute([0, 3, 1, 2])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.permute(self.norm(self.features(x)))
        return self.head(self.flatten(self.avgpool(x)))


def _swin_transformer(patch_size, embed_dim, depths, num_heads, window_size, stochastic_depth_prob, weights,
                      progress, **kwargs):
    _num_classes(weights, kwargs)
    model = SwinTransformer(patch_size=patch_size, embed_dim=embed_dim, depths=depths, num_heads=num_heads,
                            window_size=window_size, stochastic_depth_prob=stochastic_depth_prob, **kwargs)
    return _load(model, weights, progress)


class Swin_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_t-704ceda3.pth", 28288354, (81.474, 95.776), 4.491, 108.19,
                              _REFS + "#swintransformer", crop=224, resize=232, interpolation="bicubic", min_size=(224,
                              224))
    DEFAULT = IMAGENET1K_V1


class Swin_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_s-5e29d889.pth", 49606258, (83.196, 96.36), 8.741, 189.786,
                              _REFS + "#swintransformer", crop=224, resize=246, interpolation="bicubic", min_size=(224,
                              224))
    DEFAULT = IMAGENET1K_V1


class Swin_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_b-68c6b09e.pth", 87768224, (83.582, 96.64), 15.431, 335.364,
                              _REFS + "#swintransformer", crop=224, resize=238, interpolation="bicubic", min_size=(224,
                              224))
    DEFAULT = IMAGENET1K_V1


class Swin_V2_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_v2_t-b137f0e2.pth", 28351570, (82.072, 96.132), 5.94, 108.626,
                              _REFS + "#swintransformer-v2", crop=256, resize=260, interpolation="bicubic",
                              min_size=(256, 256))
    DEFAULT = IMAGENET1K_V1


class Swin_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_v2_s-637d8ceb.pth", 49737442, (83.712, 96.816), 11.546, 190.675,
                              _REFS + "#swintransformer-v2", crop=256, resize=260, interpolation="bicubic",
                              min_size=(256, 256))
    DEFAULT = IMAGENET1K_V1


class Swin_V2_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_v2_b-781e5279.pth", 87930848, (84.112, 96.864), 20.325, 336.372,
                              _REFS + "#swintransformer-v2", crop=256, resize=272, interpolation="bicubic",
                              min_size=(256, 256))
    DEFAULT = IMAGENET1K_V1


@register_model()
def swin_t(*, weights: Optional[Swin_T_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("swin_t", Swin_T_Weights, weights, kwargs)
    return _swin_transformer([4, 4], 96, [2, 2, 6, 2], [3, 6, 12, 24], [7, 7], 0.2, weights, progress, **kwargs)


@register_model()
def swin_s(*, weights: Optional[Swin_S_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("swin_s", Swin_S_Weights, weights, kwargs)
    return _swin_transformer([4, 4], 96, [2, 2, 18, 2], [3, 6, 12, 24], [7, 7], 0.3, weights, progress, **kwargs)


@register_model()
def swin_b(*, weights: Optional[Swin_B_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("swin_b", Swin_B_Weights, weights, kwargs)
    return _swin_transformer([4, 4], 128, [2, 2, 18, 2], [4, 8, 16, 32], [7, 7], 0.5, weights, progress, **kwargs)


@register_model()
def swin_v2_t(*, weights: Optional[Swin_V2_T_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("swin_v2_t", Swin_V2_T_Weights, weights, kwargs)
    return _swin_transformer([4, 4], 96, [2, 2, 6, 2], [3, 6, 12, 24], [8, 8], 0.2, weights, progress,
                             block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2, **kwargs)


@register_model()
def swin_v2_s(*, weights: Optional[Swin_V2_S_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("swin_v2_s", Swin_V2_S_Weights, weights, kwargs)
    return _swin_transformer([4, 4], 96, [2, 2, 18, 2], [3, 6, 12, 24], [8, 8], 0.3, weights, progress,
                             block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2, **kwargs)


@register_model()
def swin_v2_b(*, weights: Optional[Swin_V2_B_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("swin_v2_b", Swin_V2_B_Weights, weights, kwargs)
    return _swin_transformer([4, 4], 128, [2, 2, 18, 2], [4, 8, 16, 32], [8, 8], 0.5, weights, progress,
                             block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2, **kwargs)
