"""torchvision.transforms' classes (v1). Random ones draw from npgrad's global generator through the same
``get_params`` static methods as torchvision's, so seeding ``npgrad.manual_seed`` makes them repeatable."""
import math
import numbers
import random
import warnings
from collections.abc import Sequence

import numpy as np

from ... import nn
from ...tensor import Tensor
from . import functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int

__all__ = ["Compose", "ToTensor", "PILToTensor", "ConvertImageDtype", "ToPILImage", "Normalize", "Resize",
           "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "RandomResizedCrop", "FiveCrop", "TenCrop",
           "LinearTransformation", "ColorJitter", "RandomRotation", "RandomAffine", "Grayscale", "RandomGrayscale",
           "RandomPerspective", "RandomErasing", "GaussianBlur", "InterpolationMode", "RandomInvert",
           "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize",
           "ElasticTransform"]


def _rand():
    from ...factories import rand
    return rand(1).item()


def _uniform(lo, hi):
    from ...factories import empty
    return empty(1).uniform_(lo, hi).item()


def _randint(lo, hi):
    from ...factories import randint
    return int(randint(lo, hi, size=(1,)).item())


_HW = "Please provide only two dimensions (h, w) for size."
_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _store(obj, **attrs):
    for key, value in attrs.items():
        setattr(obj, key, value)


def _as_mode(interpolation):
    plain_int = isinstance(interpolation, int) and not isinstance(interpolation, bool)
    return _interpolation_modes_from_int(interpolation) if plain_int else interpolation


def _hw(size, message=_HW):
    """(h, w) from an int, a 1-sequence or a 2-sequence (kept as given)."""
    if isinstance(size, numbers.Number):
        return (int(size),) * 2
    n = len(size)
    if n == 1 and isinstance(size, Sequence):
        return (size[0],) * 2
    if n != 2:
        raise ValueError(message)
    return size


def _need_sequence(x, name, lengths):
    wanted = " or ".join(map(str, lengths)) if len(lengths) > 1 else lengths[0]
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {wanted}.")
    if len(x) not in lengths:
        raise ValueError(f"{name} should be a sequence of length {wanted}.")


def _angle_range(x, name, lengths=(2,)):
    """A symmetric [-x, x] from one non-negative number, else the sequence itself, as floats."""
    if not isinstance(x, numbers.Number):
        _need_sequence(x, name, lengths)
        return list(map(float, x))
    if x < 0:
        raise ValueError(f"If {name} is a single number, it must be positive.")
    return [float(-x), float(x)]


def _checked_fill(fill):
    if fill is None:
        return 0
    if isinstance(fill, (Sequence, numbers.Number)):
        return fill
    raise TypeError("Fill should be either a sequence or a number.")


def _fill_for(img, fill):
    """A tensor image takes one fill value per channel."""
    if not isinstance(img, Tensor):
        return fill
    if isinstance(fill, numbers.Real) and not isinstance(fill, bool):
        return [float(fill)] * F.get_dimensions(img)[0]
    return list(map(float, fill))


def _lines(transforms):
    return "".join(f"\n    {t}" for t in transforms)


class Compose:
    """Apply ``transforms`` one after the other."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for step in self.transforms:
            img = step(img)
        return img

    def __repr__(self):
        return f"{type(self).__name__}({_lines(self.transforms)}\n)"


class _Stateless:
    """A callable with no settings: its repr is just ``Name()``."""

    def __repr__(self):
        return f"{type(self).__name__}()"


class ToTensor(_Stateless):
    """PIL image / H x W x C ndarray -> C x H x W float tensor in [0, 1] (uint8 inputs are divided by 255)."""

    def __call__(self, pic):
        return F.to_tensor(pic)


class PILToTensor(_Stateless):
    """PIL image -> C x H x W tensor of the same dtype, values unchanged."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)


