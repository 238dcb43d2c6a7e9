"""MaxViT (Tu et al., "MaxViT: Multi-Axis Vision Transformer"): MBConv blocks followed by attention within
local windows and attention across a sparse global grid."""
import math
from collections import OrderedDict
from functools import partial
from typing import Optional

import numpy as np

from ... import nn
from ...factories import empty, tensor
from ...nn import functional as F
from ...ops import swapaxes
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, handle_weights, override_param, register_model
from ._imagenet_weights import _REFS, _imagenet, _load, _num_classes

__all__ = ["MaxVit", "MaxVit_T_Weights", "maxvit_t"]


def _get_conv_output_shape(input_size, kernel_size, stride, padding):
    return tuple((s - kernel_size + 2 * padding) // stride + 1 for s in input_size[:2])


def _make_block_input_shapes(input_size, n_blocks):
    """The feature-map size each block works at: the stem halves the input, then each block halves again."""
    size = _get_conv_output_shape(input_size, 3, 2, 1)
    shapes = []
    for _ in range(n_blocks):
        size = _get_conv_output_shape(size, 3, 2, 1)
        shapes.append(size)
    return shapes


def _get_relative_position_index(height, width):
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    rows, cols = rows.reshape(-1), cols.reshape(-1)
    dr = rows[:, None] - rows[None, :] + (height - 1)
    dc = cols[:, None] - cols[None, :] + (width - 1)
    return tensor((dr * (2 * width - 1) + dc).astype(np.int64))


class MBConv(nn.Module):
    """Pre-norm MBConv with squeeze-and-excitation; the shortcut pools and projects when the shape changes."""

    def __init__(self, in_channels, out_channels, expansion_ratio, squeeze_ratio, stride, activation_layer,
                 norm_layer, p_stochastic_dropout=0.0):
        super().__init__()
        if stride == 1 and in_channels == out_channels:
            self.proj = nn.Identity()
        else:
            pool = [nn.AvgPool2d(kernel_size=3, stride=stride, padding=1)] if stride == 2 else []
            self.proj = nn.Sequential(*pool, nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1))
        mid = int(out_channels * expansion_ratio)
        squeeze = int(out_channels * squeeze_ratio)
        self.stochastic_depth = (StochasticDepth(p_stochastic_dropout, mode="row") if p_stochastic_dropout
                                 else nn.Identity())
        layers = OrderedDict()
        layers["pre_norm"] = norm_layer(in_channels)
        layers["conv_a"] = Conv2dNormActivation(in_channels, mid, kernel_size=1, stride=1, padding=0,
                                                activation_layer=activation_layer, norm_layer=norm_layer,
                                                inplace=None)
        layers["conv_b"] = Conv2dNormActivation(mid, mid, kernel_size=3, stride=stride, padding=1,
                                                activation_layer=activation_layer, norm_layer=norm_layer,
                                                groups=mid, inplace=None)
        layers["squeeze_excitation"] = SqueezeExcitation(mid, squeeze, activation=nn.SiLU)
        layers["conv_c"] = nn.Conv2d(in_channels=mid, out_channels=out_channels, kernel_size=1, bias=True)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.proj(x) + self.stochastic_depth(self.layers(x))


