"""AutoAugment (Cubuk et al., 2019), RandAugment (Cubuk et al., 2020), TrivialAugmentWide (Müller & Hutter,
2021) and AugMix (Hendrycks et al., 2020) on top of ``transforms.functional``."""
import math
from enum import Enum

import numpy as np

from ... import nn
from ...tensor import Tensor
from . import functional as F
from .functional import InterpolationMode

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _affine(img, interpolation, fill, translate=(0, 0), shear=(0.0, 0.0), center=None):
    return F.affine(img, angle=0.0, translate=list(translate), scale=1.0, shear=list(shear),
                    interpolation=interpolation, fill=fill, center=center)


_OPS = {
    "ShearX": lambda img, m, i, f: _affine(img, i, f, shear=(math.degrees(math.atan(m)), 0.0), center=[0, 0]),
    "ShearY": lambda img, m, i, f: _affine(img, i, f, shear=(0.0, math.degrees(math.atan(m))), center=[0, 0]),
    "TranslateX": lambda img, m, i, f: _affine(img, i, f, translate=(int(m), 0)),
    "TranslateY": lambda img, m, i, f: _affine(img, i, f, translate=(0, int(m))),
    "Rotate": lambda img, m, i, f: F.rotate(img, m, interpolation=i, fill=f),
    "Brightness": lambda img, m, i, f: F.adjust_brightness(img, 1.0 + m),
    "Color": lambda img, m, i, f: F.adjust_saturation(img, 1.0 + m),
    "Contrast": lambda img, m, i, f: F.adjust_contrast(img, 1.0 + m),
    "Sharpness": lambda img, m, i, f: F.adjust_sharpness(img, 1.0 + m),
    "Posterize": lambda img, m, i, f: F.posterize(img, int(m)),
    "Solarize": lambda img, m, i, f: F.solarize(img, m),
    "AutoContrast": lambda img, m, i, f: F.autocontrast(img),
    "Equalize": lambda img, m, i, f: F.equalize(img),
    "Invert": lambda img, m, i, f: F.invert(img),
    "Identity": lambda img, m, i, f: img,
}


def _apply_op(img, op_name, magnitude, interpolation, fill):
    if op_name not in _OPS:
        raise ValueError(f"The provided operator {op_name} is not recognized.")
    return _OPS[op_name](img, magnitude, interpolation, fill)


