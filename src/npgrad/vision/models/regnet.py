"""RegNet (Radosavovic et al., "Designing Network Design Spaces"): the X (plain bottleneck) and Y (with
squeeze-and-excitation) models, their per-stage widths and depths derived from a linear parameterisation."""
import math
from collections import OrderedDict
from functools import partial
from typing import Optional

import numpy as np

from ... import nn
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._api import WeightsEnum, handle_weights, register_model
from ._divisible import _make_divisible
from ._imagenet_weights import _REFS, _SWAG_LICENSE, _VISION, _imagenet, _load, _num_classes

__all__ = ["RegNet", "RegNet_Y_400MF_Weights", "RegNet_Y_800MF_Weights", "RegNet_Y_1_6GF_Weights",
           "RegNet_Y_3_2GF_Weights", "RegNet_Y_8GF_Weights", "RegNet_Y_16GF_Weights", "RegNet_Y_32GF_Weights",
           "RegNet_Y_128GF_Weights", "RegNet_X_400MF_Weights", "RegNet_X_800MF_Weights", "RegNet_X_1_6GF_Weights",
           "RegNet_X_3_2GF_Weights", "RegNet_X_8GF_Weights", "RegNet_X_16GF_Weights", "RegNet_X_32GF_Weights",
           "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf", "regnet_y_16gf",
           "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf",
           "regnet_x_8gf", "regnet_x_16gf", "regnet_x_32gf"]

_SWAG = "https://github.com/facebookresearch/SWAG"


class SimpleStemIN(Conv2dNormActivation):
    """The stem: a stride-2 3x3 conv, norm and activation."""

    def __init__(self, width_in, width_out, norm_layer, activation_layer):
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    """1x1 conv (a), grouped 3x3 conv (b), optional squeeze-excite (se), 1x1 conv without activation (c)."""

    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width,
                 bottleneck_multiplier, se_ratio):
        inner = int(round(width_out * bottleneck_multiplier))
        parts = OrderedDict()
        parts["a"] = Conv2dNormActivation(width_in, inner, kernel_size=1, stride=1, norm_layer=norm_layer,
                                          activation_layer=activation_layer)
        parts["b"] = Conv2dNormActivation(inner, inner, kernel_size=3, stride=stride, groups=inner // group_width,
                                          norm_layer=norm_layer, activation_layer=activation_layer)
        if se_ratio:
            # the squeeze width follows the block's input width, not the bottleneck's
            parts["se"] = SqueezeExcitation(input_channels=inner, squeeze_channels=int(round(se_ratio * width_in)),
                                            activation=activation_layer)
        parts["c"] = Conv2dNormActivation(inner, width_out, kernel_size=1, stride=1, norm_layer=norm_layer,
                                          activation_layer=None)
        super().__init__(parts)


class ResBottleneckBlock(nn.Module):
    """The bottleneck plus a shortcut (projected when width or resolution changes), then the activation."""

    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width=1,
                 bottleneck_multiplier=1.0, se_ratio=None):
        super().__init__()
        self.proj = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride,
                                             norm_layer=norm_layer, activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer, group_width,
                                     bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x):
        shortcut = x if self.proj is None else self.proj(x)
        return self.activation(shortcut + self.f(x))


class AnyStage(nn.Sequential):
    """``depth`` blocks, the first one changing width and stride; named ``block<stage>-<i>`` as torchvision's."""

    def __init__(self, width_in, width_out, stride, depth, block_constructor, norm_layer, activation_layer,
                 group_width, bottleneck_multiplier, se_ratio=None, stage_index=0):
        super().__init__()
        for i in range(depth):
            block = block_constructor(width_in if i == 0 else width_out, width_out, stride if i == 0 else 1,
                                      norm_layer, activation_layer, group_width, bottleneck_multiplier, se_ratio)
            self.add_module(f"block{stage_index}-{i}", block)