class RelativePositionalMultiHeadAttention(nn.Module):
    """Self-attention over the P tokens of each of G partitions of a (B, G, P, D) input, with a learned bias per
    relative offset and head."""

    def __init__(self, feat_dim, head_dim, max_seq_len):
        super().__init__()
        if feat_dim % head_dim != 0:
            raise ValueError(f"feat_dim: {feat_dim} must be divisible by head_dim: {head_dim}")
        side = int(math.sqrt(max_seq_len))
        self.n_heads, self.head_dim, self.size, self.max_seq_len = feat_dim // head_dim, head_dim, side, max_seq_len
        self.to_qkv = nn.Linear(feat_dim, 3 * feat_dim)
        # torchvision's scale: the model width's, not the head width's
        self.scale_factor = feat_dim ** -0.5
        self.merge = nn.Linear(feat_dim, feat_dim)
        table = empty((2 * side - 1) ** 2, feat_dim // head_dim)
        self.relative_position_bias_table = nn.Parameter(nn.init.trunc_normal_(table, std=0.02))
        self.register_buffer("relative_position_index", _get_relative_position_index(side, side))

    def get_relative_positional_bias(self):
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
        bias = bias.view(self.max_seq_len, self.max_seq_len, -1).permute(2, 0, 1).contiguous()
        return bias.unsqueeze(0)

    def forward(self, x):
        b, g, p, d = x.shape
        heads = [t.reshape(b, g, p, self.n_heads, self.head_dim).permute(0, 1, 3, 2, 4)
                 for t in self.to_qkv(x).chunk(3, dim=-1)]
        q, k, v = heads
        scores = q.matmul((k * self.scale_factor).transpose(-2, -1))
        weights = F.softmax(scores + self.get_relative_positional_bias(), dim=-1)
        out = weights.matmul(v).permute(0, 1, 3, 2, 4).reshape(b, g, p, d)
        return self.merge(out)


class SwapAxes(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x):
        return swapaxes(x, self.a, self.b)


class WindowPartition(nn.Module):
    """(B, C, H, W) -> (B, H/p * W/p, p*p, C): the p x p windows, each a sequence of tokens."""

    def __init__(self):
        super().__init__()

    def forward(self, x, p):
        b, c, h, w = x.shape
        x = x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (h // p) * (w // p), p * p, c)


class WindowDepartition(nn.Module):
    """The inverse of WindowPartition, given the number of windows along each side."""

    def __init__(self):
        super().__init__()

    def forward(self, x, p, h_partitions, w_partitions):
        b, g, pp, c = x.shape
        x = x.reshape(b, h_partitions, w_partitions, p, p, c).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, c, h_partitions * p, w_partitions * p)


class PartitionAttentionLayer(nn.Module):
    """Attention and MLP over partitions of the map: "window" attends within p x p windows; "grid" within the
    sets of pixels a fixed stride apart (a dilated, global pattern), made by swapping the partition axes."""

    def __init__(self, in_channels, head_dim, partition_size, partition_type, grid_size, mlp_ratio,
                 activation_layer, norm_layer, attention_dropout, mlp_dropout, p_stochastic_dropout):
        super().__init__()
        if partition_type not in ("grid", "window"):
            raise ValueError("partition_type must be either 'grid' or 'window'")
        count = grid_size[0] // partition_size
        self.n_heads, self.head_dim, self.n_partitions = in_channels // head_dim, head_dim, count
        self.partition_type, self.grid_size = partition_type, grid_size
        # p: the side of the blocks the map is cut into; a grid's blocks are the windows' count, transposed
        grid = partition_type == "grid"
        self.p, self.g = (count, partition_size) if grid else (partition_size, count)
        self.partition_op, self.departition_op = WindowPartition(), WindowDepartition()
        self.partition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.departition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        attention = RelativePositionalMultiHeadAttention(in_channels, head_dim, partition_size ** 2)
        self.attn_layer = nn.Sequential(norm_layer(in_channels), attention, nn.Dropout(attention_dropout))
        hidden = in_channels * mlp_ratio
        self.mlp_layer = nn.Sequential(nn.LayerNorm(in_channels), nn.Linear(in_channels, hidden), activation_layer(),
                                       nn.Linear(hidden, in_channels), nn.Dropout(mlp_dropout))
        self.stochastic_dropout = StochasticDepth(p_stochastic_dropout, mode="row")

    def forward(self, x):
        p = self.p
        (gh, rh), (gw, rw) = divmod(self.grid_size[0], p), divmod(self.grid_size[1], p)
        if rh or rw:
            raise AssertionError(f"Grid size must be divisible by partition size. Got grid size of {self.grid_size} "
                                 f"and partition size of {p}")
        x = self.partition_swap(self.partition_op(x, p))
        for sublayer in (self.attn_layer, self.mlp_layer):
            x = x + self.stochastic_dropout(sublayer(x))
        return self.departition_op(self.departition_swap(x), p, gh, gw)


class MaxVitLayer(nn.Module):
    """MBConv, then window attention, then grid attention."""

    def __init__(self, in_channels, out_channels, squeeze_ratio, expansion_ratio, stride, norm_layer,
                 activation_layer, head_dim, mlp_ratio, mlp_dropout, attention_dropout, p_stochastic_dropout,
                 partition_size, grid_size):
        super().__init__()
        attention = partial(PartitionAttentionLayer, in_channels=out_channels, head_dim=head_dim,
                            partition_size=partition_size, grid_size=grid_size, mlp_ratio=mlp_ratio,
                            activation_layer=activation_layer, norm_layer=nn.LayerNorm,
                            attention_dropout=attention_dropout, mlp_dropout=mlp_dropout,
                            p_stochastic_dropout=p_stochastic_dropout)
        layers = OrderedDict()
        layers["MBconv"] = MBConv(in_channels, out_channels, expansion_ratio, squeeze_ratio, stride,
                                  activation_layer, norm_layer, p_stochastic_dropout=p_stochastic_dropout)
        layers["window_attention"] = attention(partition_type="window")
        layers["grid_attention"] = attention(partition_type="grid")
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.layers(x)


class MaxVitBlock(nn.Module):
    """A stage of MaxVitLayers, the first halving the resolution."""

    def __init__(self, in_channels, out_channels, squeeze_ratio, expansion_ratio, norm_layer, activation_layer,
                 head_dim, mlp_ratio, mlp_dropout, attention_dropout, partition_size, input_grid_size, n_layers,
                 p_stochastic):
        super().__init__()
        if len(p_stochastic) != n_layers:
            raise AssertionError(f"p_stochastic must have length n_layers={n_layers}, got p_stochastic={p_stochastic}.")
        self.layers = nn.ModuleList()
        # the first layer's stride-2 MBConv halves the map
        self.grid_size = _get_conv_output_shape(input_grid_size, 3, 2, 1)
        for i, p in enumerate(p_stochastic):
            self.layers.append(MaxVitLayer(
                in_channels=in_channels if i == 0 else out_channels, out_channels=out_channels,
                squeeze_ratio=squeeze_ratio, expansion_ratio=expansion_ratio, stride=2 if i == 0 else 1,
                norm_layer=norm_layer, activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout, p_stochastic_dropout=p,
                partition_size=partition_size, grid_size=self.grid_size))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MaxVit(nn.Module):
    def __init__(self, input_size, stem_channels, partition_size, block_channels, block_layers, head_dim,
                 stochastic_depth_prob, norm_layer=None, activation_layer=nn.GELU, squeeze_ratio=0.25,
                 expansion_ratio=4, mlp_ratio=4, mlp_dropout=0.0, attention_dropout=0.0, num_classes=1000):
        super().__init__()
        norm_layer = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01) if norm_layer is None else norm_layer
        sizes = _make_block_input_shapes(input_size, len(block_channels))
        for i, size in enumerate(sizes):
            if size[0] % partition_size != 0 or size[1] % partition_size != 0:
                raise ValueError(
                    f"Input size {size} of block {i} is not divisible by partition size {partition_size}. "
                    f"Consider changing the partition size or the input size.\n"
                    f"Current configuration yields the following block input sizes: {sizes}.")
        self.stem = nn.Sequential(
            Conv2dNormActivation(3, stem_channels, 3, stride=2, norm_layer=norm_layer,
                                 activation_layer=activation_layer, bias=False, inplace=None),
            Conv2dNormActivation(stem_channels, stem_channels, 3, stride=1, norm_layer=None, activation_layer=None,
                                 bias=True))
        grid = _get_conv_output_shape(input_size, kernel_size=3, stride=2, padding=1)
        self.partition_size = partition_size
        self.blocks = nn.ModuleList()
        # the drop rate rises linearly over all layers of all blocks
        rates = np.linspace(0, stochastic_depth_prob, sum(block_layers)).tolist()
        start = 0
        for cin, cout, n in zip([stem_channels] + list(block_channels[:-1]), block_channels, block_layers):
            self.blocks.append(MaxVitBlock(
                in_channels=cin, out_channels=cout, squeeze_ratio=squeeze_ratio, expansion_ratio=expansion_ratio,
                norm_layer=norm_layer, activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout, partition_size=partition_size,
                input_grid_size=grid, n_layers=n, p_stochastic=rates[start:start + n]))
            grid = self.blocks[-1].grid_size
            start += n
        width = block_channels[-1]
        self.classifier = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(width),
                                        nn.Linear(width, width), nn.Tanh(), nn.Linear(width, num_classes, bias=False))
        self._init_weights()

    def _init_weights(self):
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)


