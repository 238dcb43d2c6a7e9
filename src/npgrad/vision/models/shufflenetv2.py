"""ShuffleNetV2 (Ma et al., "ShuffleNet V2: Practical Guidelines for Efficient CNN Architecture Design")."""
from typing import Optional

from ... import nn
from ...ops import cat
from ._api import WeightsEnum, handle_weights, register_model
from ._imagenet_weights import _VISION, _imagenet, _load, _num_classes

__all__ = ["ShuffleNetV2", "ShuffleNet_V2_X0_5_Weights", "ShuffleNet_V2_X1_0_Weights", "ShuffleNet_V2_X1_5_Weights",
           "ShuffleNet_V2_X2_0_Weights", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
           "shufflenet_v2_x2_0"]


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` equal groups, so the next block's halves mix both branches."""
    n, c, h, w = x.size()
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).contiguous().view(n, -1, h, w)


def _depthwise(channels, stride):
    return nn.Conv2d(channels, channels, 3, stride, 1, bias=False, groups=channels)


def _pointwise(cin, cout):
    return [nn.Conv2d(cin, cout, 1, 1, 0, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class InvertedResidual(nn.Module):
    """At stride 1 half the channels pass through and the other half is transformed; at stride 2 both halves
    are computed from the whole input (the left branch downsampling it), doubling the width."""

    def __init__(self, inp, oup, stride):
        super().__init__()
        if not 1 <= stride <= 3:
            raise ValueError("illegal stride value")
        self.stride = stride
        half = oup // 2
        if stride == 1 and inp != half << 1:
            raise ValueError(f"Invalid combination of stride {stride}, inp {inp} and oup {oup} values. If stride == 1 "
                             "then inp should be equal to oup // 2 << 1.")
        if stride > 1:
            self.branch1 = nn.Sequential(_depthwise(inp, stride), nn.BatchNorm2d(inp), *_pointwise(inp, half))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(*_pointwise(inp if stride > 1 else half, half), _depthwise(half, stride),
                                     nn.BatchNorm2d(half), *_pointwise(half, half))

    def forward(self, x):
        if self.stride == 1:
            kept, x = x.chunk(2, dim=1)
            out = cat((kept, self.branch2(x)), 1)
        else:
            out = cat((self.branch1(x), self.branch2(x)), 1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, stages_repeats, stages_out_channels, num_classes=1000, inverted_residual=InvertedResidual):
        super().__init__()
        if len(stages_repeats) != 3:
            raise ValueError("expected stages_repeats as list of 3 positive ints")
        if len(stages_out_channels) != 5:
            raise ValueError("expected stages_out_channels as list of 5 positive ints")
        self._stage_out_channels = stages_out_channels
        width = stages_out_channels[0]
        self.conv1 = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width),
                                   nn.ReLU(inplace=True))
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for i, (repeats, out) in enumerate(zip(stages_repeats, stages_out_channels[1:4]), start=2):
            blocks = [inverted_residual(width, out, 2)] + [inverted_residual(out, out, 1) for _ in range(repeats - 1)]
            setattr(self, f"stage{i}", nn.Sequential(*blocks))
            width = out
        last = stages_out_channels[-1]
        self.conv5 = nn.Sequential(*_pointwise(width, last))
        self.fc = nn.Linear(last, num_classes)

    def _forward_impl(self, x):
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(x.mean([2, 3]))

    def forward(self, x):
        return self._forward_impl(x)


def _shufflenetv2(weights, progress, *args, **kwargs):
    _num_classes(weights, kwargs)
    return _load(ShuffleNetV2(*args, **kwargs), weights, progress)


class ShuffleNet_V2_X0_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x0.5-f707e7126e.pth", 1366792, (60.552, 81.746), 0.04, 5.282,
                              "https://github.com/ericsun99/Shufflenet-v2-Pytorch", crop=224)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x1-5666bf0f80.pth", 2278604, (69.362, 88.316), 0.145, 8.791,
                              "https://github.com/ericsun99/Shufflenet-v2-Pytorch", crop=224)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X1_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x1_5-3c479a10.pth", 3503624, (72.996, 91.086), 0.296, 13.557,
                              _VISION + "pull/5906", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X2_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x2_0-8be3c8ee.pth", 7393996, (76.23, 93.006), 0.583, 28.433,
                              _VISION + "pull/5906", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V1


@register_model()
def shufflenet_v2_x0_5(*, weights: Optional[ShuffleNet_V2_X0_5_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("shufflenet_v2_x0_5", ShuffleNet_V2_X0_5_Weights, weights, kwargs)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 48, 96, 192, 1024], **kwargs)


@register_model()
def shufflenet_v2_x1_0(*, weights: Optional[ShuffleNet_V2_X1_0_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("shufflenet_v2_x1_0", ShuffleNet_V2_X1_0_Weights, weights, kwargs)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 116, 232, 464, 1024], **kwargs)


@register_model()
def shufflenet_v2_x1_5(*, weights: Optional[ShuffleNet_V2_X1_5_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("shufflenet_v2_x1_5", ShuffleNet_V2_X1_5_Weights, weights, kwargs)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 176, 352, 704, 1024], **kwargs)


@register_model()
def shufflenet_v2_x2_0(*, weights: Optional[ShuffleNet_V2_X2_0_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("shufflenet_v2_x2_0", ShuffleNet_V2_X2_0_Weights, weights, kwargs)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 244, 488, 976, 2048], **kwargs)
