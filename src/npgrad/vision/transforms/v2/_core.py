"""The core of torchvision.transforms.v2 for plain inputs (PIL images, tensors, anything nested in tuples,
lists and dicts): each call samples its random parameters once and applies them to every image in the
sample. Without tv_tensors, the first plain tensor of a sample is the image; later tensors (labels) and
other leaves pass through untouched, which is torchvision's rule for plain tensors."""
import math
import numbers
from collections.abc import Sequence

import numpy as np

from .... import nn
from ....tensor import Tensor
from ..transforms import RandomResizedCrop as _V1ResizedCrop
from .. import functional as F
from .. import _pil_ops as P
from ..functional import InterpolationMode

_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _flatten(obj, leaves):
    """Leaves of nested tuples/lists/dicts in order, and a function that rebuilds the structure."""
    if isinstance(obj, (tuple, list)):
        makers = [_flatten(item, leaves) for item in obj]
        kind = type(obj)
        return lambda it: kind(m(it) for m in makers)
    if isinstance(obj, dict):
        makers = {key: _flatten(value, leaves) for key, value in obj.items()}
        return lambda it: {key: m(it) for key, m in makers.items()}
    leaves.append(obj)
    return lambda it: next(it)


def _mode(interpolation):
    if isinstance(interpolation, str):
        return InterpolationMode(interpolation)
    return F._mode(interpolation)


def _uniform(lo, hi):
    from ....factories import empty
    return empty(1).uniform_(lo, hi).item()


def _randint(lo, hi):
    from ....factories import randint
    return int(randint(lo, hi, size=()).item())


def _rand():
    from ....factories import rand
    return rand(1).item()


class Transform(nn.Module):
    """Base of the v2 transforms: ``make_params`` once per call, then ``transform`` on each image leaf."""

    _passes_pil = True

    def _wanted(self, leaf):
        return isinstance(leaf, Tensor) or P.is_pil(leaf)

    def make_params(self, flat_inputs):
        return {}

    def transform(self, inpt, params):
        raise NotImplementedError

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = []
        rebuild = _flatten(sample, leaves)
        chosen, tensor_taken = [], False
        for leaf in leaves:
            take = self._wanted(leaf)
            if take and isinstance(leaf, Tensor):
                take, tensor_taken = not tensor_taken, True
            chosen.append(take)
        params = self.make_params([leaf for leaf, take in zip(leaves, chosen) if take])
        out = [self.transform(leaf, params) if take else leaf for leaf, take in zip(leaves, chosen)]
        return rebuild(iter(out))

    def extra_repr(self):
        parts = []
        for name, value in vars(self).items():
            if name.startswith("_") or name == "training":
                continue
            if isinstance(value, (bool, int, float, str, tuple, list, InterpolationMode)):
                parts.append(f"{name}={value}")
        return ", ".join(parts)

    def __repr__(self):
        return f"{type(self).__name__}({self.extra_repr()})"


def _image_size(flat_inputs):
    for leaf in flat_inputs:
        if isinstance(leaf, Tensor) or P.is_pil(leaf):
            return F.get_dimensions(leaf)
    raise TypeError("No image was found in the sample")