class BlockParams:
    """Per-stage depths, widths, group widths, bottleneck multipliers and strides."""

    def __init__(self, depths, widths, group_widths, bottleneck_multipliers, strides, se_ratio=None):
        self.depths = depths
        self.widths = widths
        self.group_widths = group_widths
        self.bottleneck_multipliers = bottleneck_multipliers
        self.strides = strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(cls, depth, w_0, w_a, w_m, group_width, bottleneck_multiplier=1.0, se_ratio=None,
                         **kwargs):
        """The paper's quantized linear widths: block j has width w_0 * w_m**round(log_wm((w_0 + w_a*j) / w_0)),
        rounded to a multiple of 8; consecutive blocks of one width form a stage (all stride 2)."""
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        quant = np.float32(8)
        # float32 throughout, as torchvision computes it, so that the rounding lands where its does
        f32 = np.float32
        cont = np.arange(depth).astype(f32) * f32(w_a) + f32(w_0)
        exponent = np.round(np.log(cont / f32(w_0)) / f32(math.log(w_m)))
        widths = (np.round(f32(w_0) * np.power(f32(w_m), exponent).astype(f32) / quant) * quant).astype(np.int32)
        widths = widths.tolist()
        starts = [i for i in range(depth) if i == 0 or widths[i] != widths[i - 1]]
        stage_widths = [widths[i] for i in starts]
        stage_depths = [b - a for a, b in zip(starts, starts[1:] + [depth])]
        n = len(stage_widths)
        multipliers = [bottleneck_multiplier] * n
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(stage_widths, multipliers,
                                                                            [group_width] * n)
        return cls(depths=stage_depths, widths=stage_widths, group_widths=group_widths,
                   bottleneck_multipliers=multipliers, strides=[2] * n, se_ratio=se_ratio)

    def _get_expanded_params(self):
        return zip(self.widths, self.strides, self.depths, self.group_widths, self.bottleneck_multipliers)

    @staticmethod
    def _adjust_widths_groups_compatibilty(stage_widths, bottleneck_ratios, group_widths):
        """Widths whose bottleneck is a whole number of groups (a group no wider than the bottleneck)."""
        inner = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        groups = [min(g, w) for g, w in zip(group_widths, inner)]
        inner = [_make_divisible(w, g) for w, g in zip(inner, groups)]
        return [int(w / b) for w, b in zip(inner, bottleneck_ratios)], groups


class RegNet(nn.Module):
    def __init__(self, block_params, num_classes=1000, stem_width=32, stem_type=None, block_type=None,
                 norm_layer=None, activation=None):
        super().__init__()
        stem_type = SimpleStemIN if stem_type is None else stem_type
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        block_type = ResBottleneckBlock if block_type is None else block_type
        activation = nn.ReLU if activation is None else activation
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        width = stem_width
        stages = OrderedDict()
        for i, (w, stride, depth, gw, bm) in enumerate(block_params._get_expanded_params(), start=1):
            stages[f"block{i}"] = AnyStage(width, w, stride, depth, block_type, norm_layer, activation, gw, bm,
                                           block_params.se_ratio, stage_index=i)
            width = w
        self.trunk_output = nn.Sequential(stages)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=width, out_features=num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                # He-normal over the fan-out
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.trunk_output(self.stem(x)))
        return self.fc(x.flatten(start_dim=1))


def _regnet(block_params, weights, progress, **kwargs):
    _num_classes(weights, kwargs)
    norm_layer = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    return _load(RegNet(block_params, norm_layer=norm_layer, **kwargs), weights, progress)


# depth, w_0, w_a, w_m, group width, squeeze-excite ratio: the design-space points of the paper's models
_DESIGNS = {
    "y_400mf": (16, 48, 27.89, 2.09, 8, 0.25),
    "y_800mf": (14, 56, 38.84, 2.4, 16, 0.25),
    "y_1_6gf": (27, 48, 20.71, 2.65, 24, 0.25),
    "y_3_2gf": (21, 80, 42.63, 2.66, 24, 0.25),
    "y_8gf": (17, 192, 76.82, 2.19, 56, 0.25),
    "y_16gf": (18, 200, 106.23, 2.48, 112, 0.25),
    "y_32gf": (20, 232, 115.89, 2.53, 232, 0.25),
    "y_128gf": (27, 456, 160.83, 2.52, 264, 0.25),
    "x_400mf": (22, 24, 24.48, 2.54, 16, None),
    "x_800mf": (16, 56, 35.73, 2.28, 16, None),
    "x_1_6gf": (18, 80, 34.01, 2.25, 24, None),
    "x_3_2gf": (25, 88, 26.31, 2.25, 48, None),
    "x_8gf": (23, 80, 49.56, 2.88, 120, None),
    "x_16gf": (22, 216, 55.59, 2.1, 128, None),
    "x_32gf": (23, 320, 69.86, 2.0, 168, None),
}


