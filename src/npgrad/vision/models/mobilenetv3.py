"""MobileNetV3 (Howard et al., "Searching for MobileNetV3"): the Large and Small networks."""
from functools import partial
from typing import Optional

from ... import nn
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation as SElayer
from ._api import WeightsEnum, handle_weights, register_model
from ._divisible import _make_divisible
from ._imagenet_weights import _REFS, _VISION, _imagenet, _load, _num_classes
from .mobilenetv2 import _init_mobile

__all__ = ["MobileNetV3", "MobileNet_V3_Large_Weights", "MobileNet_V3_Small_Weights", "mobilenet_v3_large",
           "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One bneck row of the paper's tables 1 and 2, with the channel counts scaled by ``width_mult``."""

    def __init__(self, input_channels, kernel, expanded_channels, out_channels, use_se, activation, stride,
                 dilation, width_mult):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels, width_mult):
        return _make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    def __init__(self, cnf, norm_layer, se_layer=partial(SElayer, scale_activation=nn.Hardsigmoid)):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        act = nn.Hardswish if cnf.use_hs else nn.ReLU
        exp = cnf.expanded_channels
        layers = []
        if exp != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, exp, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=act))
        # a dilated block keeps its resolution: the dilation replaces the stride
        stride = 1 if cnf.dilation > 1 else cnf.stride
        layers.append(Conv2dNormActivation(exp, exp, kernel_size=cnf.kernel, stride=stride, dilation=cnf.dilation,
                                           groups=exp, norm_layer=norm_layer, activation_layer=act))
        if cnf.use_se:
            layers.append(se_layer(exp, _make_divisible(exp // 4, 8)))
        layers.append(Conv2dNormActivation(exp, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input):
        out = self.block(input)
        return out + input if self.use_res_connect else out


class MobileNetV3(nn.Module):
    def __init__(self, inverted_residual_setting, last_channel, num_classes=1000, block=None, norm_layer=None,
                 dropout=0.2, **kwargs):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not (isinstance(inverted_residual_setting, (list, tuple))
                and all(isinstance(c, InvertedResidualConfig) for c in inverted_residual_setting)):
            raise TypeError("The inverted_residual_setting should be List[InvertedResidualConfig]")
        block = InvertedResidual if block is None else block
        norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01) if norm_layer is None else norm_layer
        first = inverted_residual_setting[0].input_channels
        layers = [Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        last_out = 6 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(last_out, last_channel), nn.Hardswish(inplace=True),
                                        nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        _init_mobile(self, linear_std=0.01)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


# kernel, expanded channels, out channels, squeeze-excite, activation, stride; the input channels chain on
_LARGE = [(3, 16, 16, False, "RE", 1), (3, 64, 24, False, "RE", 2), (3, 72, 24, False, "RE", 1),
          (5, 72, 40, True, "RE", 2), (5, 120, 40, True, "RE", 1), (5, 120, 40, True, "RE", 1),
          (3, 240, 80, False, "HS", 2), (3, 200, 80, False, "HS", 1), (3, 184, 80, False, "HS", 1),
          (3, 184, 80, False, "HS", 1), (3, 480, 112, True, "HS", 1), (3, 672, 112, True, "HS", 1),
          (5, 672, 160, True, "HS", 2), (5, 960, 160, True, "HS", 1), (5, 960, 160, True, "HS", 1)]
_SMALL = [(3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2), (3, 88, 24, False, "RE", 1),
          (5, 96, 40, True, "HS", 2), (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
          (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1), (5, 288, 96, True, "HS", 2),
          (5, 576, 96, True, "HS", 1), (5, 576, 96, True, "HS", 1)]


def _mobilenet_v3_conf(arch, width_mult=1.0, reduced_tail=False, dilated=False, **kwargs):
    if arch == "mobilenet_v3_large":
        rows, tail, last = _LARGE, 3, 1280
    elif arch == "mobilenet_v3_small":
        rows, tail, last = _SMALL, 3, 1024
    else:
        raise ValueError(f"Unsupported model type {arch}")
    # reduced_tail halves the channels of the last stage (the C4 block and after), dilated dilates it by 2
    div = 2 if reduced_tail else 1
    dilation = 2 if dilated else 1
    start = len(rows) - tail
    setting, channels = [], 16
    for i, (k, exp, out, se, act, stride) in enumerate(rows):
        in_tail = i >= start
        exp_i = exp // div if in_tail and i > start else exp
        out_i = out // div if in_tail else out
        setting.append(InvertedResidualConfig(channels, k, exp_i, out_i, se, act, stride,
                                              dilation if in_tail else 1, width_mult))
        channels = out_i
    return setting, InvertedResidualConfig.adjust_channels(last // div, width_mult)


def _mobilenet_v3(setting, last_channel, weights, progress, **kwargs):
    _num_classes(weights, kwargs)
    return _load(MobileNetV3(setting, last_channel, **kwargs), weights, progress)


class MobileNet_V3_Large_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mobilenet_v3_large-8738ca79.pth", 5483032, (74.042, 91.34), 0.217, 21.114,
                              _REFS + "#mobilenetv3-large--small", crop=224)
    IMAGENET1K_V2 = _imagenet("mobilenet_v3_large-5c1a4163.pth", 5483032, (75.274, 92.566), 0.217, 21.107,
                              _VISION + "issues/3995#new-recipe-with-reg-tuning", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class MobileNet_V3_Small_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mobilenet_v3_small-047dcff4.pth", 2542856, (67.668, 87.402), 0.057, 9.829,
                              _REFS + "#mobilenetv3-large--small", crop=224)
    DEFAULT = IMAGENET1K_V1


@register_model()
def mobilenet_v3_large(*, weights: Optional[MobileNet_V3_Large_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("mobilenet_v3_large", MobileNet_V3_Large_Weights, weights, kwargs)
    setting, last_channel = _mobilenet_v3_conf("mobilenet_v3_large", **kwargs)
    return _mobilenet_v3(setting, last_channel, weights, progress, **kwargs)


@register_model()
def mobilenet_v3_small(*, weights: Optional[MobileNet_V3_Small_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("mobilenet_v3_small", MobileNet_V3_Small_Weights, weights, kwargs)
    setting, last_channel = _mobilenet_v3_conf("mobilenet_v3_small", **kwargs)
    return _mobilenet_v3(setting, last_channel, weights, progress, **kwargs)
