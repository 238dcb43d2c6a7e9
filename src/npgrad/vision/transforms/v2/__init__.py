"""torchvision.transforms.v2's core transforms for plain PIL-image and tensor samples (no tv_tensors)."""
from ..functional import InterpolationMode
from ._core import (CenterCrop, ColorJitter, Compose, Grayscale, Normalize, Pad, PILToTensor, RandomCrop,
                    RandomHorizontalFlip, RandomResizedCrop, RandomVerticalFlip, Resize, ToDtype, ToImage, ToPILImage,
                    ToPureTensor, Transform)
from ._replayed import (AugMix, AutoAugment, GaussianBlur, RandAugment, RandomAdjustSharpness, RandomAffine,
                        RandomAutocontrast, RandomEqualize, RandomErasing, RandomGrayscale, RandomInvert,
                        RandomPerspective, RandomPosterize, RandomRotation, RandomSolarize, TrivialAugmentWide,
                        ElasticTransform)
from ._more import (ConvertImageDtype, CutMix, FiveCrop, Identity, Lambda, MixUp, RandomApply,
                    RandomChannelPermutation, RandomChoice, RandomOrder, RandomResize, RandomShortestSize, RGB,
                    TenCrop, ToTensor)
from ..autoaugment import AutoAugmentPolicy
from . import functional  # noqa: E402  (v2.functional, as torchvision exposes it)

__all__ = ["CenterCrop", "ColorJitter", "Compose", "Grayscale", "InterpolationMode", "Normalize", "Pad", "PILToTensor",
           "RandomCrop", "RandomHorizontalFlip", "RandomResizedCrop", "RandomVerticalFlip", "Resize", "ToDtype",
           "ToImage", "ToPILImage", "ToPureTensor", "Transform", "AugMix", "AutoAugment", "AutoAugmentPolicy",
           "GaussianBlur", "RandAugment", "RandomAdjustSharpness", "RandomAffine", "RandomAutocontrast",
           "RandomEqualize", "RandomErasing", "RandomGrayscale", "RandomInvert", "RandomPerspective", "RandomPosterize",
           "RandomRotation", "RandomSolarize", "TrivialAugmentWide", "ConvertImageDtype", "CutMix", "FiveCrop",
           "Identity", "Lambda", "MixUp", "RandomApply", "RandomChoice", "RandomOrder", "RGB", "TenCrop",
           "ElasticTransform", "RandomChannelPermutation", "RandomResize", "RandomShortestSize", "ToTensor"]
