"""torchvision.transforms.v2.functional for plain PIL images and tensors: v1's kernels under v2's names and
signatures (``inpt`` first, interpolation also as a string), plus v2's own autocontrast, posterize and
equalize (which take float images)."""
import numpy as np

from ....dtypes import float32
from ....tensor import Tensor
from .. import _pil_ops as P
from .. import functional as _F
from ..functional import InterpolationMode
from ._core import ToImage, _to_dtype
from ._replayed import _autocontrast, _equalize, _posterize

__all__ = ["InterpolationMode", "to_image", "to_dtype", "to_pil_image", "pil_to_tensor", "convert_image_dtype",
           "resize", "center_crop", "crop", "pad", "horizontal_flip", "vertical_flip", "hflip", "vflip", "normalize",
           "rotate", "affine", "perspective", "resized_crop", "five_crop", "ten_crop", "adjust_brightness",
           "adjust_contrast", "adjust_saturation", "adjust_hue", "adjust_gamma", "adjust_sharpness", "rgb_to_grayscale",
           "to_grayscale", "grayscale_to_rgb", "gaussian_blur", "invert", "posterize", "solarize", "autocontrast",
           "equalize", "erase", "get_dimensions", "get_size", "get_num_channels"]

to_pil_image = _F.to_pil_image
pil_to_tensor = _F.pil_to_tensor
convert_image_dtype = _F.convert_image_dtype


def _mode(interpolation):
    return InterpolationMode(interpolation) if isinstance(interpolation, str) else interpolation


def to_image(inpt):
    """PIL image / H x W (x C) ndarray / tensor -> C x H x W tensor."""
    if not (isinstance(inpt, (Tensor, np.ndarray)) or P.is_pil(inpt)):
        raise TypeError(f"Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} "
                        "instead.")
    return ToImage().transform(inpt, {})


def to_dtype(inpt, dtype=float32, scale=False):
    return _to_dtype(inpt, dtype, scale)


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    from ._core import Resize
    return Resize(size, _mode(interpolation), max_size, antialias).transform(inpt, {})


def center_crop(inpt, output_size):
    return _F.center_crop(inpt, output_size)


def crop(inpt, top, left, height, width):
    return _F.crop(inpt, top, left, height, width)


def pad(inpt, padding, fill=None, padding_mode="constant"):
    return _F.pad(inpt, padding, fill=0 if fill is None else fill, padding_mode=padding_mode)


def horizontal_flip(inpt):
    return _F.hflip(inpt)


def vertical_flip(inpt):
    return _F.vflip(inpt)


hflip = horizontal_flip
vflip = vertical_flip


def normalize(inpt, mean, std, inplace=False):
    return _F.normalize(inpt, mean, std, inplace)


def rotate(inpt, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    return _F.rotate(inpt, angle, _mode(interpolation), expand, center, fill)


def affine(inpt, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    return _F.affine(inpt, angle, translate, scale, shear, _mode(interpolation), fill, center)


def perspective(inpt, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None,
                coefficients=None):
    if coefficients is None:
        if startpoints is None or endpoints is None:
            raise ValueError("The perspective transform needs either the startpoints and endpoints or the "
                             "coefficients.")
        return _F.perspective(inpt, startpoints, endpoints, _mode(interpolation), fill)
    if startpoints is not None or endpoints is not None:
        raise ValueError("The startpoints/endpoints and the coefficients shouldn't be defined concurrently.")
    if len(coefficients) != 8:
        raise ValueError(f"Argument coefficients should have 8 float values, but got {len(coefficients)}.")
    return _F._perspective_from(inpt, [float(c) for c in coefficients], _mode(interpolation), fill)


def resized_crop(inpt, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return _F.resized_crop(inpt, top, left, height, width, size, _mode(interpolation), antialias)


def five_crop(inpt, size):
    return _F.five_crop(inpt, size)


def ten_crop(inpt, size, vertical_flip=False):
    return _F.ten_crop(inpt, size, vertical_flip)


def adjust_brightness(inpt, brightness_factor):
    return _F.adjust_brightness(inpt, brightness_factor)


def adjust_contrast(inpt, contrast_factor):
    return _F.adjust_contrast(inpt, contrast_factor)


def adjust_saturation(inpt, saturation_factor):
    return _F.adjust_saturation(inpt, saturation_factor)


def adjust_hue(inpt, hue_factor):
    return _F.adjust_hue(inpt, hue_factor)


def adjust_gamma(inpt, gamma, gain=1):
    return _F.adjust_gamma(inpt, gamma, gain)


def adjust_sharpness(inpt, sharpness_factor):
    return _F.adjust_sharpness(inpt, sharpness_factor)


def rgb_to_grayscale(inpt, num_output_channels=1):
    return _F.rgb_to_grayscale(inpt, num_output_channels)


to_grayscale = rgb_to_grayscale


def grayscale_to_rgb(inpt):
    """A one-channel image repeated to three channels (three-channel images are returned as they are)."""
    if P.is_pil(inpt):
        return inpt.convert("RGB")
    if get_num_channels(inpt) == 3:
        return inpt
    return inpt.repeat(*([1] * (inpt.dim() - 3)), 3, 1, 1)


def gaussian_blur(inpt, kernel_size, sigma=None):
    return _F.gaussian_blur(inpt, kernel_size, sigma)


def invert(inpt):
    return _F.invert(inpt)


def posterize(inpt, bits):
    return _posterize(inpt, bits)


def solarize(inpt, threshold):
    return _F.solarize(inpt, threshold)


def autocontrast(inpt):
    return _autocontrast(inpt)


def equalize(inpt):
    return _equalize(inpt)


def erase(inpt, i, j, h, w, v, inplace=False):
    return _F.erase(inpt, i, j, h, w, v, inplace)


def get_dimensions(inpt):
    return _F.get_dimensions(inpt)


def get_size(inpt):
    """[height, width] (v1's get_image_size is [width, height])."""
    return get_dimensions(inpt)[1:]


def get_num_channels(inpt):
    return get_dimensions(inpt)[0]