class Compose(Transform):
    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        if not transforms:
            raise ValueError("Pass at least one transform")
        self.transforms = transforms

    def forward(self, *inputs):
        unpack = len(inputs) > 1
        out = inputs
        for step in self.transforms:
            out = step(*inputs)
            inputs = out if unpack else (out,)
        return out

    def __repr__(self):
        body = "".join(f"\n      {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class ToImage(Transform):
    """PIL image / H x W (x C) ndarray / tensor -> C x H x W tensor (its dtype kept)."""

    def _wanted(self, leaf):
        return super()._wanted(leaf) or isinstance(leaf, np.ndarray)

    def transform(self, inpt, params):
        from ....factories import from_numpy
        if isinstance(inpt, np.ndarray):
            arr = inpt[:, :, None] if inpt.ndim == 2 else inpt
            return from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
        if P.is_pil(inpt):
            return F.pil_to_tensor(inpt)
        return inpt


class ToPureTensor(Transform):
    def transform(self, inpt, params):
        return inpt


class PILToTensor(Transform):
    def _wanted(self, leaf):
        return P.is_pil(leaf)

    def transform(self, inpt, params):
        return F.pil_to_tensor(inpt)


class ToPILImage(Transform):
    def __init__(self, mode=None):
        super().__init__()
        self.mode = mode

    def _wanted(self, leaf):
        return isinstance(leaf, (Tensor, np.ndarray))

    def transform(self, inpt, params):
        return F.to_pil_image(inpt, mode=self.mode)


_BITS = {"uint8": 8, "int8": 7, "int16": 15, "uint16": 16, "int32": 31, "uint32": 32, "int64": 63}


def _to_dtype(image, dtype, scale):
    if image.dtype == dtype or not scale:
        return image.to(dtype)
    src_float, dst_float = image.dtype.is_floating_point, dtype.is_floating_point
    if src_float and dst_float:
        return image.to(dtype)
    if src_float:
        if (image.dtype.itemsize, dtype.itemsize) in ((4, 4), (4, 8), (8, 8)) and dtype.name.startswith("int"):
            raise RuntimeError(f"The conversion from {image.dtype} to {dtype} cannot be performed safely.")
        top = float(np.iinfo(dtype.np).max)
        return image.mul(top + 1.0 - 1e-3).to(dtype)
    if dst_float:
        return image.to(dtype).mul_(1.0 / float(np.iinfo(image.dtype.np).max))
    shift = _BITS[dtype.name] - _BITS[image.dtype.name]
    if shift < 0:
        return image.bitwise_right_shift(-shift).to(dtype)
    return image.to(dtype).bitwise_left_shift(shift)


class ToDtype(Transform):
    """Cast the image to ``dtype`` (a dtype, or a {type or "others": dtype} dict); ``scale`` rescales the
    values to the new dtype's range."""

    def __init__(self, dtype, scale=False):
        super().__init__()
        self.dtype = dtype
        self.scale = scale

    def _wanted(self, leaf):
        return isinstance(leaf, Tensor)

    def transform(self, inpt, params):
        dtype = self.dtype
        if isinstance(dtype, dict):
            if type(inpt) in dtype:
                dtype = dtype[type(inpt)]
            elif "others" in dtype:
                dtype = dtype["others"]
            else:
                kind = "<class 'npgrad.Tensor'>" if type(inpt) is Tensor else str(type(inpt))
                raise ValueError(
                    f"No dtype was specified for type {kind}. If you only need to convert the dtype of "
                    "images or videos, you can just pass e.g. dtype=npgrad.float32. If you're passing a dict as "
                    'dtype, you can use "others" as a catch-all key e.g. dtype={tv_tensors.Mask: npgrad.int64, '
                    '"others": None} to pass-through the rest of the inputs.')
            if dtype is None:
                return inpt
        return _to_dtype(inpt, dtype, self.scale)


class Normalize(Transform):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.inplace = inplace

    def transform(self, inpt, params):
        if P.is_pil(inpt):
            raise TypeError(f"{type(self).__name__}() does not support PIL images.")
        return F.normalize(inpt, self.mean, self.std, inplace=self.inplace)


class Resize(Transform):
    def __init__(self, size, interpolation="bilinear", max_size=None, antialias=True):
        super().__init__()
        if isinstance(size, int):
            size = [size]
        elif isinstance(size, Sequence) and len(size) in (1, 2):
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"max_size must be an integer when size is None, but got {max_size} instead.")
        else:
            raise ValueError("size can be an integer, a sequence of one or two integers, or None, but got "
                             f"{size} instead.")
        self.size = size
        self.interpolation = interpolation if isinstance(interpolation, str) else _mode(interpolation)
        self.max_size = max_size
        self.antialias = antialias

    def transform(self, inpt, params):
        size = self.size
        if size is None:
            _, h, w = F.get_dimensions(inpt)
            longer = max(h, w)
            size = [int(self.max_size * h / longer), int(self.max_size * w / longer)]
            if h == longer:
                size[0] = self.max_size
            else:
                size[1] = self.max_size
            return F.resize(inpt, size, _mode(self.interpolation), antialias=self.antialias)
        return F.resize(inpt, size, _mode(self.interpolation), max_size=self.max_size, antialias=self.antialias)


def _hw(size):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return tuple(size)


class CenterCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _hw(size)

    def transform(self, inpt, params):
        return F.center_crop(inpt, output_size=list(self.size))


def _check_p(p):
    if not (isinstance(p, (int, float)) and 0.0 <= p <= 1.0):
        raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")


class _RandomFlip(Transform):
    _kernel = None

    def __init__(self, p=0.5):
        super().__init__()
        _check_p(p)
        self.p = p

    def forward(self, *inputs):
        if _rand() >= self.p:
            return inputs if len(inputs) > 1 else inputs[0]
        return super().forward(*inputs)

    def transform(self, inpt, params):
        return type(self)._kernel(inpt)


class RandomHorizontalFlip(_RandomFlip):
    _kernel = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    _kernel = staticmethod(F.vflip)


