"""AlexNet (Krizhevsky et al. 2012, in the one-GPU form of "One weird trick"): torchvision's module tree."""
from typing import Optional

from ... import nn
from ...ops import flatten
from ._api import WeightsEnum, handle_weights, imagenet_weights, load_weights, override_param, register_model

__all__ = ["AlexNet", "AlexNet_Weights", "alexnet"]


class AlexNet(nn.Module):
    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        # (out channels, kernel, stride, padding, max-pool after) of the five convolutions
        plan = [(64, 11, 4, 2, True), (192, 5, 1, 2, True), (384, 3, 1, 1, False), (256, 3, 1, 1, False),
                (256, 3, 1, 1, True)]
        layers, channels = [], 3
        for out, k, s, p, pool in plan:
            layers += [nn.Conv2d(channels, out, kernel_size=k, stride=s, padding=p), nn.ReLU(inplace=True)]
            if pool:
                layers.append(nn.MaxPool2d(kernel_size=3, stride=2))
            channels = out
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes))

    def forward(self, x):
        return self.classifier(flatten(self.avgpool(self.features(x)), 1))


class AlexNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = imagenet_weights(
        "alexnet-owt-7be5be79.pth", num_params=61100840, min_size=(63, 63),
        recipe="https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
        acc1=56.522, acc5=79.066, ops=0.714, file_size=233.087,
        docs="These weights reproduce closely the results of the paper using a simplified training recipe.",
        crop_size=224)
    DEFAULT = IMAGENET1K_V1


@register_model()
def alexnet(*, weights: Optional[AlexNet_Weights] = None, progress: bool = True, **kwargs) -> AlexNet:
    """AlexNet ("ImageNet Classification with Deep Convolutional Neural Networks")."""
    weights = handle_weights("alexnet", AlexNet_Weights, weights, kwargs, default_weights=AlexNet_Weights.IMAGENET1K_V1)
    if weights is not None:
        override_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = AlexNet(**kwargs)
    if weights is not None:
        load_weights(model, weights, progress)
    return model
