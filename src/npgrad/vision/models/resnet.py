"""Residual networks (He et al. 2015), their grouped (ResNeXt) and wide variants: torchvision's module tree,
state_dict keys and initialisation, so its checkpoints load as they are."""
from typing import Optional

from ... import nn
from ...ops import flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model

__all__ = ["ResNet",
           "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights", "ResNet101_Weights", "ResNet152_Weights",
           "ResNeXt50_32X4D_Weights", "ResNeXt101_32X8D_Weights", "ResNeXt101_64X4D_Weights",
           "Wide_ResNet50_2_Weights", "Wide_ResNet101_2_Weights",
           "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d",
           "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2"]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """A bias-free 3x3 convolution padded to keep the size at stride 1."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                     bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    """A bias-free pointwise convolution."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions around a shortcut (ResNet-18/34)."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        norm_layer = norm_layer or nn.BatchNorm2d
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def _residual(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        return self.bn2(self.conv2(y))

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(self._residual(x) + shortcut)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided, grouped, dilated), 1x1 expand by 4, around a shortcut (ResNet-50 and up).
    The stride sits on the 3x3 convolution (the "ResNet v1.5" placement torchvision uses)."""
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        out = planes * self.expansion
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, out)
        self.bn3 = norm_layer(out)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def _residual(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.bn3(self.conv3(y))

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(self._residual(x) + shortcut)


class ResNet(nn.Module):
    """A 7x7 stem, four stages of residual blocks (64, 128, 256, 512 planes times the block's expansion), global
    average pooling and a linear classifier."""

    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1, width_per_group=64,
                 replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        self._norm_layer = norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, "
                             f"got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        for i, (planes, dilate) in enumerate(zip((128, 256, 512), replace_stride_with_dilation)):
            setattr(self, f"layer{i + 2}", self._make_layer(block, planes, layers[i + 1], stride=2, dilate=dilate))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        self._init_weights(zero_init_residual)

    def _init_weights(self, zero_init_residual):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if zero_init_residual:
            # each residual branch starts as zero, so every block starts as the identity (Goyal et al. 2017)
            for m in self.modules():
                last = m.bn3 if isinstance(m, Bottleneck) else m.bn2 if isinstance(m, BasicBlock) else None
                if last is not None and last.weight is not None:
                    nn.init.zeros_(last.weight)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        first_dilation = self.dilation
        if dilate:  # keep the resolution: the stride becomes dilation of the later blocks
            self.dilation *= stride
            stride = 1
        out = planes * block.expansion
        downsample = None
        if stride != 1 or self.inplanes != out:
            downsample = nn.Sequential(conv1x1(self.inplanes, out, stride), norm_layer(out))
        common = dict(groups=self.groups, base_width=self.base_width, norm_layer=norm_layer)
        stage = [block(self.inplanes, planes, stride, downsample, dilation=first_dilation, **common)]
        self.inplanes = out
        stage += [block(out, planes, dilation=self.dilation, **common) for _ in range(1, blocks)]
        return nn.Sequential(*stage)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(flatten(self.avgpool(x), 1))

    def forward(self, x):
        return self._forward_impl(x)


def _resnet(block, layers, weights, progress, **kwargs):
    if weights is not None:
        override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = ResNet(block, layers, **kwargs)
    if weights is not None:
        load_weights(model, weights, progress)
    return model


_V1_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#resnet"
_NEXT_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#resnext"
_WIDE_RECIPE = "https://github.com/pytorch/vision/pull/912#issue-445437439"
_NEW_RECIPE = "https://github.com/pytorch/vision/issues/3995#new-recipe"
_V1_DOCS = "These weights reproduce closely the results of the paper using a simple training recipe."
_V2_DOCS = ("These weights improve upon the results of the original paper by using TorchVision's `new training "
            "recipe <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-latest-"
            "primitives/>`_.")


def _v1(file, params, acc1, acc5, ops, size, recipe=_V1_RECIPE):
    return imagenet_weights(file, num_params=params, min_size=(1, 1), recipe=recipe, acc1=acc1, acc5=acc5, ops=ops,
                            file_size=size, docs=_V1_DOCS, crop_size=224)


def _v2(file, params, acc1, acc5, ops, size, recipe=_NEW_RECIPE, docs=_V2_DOCS):
    return imagenet_weights(file, num_params=params, min_size=(1, 1), recipe=recipe, acc1=acc1, acc5=acc5, ops=ops,
                            file_size=size, docs=docs, crop_size=224, resize_size=232)


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnet18-f37072fd.pth", 11689512, 69.758, 89.078, 1.814, 44.661)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnet34-b627a593.pth", 21797672, 73.314, 91.42, 3.664, 83.275)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnet50-0676ba61.pth", 25557032, 76.13, 92.862, 4.089, 97.781)
    IMAGENET1K_V2 = _v2("resnet50-11ad3fa6.pth", 25557032, 80.858, 95.434, 4.089, 97.79,
                        recipe="https://github.com/pytorch/vision/issues/3995#issuecomment-1013906621")
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnet101-63fe2227.pth", 44549160, 77.374, 93.546, 7.801, 170.511)
    IMAGENET1K_V2 = _v2("resnet101-cd907fc2.pth", 44549160, 81.886, 95.78, 7.801, 170.53)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnet152-394f9c45.pth", 60192808, 78.312, 94.046, 11.514, 230.434)
    IMAGENET1K_V2 = _v2("resnet152-f82ba261.pth", 60192808, 82.284, 96.002, 11.514, 230.474)
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnext50_32x4d-7cdf4587.pth", 25028904, 77.618, 93.698, 4.23, 95.789, _NEXT_RECIPE)
    IMAGENET1K_V2 = _v2("resnext50_32x4d-1a0047aa.pth", 25028904, 81.198, 95.34, 4.23, 95.833)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_32X8D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("resnext101_32x8d-8ba56ff5.pth", 88791336, 79.312, 94.526, 16.414, 339.586, _NEXT_RECIPE)
    IMAGENET1K_V2 = _v2("resnext101_32x8d-110c445d.pth", 88791336, 82.834, 96.228, 16.414, 339.673,
                        recipe=_NEW_RECIPE + "-with-fixres")
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_64X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v2("resnext101_64x4d-173b62eb.pth", 83455272, 83.246, 96.454, 15.46, 319.318,
                        recipe="https://github.com/pytorch/vision/pull/5935",
                        docs=_V2_DOCS.replace("improve upon the results of the original paper",
                                              "were trained from scratch"))
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("wide_resnet50_2-95faca4d.pth", 68883240, 78.468, 94.086, 11.398, 131.82, _WIDE_RECIPE)
    IMAGENET1K_V2 = _v2("wide_resnet50_2-9ba9bcbe.pth", 68883240, 81.602, 95.758, 11.398, 263.124,
                        recipe=_NEW_RECIPE + "-with-fixres")
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet101_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("wide_resnet101_2-32ee1156.pth", 126886696, 78.848, 94.284, 22.753, 242.896, _WIDE_RECIPE)
    IMAGENET1K_V2 = _v2("wide_resnet101_2-d733dc28.pth", 126886696, 82.51, 96.02, 22.753, 484.747)
    DEFAULT = IMAGENET1K_V2


def _build(name, block, layers, enum, weights, progress, kwargs, **arch):
    # `pretrained=True` meant the first weights ever published, not today's DEFAULT
    weights = handle_weights(name, enum, weights, kwargs, default_weights=enum.IMAGENET1K_V1)
    for key, value in arch.items():
        override_param(kwargs, key, value)
    return _resnet(block, layers, weights, progress, **kwargs)


@register_model()
def resnet18(*, weights: Optional[ResNet18_Weights] = None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-18 (He et al., "Deep Residual Learning for Image Recognition")."""
    return _build("resnet18", BasicBlock, [2, 2, 2, 2], ResNet18_Weights, weights, progress, kwargs)


@register_model()
def resnet34(*, weights: Optional[ResNet34_Weights] = None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-34."""
    return _build("resnet34", BasicBlock, [3, 4, 6, 3], ResNet34_Weights, weights, progress, kwargs)


@register_model()
def resnet50(*, weights: Optional[ResNet50_Weights] = None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-50 (bottleneck blocks, stride on the 3x3 convolution)."""
    return _build("resnet50", Bottleneck, [3, 4, 6, 3], ResNet50_Weights, weights, progress, kwargs)


@register_model()
def resnet101(*, weights: Optional[ResNet101_Weights] = None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-101."""
    return _build("resnet101", Bottleneck, [3, 4, 23, 3], ResNet101_Weights, weights, progress, kwargs)


@register_model()
def resnet152(*, weights: Optional[ResNet152_Weights] = None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-152."""
    return _build("resnet152", Bottleneck, [3, 8, 36, 3], ResNet152_Weights, weights, progress, kwargs)


@register_model()
def resnext50_32x4d(*, weights: Optional[ResNeXt50_32X4D_Weights] = None, progress: bool = True,
                    **kwargs) -> ResNet:
    """ResNeXt-50 32x4d (Xie et al., "Aggregated Residual Transformations"): 32 groups of width 4."""
    return _build("resnext50_32x4d", Bottleneck, [3, 4, 6, 3], ResNeXt50_32X4D_Weights, weights, progress, kwargs,
                  groups=32, width_per_group=4)


@register_model()
def resnext101_32x8d(*, weights: Optional[ResNeXt101_32X8D_Weights] = None, progress: bool = True,
                     **kwargs) -> ResNet:
    """ResNeXt-101 32x8d."""
    return _build("resnext101_32x8d", Bottleneck, [3, 4, 23, 3], ResNeXt101_32X8D_Weights, weights, progress,
                  kwargs, groups=32, width_per_group=8)


@register_model()
def resnext101_64x4d(*, weights: Optional[ResNeXt101_64X4D_Weights] = None, progress: bool = True,
                     **kwargs) -> ResNet:
    """ResNeXt-101 64x4d."""
    return _build("resnext101_64x4d", Bottleneck, [3, 4, 23, 3], ResNeXt101_64X4D_Weights, weights, progress,
                  kwargs, groups=64, width_per_group=4)


@register_model()
def wide_resnet50_2(*, weights: Optional[Wide_ResNet50_2_Weights] = None, progress: bool = True,
                    **kwargs) -> ResNet:
    """Wide ResNet-50-2 (Zagoruyko & Komodakis): ResNet-50 with bottlenecks twice as wide."""
    return _build("wide_resnet50_2", Bottleneck, [3, 4, 6, 3], Wide_ResNet50_2_Weights, weights, progress, kwargs,
                  width_per_group=64 * 2)


@register_model()
def wide_resnet101_2(*, weights: Optional[Wide_ResNet101_2_Weights] = None, progress: bool = True,
                     **kwargs) -> ResNet:
    """Wide ResNet-101-2."""
    return _build("wide_resnet101_2", Bottleneck, [3, 4, 23, 3], Wide_ResNet101_2_Weights, weights, progress,
                  kwargs, width_per_group=64 * 2)
