"""ConvNeXt (Liu et al., "A ConvNet for the 2020s"): tiny, small, base and large."""
from functools import partial
from typing import Optional

from ... import nn
from ...factories import ones
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, handle_weights, register_model
from ._imagenet_weights import _REFS, _imagenet, _load, _num_classes

__all__ = ["ConvNeXt", "ConvNeXt_Tiny_Weights", "ConvNeXt_Small_Weights", "ConvNeXt_Base_Weights",
           "ConvNeXt_Large_Weights", "convnext_tiny", "convnext_small", "convnext_base", "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """Layer norm over the channels of an NCHW tensor (each pixel normalised on its own)."""

    def forward(self, x):
        y = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias, self.eps)
        return y.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    """Depthwise 7x7 conv, then (channels-last) layer norm and an inverted MLP; scaled per channel and added
    to the input through stochastic depth."""

    def __init__(self, dim, layer_scale, stochastic_depth_prob, norm_layer=None):
        super().__init__()
        norm_layer = partial(nn.LayerNorm, eps=1e-6) if norm_layer is None else norm_layer
        hidden = 4 * dim
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, 7, padding=3, groups=dim),  # depthwise
            Permute([0, 2, 3, 1]), norm_layer(dim),
            nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim),
            Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input):
        return self.stochastic_depth(self.layer_scale * self.block(input)) + input


class CNBlockConfig:
    """A stage: its width, the width the downsampling after it goes to (None for the last), and its depth."""

    def __init__(self, input_channels, out_channels, num_layers):
        self.input_channels, self.out_channels, self.num_layers = input_channels, out_channels, num_layers

    def __repr__(self):
        return (f"{type(self).__name__}(input_channels={self.input_channels}, out_channels={self.out_channels}, "
                f"num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    def __init__(self, block_setting, stochastic_depth_prob=0.0, layer_scale=1e-6, num_classes=1000, block=None,
                 norm_layer=None, **kwargs):
        super().__init__()
        if not block_setting:
            raise ValueError("The block_setting should not be empty")
        if not (isinstance(block_setting, (list, tuple)) and all(isinstance(s, CNBlockConfig) for s in block_setting)):
            raise TypeError("The block_setting should be List[CNBlockConfig]")
        block = CNBlock if block is None else block
        norm_layer = partial(LayerNorm2d, eps=1e-6) if norm_layer is None else norm_layer
        # the "patchify" stem: non-overlapping 4x4 patches
        layers = [Conv2dNormActivation(3, block_setting[0].input_channels, kernel_size=4, stride=4, padding=0,
                                       norm_layer=norm_layer, activation_layer=None, bias=True)]
        total = sum(s.num_layers for s in block_setting)
        index = 0
        for cnf in block_setting:
            # the drop rate rises linearly from 0 at the first block to stochastic_depth_prob at the last
            rates = [stochastic_depth_prob * i / (total - 1.0) for i in range(index, index + cnf.num_layers)]
            index += cnf.num_layers
            layers.append(nn.Sequential(*(block(cnf.input_channels, layer_scale, p) for p in rates)))
            if cnf.out_channels is not None:  # downsampling between stages
                layers.append(nn.Sequential(norm_layer(cnf.input_channels),
                                            nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        width = last.input_channels if last.out_channels is None else last.out_channels
        self.classifier = nn.Sequential(norm_layer(width), nn.Flatten(1), nn.Linear(width, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)))


def _convnext(block_setting, stochastic_depth_prob, weights, progress, **kwargs):
    _num_classes(weights, kwargs)
    return _load(ConvNeXt(block_setting, stochastic_depth_prob=stochastic_depth_prob, **kwargs), weights, progress)


def _setting(widths, depths):
    return [CNBlockConfig(w, nxt, d) for w, nxt, d in zip(widths, list(widths[1:]) + [None], depths)]


class ConvNeXt_Tiny_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_tiny-983f1562.pth", 28589128, (82.52, 96.146), 4.456, 109.119,
                              _REFS + "#convnext", crop=224, resize=236, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Small_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_small-0c510722.pth", 50223688, (83.616, 96.65), 8.684, 191.703,
                              _REFS + "#convnext", crop=224, resize=230, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Base_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_base-6075fbad.pth", 88591464, (84.062, 96.87), 15.355, 338.064,
                              _REFS + "#convnext", crop=224, resize=232, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Large_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_large-ea097f82.pth", 197767336, (84.414, 96.976), 34.361, 754.537,
                              _REFS + "#convnext", crop=224, resize=232, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


@register_model()
def convnext_tiny(*, weights: Optional[ConvNeXt_Tiny_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("convnext_tiny", ConvNeXt_Tiny_Weights, weights, kwargs)
    setting = _setting((96, 192, 384, 768), (3, 3, 9, 3))
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.1), weights, progress, **kwargs)


@register_model()
def convnext_small(*, weights: Optional[ConvNeXt_Small_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("convnext_small", ConvNeXt_Small_Weights, weights, kwargs)
    setting = _setting((96, 192, 384, 768), (3, 3, 27, 3))
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.4), weights, progress, **kwargs)


@register_model()
def convnext_base(*, weights: Optional[ConvNeXt_Base_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("convnext_base", ConvNeXt_Base_Weights, weights, kwargs)
    setting = _setting((128, 256, 512, 1024), (3, 3, 27, 3))
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.5), weights, progress, **kwargs)


@register_model()
def convnext_large(*, weights: Optional[ConvNeXt_Large_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("convnext_large", ConvNeXt_Large_Weights, weights, kwargs)
    setting = _setting((192, 384, 768, 1536), (3, 3, 27, 3))
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.5), weights, progress, **kwargs)
