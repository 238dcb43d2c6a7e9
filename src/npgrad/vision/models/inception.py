"""Inception v3 (Szegedy et al., "Rethinking the Inception Architecture"): torchvision's module tree and
state_dict keys, ``InceptionOutputs`` (logits and the auxiliary head's) in training mode. Inputs need at least
75x75 pixels."""
import warnings
from collections import namedtuple
from typing import Optional

from ... import nn
from ...nn import functional as F
from ...ops import cat, flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model
from .googlenet import BasicConv2d, transform_imagenet_input

__all__ = ["Inception3", "InceptionOutputs", "_InceptionOutputs", "Inception_V3_Weights", "inception_v3"]

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])
_InceptionOutputs = InceptionOutputs


def _avg3(x):
    return F.avg_pool2d(x, kernel_size=3, stride=1, padding=1)


def _max3(x):
    return F.max_pool2d(x, kernel_size=3, stride=2)


class InceptionA(nn.Module):
    """35x35 grid: 1x1, 1x1-5x5, 1x1-3x3-3x3 and avgpool-1x1 branches."""

    def __init__(self, in_channels, pool_features, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.branch1x1 = conv(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = conv(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = conv(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, padding=1)
        self.branch_pool = conv(in_channels, pool_features, kernel_size=1)

    def _forward(self, x):
        return [self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
                self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))), self.branch_pool(_avg3(x))]

    def forward(self, x):
        return cat(self._forward(x), 1)


class InceptionB(nn.Module):
    """35x35 -> 17x17: a strided 3x3, a strided 1x1-3x3-3x3 and a max pool."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.branch3x3 = conv(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, stride=2)

    def _forward(self, x):
        return [self.branch3x3(x), self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))), _max3(x)]

    def forward(self, x):
        return cat(self._forward(x), 1)


def _row(conv, cin, cout):
    return conv(cin, cout, kernel_size=(1, 7), padding=(0, 3))


def _col(conv, cin, cout):
    return conv(cin, cout, kernel_size=(7, 1), padding=(3, 0))


class InceptionC(nn.Module):
    """17x17 grid: 7x7 convolutions factored into 1x7 and 7x1."""

    def __init__(self, in_channels, channels_7x7, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        c7 = channels_7x7
        self.branch1x1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = _row(conv, c7, c7)
        self.branch7x7_3 = _col(conv, c7, 192)
        self.branch7x7dbl_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = _col(conv, c7, c7)
        self.branch7x7dbl_3 = _row(conv, c7, c7)
        self.branch7x7dbl_4 = _col(conv, c7, c7)
        self.branch7x7dbl_5 = _row(conv, c7, 192)
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d = x
        for i in range(1, 6):
            d = getattr(self, f"branch7x7dbl_{i}")(d)
        return [self.branch1x1(x), b7, d, self.branch_pool(_avg3(x))]

    def forward(self, x):
        return cat(self._forward(x), 1)


class InceptionD(nn.Module):
    """17x17 -> 8x8: a 1x1-strided 3x3, a 1x1-1x7-7x1-strided 3x3 and a max pool."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.branch3x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = conv(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = _row(conv, 192, 192)
        self.branch7x7x3_3 = _col(conv, 192, 192)
        self.branch7x7x3_4 = conv(192, 192, kernel_size=3, stride=2)

    def _forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return [b3, b7, _max3(x)]

    def forward(self, x):
        return cat(self._forward(x), 1)


