"""EfficientNet (Tan & Le, "EfficientNet: Rethinking Model Scaling") B0-B7, and EfficientNetV2 (Tan & Le,
"EfficientNetV2: Smaller Models and Faster Training") S/M/L."""
import copy
import math
from functools import partial
from typing import Optional

from ... import nn
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, handle_weights, register_model
from ._divisible import _make_divisible
from ._imagenet_weights import _REFS, _VISION, _imagenet, _load, _num_classes

__all__ = ["EfficientNet", "EfficientNet_B0_Weights", "EfficientNet_B1_Weights", "EfficientNet_B2_Weights",
           "EfficientNet_B3_Weights", "EfficientNet_B4_Weights", "EfficientNet_B5_Weights", "EfficientNet_B6_Weights",
           "EfficientNet_B7_Weights", "EfficientNet_V2_S_Weights", "EfficientNet_V2_M_Weights",
           "EfficientNet_V2_L_Weights", "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
           "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7", "efficientnet_v2_s",
           "efficientnet_v2_m", "efficientnet_v2_l"]


class _MBConvConfig:
    """One stage: its blocks' expansion, kernel, first stride, channels, and how many blocks."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block):
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers
        self.block = block

    def __repr__(self):
        fields = ("expand_ratio", "kernel", "stride", "input_channels", "out_channels", "num_layers")
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)}" for f in fields) + ")"

    @staticmethod
    def adjust_channels(channels, width_mult, min_value=None):
        return _make_divisible(channels * width_mult, 8, min_value)


class MBConvConfig(_MBConvConfig):
    """A stage of MBConv blocks, widened by ``width_mult`` and deepened by ``depth_mult`` (compound scaling)."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, width_mult=1.0,
                 depth_mult=1.0, block=None):
        super().__init__(expand_ratio, kernel, stride, self.adjust_channels(input_channels, width_mult),
                         self.adjust_channels(out_channels, width_mult), self.adjust_depth(num_layers, depth_mult),
                         MBConv if block is None else block)

    @staticmethod
    def adjust_depth(num_layers, depth_mult):
        return int(math.ceil(num_layers * depth_mult))


class FusedMBConvConfig(_MBConvConfig):
    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block=None):
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         FusedMBConv if block is None else block)


class _Residual(nn.Module):
    def forward(self, input):
        out = self.block(input)
        if self.use_res_connect:
            out = self.stochastic_depth(out) + input
        return out


class MBConv(_Residual):
    """Expand (1x1), depthwise conv, squeeze-and-excite, project (1x1); SiLU throughout."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer, se_layer=SqueezeExcitation):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        act = nn.SiLU
        exp = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if exp != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, exp, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=act))
        layers.append(Conv2dNormActivation(exp, exp, kernel_size=cnf.kernel, stride=cnf.stride, groups=exp,
                                           norm_layer=norm_layer, activation_layer=act))
        layers.append(se_layer(exp, max(1, cnf.input_channels // 4), activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(exp, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels


class FusedMBConv(_Residual):
    """The expansion and the spatial conv fused into one full kxk conv (EfficientNetV2's early stages)."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        act = nn.SiLU
        exp = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if exp != cnf.input_channels:
            layers = [Conv2dNormActivation(cnf.input_channels, exp, kernel_size=cnf.kernel, stride=cnf.stride,
                                           norm_layer=norm_layer, activation_layer=act),
                      Conv2dNormActivation(exp, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None)]
        else:
            layers = [Conv2dNormActivation(cnf.input_channels, cnf.out_channels, kernel_size=cnf.kernel,
                                           stride=cnf.stride, norm_layer=norm_layer, activation_layer=act)]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels


class EfficientNet(nn.Module):
    def __init__(self, inverted_residual_setting, dropout, stochastic_depth_prob=0.2, num_classes=1000,
                 norm_layer=None, last_channel=None):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not (isinstance(inverted_residual_setting, (list, tuple))
                and all(isinstance(s, _MBConvConfig) for s in inverted_residual_setting)):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels, kernel_size=3, stride=2,
                                       norm_layer=norm_layer, activation_layer=nn.SiLU)]
        total = sum(s.num_layers for s in inverted_residual_setting)
        index = 0
        for stage_cnf in inverted_residual_setting:
            blocks = []
            for i in range(stage_cnf.num_layers):
                cnf = copy.copy(stage_cnf)
                if i > 0:  # after its first block a stage keeps its width and resolution
                    cnf.input_channels, cnf.stride = cnf.out_channels, 1
                # the drop rate grows linearly with depth, over the whole network
                blocks.append(cnf.block(cnf, stochastic_depth_prob * float(index) / total, norm_layer))
                index += 1
            layers.append(nn.Sequential(*blocks))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = 4 * last_in if last_channel is None else last_channel
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(last_out, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                bound = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -bound, bound)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


