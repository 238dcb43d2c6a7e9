"""torchvision.transforms on npgrad: the v1 classes, ``functional`` and the auto-augment policies.

Pillow (the ``vision`` extra) is imported only when a PIL image is handled; tensor images need NumPy alone.
"""
from . import functional
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transforms_all
from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide

__all__ = list(_transforms_all) + ["AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide", "AugMix",
                                   "functional"]