class RandomResizedCrop(Transform):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation="bilinear",
                 antialias=True):
        super().__init__()
        self.size = _hw(size)
        if not (isinstance(scale, Sequence) and len(scale) == 2):
            raise TypeError("Scale should be a sequence of two floats.")
        if not (isinstance(ratio, Sequence) and len(ratio) == 2):
            raise TypeError("Ratio should be a sequence of two floats.")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            import warnings
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation if isinstance(interpolation, str) else _mode(interpolation)
        self.antialias = antialias

    def make_params(self, flat_inputs):
        from ....factories import empty
        _, rows, cols = _image_size(flat_inputs)
        box = _V1ResizedCrop.get_params(empty(0, rows, cols), self.scale, self.ratio)
        return dict(zip(("top", "left", "height", "width"), box))

    def transform(self, inpt, params):
        return F.resized_crop(inpt, params["top"], params["left"], params["height"], params["width"],
                              list(self.size), _mode(self.interpolation), antialias=self.antialias)


class RandomCrop(Transform):
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = _hw(size)
        if padding is not None:
            # kept as [left, right, top, bottom], torchvision v2's order for this attribute
            if isinstance(padding, int):
                padding = [padding] * 4
            elif isinstance(padding, Sequence) and len(padding) in (1, 2, 4):
                n = len(padding)
                padding = [padding[0]] * 4 if n == 1 else (
                    [padding[0], padding[0], padding[1], padding[1]] if n == 2 else
                    [padding[0], padding[2], padding[1], padding[3]])
            else:
                raise ValueError(f"Padding must be an int or a 1, 2, or 4 element of tuple or list, got {padding}.")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"`padding_mode` must be one of {_PAD_MODES}, but got `{padding_mode}`.")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def make_params(self, flat_inputs):
        _, rows, cols = _image_size(flat_inputs)
        left, right, top, bottom = self.padding if self.padding is not None else (0, 0, 0, 0)
        rows, cols = rows + top + bottom, cols + left + right
        want_h, want_w = self.size
        if self.pad_if_needed:
            if rows < want_h:
                extra = want_h - rows
                top, bottom, rows = top + extra, bottom + extra, rows + 2 * extra
            if cols < want_w:
                extra = want_w - cols
                left, right, cols = left + extra, right + extra, cols + 2 * extra
        if rows < want_h or cols < want_w:
            raise ValueError(f"Required crop size {(want_h, want_w)} is larger than input image size {(rows, cols)}.")
        return {"padding": [left, top, right, bottom],
                "top": _randint(0, rows - want_h + 1) if rows > want_h else 0,
                "left": _randint(0, cols - want_w + 1) if cols > want_w else 0}

    def transform(self, inpt, params):
        if any(params["padding"]):
            inpt = F.pad(inpt, params["padding"], fill=self.fill, padding_mode=self.padding_mode)
        return F.crop(inpt, params["top"], params["left"], *self.size)


def _jitter(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
    if value is None:
        return None
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        lo, hi = center - value, center + value
        if clip_first_on_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, Sequence) and len(value) == 2:
        lo, hi = (float(v) for v in value)
    else:
        raise TypeError(f"{name}={value} should be a single number or a sequence with length 2.")
    if not bound[0] <= lo <= hi <= bound[1]:
        raise ValueError(f"{name} values should be between {bound} and increasing, but got {[lo, hi]}.")
    return None if lo == hi == center else (float(lo), float(hi))


class ColorJitter(Transform):
    def __init__(self, brightness=None, contrast=None, saturation=None, hue=None):
        super().__init__()
        self.brightness = _jitter(brightness, "brightness")
        self.contrast = _jitter(contrast, "contrast")
        self.saturation = _jitter(saturation, "saturation")
        self.hue = _jitter(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def make_params(self, flat_inputs):
        from ....factories import randperm
        order = randperm(4).tolist()
        spans = (self.brightness, self.contrast, self.saturation, self.hue)
        return {"order": order, "factors": [None if s is None else float(_uniform(*s)) for s in spans]}

    def transform(self, inpt, params):
        ops = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for k in params["order"]:
            factor = params["factors"][k]
            if factor is not None:
                inpt = ops[k](inpt, factor)
        return inpt


class Grayscale(Transform):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt, params):
        return F.rgb_to_grayscale(inpt, num_output_channels=self.num_output_channels)


class Pad(Transform):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError(f"Padding must be an int or a 1, 2, or 4 element of tuple or list, got {padding}.")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"`padding_mode` must be one of {_PAD_MODES}, but got `{padding_mode}`.")
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def transform(self, inpt, params):
        return F.pad(inpt, self.padding, fill=self.fill, padding_mode=self.padding_mode)