def _maxvit(stem_channels, block_channels, block_layers, stochastic_depth_prob, partition_size, head_dim, weights,
            progress, **kwargs):
    if weights is not None:
        _num_classes(weights, kwargs)
        if weights.meta["min_size"][0] != weights.meta["min_size"][1]:
            raise AssertionError(f"Only square input sizes are supported, but got {weights.meta['min_size']}")
        override_param(kwargs, "input_size", weights.meta["min_size"])
    input_size = kwargs.pop("input_size", (224, 224))
    model = MaxVit(stem_channels=stem_channels, block_channels=block_channels, block_layers=block_layers,
                   stochastic_depth_prob=stochastic_depth_prob, head_dim=head_dim, partition_size=partition_size,
                   input_size=input_size, **kwargs)
    return _load(model, weights, progress)


class MaxVit_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("maxvit_t-bc5ab103.pth", 30919624, (83.7, 96.722), 5.558, 118.769, _REFS + "#maxvit",
                              crop=224, resize=224, interpolation="bicubic", min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1




@register_model()
def maxvit_t(*, weights: Optional[MaxVit_T_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("maxvit_t", MaxVit_T_Weights, weights, kwargs)
    return _maxvit(stem_channels=64, block_channels=[64, 128, 256, 512], block_layers=[2, 2, 5, 2], head_dim=32,
                   stochastic_depth_prob=0.2, partition_size=7, weights=weights, progress=progress, **kwargs)
