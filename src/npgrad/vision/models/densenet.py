"""DenseNet (Huang et al., "Densely Connected Convolutional Networks"): every layer of a block reads the
concatenation of all earlier outputs. torchvision's module tree and state_dict keys; its published checkpoints
use an older spelling of the layer keys ("norm.1"), rewritten on load."""
import re
from collections import OrderedDict
from typing import Optional

from ... import nn
from ...nn import functional as F
from ...ops import cat, flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model

__all__ = ["DenseNet", "DenseNet121_Weights", "DenseNet161_Weights", "DenseNet169_Weights", "DenseNet201_Weights",
           "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv to ``bn_size * growth_rate`` channels, then BN-ReLU-3x3 conv to ``growth_rate``."""

    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, memory_efficient=False):
        super().__init__()
        inner = bn_size * growth_rate
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, inner, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(inner)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(inner, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs):
        return self.conv1(self.relu1(self.norm1(cat(inputs, 1))))

    def forward(self, input):
        inputs = list(input) if isinstance(input, (list, tuple)) else [input]
        if self.memory_efficient and self.training and any(t.requires_grad for t in inputs):
            # recompute the concatenation and bottleneck in backward instead of keeping them
            from ...utils.checkpoint import checkpoint
            bottleneck = checkpoint(lambda *xs: self.bn_function(list(xs)), *inputs, use_reentrant=False)
        else:
            bottleneck = self.bn_function(inputs)
        out = self.conv2(self.relu2(self.norm2(bottleneck)))
        if self.drop_rate > 0:
            out = F.dropout(out, p=self.drop_rate, training=self.training)
        return out


class _DenseBlock(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, memory_efficient=False):
        super().__init__()
        for i in range(num_layers):
            self.add_module(f"denselayer{i + 1}", _DenseLayer(num_input_features + i * growth_rate, growth_rate,
                                                              bn_size, drop_rate, memory_efficient))

    def forward(self, init_features):
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return cat(features, 1)


class _Transition(nn.Sequential):
    """Between blocks: BN-ReLU-1x1 conv (halving the channels in DenseNet) and a 2x2 average pool."""

    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    def __init__(self, growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64, bn_size=4, drop_rate=0,
                 num_classes=1000, memory_efficient=False):
        super().__init__()
        stem = [("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False)),
                ("norm0", nn.BatchNorm2d(num_init_features)), ("relu0", nn.ReLU(inplace=True)),
                ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1))]
        self.features = nn.Sequential(OrderedDict(stem))
        channels = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module(f"denseblock{i + 1}", _DenseBlock(
                num_layers, channels, bn_size=bn_size, growth_rate=growth_rate, drop_rate=drop_rate,
                memory_efficient=memory_efficient))
            channels += num_layers * growth_rate
            if i + 1 < len(block_config):
                self.features.add_module(f"transition{i + 1}", _Transition(channels, channels // 2))
                channels //= 2
        self.features.add_module("norm5", nn.BatchNorm2d(channels))
        self.classifier = nn.Linear(channels, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = F.relu(self.features(x), inplace=True)
        return self.classifier(flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1))


# "features.denseblock1.denselayer1.norm.1.weight" (the LuaTorch port's keys) -> "...denselayer1.norm1.weight"
_OLD_KEY = re.compile(r"^(.*denselayer\d+\.(?:norm|relu|conv))\.([12])\.(weight|bias|running_mean|running_var)$")


def _rename_old_keys(state):
    for key in list(state):
        m = _OLD_KEY.match(key)
        if m:
            state[f"{m.group(1)}{m.group(2)}.{m.group(3)}"] = state.pop(key)


def _densenet(growth_rate, block_config, num_init_features, weights, progress, **kwargs):
    if weights is not None:
        override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    if weights is not None:
        load_weights(model, weights, progress, remap=_rename_old_keys)
    return model


def _w(file, params, acc1, acc5, ops, size):
    return imagenet_weights(file, num_params=params, min_size=(29, 29), recipe="https://github.com/pytorch/vision/pull/116",
                            acc1=acc1, acc5=acc5, ops=ops, file_size=size, docs="These weights are ported from LuaTorch.",
                            crop_size=224)


class DenseNet121_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet121-a639ec97.pth", 7978856, 74.434, 91.972, 2.834, 30.845)
    DEFAULT = IMAGENET1K_V1


class DenseNet161_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet161-8d451a50.pth", 28681000, 77.138, 93.56, 7.728, 110.369)
    DEFAULT = IMAGENET1K_V1


class DenseNet169_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet169-b2777c0a.pth", 14149480, 75.6, 92.806, 3.36, 54.708)
    DEFAULT = IMAGENET1K_V1


class DenseNet201_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet201-c1103571.pth", 20013928, 76.896, 93.37, 4.291, 77.373)
    DEFAULT = IMAGENET1K_V1


def _build(name, arch, enum, weights, progress, kwargs):
    weights = handle_weights(name, enum, weights, kwargs, default_weights=enum.IMAGENET1K_V1)
    return _densenet(*arch, weights, progress, **kwargs)


@register_model()
def densenet121(*, weights: Optional[DenseNet121_Weights] = None, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-121: growth 32, blocks of 6/12/24/16 layers."""
    return _build("densenet121", (32, (6, 12, 24, 16), 64), DenseNet121_Weights, weights, progress, kwargs)


@register_model()
def densenet161(*, weights: Optional[DenseNet161_Weights] = None, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-161: growth 48, blocks of 6/12/36/24 layers, a 96-channel stem."""
    return _build("densenet161", (48, (6, 12, 36, 24), 96), DenseNet161_Weights, weights, progress, kwargs)


@register_model()
def densenet169(*, weights: Optional[DenseNet169_Weights] = None, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-169: growth 32, blocks of 6/12/32/32 layers."""
    return _build("densenet169", (32, (6, 12, 32, 32), 64), DenseNet169_Weights, weights, progress, kwargs)


@register_model()
def densenet201(*, weights: Optional[DenseNet201_Weights] = None, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-201: growth 32, blocks of 6/12/48/32 layers."""
    return _build("densenet201", (32, (6, 12, 48, 32), 64), DenseNet201_Weights, weights, progress, kwargs)