class Lambda(_Stateless):
    """Wrap a user function as a transform."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


class ConvertImageDtype(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, dtype=self.dtype)

    def __repr__(self):
        return f"{type(self).__name__}()"


class ToPILImage:
    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, mode=self.mode)

    def __repr__(self):
        inner = f"mode={self.mode}" if self.mode is not None else ""
        return f"{type(self).__name__}({inner})"


class _Described(nn.Module):
    """A module transform whose repr lists ``_shown`` attributes as ``name=value``."""

    _shown = ()

    def __repr__(self):
        body = ", ".join(f"{k}={getattr(self, k)}" for k in self._shown)
        return f"{type(self).__name__}({body})"


class Normalize(_Described):
    _shown = ("mean", "std")

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        _store(self, mean=mean, std=std, inplace=inplace)

    def forward(self, tensor):
        return F.normalize(tensor, mean=self.mean, std=self.std, inplace=self.inplace)


class Resize(_Described):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and not 1 <= len(size) <= 2:
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        _store(self, size=size, max_size=max_size, interpolation=_as_mode(interpolation), antialias=antialias)

    def forward(self, img):
        return F.resize(img, self.size, interpolation=self.interpolation, max_size=self.max_size,
                        antialias=self.antialias)

    def __repr__(self):
        return (f"{type(self).__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(_Described):
    _shown = ("size",)

    def __init__(self, size):
        super().__init__()
        self.size = _hw(size)

    def forward(self, img):
        return F.center_crop(img, output_size=self.size)


class Pad(_Described):
    _shown = ("padding", "fill", "padding_mode")

    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        numeric = (numbers.Number, tuple, list)
        if not isinstance(padding, numeric):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, numeric):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in _PAD_MODES:
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element "
                             "tuple")
        _store(self, padding=padding, fill=fill, padding_mode=padding_mode)

    def forward(self, img):
        return F.pad(img, padding=self.padding, fill=self.fill, padding_mode=self.padding_mode)


class RandomTransforms:
    """A list of transforms applied in a random way (subclasses say how)."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __call__(self, *args, **kwargs):
        raise NotImplementedError()

    def __repr__(self):
        return f"{type(self).__name__}({_lines(self.transforms)}\n)"


class RandomApply(nn.Module):
    """Apply all of ``transforms`` with probability ``p``."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        _store(self, transforms=transforms, p=p)

    def forward(self, img):
        if _rand() <= self.p:
            for step in self.transforms:
                img = step(img)
        return img

    def __repr__(self):
        return f"{type(self).__name__}(\n    p={self.p}{_lines(self.transforms)}\n)"


class RandomOrder(RandomTransforms):
    """Apply ``transforms`` in a random order (Python's ``random``, as torchvision)."""

    def __call__(self, img):
        indices = list(range(len(self.transforms)))
        random.shuffle(indices)
        for k in indices:
            img = self.transforms[k](img)
        return img


class RandomChoice(RandomTransforms):
    """Apply one of ``transforms``, picked with weights ``p`` (Python's ``random``, as torchvision)."""

    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if not (p is None or isinstance(p, Sequence)):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        (chosen,) = random.choices(self.transforms, weights=self.p, k=1)
        return chosen(*args)

    def __repr__(self):
        return super().__repr__() + f"(p={self.p})"


class RandomCrop(_Described):
    @staticmethod
    def get_params(img, output_size):
        """(top, left, height, width) of a uniformly placed crop of ``output_size``."""
        _, height, width = F.get_dimensions(img)
        th, tw = output_size
        if th > height or tw > width:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(height, width)}")
        if (th, tw) == (height, width):
            return 0, 0, height, width
        return _randint(0, height - th + 1), _randint(0, width - tw + 1), th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        _store(self, size=tuple(_hw(size)), padding=padding, pad_if_needed=pad_if_needed, fill=fill,
               padding_mode=padding_mode)

    def forward(self, img):
        def padded(x, sides):
            return F.pad(x, sides, fill=self.fill, padding_mode=self.padding_mode)
        if self.padding is not None:
            img = padded(img, self.padding)
        want_h, want_w = self.size
        if self.pad_if_needed:
            width = F.get_dimensions(img)[2]
            if width < want_w:
                img = padded(img, [want_w - width, 0])
            height = F.get_dimensions(img)[1]
            if height < want_h:
                img = padded(img, [0, want_h - height])
        return F.crop(img, *self.get_params(img, self.size))

    _shown = ("size", "padding")


