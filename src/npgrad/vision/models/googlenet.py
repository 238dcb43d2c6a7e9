"""GoogLeNet (Szegedy et al., "Going Deeper with Convolutions"): nine Inception modules, with two auxiliary
classifiers used in training. torchvision's module tree, state_dict keys and outputs (``GoogLeNetOutputs`` in
training mode with ``aux_logits``)."""
import warnings
from collections import namedtuple
from typing import Optional

from ... import nn
from ...nn import functional as F
from ...ops import cat, flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "_GoogLeNetOutputs", "GoogLeNet_Weights", "googlenet"]

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])
_GoogLeNetOutputs = GoogLeNetOutputs


class BasicConv2d(nn.Module):
    """A bias-free convolution, batch norm (eps 1e-3, as the TensorFlow originals) and ReLU."""

    def __init__(self, in_channels, out_channels, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, **kwargs, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-3)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


class Inception(nn.Module):
    """Four parallel branches concatenated: 1x1; 1x1 then 3x3; 1x1 then 3x3 (the "5x5" branch, a 3x3 in the
    weights torchvision ported); 3x3 max pool then 1x1."""

    def __init__(self, in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj, conv_block=None):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.branch1 = conv(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(conv(in_channels, ch3x3red, kernel_size=1),
                                     conv(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(conv(in_channels, ch5x5red, kernel_size=1),
                                     conv(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=True),
                                     conv(in_channels, pool_proj, kernel_size=1))

    def _forward(self, x):
        return [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)]

    def forward(self, x):
        return cat(self._forward(x), 1)


class InceptionAux(nn.Module):
    """An auxiliary classifier on an intermediate feature map: 4x4 average pool, 1x1 conv, two linear layers."""

    def __init__(self, in_channels, num_classes, conv_block=None, dropout=0.7):
        super().__init__()
        conv = conv_block or BasicConv2d
        self.conv = conv(in_channels, 128, kernel_size=1)
        hidden = 1024
        self.fc1 = nn.Linear(128 * 4 * 4, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = flatten(self.conv(F.adaptive_avg_pool2d(x, (4, 4))), 1)
        return self.fc2(self.dropout(F.relu(self.fc1(x), inplace=True)))


def transform_imagenet_input(x):
    """Map an input normalised with ImageNet's mean/std to the [-1, 1] scaling the ported weights expect."""
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    return cat([x[:, c:c + 1] * (std[c] / 0.5) + (mean[c] - 0.5) / 0.5 for c in range(3)], 1)


# Inception modules: (name, in, 1x1, 3x3 reduce, 3x3, "5x5" reduce, "5x5", pool projection)
_MODULES = [("inception3a", 192, 64, 96, 128, 16, 32, 32), ("inception3b", 256, 128, 128, 192, 32, 96, 64),
            ("inception4a", 480, 192, 96, 208, 16, 48, 64), ("inception4b", 512, 160, 112, 224, 24, 64, 64),
            ("inception4c", 512, 128, 128, 256, 24, 64, 64), ("inception4d", 512, 112, 144, 288, 32, 64, 64),
            ("inception4e", 528, 256, 160, 320, 32, 128, 128), ("inception5a", 832, 256, 160, 320, 32, 128, 128),
            ("inception5b", 832, 384, 192, 384, 48, 128, 128)]


_POOL_AFTER = {"inception3b": ("maxpool3", 3), "inception4e": ("maxpool4", 2)}


def _ceil_pool(kernel):
    return nn.MaxPool2d(kernel, stride=2, ceil_mode=True)


class GoogLeNet(nn.Module):
    __constants__ = ["aux_logits", "transform_input"]

    def __init__(self, num_classes=1000, aux_logits=True, transform_input=False, init_weights=None, blocks=None,
                 dropout=0.2, dropout_aux=0.7):
        super().__init__()
        if blocks is None:
            blocks = [BasicConv2d, Inception, InceptionAux]
        if init_weights is None:
            warnings.warn("The default weight initialization of GoogleNet will be changed in future releases of "
                          "torchvision. If you wish to keep the old behavior (which leads to long initialization times"
                          " due to scipy/scipy#11299), please set init_weights=True.", FutureWarning)
            init_weights = True
        if len(blocks) != 3:
            raise ValueError(f"blocks length should be 3 instead of {len(blocks)}")
        conv_block, inception_block, aux_block = blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.conv1 = conv_block(3, 64, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = _ceil_pool(3)
        self.conv2 = conv_block(64, 64, kernel_size=1)
        self.conv3 = conv_block(64, 192, kernel_size=3, padding=1)
        self.maxpool2 = _ceil_pool(3)
        for name, *widths in _MODULES:
            setattr(self, name, inception_block(*widths))
            if name in _POOL_AFTER:  # the grid halves after 3b and after 4e
                setattr(self, _POOL_AFTER[name][0], _ceil_pool(_POOL_AFTER[name][1]))
        heads = [aux_block(c, num_classes, dropout=dropout_aux) if aux_logits else None for c in (512, 528)]
        self.aux1, self.aux2 = heads
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(1024, num_classes)
        if init_weights:
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    nn.init.trunc_normal_(m.weight, mean=0.0, std=0.01, a=-2, b=2)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)

    def _transform_input(self, x):
        return transform_imagenet_input(x) if self.transform_input else x

    def _forward(self, x):
        x = self.maxpool1(self.conv1(x))
        x = self.maxpool2(self.conv3(self.conv2(x)))
        x = self.maxpool3(self.inception3b(self.inception3a(x)))
        x = self.inception4a(x)
        aux1 = self.aux1(x) if self.aux1 is not None and self.training else None
        x = self.inception4d(self.inception4c(self.inception4b(x)))
        aux2 = self.aux2(x) if self.aux2 is not None and self.training else None
        x = self.maxpool4(self.inception4e(x))
        x = self.inception5b(self.inception5a(x))
        x = self.fc(self.dropout(flatten(self.avgpool(x), 1)))
        return x, aux2, aux1

    def eager_outputs(self, x, aux2, aux1):
        # the auxiliary logits exist only while training with the heads
        return GoogLeNetOutputs(x, aux2, aux1) if self.training and self.aux_logits else x

    def forward(self, x):
        return self.eager_outputs(*self._forward(self._transform_input(x)))


class GoogLeNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = imagenet_weights(
        "googlenet-1378be20.pth", num_params=6624904, min_size=(15, 15),
        recipe="https://github.com/pytorch/vision/tree/main/references/classification#googlenet",
        acc1=69.778, acc5=89.53, ops=1.498, file_size=49.731, docs="These weights are ported from the original paper.",
        crop_size=224)
    DEFAULT = IMAGENET1K_V1


@register_model()
def googlenet(*, weights: Optional[GoogLeNet_Weights] = None, progress: bool = True, **kwargs) -> GoogLeNet:
    """GoogLeNet (Inception v1). With weights, the auxiliary heads (untrained in the checkpoint) are dropped
    unless ``aux_logits=True`` is asked for."""
    weights = handle_weights("googlenet", GoogLeNet_Weights, weights, kwargs,
                             default_weights=GoogLeNet_Weights.IMAGENET1K_V1)
    keep_aux = kwargs.get("aux_logits", False)
    if weights is not None:
        # the checkpoint was trained on inputs scaled to [-1, 1] and holds the auxiliary heads' keys
        kwargs.setdefault("transform_input", True)
        override_param(kwargs, "aux_logits", True)
        override_param(kwargs, "init_weights", False)
        override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = GoogLeNet(**kwargs)
    if weights is not None:
        load_weights(model, weights, progress)
        if keep_aux:
            warnings.warn("auxiliary heads in the pretrained googlenet model are NOT pretrained, so make sure to "
                          "train them")
        else:
            model.aux_logits = False
            model.aux1 = None
            model.aux2 = None
    return model
