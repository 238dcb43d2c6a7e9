"""Vision Transformer (Dosovitskiy et al., "An Image is Worth 16x16 Words"): B/16, B/32, L/16, L/32, H/14.

The image is cut into patches by a strided convolution, a class token is prepended, learned position
embeddings (``encoder.pos_embedding``) are added, and the class token's final state feeds the head."""
import math
from collections import OrderedDict
from functools import partial
from typing import NamedTuple, Optional

from ... import nn
from ...factories import empty, zeros
from ...nn import functional as F
from ...ops import cat
from ..ops.misc import MLP, Conv2dNormActivation
from ._api import WeightsEnum, handle_weights, override_param, register_model
from ._imagenet_weights import _REFS, _SWAG_LICENSE, _VISION, _imagenet, _load, _num_classes

__all__ = ["VisionTransformer", "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights", "ViT_L_32_Weights",
           "ViT_H_14_Weights", "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]

_SWAG = "https://github.com/facebookresearch/SWAG"


class ConvStemConfig(NamedTuple):
    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: type = nn.BatchNorm2d
    activation_layer: type = nn.ReLU


class MLPBlock(MLP):
    """The transformer's feed-forward part: Linear, GELU, dropout, Linear, dropout."""

    # version 1 named the two linears linear_1 and linear_2
    _version = 2

    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        if (local_metadata.get("version") or 1) < 2:
            for old, new in (("linear_1", "0"), ("linear_2", "3")):
                for kind in ("weight", "bias"):
                    key = f"{prefix}{old}.{kind}"
                    if key in state_dict:
                        state_dict[f"{prefix}{new}.{kind}"] = state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


def _check_tokens(x):
    if x.dim() != 3:
        raise AssertionError(f"Expected (batch_size, seq_length, hidden_dim) got {tuple(x.shape)}")


class EncoderBlock(nn.Module):
    """Pre-norm self-attention and MLP, each with a residual connection."""

    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1, self.self_attention = norm_layer(hidden_dim), nn.MultiheadAttention(
            hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(p=dropout)
        self.ln_2, self.mlp = norm_layer(hidden_dim), MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        _check_tokens(input)
        h = self.ln_1(input)
        h, _ = self.self_attention(h, h, h, need_weights=False)
        x = self.dropout(h) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        # learned 1-D position embeddings, one per token (the class token's included)
        self.pos_embedding = nn.Parameter(empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(p=dropout)
        self.layers = nn.Sequential(OrderedDict(
            (f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                                                norm_layer))
            for i in range(num_layers)))
        self.ln = norm_layer(hidden_dim)  # the final norm, after the last block

    def forward(self, input):
        _check_tokens(input)
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, dropout=0.0,
                 attention_dropout=0.0, num_classes=1000, representation_size=None,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6), conv_stem_configs=None):
        super().__init__()
        if image_size % patch_size != 0:
            raise AssertionError("Input shape indivisible by patch size!")
        self.image_size, self.patch_size, self.hidden_dim, self.mlp_dim = image_size, patch_size, hidden_dim, mlp_dim
        self.dropout, self.attention_dropout = dropout, attention_dropout
        self.num_classes, self.representation_size, self.norm_layer = num_classes, representation_size, norm_layer
        if conv_stem_configs is None:
            self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        else:
            # a small convolutional stem in place of the patchifying conv (Xiao et al., "Early Convolutions
            # Help Transformers See Better")
            stem = nn.Sequential()
            channels = 3
            for i, cfg in enumerate(conv_stem_configs):
                stem.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                    in_channels=channels, out_channels=cfg.out_channels, kernel_size=cfg.kernel_size,
                    stride=cfg.stride, norm_layer=cfg.norm_layer, activation_layer=cfg.activation_layer))
                channels = cfg.out_channels
            stem.add_module("conv_last", nn.Conv2d(channels, hidden_dim, kernel_size=1))
            self.conv_proj = stem
        self.class_token = nn.Parameter(zeros(1, 1, hidden_dim))
        self.seq_length = (image_size // patch_size) ** 2 + 1
        self.encoder = Encoder(self.seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, norm_layer)
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)

        self._init_parameters()

    def _init_parameters(self):
        proj = self.conv_proj
        if isinstance(proj, nn.Conv2d):
            # LeCun-normal (truncated) over the patch's fan-in
            nn.init.trunc_normal_(proj.weight, std=(proj.in_channels * math.prod(proj.kernel_size)) ** -0.5)
            nn.init.zeros_(proj.bias)
        elif isinstance(getattr(proj, "conv_last", None), nn.Conv2d):
            nn.init.normal_(proj.conv_last.weight, mean=0.0, std=(2.0 / proj.conv_last.out_channels) ** 0.5)
            nn.init.zeros_(proj.conv_last.bias)
        pre = getattr(self.heads, "pre_logits", None)
        if isinstance(pre, nn.Linear):
            nn.init.trunc_normal_(pre.weight, std=pre.in_features ** -0.5)
            nn.init.zeros_(pre.bias)
        head = self.heads.head
        if isinstance(head, nn.Linear):
            # a zero head: fine-tuning starts from uniform predictions
            for t in (head.weight, head.bias):
                nn.init.zeros_(t)

    def _process_input(self, x):
        n, c, h, w = x.shape
        if h != self.image_size:
            raise AssertionError(f"Wrong image height! Expected {self.image_size} but got {h}!")
        if w != self.image_size:
            raise AssertionError(f"Wrong image width! Expected {self.image_size} but got {w}!")
        patches = (h // self.patch_size) * (w // self.patch_size)
        # (n, hidden, h/p, w/p) -> (n, patches, hidden)
        return self.conv_proj(x).reshape(n, self.hidden_dim, patches).permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        tokens = cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1)
        return self.heads(self.encoder(tokens)[:, 0])


