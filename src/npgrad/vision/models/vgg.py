"""VGG (Simonyan & Zisserman, "Very Deep Convolutional Networks"): stacks of 3x3 convolutions, with or without
batch norm, and a three-layer classifier; torchvision's module tree and state_dict keys."""
from typing import Optional

from ... import nn
from ...ops import flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model

__all__ = ["VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights", "VGG16_Weights",
           "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn",
           "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        hidden = 4096
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, hidden), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(hidden, hidden), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(hidden, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear)) and m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(flatten(self.avgpool(self.features(x)), 1))


def make_layers(cfg, batch_norm=False):
    """The feature extractor a configuration describes: a number is a 3x3 convolution to that many channels
    (then batch norm when asked, then ReLU), "M" a 2x2 max pool."""
    layers, channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(v))
        layers.append(nn.ReLU(inplace=True))
        channels = v
    return nn.Sequential(*layers)


def _stage(width, convs):
    return [width] * convs + ["M"]


# configurations A, B, D, E of the paper: VGG-11, -13, -16, -19
cfgs = {
    "A": _stage(64, 1) + _stage(128, 1) + _stage(256, 2) + _stage(512, 2) + _stage(512, 2),
    "B": _stage(64, 2) + _stage(128, 2) + _stage(256, 2) + _stage(512, 2) + _stage(512, 2),
    "D": _stage(64, 2) + _stage(128, 2) + _stage(256, 3) + _stage(512, 3) + _stage(512, 3),
    "E": _stage(64, 2) + _stage(128, 2) + _stage(256, 4) + _stage(512, 4) + _stage(512, 4),
}


def _vgg(cfg, batch_norm, weights, progress, **kwargs):
    if weights is not None:
        kwargs["init_weights"] = False  # the checkpoint overwrites every parameter
        if weights.meta["categories"] is not None:
            override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)
    if weights is not None:
        load_weights(model, weights, progress)
    return model


_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg"
_DOCS = "These weights were trained from scratch by using a simplified training recipe."


def _w(file, params, acc1, acc5, ops, size):
    return imagenet_weights(file, num_params=params, min_size=(32, 32), recipe=_RECIPE, acc1=acc1, acc5=acc5,
                            ops=ops, file_size=size, docs=_DOCS, crop_size=224)


class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg11-8a719046.pth", 132863336, 69.02, 88.628, 7.609, 506.84)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg11_bn-6002323d.pth", 132868840, 70.37, 89.81, 7.609, 506.881)
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg13-19584684.pth", 133047848, 69.928, 89.246, 11.308, 507.545)
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg13_bn-abd245e5.pth", 133053736, 71.586, 90.374, 11.308, 507.59)
    DEFAULT = IMAGENET1K_V1


def _ssd_features():
    # the SSD authors' VGG-16 backbone: only `features` holds trained values, and its inputs are 0..255 images
    # less the mean (std 1/255)
    w = imagenet_weights("vgg16_features-amdegroot-88682ab5.pth", num_params=138357544, min_size=(32, 32),
                         recipe="https://github.com/amdegroot/ssd.pytorch#training-ssd", acc1=float("nan"),
                         acc5=float("nan"), ops=15.47, file_size=527.802,
                         docs="These weights can't be used for classification because they are missing values in "
                              "the `classifier` module. Only the `features` module has valid values and can be used "
                              "for feature extraction. The weights were trained using the original input "
                              "standardization method as described in the paper.",
                         crop_size=224, mean=(0.48235, 0.45882, 0.40784),
                         std=(1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0))
    w.meta["categories"] = None
    return w


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg16-397923af.pth", 138357544, 71.592, 90.382, 15.47, 527.796)
    IMAGENET1K_FEATURES = _ssd_features()
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg16_bn-6c64b313.pth", 138365992, 73.36, 91.516, 15.47, 527.866)
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg19-dcbb9e9d.pth", 143667240, 72.376, 90.876, 19.632, 548.051)
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg19_bn-c79401a0.pth", 143678248, 74.218, 91.842, 19.632, 548.143)
    DEFAULT = IMAGENET1K_V1


def _build(name, cfg, batch_norm, enum, weights, progress, kwargs):
    weights = handle_weights(name, enum, weights, kwargs, default_weights=enum.IMAGENET1K_V1)
    return _vgg(cfg, batch_norm, weights, progress, **kwargs)


@register_model()
def vgg11(*, weights: Optional[VGG11_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-11 (configuration "A")."""
    return _build("vgg11", "A", False, VGG11_Weights, weights, progress, kwargs)


@register_model()
def vgg11_bn(*, weights: Optional[VGG11_BN_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-11 with batch norm."""
    return _build("vgg11_bn", "A", True, VGG11_BN_Weights, weights, progress, kwargs)


@register_model()
def vgg13(*, weights: Optional[VGG13_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-13 (configuration "B")."""
    return _build("vgg13", "B", False, VGG13_Weights, weights, progress, kwargs)


@register_model()
def vgg13_bn(*, weights: Optional[VGG13_BN_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-13 with batch norm."""
    return _build("vgg13_bn", "B", True, VGG13_BN_Weights, weights, progress, kwargs)


@register_model()
def vgg16(*, weights: Optional[VGG16_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-16 (configuration "D")."""
    return _build("vgg16", "D", False, VGG16_Weights, weights, progress, kwargs)


@register_model()
def vgg16_bn(*, weights: Optional[VGG16_BN_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-16 with batch norm."""
    return _build("vgg16_bn", "D", True, VGG16_BN_Weights, weights, progress, kwargs)


@register_model()
def vgg19(*, weights: Optional[VGG19_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-19 (configuration "E")."""
    return _build("vgg19", "E", False, VGG19_Weights, weights, progress, kwargs)


@register_model()
def vgg19_bn(*, weights: Optional[VGG19_BN_Weights] = None, progress: bool = True, **kwargs) -> VGG:
    """VGG-19 with batch norm."""
    return _build("vgg19_bn", "E", True, VGG19_BN_Weights, weights, progress, kwargs)
