"""MobileNetV2 (Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks")."""
from typing import Optional

from ... import nn
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation
from ._api import WeightsEnum, handle_weights, register_model
from ._divisible import _make_divisible
from ._imagenet_weights import _REFS, _VISION, _imagenet, _load, _num_classes

__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "mobilenet_v2"]

# (expansion t, output channels c, repeats n, first stride s) per stage, from the paper's table 2
_STAGES = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
           [6, 320, 1, 1]]


class InvertedResidual(nn.Module):
    """Expand with a 1x1 conv, filter depthwise, project back linearly; a skip when the shape allows."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        self.stride = stride
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        expand = [] if expand_ratio == 1 else [
            Conv2dNormActivation(inp, hidden, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6)]
        self.conv = nn.Sequential(
            *expand,
            Conv2dNormActivation(hidden, hidden, stride=stride, groups=hidden, norm_layer=norm_layer,
                                 activation_layer=nn.ReLU6),
            nn.Conv2d(hidden, oup, 1, 1, 0, bias=False),
            norm_layer(oup))
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        out = self.conv(x)
        return x + out if self.use_res_connect else out


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=1000, width_mult=1.0, inverted_residual_setting=None, round_nearest=8,
                 block=None, norm_layer=None, dropout=0.2):
        super().__init__()
        block = InvertedResidual if block is None else block
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        stages = _STAGES if inverted_residual_setting is None else inverted_residual_setting
        if len(stages) == 0 or len(stages[0]) != 4:
            raise ValueError(f"inverted_residual_setting should be non-empty or a 4-element list, got {stages}")
        width = _make_divisible(32 * width_mult, round_nearest)
        self.last_channel = _make_divisible(1280 * max(1.0, width_mult), round_nearest)
        layers = [Conv2dNormActivation(3, width, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6)]
        for t, c, n, s in stages:
            out = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                layers.append(block(width, out, s if i == 0 else 1, expand_ratio=t, norm_layer=norm_layer))
                width = out
        layers.append(Conv2dNormActivation(width, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))
        _init_mobile(self, linear_std=0.01)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(x.flatten(1))


def _init_mobile(model, linear_std):
    """He-normal (fan-out) convolutions, unit norms, small-normal classifier: the mobile families' start."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, linear_std)
            nn.init.zeros_(m.bias)


class MobileNet_V2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mobilenet_v2-b0353104.pth", 3504872, (71.878, 90.286), 0.301, 13.555,
                              _REFS + "#mobilenetv2", crop=224)
    IMAGENET1K_V2 = _imagenet("mobilenet_v2-7ebf99e0.pth", 3504872, (72.154, 90.822), 0.301, 13.598,
                              _VISION + "issues/3995#new-recipe-with-reg-tuning", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


@register_model()
def mobilenet_v2(*, weights: Optional[MobileNet_V2_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("mobilenet_v2", MobileNet_V2_Weights, weights, kwargs)
    _num_classes(weights, kwargs)
    return _load(MobileNetV2(**kwargs), weights, progress)