class AutoAugmentPolicy(Enum):
    """The policies learned on ImageNet, CIFAR-10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# The AutoAugment paper's sub-policies: "op prob magnitude-bin" pairs, '-' for ops without a magnitude.
_POLICY_TABLES = {
    AutoAugmentPolicy.IMAGENET: """
        Posterize .4 8, Rotate .6 9; Solarize .6 5, AutoContrast .6 -; Equalize .8 -, Equalize .6 -;
        Posterize .6 7, Posterize .6 6; Equalize .4 -, Solarize .2 4; Equalize .4 -, Rotate .8 8;
        Solarize .6 3, Equalize .6 -; Posterize .8 5, Equalize 1 -; Rotate .2 3, Solarize .6 8;
        Equalize .6 -, Posterize .4 6; Rotate .8 8, Color .4 0; Rotate .4 9, Equalize .6 -;
        Equalize 0 -, Equalize .8 -; Invert .6 -, Equalize 1 -; Color .6 4, Contrast 1 8;
        Rotate .8 8, Color 1 2; Color .8 8, Solarize .8 7; Sharpness .4 7, Invert .6 -;
        ShearX .6 5, Equalize 1 -; Color .4 0, Equalize .6 -; Equalize .4 -, Solarize .2 4;
        Solarize .6 5, AutoContrast .6 -; Invert .6 -, Equalize 1 -; Color .6 4, Contrast 1 8;
        Equalize .8 -, Equalize .6 -""",
    AutoAugmentPolicy.CIFAR10: """
        Invert .1 -, Contrast .2 6; Rotate .7 2, TranslateX .3 9; Sharpness .8 1, Sharpness .9 3;
        ShearY .5 8, TranslateY .7 9; AutoContrast .5 -, Equalize .9 -; ShearY .2 7, Posterize .3 7;
        Color .4 3, Brightness .6 7; Sharpness .3 9, Brightness .7 9; Equalize .6 -, Equalize .5 -;
        Contrast .6 7, Sharpness .6 5; Color .7 7, TranslateX .5 8; Equalize .3 -, AutoContrast .4 -;
        TranslateY .4 3, Sharpness .2 6; Brightness .9 6, Color .2 8; Solarize .5 2, Invert 0 -;
        Equalize .2 -, AutoContrast .6 -; Equalize .2 -, Equalize .6 -; Color .9 9, Equalize .6 -;
        AutoContrast .8 -, Solarize .2 8; Brightness .1 3, Color .7 0; Solarize .4 5, AutoContrast .9 -;
        TranslateY .9 9, TranslateY .7 9; AutoContrast .9 -, Solarize .8 3; Equalize .8 -, Invert .1 -;
        TranslateY .7 9, AutoContrast .9 -""",
    AutoAugmentPolicy.SVHN: """
        ShearX .9 4, Invert .2 -; ShearY .9 8, Invert .7 -; Equalize .6 -, Solarize .6 6;
        Invert .9 -, Equalize .6 -; Equalize .6 -, Rotate .9 3; ShearX .9 4, AutoContrast .8 -;
        ShearY .9 8, Invert .4 -; ShearY .9 5, Solarize .2 6; Invert .9 -, AutoContrast .8 -;
        Equalize .6 -, Rotate .9 3; ShearX .9 4, Solarize .3 3; ShearY .8 8, Invert .7 -;
        Equalize .9 -, TranslateY .6 6; Invert .9 -, Equalize .6 -; Contrast .3 3, Rotate .8 4;
        Invert .8 -, TranslateY 0 2; ShearY .7 6, Solarize .4 8; Invert .6 -, Rotate .8 4;
        ShearY .3 7, TranslateX .9 3; ShearX .1 6, Invert .6 -; Solarize .7 2, TranslateY .6 7;
        ShearY .8 4, Invert .8 -; ShearX .7 9, TranslateY .8 3; ShearY .8 5, AutoContrast .7 -;
        ShearX .7 2, Invert .1 -""",
}


def _parse_policy(text):
    policies = []
    for sub in text.split(";"):
        steps = []
        for step in sub.split(","):
            name, prob, mag = step.split()
            steps.append((name, float(prob), None if mag == "-" else int(mag)))
        policies.append(tuple(steps))
    return policies


def _linspace(lo, hi, n):
    """float32 bins filled from both ends (the first half up from ``lo``, the rest down from ``hi``), which is
    how PyTorch's linspace rounds them."""
    from ...factories import from_numpy
    step = np.float32((hi - lo) / (n - 1)) if n > 1 else np.float32(0)
    i = np.arange(n)
    up = np.float32(lo) + step * i.astype(np.float32)
    down = np.float32(hi) - step * (n - 1 - i).astype(np.float32)
    return from_numpy(np.where(i < n / 2, up, down).astype(np.float32))


def _posterize_bits(num_bins, span, top=8):
    from ...factories import from_numpy
    bins = np.arange(num_bins, dtype=np.float32) / np.float32((num_bins - 1) / span)
    return from_numpy((top - np.round(bins)).astype(np.int32))


def _none():
    from ..._convert import tensor
    return tensor(0.0)