def _vision_transformer(patch_size, num_layers, num_heads, hidden_dim, mlp_dim, weights, progress, **kwargs):
    if weights is not None:
        _num_classes(weights, kwargs)
        side, other = weights.meta["min_size"]
        if side != other:
            raise AssertionError("a ViT checkpoint's images are square")
        override_param(kwargs, "image_size", side)
    model = VisionTransformer(image_size=kwargs.pop("image_size", 224), patch_size=patch_size, num_layers=num_layers,
                              num_heads=num_heads, hidden_dim=hidden_dim, mlp_dim=mlp_dim, **kwargs)
    return _load(model, weights, progress)


def interpolate_embeddings(image_size, patch_size, model_state, interpolation_mode="bicubic", reset_heads=False):
    """A checkpoint's position embeddings resampled for another image size (the patch grid interpolated,
    the class token's kept); ``reset_heads`` drops the classifier's weights."""
    pos = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos.shape}")
    side = image_size // patch_size
    if side * side + 1 != seq_length:
        old = int(math.sqrt(seq_length - 1))
        if old * old != seq_length - 1:
            raise ValueError(f"seq_length is not a perfect square! Instead got seq_length_1d * seq_length_1d = "
                             f"{old * old } and seq_length = {seq_length}")
        grid = pos[:, 1:, :].permute(0, 2, 1).reshape(1, hidden_dim, old, old)
        grid = F.interpolate(grid, size=side, mode=interpolation_mode, align_corners=True)
        grid = grid.reshape(1, hidden_dim, side * side).permute(0, 2, 1)
        model_state["encoder.pos_embedding"] = cat([pos[:, :1, :], grid], dim=1)
        if reset_heads:
            model_state = OrderedDict((k, v) for k, v in model_state.items() if not k.startswith("heads"))
    return model_state


class ViT_B_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_b_16-c867db91.pth", 86567656, (81.072, 95.318), 17.564, 330.285, _REFS + "#vit_b_16",
                              crop=224, min_size=(224, 224))
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("vit_b_16_swag-9ac1b537.pth", 86859496, (85.304, 97.65), 55.484, 331.398,
                                       _SWAG, crop=384, resize=384,
                                       interpolation="bicubic", min_size=(384, 384), license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("vit_b_16_lc_swag-4e70ced5.pth", 86567656, (81.886, 96.18), 17.564, 330.285,
                                          _VISION + "pull/5793", crop=224, resize=224, interpolation="bicubic",
                                          min_size=(224, 224), license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V1


class ViT_B_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_b_32-d86f8d99.pth", 88224232, (75.912, 92.466), 4.409, 336.604, _REFS + "#vit_b_32",
                              crop=224, min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


class ViT_L_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_l_16-852ce7e3.pth", 304326632, (79.662, 94.638), 61.555, 1161.023,
                              _REFS + "#vit_l_16", crop=224, resize=242, min_size=(224, 224))
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("vit_l_16_swag-4f3808c9.pth", 305174504, (88.064, 98.512), 361.986, 1164.258,
                                       _SWAG, crop=512, resize=512,
                                       interpolation="bicubic", min_size=(512, 512), license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("vit_l_16_lc_swag-4d563306.pth", 304326632, (85.146, 97.422), 61.555,
                                          1161.023, _VISION + "pull/5793", crop=224, resize=224,
                                          interpolation="bicubic", min_size=(224, 224), license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V1


class ViT_L_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_l_32-c7638314.pth", 306535400, (76.972, 93.07), 15.378, 1169.449,
                              _REFS + "#vit_l_32", crop=224, min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


class ViT_H_14_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("vit_h_14_swag-80465313.pth", 633470440, (88.552, 98.694), 1016.717, 2416.643,
                                       _SWAG, crop=518, resize=518,
                                       interpolation="bicubic", min_size=(518, 518), license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("vit_h_14_lc_swag-c1eb923e.pth", 632045800, (85.708, 97.73), 167.295,
                                          2411.209, _VISION + "pull/5793", crop=224, resize=224,
                                          interpolation="bicubic", min_size=(224, 224), license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


@register_model()
def vit_b_16(*, weights: Optional[ViT_B_16_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("vit_b_16", ViT_B_16_Weights, weights, kwargs)
    return _vision_transformer(16, 12, 12, 768, 3072, weights, progress, **kwargs)


@register_model()
def vit_b_32(*, weights: Optional[ViT_B_32_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("vit_b_32", ViT_B_32_Weights, weights, kwargs)
    return _vision_transformer(32, 12, 12, 768, 3072, weights, progress, **kwargs)


@register_model()
def vit_l_16(*, weights: Optional[ViT_L_16_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("vit_l_16", ViT_L_16_Weights, weights, kwargs)
    return _vision_transformer(16, 24, 16, 1024, 4096, weights, progress, **kwargs)


@register_model()
def vit_l_32(*, weights: Optional[ViT_L_32_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("vit_l_32", ViT_L_32_Weights, weights, kwargs)
    return _vision_transformer(32, 24, 16, 1024, 4096, weights, progress, **kwargs)


@register_model()
def vit_h_14(*, weights: Optional[ViT_H_14_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("vit_h_14", ViT_H_14_Weights, weights, kwargs)
    return _vision_transformer(14, 32, 16, 1280, 5120, weights, progress, **kwargs)