class InceptionE(nn.Module):
    """8x8 grid: the 3x3 branches end in parallel 1x3 and 3x1 convolutions, concatenated."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.branch1x1 = conv(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = conv(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = conv(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = conv(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = conv(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = conv(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = conv(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = conv(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        a = self.branch3x3_1(x)
        b = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return [self.branch1x1(x), cat([self.branch3x3_2a(a), self.branch3x3_2b(a)], 1),
                cat([self.branch3x3dbl_3a(b), self.branch3x3dbl_3b(b)], 1), self.branch_pool(_avg3(x))]

    def forward(self, x):
        return cat(self._forward(x), 1)


class InceptionAux(nn.Module):
    """The auxiliary classifier on the 17x17 grid: 5x5/3 average pool, 1x1 and 5x5 convolutions, linear."""

    def __init__(self, in_channels, num_classes, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.conv0 = conv(in_channels, 128, kernel_size=1)
        self.conv1 = conv(128, 768, kernel_size=5)
        self.conv1.stddev = 0.01
        self.fc = nn.Linear(768, num_classes)
        self.fc.stddev = 0.001

    def forward(self, x):
        x = self.conv1(self.conv0(F.avg_pool2d(x, kernel_size=5, stride=3)))
        return self.fc(flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1))


class Inception3(nn.Module):
    def __init__(self, num_classes=1000, aux_logits=True, transform_input=False, inception_blocks=None,
                 init_weights=None, dropout=0.5):
        super().__init__()
        if inception_blocks is None:
            inception_blocks = [BasicConv2d, InceptionA, InceptionB, InceptionC, InceptionD, InceptionE, InceptionAux]
        if init_weights is None:
            warnings.warn("The default weight initialization of inception_v3 will be changed in future releases of "
                          "torchvision. If you wish to keep the old behavior (which leads to long initialization times"
                          " due to scipy/scipy#11299), please set init_weights=True.", FutureWarning)
            init_weights = True
        if len(inception_blocks) != 7:
            raise ValueError(f"length of inception_blocks should be 7 instead of {len(inception_blocks)}")
        conv, block_a, block_b, block_c, block_d, block_e, aux = inception_blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.Conv2d_1a_3x3 = conv(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = conv(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = conv(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = conv(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = conv(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = block_a(192, pool_features=32)
        self.Mixed_5c = block_a(256, pool_features=64)
        self.Mixed_5d = block_a(288, pool_features=64)
        self.Mixed_6a = block_b(288)
        self.Mixed_6b = block_c(768, channels_7x7=128)
        self.Mixed_6c = block_c(768, channels_7x7=160)
        self.Mixed_6d = block_c(768, channels_7x7=160)
        self.Mixed_6e = block_c(768, channels_7x7=192)
        self.AuxLogits = aux(768, num_classes) if aux_logits else None
        self.Mixed_7a = block_d(768)
        self.Mixed_7b = block_e(1280)
        self.Mixed_7c = block_e(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(2048, num_classes)
        if init_weights:
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    # a layer may carry its own scale (the auxiliary head's); 0.1 otherwise
                    nn.init.trunc_normal_(m.weight, mean=0.0, std=float(getattr(m, "stddev", 0.1)), a=-2, b=2)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)

    def _transform_input(self, x):
        return transform_imagenet_input(x) if self.transform_input else x

    def _forward(self, x):
        x = self.Conv2d_2b_3x3(self.Conv2d_2a_3x3(self.Conv2d_1a_3x3(x)))
        x = self.maxpool2(self.Conv2d_4a_3x3(self.Conv2d_3b_1x1(self.maxpool1(x))))
        for name in ("Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e"):
            x = getattr(self, name)(x)
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = self.Mixed_7c(self.Mixed_7b(self.Mixed_7a(x)))
        x = flatten(self.dropout(self.avgpool(x)), 1)
        return self.fc(x), aux

    def eager_outputs(self, x, aux):
        return InceptionOutputs(x, aux) if self.training and self.aux_logits else x

    def forward(self, x):
        return self.eager_outputs(*self._forward(self._transform_input(x)))


class Inception_V3_Weights(WeightsEnum):
    IMAGENET1K_V1 = imagenet_weights(
        "inception_v3_google-0cc3c7bd.pth", num_params=27161264, min_size=(75, 75),
        recipe="https://github.com/pytorch/vision/tree/main/references/classification#inception-v3",
        acc1=77.294, acc5=93.45, ops=5.713, file_size=103.903, docs="These weights are ported from the original paper.",
        crop_size=299, resize_size=342)
    DEFAULT = IMAGENET1K_V1


@register_model()
def inception_v3(*, weights: Optional[Inception_V3_Weights] = None, progress: bool = True, **kwargs) -> Inception3:
    """Inception v3. With weights the model takes inputs normalised for ImageNet (``transform_input``) and keeps
    the checkpoint's auxiliary head."""
    weights = handle_weights("inception_v3", Inception_V3_Weights, weights, kwargs,
                             default_weights=Inception_V3_Weights.IMAGENET1K_V1)
    keep_aux = kwargs.get("aux_logits", True)
    if weights is not None:
        kwargs.setdefault("transform_input", True)
        override_param(kwargs, "aux_logits", True)
        override_param(kwargs, "init_weights", False)
        override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = Inception3(**kwargs)
    if weights is not None:
        load_weights(model, weights, progress)
        if not keep_aux:
            model.aux_logits = False
            model.AuxLogits = None
    return model