# expansion, kernel, stride, in, out, layers (B0; the other B's scale it)
_B0 = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
       (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
# the V2 stages: F is a FusedMBConv stage, M an MBConv one
_V2 = {
    "efficientnet_v2_s": [("F", 1, 3, 1, 24, 24, 2), ("F", 4, 3, 2, 24, 48, 4), ("F", 4, 3, 2, 48, 64, 4),
                          ("M", 4, 3, 2, 64, 128, 6), ("M", 6, 3, 1, 128, 160, 9), ("M", 6, 3, 2, 160, 256, 15)],
    "efficientnet_v2_m": [("F", 1, 3, 1, 24, 24, 3), ("F", 4, 3, 2, 24, 48, 5), ("F", 4, 3, 2, 48, 80, 5),
                          ("M", 4, 3, 2, 80, 160, 7), ("M", 6, 3, 1, 160, 176, 14), ("M", 6, 3, 2, 176, 304, 18),
                          ("M", 6, 3, 1, 304, 512, 5)],
    "efficientnet_v2_l": [("F", 1, 3, 1, 32, 32, 4), ("F", 4, 3, 2, 32, 64, 7), ("F", 4, 3, 2, 64, 96, 7),
                          ("M", 4, 3, 2, 96, 192, 10), ("M", 6, 3, 1, 192, 224, 19), ("M", 6, 3, 2, 224, 384, 25),
                          ("M", 6, 3, 1, 384, 640, 7)],
}


def _efficientnet_conf(arch, **kwargs):
    if arch.startswith("efficientnet_b"):
        width, depth = kwargs.pop("width_mult"), kwargs.pop("depth_mult")
        return [MBConvConfig(*row, width_mult=width, depth_mult=depth) for row in _B0], None
    if arch in _V2:
        return [(FusedMBConvConfig if kind == "F" else MBConvConfig)(*row) for kind, *row in _V2[arch]], 1280
    raise ValueError(f"Unsupported model type {arch}")


def _efficientnet(setting, dropout, last_channel, weights, progress, **kwargs):
    _num_classes(weights, kwargs)
    return _load(EfficientNet(setting, dropout, last_channel=last_channel, **kwargs), weights, progress)


class EfficientNet_B0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b0_rwightman-7f5810bc.pth", 5288548, (77.692, 93.532), 0.386, 20.451,
                              _REFS + "#efficientnet-v1", crop=224, resize=256, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B1_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b1_rwightman-bac287d4.pth", 7794184, (78.642, 94.186), 0.687, 30.134,
                              _REFS + "#efficientnet-v1", crop=240, resize=256, interpolation="bicubic")
    IMAGENET1K_V2 = _imagenet("efficientnet_b1-c27df63c.pth", 7794184, (79.838, 94.934), 0.687, 30.136,
                              _VISION + "issues/3995#new-recipe-with-lr-wd-crop-tuning", crop=240, resize=255,
                              interpolation="bilinear")
    DEFAULT = IMAGENET1K_V2


class EfficientNet_B2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b2_rwightman-c35c1473.pth", 9109994, (80.608, 95.31), 1.088, 35.174,
                              _REFS + "#efficientnet-v1", crop=288, resize=288, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B3_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b3_rwightman-b3899882.pth", 12233232, (82.008, 96.054), 1.827, 47.184,
                              _REFS + "#efficientnet-v1", crop=300, resize=320, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B4_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b4_rwightman-23ab8bcd.pth", 19341616, (83.384, 96.594), 4.394, 74.489,
                              _REFS + "#efficientnet-v1", crop=380, resize=384, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b5_lukemelas-1a07897c.pth", 30389784, (83.444, 96.628), 10.266, 116.864,
                              _REFS + "#efficientnet-v1", crop=456, resize=456, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B6_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b6_lukemelas-24a108a5.pth", 43040704, (84.008, 96.916), 19.068, 165.362,
                              _REFS + "#efficientnet-v1", crop=528, resize=528, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B7_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b7_lukemelas-c5b4e57e.pth", 66347960, (84.122, 96.908), 37.746, 254.675,
                              _REFS + "#efficientnet-v1", crop=600, resize=600, interpolation="bicubic")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_v2_s-dd5fe13b.pth", 21458488, (84.228, 96.878), 8.366, 82.704,
                              _REFS + "#efficientnet-v2", crop=384, resize=384, interpolation="bilinear", min_size=(33,
                              33))
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_M_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_v2_m-dc08266a.pth", 54139356, (85.112, 97.156), 24.582, 208.01,
                              _REFS + "#efficientnet-v2", crop=480, resize=480, interpolation="bilinear", min_size=(33,
                              33))
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_L_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_v2_l-59c71312.pth", 118515272, (85.808, 97.788), 56.08, 454.573,
                              _REFS + "#efficientnet-v2", crop=480, resize=480, interpolation="bicubic", mean=(0.5, 0.5,
                              0.5), std=(0.5, 0.5, 0.5), min_size=(33, 33))
    DEFAULT = IMAGENET1K_V1