def _common_space(num_bins, shear, translate_hw, rotate, enhance, bits_span):
    """{op: (magnitudes, signed)} shared by the policies; ``translate_hw`` the max shift along (y, x)."""
    space = {
        "ShearX": (_linspace(0.0, shear, num_bins), True),
        "ShearY": (_linspace(0.0, shear, num_bins), True),
        "TranslateX": (_linspace(0.0, translate_hw[1], num_bins), True),
        "TranslateY": (_linspace(0.0, translate_hw[0], num_bins), True),
        "Rotate": (_linspace(0.0, rotate, num_bins), True),
    }
    for name in ("Brightness", "Color", "Contrast", "Sharpness"):
        space[name] = (_linspace(0.0, enhance, num_bins), True)
    space["Posterize"] = (_posterize_bits(num_bins, bits_span), False)
    space["Solarize"] = (_linspace(255.0, 0.0, num_bins), False)
    space["AutoContrast"] = (_none(), False)
    space["Equalize"] = (_none(), False)
    return space


def _keep(module, **settings):
    for key, value in settings.items():
        setattr(module, key, value)


def _fill_for(img, fill):
    """One fill value per channel for a tensor image (None stays None)."""
    if fill is None or not isinstance(img, Tensor):
        return fill
    if isinstance(fill, (list, tuple)):
        return list(map(float, fill))
    return [float(fill)] * F.get_dimensions(img)[0]


def _randint(n):
    from ...factories import randint
    return int(randint(n, (1,)).item())


class AutoAugment(nn.Module):
    """Apply one randomly picked sub-policy of ``policy`` (two ops, each with its probability)."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        _keep(self, policy=policy, interpolation=interpolation, fill=fill)
        self.policies = self._get_policies(policy=policy)

    def _get_policies(self, policy):
        if policy not in _POLICY_TABLES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return _parse_policy(_POLICY_TABLES[policy])

    def _augmentation_space(self, num_bins, image_size):
        h, w = image_size
        space = _common_space(num_bins, 0.3, (150.0 / 331.0 * h, 150.0 / 331.0 * w), 30.0, 0.9, 4)
        space["Invert"] = (_none(), False)
        return space

    @staticmethod
    def get_params(transform_num):
        """(policy index, the two ops' uniform draws, the two ops' signs)."""
        from ...factories import rand, randint
        return _randint(transform_num), rand((2,)), randint(2, (2,))

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        h, w = F.get_dimensions(img)[1:]
        index, probs, signs = self.get_params(len(self.policies))
        space = self._augmentation_space(10, (h, w))
        for k, (name, p, bin_index) in enumerate(self.policies[index]):
            if probs[k] <= p:
                magnitudes, signed = space[name]
                magnitude = float(magnitudes[bin_index].item()) if bin_index is not None else 0.0
                if signed and signs[k] == 0:
                    magnitude *= -1.0
                img = _apply_op(img, name, magnitude, interpolation=self.interpolation, fill=fill)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


class RandAugment(nn.Module):
    """Apply ``num_ops`` uniformly picked ops, all at bin ``magnitude`` of ``num_magnitude_bins``."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        _keep(self, num_ops=num_ops, magnitude=magnitude, num_magnitude_bins=num_magnitude_bins,
              interpolation=interpolation, fill=fill)

    def _augmentation_space(self, num_bins, image_size):
        h, w = image_size
        space = {"Identity": (_none(), False)}
        space.update(_common_space(num_bins, 0.3, (150.0 / 331.0 * h, 150.0 / 331.0 * w), 30.0, 0.9, 4))
        return space

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        h, w = F.get_dimensions(img)[1:]
        for _ in range(self.num_ops):
            space = self._augmentation_space(self.num_magnitude_bins, (h, w))
            name = list(space)[_randint(len(space))]
            magnitudes, signed = space[name]
            magnitude = 0.0 if magnitudes.dim() == 0 else float(magnitudes[self.magnitude])
            if signed and _randint(2):
                magnitude *= -1.0
            img = _apply_op(img, name, magnitude, interpolation=self.interpolation, fill=fill)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
                f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation}, fill={self.fill})")


