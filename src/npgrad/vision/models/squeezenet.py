"""SqueezeNet 1.0 and 1.1 (Iandola et al.): Fire modules (a 1x1 squeeze, then 1x1 and 3x3 expands side by side)
and a convolutional classifier; torchvision's module tree."""
from typing import Optional

from ... import nn
from ...ops import cat, flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model

__all__ = ["SqueezeNet", "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights", "squeezenet1_0", "squeezenet1_1"]


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        # the two expands see the same squeezed map; the 3x3 is padded to keep its size
        for k, width in ((1, expand1x1_planes), (3, expand3x3_planes)):
            setattr(self, f"expand{k}x{k}", nn.Conv2d(squeeze_planes, width, kernel_size=k, padding=k // 2))
            setattr(self, f"expand{k}x{k}_activation", nn.ReLU(inplace=True))

    def forward(self, x):
        s = self.squeeze_activation(self.squeeze(x))
        return cat([self.expand1x1_activation(self.expand1x1(s)), self.expand3x3_activation(self.expand3x3(s))], 1)


def _pool():
    return nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)


def _fires(widths):
    # each Fire module's (squeeze, expand) widths; its input is the previous module's two expands together
    out, channels = [], None
    for item in widths:
        if item == "M":
            out.append(_pool())
            continue
        inplanes, squeeze, expand = item if isinstance(item, tuple) and len(item) == 3 else (channels, *item)
        out.append(Fire(inplanes, squeeze, expand, expand))
        channels = 2 * expand
    return out


class SqueezeNet(nn.Module):
    def __init__(self, version="1_0", num_classes=1000, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes
        if version == "1_0":
            stem = [nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True), _pool()]
            fires = _fires([(96, 16, 64), (16, 64), (32, 128), "M", (32, 128), (48, 192), (48, 192), (64, 256), "M",
                            (64, 256)])
        elif version == "1_1":
            # 1.1 moves the pooling earlier and starts narrower: 2.4x less computation, the same accuracy
            stem = [nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True), _pool()]
            fires = _fires([(64, 16, 64), (16, 64), "M", (32, 128), (32, 128), "M", (48, 192), (48, 192), (64, 256),
                            (64, 256)])
        else:
            # a version other than 1.0 or 1.1 is an error (torchvision only has these two)
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        self.features = nn.Sequential(*stem, *fires)
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return flatten(self.classifier(self.features(x)), 1)


_RECIPE = "https://github.com/pytorch/vision/pull/49#issuecomment-277560717"
_DOCS = "These weights reproduce closely the results of the paper using a simple training recipe."


class SqueezeNet1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = imagenet_weights("squeezenet1_0-b66bff10.pth", num_params=1248424, min_size=(21, 21),
                                     recipe=_RECIPE, acc1=58.092, acc5=80.42, ops=0.819, file_size=4.778, docs=_DOCS,
                                     crop_size=224)
    DEFAULT = IMAGENET1K_V1


class SqueezeNet1_1_Weights(WeightsEnum):
    IMAGENET1K_V1 = imagenet_weights("squeezenet1_1-b8a52dc0.pth", num_params=1235496, min_size=(17, 17),
                                     recipe=_RECIPE, acc1=58.178, acc5=80.624, ops=0.349, file_size=4.729, docs=_DOCS,
                                     crop_size=224)
    DEFAULT = IMAGENET1K_V1


def _squeezenet(name, version, enum, weights, progress, kwargs):
    weights = handle_weights(name, enum, weights, kwargs, default_weights=enum.IMAGENET1K_V1)
    if weights is not None:
        override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = SqueezeNet(version, **kwargs)
    if weights is not None:
        load_weights(model, weights, progress)
    return model


@register_model()
def squeezenet1_0(*, weights: Optional[SqueezeNet1_0_Weights] = None, progress: bool = True,
                  **kwargs) -> SqueezeNet:
    """SqueezeNet 1.0 ("AlexNet-level accuracy with 50x fewer parameters")."""
    return _squeezenet("squeezenet1_0", "1_0", SqueezeNet1_0_Weights, weights, progress, kwargs)


@register_model()
def squeezenet1_1(*, weights: Optional[SqueezeNet1_1_Weights] = None, progress: bool = True,
                  **kwargs) -> SqueezeNet:
    """SqueezeNet 1.1 (the SqueezeNet repository's revision)."""
    return _squeezenet("squeezenet1_1", "1_1", SqueezeNet1_1_Weights, weights, progress, kwargs)