class _Flip(_Described):
    _shown = ("p",)
    _flip = None

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return type(self)._flip(img) if _rand() < self.p else img


class RandomHorizontalFlip(_Flip):
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_Flip):
    _flip = staticmethod(F.vflip)


class RandomPerspective(_Described):
    _shown = ("p",)

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        _store(self, p=p, interpolation=_as_mode(interpolation), distortion_scale=distortion_scale,
               fill=_checked_fill(fill))

    @staticmethod
    def get_params(width, height, distortion_scale):
        """Four corners moved inwards by up to ``distortion_scale`` of half the image: (start, end) points."""
        dx = int(distortion_scale * (width // 2))
        dy = int(distortion_scale * (height // 2))

        def near(extent, reach):  # one coordinate within ``reach`` of 0
            return _randint(0, reach + 1)

        def far(extent, reach):  # ... or of the far edge
            return _randint(extent - reach - 1, extent)
        ends = [[near(width, dx), near(height, dy)], [far(width, dx), near(height, dy)],
                [far(width, dx), far(height, dy)], [near(width, dx), far(height, dy)]]
        starts = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return starts, ends

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        if _rand() >= self.p:
            return img
        _, height, width = F.get_dimensions(img)
        starts, ends = self.get_params(width, height, self.distortion_scale)
        return F.perspective(img, starts, ends, interpolation=self.interpolation, fill=fill)


def _log_uniform(bounds):
    lo, hi = (float(np.float32(math.log(b))) for b in bounds)
    return math.exp(_uniform(lo, hi))


def _check_scale_ratio(scale, ratio):
    if not isinstance(scale, Sequence):
        raise TypeError("Scale should be a sequence")
    if not isinstance(ratio, Sequence):
        raise TypeError("Ratio should be a sequence")
    if scale[0] > scale[1] or ratio[0] > ratio[1]:
        warnings.warn("Scale and ratio should be of kind (min, max)")


class RandomResizedCrop(nn.Module):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
        super().__init__()
        self.size = _hw(size)
        _check_scale_ratio(scale, ratio)
        _store(self, interpolation=_as_mode(interpolation), antialias=antialias, scale=scale, ratio=ratio)

    @staticmethod
    def get_params(img, scale, ratio):
        """(top, left, height, width): area a uniform fraction in ``scale`` of the image's, log-uniform aspect
        ratio in ``ratio``; ten tries, then a centre crop clamped to ``ratio``."""
        _, rows, cols = F.get_dimensions(img)
        for _ in range(10):
            target = rows * cols * _uniform(scale[0], scale[1])
            aspect = _log_uniform(ratio)
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < h <= rows and 0 < w <= cols:
                return _randint(0, rows - h + 1), _randint(0, cols - w + 1), h, w
        lo, hi = min(ratio), max(ratio)
        h, w = rows, cols
        if cols / rows < lo:
            h = int(round(cols / lo))
        elif cols / rows > hi:
            w = int(round(rows * hi))
        return (rows - h) // 2, (cols - w) // 2, h, w

    def forward(self, img):
        box = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, *box, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self):
        def rounded(pair):
            return tuple(round(v, 4) for v in pair)
        return (f"{type(self).__name__}(size={self.size}, scale={rounded(self.scale)}, "
                f"ratio={rounded(self.ratio)}, interpolation={self.interpolation.value}, "
                f"antialias={self.antialias})")


class FiveCrop(_Described):
    _shown = ("size",)

    def __init__(self, size):
        super().__init__()
        self.size = _hw(size)

    def forward(self, img):
        return F.five_crop(img, size=self.size)


class TenCrop(_Described):
    _shown = ("size", "vertical_flip")

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        _store(self, size=_hw(size), vertical_flip=vertical_flip)

    def forward(self, img):
        return F.ten_crop(img, size=self.size, vertical_flip=self.vertical_flip)


class LinearTransformation(nn.Module):
    """Flatten a C x H x W tensor, subtract ``mean_vector``, multiply by ``transformation_matrix`` (whitening)."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        rows, cols = transformation_matrix.shape
        shape = tuple(transformation_matrix.size())
        if rows != cols:
            raise ValueError(f"transformation_matrix should be square. Got {shape} rectangular matrix.")
        if mean_vector.shape[0] != rows:
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} as any one of the "
                             f"dimensions of the transformation_matrix [{shape}]")
        if mean_vector.dtype != transformation_matrix.dtype:
            raise ValueError("Input tensors should have the same dtype. Got "
                             f"{transformation_matrix.dtype} and {mean_vector.dtype}.")
        _store(self, transformation_matrix=transformation_matrix, mean_vector=mean_vector)

    def forward(self, tensor):
        c, h, w = tensor.shape[-3:]
        size = self.transformation_matrix.shape[0]
        if c * h * w != size:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{c} x {h} x {w}] != {size}")
        rows = tensor.reshape(-1, size) - self.mean_vector
        return rows.matmul(self.transformation_matrix.to(rows.dtype)).reshape(tensor.shape)

    def __repr__(self):
        return (f"{type(self).__name__}(transformation_matrix={self.transformation_matrix.tolist()}, "
                f"mean_vector={self.mean_vector.tolist()})")


def _factor_range(value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
    """(lo, hi) for a jitter given as one spread about ``center`` or as a pair; None when it is a no-op."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        lo, hi = center - float(value), center + float(value)
        if clip_first_on_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        lo, hi = map(float, value)
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if not bound[0] <= lo <= hi <= bound[1]:
        raise ValueError(f"{name} values should be between {bound}, but got {[lo, hi]}.")
    return None if lo == hi == center else (lo, hi)


class ColorJitter(_Described):
    _shown = ("brightness", "contrast", "saturation", "hue")

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        for name, value in (("brightness", brightness), ("contrast", contrast), ("saturation", saturation)):
            setattr(self, name, _factor_range(value, name))
        self.hue = _factor_range(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """A random order of the four adjustments and a uniform factor for each one enabled."""
        from ...factories import randperm
        order = randperm(4)
        draws = [float(_uniform(*span)) if span is not None else None
                 for span in (brightness, contrast, saturation, hue)]
        return (order, *draws)

    def forward(self, img):
        order, *factors = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        ops = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for k in order.tolist():
            if factors[k] is not None:
                img = ops[k](img, factors[k])
        return img


class RandomRotation(nn.Module):
    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self.degrees = _angle_range(degrees, "degrees")
        if center is not None:
            _need_sequence(center, "center", (2,))
        _store(self, center=center, interpolation=_as_mode(interpolation), expand=expand, fill=_checked_fill(fill))

    @staticmethod
    def get_params(degrees):
        lo, hi = map(float, degrees[:2])
        return float(_uniform(lo, hi))

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        return F.rotate(img, self.get_params(self.degrees), interpolation=self.interpolation, expand=self.expand,
                        center=self.center, fill=fill)

    def __repr__(self):
        shown = [f"degrees={self.degrees}", f"interpolation={self.interpolation.value}", f"expand={self.expand}"]
        shown += [f"center={self.center}"] if self.center is not None else []
        shown += [f"fill={self.fill}"] if self.fill is not None else []
        return f"{type(self).__name__}({', '.join(shown)})"


class RandomAffine(nn.Module):
    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        super().__init__()
        self.degrees = _angle_range(degrees, "degrees")
        if translate is not None:
            _need_sequence(translate, "translate", (2,))
            if any(not 0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            _need_sequence(scale, "scale", (2,))
            if any(s <= 0 for s in scale):
                raise ValueError("scale values should be positive")
        if shear is not None:
            shear = _angle_range(shear, "shear", (2, 4))
        fill = _checked_fill(fill)
        if center is not None:
            _need_sequence(center, "center", (2,))
        _store(self, translate=translate, scale=scale, shear=shear, interpolation=_as_mode(interpolation),
               fill=fill, center=center)

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)), each uniform in its range; ``img_size`` is [w, h]."""
        angle = float(_uniform(float(degrees[0]), float(degrees[1])))
        shift = (0, 0)
        if translate is not None:
            reach = [float(frac * extent) for frac, extent in zip(translate, img_size)]
            shift = tuple(int(round(_uniform(-r, r))) for r in reach)
        zoom = 1.0 if scale_ranges is None else float(_uniform(scale_ranges[0], scale_ranges[1]))
        shear = [0.0, 0.0]
        if shears is not None:
            for axis in range(len(shears) // 2):
                shear[axis] = float(_uniform(shears[2 * axis], shears[2 * axis + 1]))
        return angle, shift, zoom, tuple(shear)

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        angle, shift, zoom, shear = self.get_params(self.degrees, self.translate, self.scale, self.shear,
                                                    [width, height])
        return F.affine(img, angle, list(shift), zoom, list(shear), interpolation=self.interpolation, fill=fill,
                        center=self.center)

    def __repr__(self):
        shown = [f"degrees={self.degrees}"]
        optional = [("translate", self.translate), ("scale", self.scale), ("shear", self.shear)]
        shown += [f"{k}={v}" for k, v in optional if v is not None]
        if self.interpolation != InterpolationMode.NEAREST:
            shown.append(f"interpolation={self.interpolation.value}")
        if self.fill != 0:
            shown.append(f"fill={self.fill}")
        if self.center is not None:
            shown.append(f"center={self.center}")
        return f"{type(self).__name__}({', '.join(shown)})"


class Grayscale(_Described):
    _shown = ("num_output_channels",)

    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)


class RandomGrayscale(_Described):
    _shown = ("p",)

    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        bands = F.get_dimensions(img)[0]
        return F.rgb_to_grayscale(img, bands) if _rand() < self.p else img


class RandomErasing(_Described):
    """Erase a random rectangle of a tensor image with probability ``p`` (Zhong et al., 2017)."""

    _shown = ("p", "scale", "ratio", "value", "inplace")

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        _check_scale_ratio(scale, ratio)
        if not (0 <= scale[0] and scale[1] <= 1):
            raise ValueError("Scale should be between 0 and 1")
        if not 0 <= p <= 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        _store(self, p=p, scale=scale, ratio=ratio, value=value, inplace=inplace)

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """(i, j, h, w, v): a box of area fraction in ``scale`` and log-uniform aspect in ``ratio``, filled
        with ``value`` (per channel) or standard normal noise when ``value`` is None; ten tries, else the
        whole image unchanged."""
        from ...factories import empty
        from ...dtypes import float32
        from ..._convert import tensor
        bands, rows, cols = img.shape[-3:]
        for _ in range(10):
            target = rows * cols * _uniform(scale[0], scale[1])
            aspect = _log_uniform(ratio)
            h = int(round(math.sqrt(target * aspect)))
            w = int(round(math.sqrt(target / aspect)))
            if h >= rows or w >= cols:
                continue
            patch = (empty([bands, h, w], dtype=float32).normal_() if value is None
                     else tensor(value)[:, None, None])
            return _randint(0, rows - h + 1), _randint(0, cols - w + 1), h, w, patch
        return 0, 0, rows, cols, img

    def forward(self, img):
        if _rand() >= self.p:
            return img
        value = self.value
        if isinstance(value, str):
            value = None
        elif isinstance(value, numbers.Number):
            value = [float(value)]
        elif isinstance(value, tuple):
            value = list(value)
        bands = img.shape[-3]
        if value is not None and len(value) not in (1, bands):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{bands} (number of input channels)")
        box = self.get_params(img, scale=self.scale, ratio=self.ratio, value=value)
        return F.erase(img, *box, inplace=self.inplace)


class GaussianBlur(_Described):
    _shown = ("kernel_size", "sigma")

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _hw(kernel_size, "Kernel size should be a tuple/list of two integers")
        if any(k <= 0 or k % 2 == 0 for k in self.kernel_size):
            raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma,) * 2
        elif not (isinstance(sigma, Sequence) and len(sigma) == 2):
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        elif not 0.0 < sigma[0] <= sigma[1]:
            raise ValueError("sigma values should be positive and of the form (min, max).")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        s = self.get_params(*self.sigma)
        return F.gaussian_blur(img, kernel_size=self.kernel_size, sigma=[s, s])


class _RandomOp(nn.Module):
    """Apply one functional op with probability ``p``; ``_extra`` names its settings, shown in the repr."""

    _extra = ()

    def __init__(self, *settings, p=0.5):
        super().__init__()
        for name, value in zip(self._extra, settings):
            setattr(self, name, value)
        self.p = p

    def _op(self, img):
        raise NotImplementedError

    def forward(self, img):
        return self._op(img) if _rand() < self.p else img

    def __repr__(self):
        args = "".join(f"{name}={getattr(self, name)}," for name in self._extra)
        return f"{type(self).__name__}({args}p={self.p})"


class RandomInvert(_RandomOp):
    def __init__(self, p=0.5):
        super().__init__(p=p)

    def _op(self, img):
        return F.invert(img)


class RandomPosterize(_RandomOp):
    _extra = ("bits",)

    def __init__(self, bits, p=0.5):
        super().__init__(bits, p=p)

    def _op(self, img):
        return F.posterize(img, bits=self.bits)


class RandomSolarize(_RandomOp):
    _extra = ("threshold",)

    def __init__(self, threshold, p=0.5):
        super().__init__(threshold, p=p)

    def _op(self, img):
        return F.solarize(img, threshold=self.threshold)


class RandomAdjustSharpness(_RandomOp):
    _extra = ("sharpness_factor",)

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(sharpness_factor, p=p)

    def _op(self, img):
        return F.adjust_sharpness(img, sharpness_factor=self.sharpness_factor)


class RandomAutocontrast(_RandomOp):
    def __init__(self, p=0.5):
        super().__init__(p=p)

    def _op(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomOp):
    def __init__(self, p=0.5):
        super().__init__(p=p)

    def _op(self, img):
        return F.equalize(img)


def _pair_of_floats(value, name):
    if not isinstance(value, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
    if isinstance(value, Sequence) and len(value) != 2:
        raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
    return [float(value), float(value)] if isinstance(value, float) else value


class ElasticTransform(nn.Module):
    """Displace every pixel by smoothed uniform noise: ``alpha`` scales it, ``sigma`` smooths it."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        alpha = _pair_of_floats(alpha, "alpha")
        sigma = _pair_of_floats(sigma, "sigma")
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = list(map(float, fill))
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got {type(fill)}")
        _store(self, alpha=alpha, sigma=sigma, interpolation=_as_mode(interpolation), fill=fill)

    @staticmethod
    def get_params(alpha, sigma, size):
        """A 1 x H x W x 2 displacement: uniform noise in [-1, 1] per axis, Gaussian-smoothed (kernel
        8 sigma + 1, made odd), scaled by alpha over that axis' length."""
        from ...factories import rand
        from ...ops.movement import cat

        def field(axis):
            noise = rand([1, 1] + list(size)) * 2 - 1
            if sigma[axis] > 0.0:
                k = int(8 * sigma[axis] + 1)
                k += 1 - k % 2
                noise = F.gaussian_blur(noise, [k, k], list(sigma))
            return noise * alpha[axis] / size[axis]
        return cat([field(0), field(1)], 1).permute([0, 2, 3, 1])

    def forward(self, tensor):
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self):
        return (f"{type(self).__name__}(alpha={self.alpha}, sigma={self.sigma}, interpolation={self.interpolation}, "
                f"fill={self.fill})")