def _from_table(name, weights, progress, kwargs):
    depth, w_0, w_a, w_m, group_width, se_ratio = _DESIGNS[name]
    params = BlockParams.from_init_params(depth=depth, w_0=w_0, w_a=w_a, w_m=w_m, group_width=group_width,
                                          se_ratio=se_ratio, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


class RegNet_Y_400MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_400mf-c65dace8.pth", 4344144, (74.046, 91.716), 0.402, 16.806,
                              _REFS + "#small-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_400mf-e6988f5f.pth", 4344144, (75.804, 92.742), 0.402, 16.806,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_800MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_800mf-1b27b58c.pth", 6432512, (76.42, 93.136), 0.834, 24.774,
                              _REFS + "#small-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_800mf-58fc7688.pth", 6432512, (78.828, 94.502), 0.834, 24.774,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_1_6GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_1_6gf-b11a554e.pth", 11202430, (77.95, 93.966), 1.612, 43.152,
                              _REFS + "#small-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_1_6gf-0d7bc02a.pth", 11202430, (80.876, 95.444), 1.612, 43.152,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_3_2GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_3_2gf-b5a9779c.pth", 19436338, (78.948, 94.576), 3.176, 74.567,
                              _REFS + "#medium-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_3_2gf-9180c971.pth", 19436338, (81.982, 95.972), 3.176, 74.567,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_8GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_8gf-d0d0e4a8.pth", 39381472, (80.032, 95.048), 8.473, 150.701,
                              _REFS + "#medium-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_8gf-dc2b1b54.pth", 39381472, (82.828, 96.33), 8.473, 150.701,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_16GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_16gf-9e6ed7dd.pth", 83590140, (80.424, 95.24), 15.912, 319.49,
                              _REFS + "#large-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_16gf-3e4a00f9.pth", 83590140, (82.886, 96.328), 15.912, 319.49,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("regnet_y_16gf_swag-43afe44d.pth", 83590140, (86.012, 98.054), 46.735, 319.49,
                                       _SWAG, crop=384, resize=384,
                                       interpolation="bicubic", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("regnet_y_16gf_lc_swag-f3ec0043.pth", 83590140, (83.976, 97.244), 15.912,
                                          319.49, _VISION + "pull/5793", crop=224, resize=224, interpolation="bicubic",
                                          license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_32GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_32gf-4dee3f7a.pth", 145046770, (80.878, 95.34), 32.28, 554.076,
                              _REFS + "#large-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_y_32gf-8db6d4b5.pth", 145046770, (83.368, 96.498), 32.28, 554.076,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("regnet_y_32gf_swag-04fdfa75.pth", 145046770, (86.838, 98.362), 94.826, 554.076,
                                       _SWAG, crop=384, resize=384,
                                       interpolation="bicubic", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("regnet_y_32gf_lc_swag-e1583746.pth", 145046770, (84.622, 97.48), 32.28,
                                          554.076, _VISION + "pull/5793", crop=224, resize=224, interpolation="bicubic",
                                          license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_128GF_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("regnet_y_128gf_swag-c8ce3e52.pth", 644812894, (88.228, 98.682), 374.57,
                                       2461.564, _SWAG, crop=384, resize=384,
                                       interpolation="bicubic", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("regnet_y_128gf_lc_swag-cbe8ce12.pth", 644812894, (86.068, 97.844), 127.518,
                                          2461.564, _VISION + "pull/5793", crop=224, resize=224,
                                          interpolation="bicubic", license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


class RegNet_X_400MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_400mf-adf1edd5.pth", 5495976, (72.834, 90.95), 0.414, 21.258,
                              _REFS + "#small-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_400mf-62229a5f.pth", 5495976, (74.864, 92.322), 0.414, 21.257,
                              _VISION + "issues/3995#new-recipe-with-fixres", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_800MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_800mf-ad17e45c.pth", 7259656, (75.212, 92.348), 0.8, 27.945,
                              _REFS + "#small-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_800mf-94a99ebd.pth", 7259656, (77.522, 93.826), 0.8, 27.945,
                              _VISION + "issues/3995#new-recipe-with-fixres", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_1_6GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_1_6gf-e3633e7f.pth", 9190136, (77.04, 93.44), 1.603, 35.339,
                              _REFS + "#small-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_1_6gf-a12f2b72.pth", 9190136, (79.668, 94.922), 1.603, 35.339,
                              _VISION + "issues/3995#new-recipe-with-fixres", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_3_2GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_3_2gf-f342aeae.pth", 15296552, (78.364, 93.992), 3.177, 58.756,
                              _REFS + "#medium-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_3_2gf-7071aa85.pth", 15296552, (81.196, 95.43), 3.177, 58.756,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_8GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_8gf-03ceed89.pth", 39572648, (79.344, 94.686), 7.995, 151.456,
                              _REFS + "#medium-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_8gf-2b70d774.pth", 39572648, (81.682, 95.678), 7.995, 151.456,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_16GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_16gf-2007eb11.pth", 54278536, (80.058, 94.944), 15.941, 207.627,
                              _REFS + "#medium-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_16gf-ba3796d7.pth", 54278536, (82.716, 96.196), 15.941, 207.627,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_32GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_32gf-9d47f8d0.pth", 107811560, (80.622, 95.248), 31.736, 412.039,
                              _REFS + "#large-models", crop=224)
    IMAGENET1K_V2 = _imagenet("regnet_x_32gf-6eb8fdc6.pth", 107811560, (83.014, 96.288), 31.736, 412.039,
                              _VISION + "issues/3995#new-recipe", crop=224, resize=232)
    DEFAULT = IMAGENET1K_V2


@register_model()
def regnet_y_400mf(*, weights: Optional[RegNet_Y_400MF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_400mf", RegNet_Y_400MF_Weights, weights, kwargs)
    return _from_table("y_400mf", weights, progress, kwargs)


@register_model()
def regnet_y_800mf(*, weights: Optional[RegNet_Y_800MF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_800mf", RegNet_Y_800MF_Weights, weights, kwargs)
    return _from_table("y_800mf", weights, progress, kwargs)


@register_model()
def regnet_y_1_6gf(*, weights: Optional[RegNet_Y_1_6GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_1_6gf", RegNet_Y_1_6GF_Weights, weights, kwargs)
    return _from_table("y_1_6gf", weights, progress, kwargs)


@register_model()
def regnet_y_3_2gf(*, weights: Optional[RegNet_Y_3_2GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_3_2gf", RegNet_Y_3_2GF_Weights, weights, kwargs)
    return _from_table("y_3_2gf", weights, progress, kwargs)


@register_model()
def regnet_y_8gf(*, weights: Optional[RegNet_Y_8GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_8gf", RegNet_Y_8GF_Weights, weights, kwargs)
    return _from_table("y_8gf", weights, progress, kwargs)


@register_model()
def regnet_y_16gf(*, weights: Optional[RegNet_Y_16GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_16gf", RegNet_Y_16GF_Weights, weights, kwargs)
    return _from_table("y_16gf", weights, progress, kwargs)


@register_model()
def regnet_y_32gf(*, weights: Optional[RegNet_Y_32GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_32gf", RegNet_Y_32GF_Weights, weights, kwargs)
    return _from_table("y_32gf", weights, progress, kwargs)


@register_model()
def regnet_y_128gf(*, weights: Optional[RegNet_Y_128GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_y_128gf", RegNet_Y_128GF_Weights, weights, kwargs)
    return _from_table("y_128gf", weights, progress, kwargs)


@register_model()
def regnet_x_400mf(*, weights: Optional[RegNet_X_400MF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_400mf", RegNet_X_400MF_Weights, weights, kwargs)
    return _from_table("x_400mf", weights, progress, kwargs)


@register_model()
def regnet_x_800mf(*, weights: Optional[RegNet_X_800MF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_800mf", RegNet_X_800MF_Weights, weights, kwargs)
    return _from_table("x_800mf", weights, progress, kwargs)


@register_model()
def regnet_x_1_6gf(*, weights: Optional[RegNet_X_1_6GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_1_6gf", RegNet_X_1_6GF_Weights, weights, kwargs)
    return _from_table("x_1_6gf", weights, progress, kwargs)


@register_model()
def regnet_x_3_2gf(*, weights: Optional[RegNet_X_3_2GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_3_2gf", RegNet_X_3_2GF_Weights, weights, kwargs)
    return _from_table("x_3_2gf", weights, progress, kwargs)


@register_model()
def regnet_x_8gf(*, weights: Optional[RegNet_X_8GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_8gf", RegNet_X_8GF_Weights, weights, kwargs)
    return _from_table("x_8gf", weights, progress, kwargs)


@register_model()
def regnet_x_16gf(*, weights: Optional[RegNet_X_16GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_16gf", RegNet_X_16GF_Weights, weights, kwargs)
    return _from_table("x_16gf", weights, progress, kwargs)


@register_model()
def regnet_x_32gf(*, weights: Optional[RegNet_X_32GF_Weights] = None, progress: bool = True, **kwargs):
    weights = handle_weights("regnet_x_32gf", RegNet_X_32GF_Weights, weights, kwargs)
    return _from_table("x_32gf", weights, progress, kwargs)