def _scaled(arch, width_mult, depth_mult, dropout, slow_bn, weights, progress, kwargs):
    setting, last_channel = _efficientnet_conf(arch, width_mult=width_mult, depth_mult=depth_mult)
    if slow_bn:  # B5-B7 were ported with the original's batch-norm hyperparameters
        kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))
    return _efficientnet(setting, kwargs.pop("dropout", dropout), last_channel, weights, progress, **kwargs)


def _v2(arch, dropout, weights, progress, kwargs):
    setting, last_channel = _efficientnet_conf(arch)
    kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-03))
    return _efficientnet(setting, kwargs.pop("dropout", dropout), last_channel, weights, progress, **kwargs)


@register_model()
def efficientnet_b0(*, weights: Optional[EfficientNet_B0_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b0", EfficientNet_B0_Weights, weights, kwargs)
    return _scaled("efficientnet_b0", 1.0, 1.0, 0.2, False, weights, progress, kwargs)


@register_model()
def efficientnet_b1(*, weights: Optional[EfficientNet_B1_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b1", EfficientNet_B1_Weights, weights, kwargs)
    return _scaled("efficientnet_b1", 1.0, 1.1, 0.2, False, weights, progress, kwargs)


@register_model()
def efficientnet_b2(*, weights: Optional[EfficientNet_B2_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b2", EfficientNet_B2_Weights, weights, kwargs)
    return _scaled("efficientnet_b2", 1.1, 1.2, 0.3, False, weights, progress, kwargs)


@register_model()
def efficientnet_b3(*, weights: Optional[EfficientNet_B3_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b3", EfficientNet_B3_Weights, weights, kwargs)
    return _scaled("efficientnet_b3", 1.2, 1.4, 0.3, False, weights, progress, kwargs)


@register_model()
def efficientnet_b4(*, weights: Optional[EfficientNet_B4_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b4", EfficientNet_B4_Weights, weights, kwargs)
    return _scaled("efficientnet_b4", 1.4, 1.8, 0.4, False, weights, progress, kwargs)


@register_model()
def efficientnet_b5(*, weights: Optional[EfficientNet_B5_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b5", EfficientNet_B5_Weights, weights, kwargs)
    return _scaled("efficientnet_b5", 1.6, 2.2, 0.4, True, weights, progress, kwargs)


@register_model()
def efficientnet_b6(*, weights: Optional[EfficientNet_B6_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b6", EfficientNet_B6_Weights, weights, kwargs)
    return _scaled("efficientnet_b6", 1.8, 2.6, 0.5, True, weights, progress, kwargs)


@register_model()
def efficientnet_b7(*, weights: Optional[EfficientNet_B7_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_b7", EfficientNet_B7_Weights, weights, kwargs)
    return _scaled("efficientnet_b7", 2.0, 3.1, 0.5, True, weights, progress, kwargs)


@register_model()
def efficientnet_v2_s(*, weights: Optional[EfficientNet_V2_S_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_v2_s", EfficientNet_V2_S_Weights, weights, kwargs)
    return _v2("efficientnet_v2_s", 0.2, weights, progress, kwargs)


@register_model()
def efficientnet_v2_m(*, weights: Optional[EfficientNet_V2_M_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_v2_m", EfficientNet_V2_M_Weights, weights, kwargs)
    return _v2("efficientnet_v2_m", 0.3, weights, progress, kwargs)


@register_model()
def efficientnet_v2_l(*, weights: Optional[EfficientNet_V2_L_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("efficientnet_v2_l", EfficientNet_V2_L_Weights, weights, kwargs)
    return _v2("efficientnet_v2_l", 0.4, weights, progress, kwargs)