class TrivialAugmentWide(nn.Module):
    """Apply one uniformly picked op at a uniformly picked magnitude bin (the "wide" ranges)."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        _keep(self, num_magnitude_bins=num_magnitude_bins, interpolation=interpolation, fill=fill)

    def _augmentation_space(self, num_bins):
        space = {"Identity": (_none(), False)}
        space.update(_common_space(num_bins, 0.99, (32.0, 32.0), 135.0, 0.99, 6))
        return space

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        space = self._augmentation_space(self.num_magnitude_bins)
        name = list(space)[_randint(len(space))]
        magnitudes, signed = space[name]
        magnitude = float(magnitudes[_randint(len(magnitudes))].item()) if magnitudes.ndim > 0 else 0.0
        if signed and _randint(2):
            magnitude *= -1.0
        return _apply_op(img, name, magnitude, interpolation=self.interpolation, fill=fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class AugMix(nn.Module):
    """Mix ``mixture_width`` chains of random ops with Dirichlet(``alpha``) weights, then blend with the
    original by a Beta(``alpha``, ``alpha``) draw."""

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation=InterpolationMode.BILINEAR, fill=None):
        super().__init__()
        self._PARAMETER_MAX = 10
        if severity < 1 or severity > self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got {severity} instead.")
        _keep(self, severity=severity, mixture_width=mixture_width, chain_depth=chain_depth, alpha=alpha,
              all_ops=all_ops, interpolation=interpolation, fill=fill)

    def _augmentation_space(self, num_bins, image_size):
        h, w = image_size
        space = {
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, w / 3.0, num_bins), True),
            "TranslateY": (_linspace(0.0, h / 3.0, num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 4, top=4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (_none(), False),
            "Equalize": (_none(), False),
        }
        if self.all_ops:
            for name in ("Brightness", "Color", "Contrast", "Sharpness"):
                space[name] = (_linspace(0.0, 0.9, num_bins), True)
        return space

    def _sample_dirichlet(self, params):
        from ...distributions import Dirichlet
        return Dirichlet(params).sample()

    def forward(self, orig_img):
        from ..._convert import tensor
        h, w = F.get_dimensions(orig_img)[1:]
        img = orig_img if isinstance(orig_img, Tensor) else F.pil_to_tensor(orig_img)
        space = self._augmentation_space(self._PARAMETER_MAX, (h, w))
        shape = list(img.shape)
        batch = img.reshape([1] * max(4 - img.dim(), 0) + shape)
        batch_dims = [batch.size(0)] + [1] * (batch.dim() - 1)
        fill = _fill_for(batch, self.fill)
        weights = self._sample_dirichlet(tensor([self.alpha, self.alpha]).expand(batch_dims[0], -1))
        mixing = self._sample_dirichlet(tensor([self.alpha] * self.mixture_width).expand(batch_dims[0], -1))
        mixing = mixing * weights[:, 1].reshape(-1, 1)
        mix = weights[:, 0].reshape(batch_dims) * batch
        for chain in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else _randint_range(1, 4)
            for _ in range(depth):
                name = list(space)[_randint(len(space))]
                magnitudes, signed = space[name]
                magnitude = (float(magnitudes[_randint(self.severity)].item())
                             if magnitudes.ndim > 0 else 0.0)
                if signed and _randint(2):
                    magnitude *= -1.0
                aug = _apply_op(aug, name, magnitude, interpolation=self.interpolation, fill=fill)
            mix = mix + mixing[:, chain].reshape(batch_dims) * aug
        mix = mix.reshape(shape).to(dtype=img.dtype)
        return mix if isinstance(orig_img, Tensor) else F.to_pil_image(mix)

    def __repr__(self):
        return (f"{self.__class__.__name__}(severity={self.severity}, mixture_width={self.mixture_width}, "
                f"chain_depth={self.chain_depth}, alpha={self.alpha}, all_ops={self.all_ops}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


def _randint_range(lo, hi):
    from ...factories import randint
    return int(randint(lo, hi, (1,)).item())
