"""torchvision.transforms.functional on npgrad: every op takes a PIL image (done by Pillow) or a tensor image
(..., C, H, W), uint8 or float, and returns the same kind."""
import math
import numbers
import warnings
from enum import Enum

import numpy as np

from ... import dtypes as _dtypes
from ...tensor import Tensor
from . import _array_ops as K
from . import _pil_ops as P

_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


class InterpolationMode(Enum):
    """Interpolation modes; the PIL ones (BOX, HAMMING, LANCZOS) apply to PIL images only."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_PIL_FILTERS = {"nearest": 0, "nearest-exact": 0, "bilinear": 2, "bicubic": 3, "box": 4, "hamming": 5, "lanczos": 1}
_FROM_PIL_INT = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
                 4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}
pil_modes_mapping = {m: _PIL_FILTERS[m.value] for m in InterpolationMode}
_SEQ = (list, tuple)
_NUM_OR_SEQ = (numbers.Number, tuple, list)
_REAL = (int, float)


def _interpolation_modes_from_int(i):
    return _FROM_PIL_INT[i]


def _mode(interpolation):
    if isinstance(interpolation, int) and not isinstance(interpolation, bool):
        interpolation = _FROM_PIL_INT[interpolation]
    if type(interpolation) is not InterpolationMode:
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer "
                        "constant")
    return interpolation


# ---------------------------------------------------------------- tensor <-> array plumbing


def _is_tensor(img):
    return isinstance(img, Tensor)


def _require_image(img):
    if _is_tensor(img):
        if img.dim() < 2:
            raise TypeError("Tensor is not a torch image.")
        return
    if not P.is_pil(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def _arr(img):
    if img.dim() < 2:
        raise TypeError("Tensor is not a torch image.")
    return img.detach().numpy()


def _wrap(arr):
    from ...factories import from_numpy
    return from_numpy(np.ascontiguousarray(arr))


def _kernel(img, fn, *args):
    return _wrap(fn(_arr(img), *args))


def _np_dtype(dtype):
    return np.dtype(dtype.np)


# ---------------------------------------------------------------- sizes


def get_dimensions(img):
    """[channels, height, width]."""
    if _is_tensor(img):
        _require_image(img)
        return [1 if img.dim() == 2 else int(img.shape[-3]), int(img.shape[-2]), int(img.shape[-1])]
    if P.is_pil(img):
        return [P.num_channels(img), img.height, img.width]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_size(img):
    """[width, height]."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


# ---------------------------------------------------------------- conversions


def _pil_to_array(pic):
    if pic.mode == "1":
        arr = np.asarray(pic, dtype=np.uint8) * 255
    elif pic.mode == "I;16":
        arr = np.asarray(pic, dtype=np.int16)
    else:
        arr = np.array(pic, copy=True)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return arr


def to_tensor(pic):
    """PIL image or H x W x C ndarray -> C x H x W float tensor, uint8 scaled to [0, 1]."""
    from ...dtypes import get_default_dtype
    if not (P.is_pil(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray) and pic.ndim not in {2, 3}:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    ft = _np_dtype(get_default_dtype())
    arr = _pil_to_array(pic) if P.is_pil(pic) else (pic[:, :, None] if pic.ndim == 2 else pic)
    chw = np.ascontiguousarray(arr.transpose(2, 0, 1))
    if chw.dtype == np.uint8:
        return _wrap((chw.astype(ft) / ft.type(255)).astype(ft))
    return _wrap(chw)


def pil_to_tensor(pic):
    """PIL image -> C x H x W tensor of its own dtype, unscaled."""
    if not P.is_pil(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic, copy=True)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return _wrap(arr.transpose(2, 0, 1))


_MODES_BY_CHANNELS = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}
_ONE_CHANNEL = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16", np.dtype(np.int32): "I",
                np.dtype(np.float32): "F"}


def to_pil_image(pic, mode=None):
    """C x H x W tensor or H x W x C ndarray -> PIL image (float tensors are scaled by 255 unless mode "F")."""
    Image, _, _ = P.pil()
    if not (_is_tensor(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if _is_tensor(pic):
        if pic.dim() not in {2, 3}:
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.dim()} dimensions.")
        arr = pic.detach().numpy()
        if arr.ndim == 2:
            arr = arr[None]
        if arr.shape[-3] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {arr.shape[-3]} channels.")
        if arr.dtype.kind == "f" and mode != "F":
            arr = K.cast_float(arr * arr.dtype.type(255), np.dtype(np.uint8))
        arr = arr.transpose(1, 2, 0)
    else:
        if pic.ndim not in {2, 3}:
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        if arr.shape[-1] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {arr.shape[-1]} channels.")
    arr = np.ascontiguousarray(arr)
    bands = arr.shape[2]
    if bands == 1:
        arr = arr[:, :, 0]
        expected = _ONE_CHANNEL.get(arr.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. Should be {expected}")
        mode = expected
    else:
        allowed = _MODES_BY_CHANNELS[bands]
        if mode is not None and mode not in allowed:
            dims = {2: "2D", 3: "3D", 4: "4D"}[bands]
            raise ValueError(f"Only modes {allowed} are supported for {dims} inputs")
        if mode is None and arr.dtype == np.uint8:
            mode = allowed[0]
    if mode is None:
        raise TypeError(f"Input type {arr.dtype} is not supported")
    return Image.fromarray(arr, mode=mode)


def convert_image_dtype(image, dtype=_dtypes.float32):
    """Change a tensor image's dtype, rescaling its values to the new dtype's range."""
    if not _is_tensor(image):
        raise TypeError("Input img should be Tensor Image")
    arr = image.detach().numpy()
    out = K.convert_dtype(arr, _np_dtype(dtype))
    if out is None:
        raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
    return image if out is arr else _wrap(out)


def normalize(tensor, mean, std, inplace=False):
    """(x - mean) / std per channel; float tensors only, autograd kept."""
    from ...factories import as_tensor
    if not _is_tensor(tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.dtype.is_floating_point:
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.dim() < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{tensor.size()}")
    mean_t = as_tensor(np.asarray(mean, dtype=_np_dtype(tensor.dtype)))
    std_t = as_tensor(np.asarray(std, dtype=_np_dtype(tensor.dtype)))
    if (std_t.numpy() == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to division by zero.")
    if mean_t.dim() == 1:
        mean_t = mean_t.view(-1, 1, 1)
    if std_t.dim() == 1:
        std_t = std_t.view(-1, 1, 1)
    if inplace:
        return tensor.sub_(mean_t).div_(std_t)
    return tensor.sub(mean_t).div(std_t)


# ---------------------------------------------------------------- geometry


def _output_size(h, w, size, max_size):
    if isinstance(size, int) or len(size) == 1:
        wanted = size if isinstance(size, int) else size[0]
        portrait = w <= h
        short_side, long_side = min(h, w), max(h, w)
        edge_short, edge_long = wanted, int(wanted * long_side / short_side)
        if max_size is not None:
            if max_size <= wanted:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for the "
                                 f"smaller edge size = {[wanted]}")
            if edge_long > max_size:
                edge_short, edge_long = int(max_size * edge_short / edge_long), max_size
        return (edge_long, edge_short) if portrait else (edge_short, edge_long)
    return size[0], size[1]


def _check_size(size, max_size):
    if not isinstance(size, (int, list, tuple)):
        raise TypeError(f"Size should be int or sequence. Got {type(size)}")
    if type(size) in (list, tuple):
        if len(size) not in (1, 2):
            raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element "
                             "tuple/list")
        if len(size) != 1 and max_size is not None:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, "
                             "i.e. size should be an int or a sequence of length 1 in torchscript mode.")


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to ``size`` (h, w), or the shorter edge to ``size`` keeping the aspect ratio."""
    interpolation = _mode(interpolation)
    _check_size(size, max_size)
    _require_image(img)
    _, h, w = get_dimensions(img)
    out_h, out_w = _output_size(h, w, list(size) if isinstance(size, tuple) else size, max_size)
    if (out_h, out_w) == (h, w):
        return img
    if not _is_tensor(img):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
        return img.resize((out_w, out_h), _PIL_FILTERS[interpolation.value])
    mode = interpolation.value
    if mode not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise NotImplementedError(f"Interpolation mode '{mode}' is unsupported with Tensor input")
    if antialias is None:
        antialias = False
    if img.requires_grad and img.is_floating_point():
        return _resize_differentiable(img, (out_h, out_w), mode, bool(antialias))
    return _kernel(img, K.resize, (out_h, out_w), mode, bool(antialias))


def _resize_differentiable(img, size, mode, antialias):
    """Resize as two matmuls with the axes' weight matrices, so gradients flow to ``img``."""
    from ...factories import from_numpy
    from ._resample import weight_matrix
    h, w = img.shape[-2:]
    dt = _np_dtype(img.dtype)
    rows = from_numpy(weight_matrix(h, size[0], mode, antialias, dt))
    cols = from_numpy(np.ascontiguousarray(weight_matrix(w, size[1], mode, antialias, dt).T))
    return rows.matmul(img.matmul(cols))


def crop(img, top, left, height, width):
    """The region [top, top+height) x [left, left+width), zero-padded where it leaves the image."""
    _require_image(img)
    if not _is_tensor(img):
        box = (left, top, left + width, top + height)
        return img.crop(box)
    h, w = img.shape[-2:]
    if top >= 0 and left >= 0 and top + height <= h and left + width <= w:
        return img[..., top:top + height, left:left + width]
    return _kernel(img, K.crop, top, left, height, width)


def _pair(size):
    if not isinstance(size, _SEQ):
        return int(size), int(size)
    return (size[0], size[0]) if len(size) == 1 else size


def center_crop(img, output_size):
    """The central crop of ``output_size``, zero-padding an image smaller than it."""
    crop_h, crop_w = _pair(output_size)
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        border = [(crop_w - w) // 2 if crop_w > w else 0, (crop_h - h) // 2 if crop_h > h else 0,
                  (crop_w - w + 1) // 2 if crop_w > w else 0, (crop_h - h + 1) // 2 if crop_h > h else 0]
        img = pad(img, border, fill=0)
        _, h, w = get_dimensions(img)
        if crop_w == w and crop_h == h:
            return img
    return crop(img, int(round((h - crop_h) / 2.0)), int(round((w - crop_w) / 2.0)), crop_h, crop_w)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def _pad_sides(padding):
    if not isinstance(padding, _NUM_OR_SEQ):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, _SEQ) and len(padding) not in (1, 2, 4):
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element "
                         "tuple")
    if not isinstance(padding, _SEQ):
        padding = [padding]
    padding = [int(p) for p in padding]
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad (left, top, right, bottom); modes constant, edge, reflect, symmetric. Negative padding crops."""
    _require_image(img)
    if not (fill is None or isinstance(fill, _NUM_OR_SEQ)):
        raise TypeError("Got inappropriate fill arg")
    if type(padding_mode) is not str:
        raise TypeError("Got inappropriate padding_mode arg")
    sides = _pad_sides(padding)
    if padding_mode not in _PAD_MODES:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    left, top, right, bottom = sides
    if not _is_tensor(img):
        return P.pad(img, left, top, right, bottom, fill, padding_mode)
    if fill is None:
        fill = 0
    if isinstance(fill, _SEQ):
        if len(fill) != 1:
            raise TypeError("Got inappropriate fill arg")
        fill = fill[0]
    if img.requires_grad and padding_mode != "symmetric" and min(sides) >= 0:
        from ...nn.functional import pad as nn_pad  # differentiable; its reflect/replicate need a batch dim
        mode = {"constant": "constant", "edge": "replicate", "reflect": "reflect"}[padding_mode]
        batched = img if img.dim() > 3 or mode == "constant" else img.unsqueeze(0)
        out = nn_pad(batched, [left, right, top, bottom], mode=mode, value=float(fill) if mode == "constant" else None)
        return out if batched is img else out.squeeze(0)
    return _kernel(img, K.pad, left, top, right, bottom, fill, padding_mode)


def hflip(img):
    """Mirror left-right."""
    _require_image(img)
    if not _is_tensor(img):
        Image, _, _ = P.pil()
        return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return img.flip(-1)


def vflip(img):
    """Mirror top-bottom."""
    _require_image(img)
    if not _is_tensor(img):
        Image, _, _ = P.pil()
        return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    return img.flip(-2)


def _two_sizes(size):
    if not isinstance(size, _SEQ):
        return int(size), int(size)
    size = tuple(size) * 2 if len(size) == 1 else size
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return size


def five_crop(img, size):
    """The four corner crops and the centre crop: (tl, tr, bl, br, center)."""
    ch, cw = size = _two_sizes(size)
    _, h, w = get_dimensions(img)
    if cw > w or ch > h:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(h, w)}")
    corners = [(0, 0), (0, w - cw), (h - ch, 0), (h - ch, w - cw)]
    return tuple(crop(img, top, left, ch, cw) for top, left in corners) + (center_crop(img, [ch, cw]),)


def ten_crop(img, size, vertical_flip=False):
    """five_crop of the image and of its flip (horizontal unless ``vertical_flip``)."""
    size = _two_sizes(size)
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """The 2x3 matrix (flattened) mapping output pixels to input ones for rotation about ``center`` by
    ``angle`` degrees, then shear, scale and translation: M = T C R S C^-1, returned inverted."""
    rot = math.radians(angle)
    sx, sy = (math.radians(v) for v in shear)
    cx, cy = center
    tx, ty = translate
    # R S without the scale, as a 2x2 [[a, b], [c, d]]
    tilt = rot - sy
    cos_t, sin_t, cos_y, tan_x = math.cos(tilt), math.sin(tilt), math.cos(sy), math.tan(sx)
    a, c = cos_t / cos_y, sin_t / cos_y
    b = -(a * tan_x) - math.sin(rot)
    d = -(c * tan_x) + math.cos(rot)
    if inverted:
        m = np.array([[d, -b], [-c, a]]) / scale
        shift = m @ np.array([-cx - tx, -cy - ty]) + np.array([cx, cy])
    else:
        m = np.array([[a, b], [c, d]]) * scale
        shift = m @ np.array([-cx, -cy]) + np.array([cx + tx, cy + ty])
    return [float(m[0, 0]), float(m[0, 1]), float(shift[0]), float(m[1, 0]), float(m[1, 1]), float(shift[1])]


def _tensor_fill(fill):
    if fill is None or isinstance(fill, _SEQ):
        return fill if fill is None else list(map(float, fill))
    return [float(fill)]


def _check_grid_mode(interpolation):
    mode = interpolation.value
    if mode not in ("nearest", "bilinear"):
        raise ValueError(f"Interpolation mode '{mode}' is unsupported with Tensor input")
    return mode


def _check_angle_center(angle, center):
    if not isinstance(angle, _REAL):
        raise TypeError("Argument angle should be int or float")
    if not (center is None or isinstance(center, _SEQ)):
        raise TypeError("Argument center should be a sequence")


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (default: the image centre)."""
    interpolation = _mode(interpolation)
    _check_angle_center(angle, center)
    _require_image(img)
    if not _is_tensor(img):
        return img.rotate(angle, _PIL_FILTERS[interpolation.value], expand, center, **P.parse_fill(fill, img))
    _, h, w = get_dimensions(img)
    centre = [0.0, 0.0] if center is None else [c - s * 0.5 for c, s in zip(center, [w, h])]
    matrix = _get_inverse_affine_matrix(centre, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    mode = _check_grid_mode(interpolation)
    ow, oh = K.affine_output_size(matrix, w, h) if expand else (w, h)
    gx, gy = K.affine_grid(matrix, w, h, ow, oh)
    return _kernel(img, K.grid_transform, gx, gy, mode, _tensor_fill(fill))


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotation (clockwise, degrees), translation, scale and shear about the centre, image size kept."""
    interpolation = _mode(interpolation)
    _check_angle_center(angle, None)
    if not isinstance(translate, _SEQ):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    angle = float(angle)
    translate = list(translate)
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = shear * 2
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    _check_angle_center(0.0, center)
    _require_image(img)
    _, h, w = get_dimensions(img)
    if not _is_tensor(img):
        centre = [w * 0.5, h * 0.5] if center is None else list(center)
        matrix = _get_inverse_affine_matrix(centre, angle, [float(t) for t in translate], scale, shear)
        Image, _, _ = P.pil()
        return img.transform((w, h), Image.Transform.AFFINE, matrix, _PIL_FILTERS[interpolation.value],
                             **P.parse_fill(fill, img))
    centre = [0.0, 0.0] if center is None else [c - s * 0.5 for c, s in zip(center, [w, h])]
    matrix = _get_inverse_affine_matrix(centre, angle, [float(t) for t in translate], scale, shear)
    mode = _check_grid_mode(interpolation)
    gx, gy = K.affine_grid(matrix, w, h, w, h)
    return _kernel(img, K.grid_transform, gx, gy, mode, _tensor_fill(fill))


def _get_perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients of the homography taking ``endpoints`` to ``startpoints`` (least squares)."""
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(startpoints, endpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs += [sx, sy]
    sol = np.linalg.lstsq(np.array(rows, np.float64), np.array(rhs, np.float64), rcond=None)[0]
    return [float(v) for v in sol.astype(np.float32)]


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Warp so the four ``startpoints`` corners land on ``endpoints``."""
    if (len(startpoints), len(endpoints)) != (4, 4):
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} startpoints and "
                         f"{len(endpoints)} endpoints.")
    interpolation = _mode(interpolation)
    _require_image(img)
    coeffs = _get_perspective_coeffs(startpoints=startpoints, endpoints=endpoints)
    return _perspective_from(img, coeffs, interpolation, fill)


def _perspective_from(img, coeffs, interpolation, fill):
    """Warp by the 8 homography ``coeffs`` (output pixel -> input pixel)."""
    _require_image(img)
    if not _is_tensor(img):
        Image, _, _ = P.pil()
        return img.transform(img.size, Image.Transform.PERSPECTIVE, coeffs, _PIL_FILTERS[interpolation.value],
                             **P.parse_fill(fill, img))
    mode = _check_grid_mode(interpolation)
    _, h, w = get_dimensions(img)
    gx, gy = K.perspective_grid(coeffs, w, h)
    return _kernel(img, K.grid_transform, gx, gy, mode, _tensor_fill(fill))


def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Resample at the identity grid plus ``displacement`` (1 x H x W x 2, normalised units, x then y)."""
    interpolation = _mode(interpolation)
    if not _is_tensor(displacement):
        raise TypeError("Argument displacement should be a Tensor")
    _require_image(img)
    pixels = img if _is_tensor(img) else pil_to_tensor(img)
    expected = (1,) + tuple(pixels.shape[-2:]) + (2,)
    if tuple(displacement.shape) != expected:
        raise ValueError(f"Argument displacement shape should be {type(displacement.shape)(expected)}, but given "
                         f"{displacement.shape}")
    h, w = pixels.shape[-2:]
    # pixel centres in normalised coordinates: (2i + 1) / n - 1
    xs = (np.arange(w, dtype=np.float32) * 2 + 1 - w) / np.float32(w)
    ys = (np.arange(h, dtype=np.float32) * 2 + 1 - h) / np.float32(h)
    shift = displacement.detach().numpy().astype(np.float32)[0]
    gx = (xs[None, :] + shift[..., 0]).astype(np.float32)
    gy = (ys[:, None] + shift[..., 1]).astype(np.float32)
    out = _kernel(pixels, K.grid_transform, gx, gy, _check_grid_mode(interpolation), _tensor_fill(fill))
    return out if _is_tensor(img) else to_pil_image(out, mode=img.mode)


# ---------------------------------------------------------------- colour


def _tensor_colour(img, allowed=(1, 3)):
    if not _is_tensor(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    arr = _arr(img)
    K.check_channels(arr, list(allowed))
    return arr


def _nonneg(name, value):
    if value < 0:
        raise ValueError(f"{name} ({value}) is not non-negative.")


def adjust_brightness(img, brightness_factor):
    """Blend with black: 0 black, 1 the image, >1 brighter."""
    _nonneg("brightness_factor", brightness_factor)
    _require_image(img)
    if not _is_tensor(img):
        return P.enhance(img, "Brightness", brightness_factor)
    arr = _tensor_colour(img)
    return _wrap(K.blend(arr, np.zeros_like(arr), brightness_factor))


def adjust_contrast(img, contrast_factor):
    """Blend with the mean grey level."""
    _nonneg("contrast_factor", contrast_factor)
    _require_image(img)
    if not _is_tensor(img):
        return P.enhance(img, "Contrast", contrast_factor)
    return _wrap(K.contrast(_tensor_colour(img, (3, 1)), contrast_factor))


def adjust_saturation(img, saturation_factor):
    """Blend with the grayscale image."""
    _nonneg("saturation_factor", saturation_factor)
    _require_image(img)
    if not _is_tensor(img):
        return P.enhance(img, "Color", saturation_factor)
    arr = _tensor_colour(img)
    out = K.saturation(arr, saturation_factor)
    return img if out is arr else _wrap(out)


def adjust_hue(img, hue_factor):
    """Rotate the hue by ``hue_factor`` turns, in [-0.5, 0.5]."""
    if abs(hue_factor) > 0.5 or hue_factor != hue_factor:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _require_image(img)
    if not _is_tensor(img):
        return P.adjust_hue(img, hue_factor)
    arr = _tensor_colour(img)
    out = K.hue(arr, hue_factor)
    return img if out is arr else _wrap(out)


def adjust_gamma(img, gamma, gain=1):
    """gain * x ** gamma on values scaled to [0, 1]."""
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    _require_image(img)
    if not _is_tensor(img):
        return P.adjust_gamma(img, gamma, gain)
    return _wrap(K.gamma(_tensor_colour(img), gamma, gain))


def adjust_sharpness(img, sharpness_factor):
    """Blend with a smoothed copy: 0 blurred, 1 the image, 2 sharper."""
    _nonneg("sharpness_factor", sharpness_factor)
    _require_image(img)
    if not _is_tensor(img):
        return P.enhance(img, "Sharpness", sharpness_factor)
    arr = _tensor_colour(img)
    out = K.sharpness(arr, sharpness_factor)
    return img if out is arr else _wrap(out)


def rgb_to_grayscale(img, num_output_channels=1):
    """ITU-R 601-2 luma, repeated to ``num_output_channels`` (1 or 3)."""
    if num_output_channels != 1 and num_output_channels != 3:
        raise ValueError("num_output_channels should be either 1 or 3")
    _require_image(img)
    if not _is_tensor(img):
        return P.to_grayscale(img, num_output_channels)
    return _wrap(K.grayscale(_tensor_colour(img), num_output_channels))


def to_grayscale(img, num_output_channels=1):
    """PIL image -> grayscale (for tensors, use rgb_to_grayscale)."""
    if P.is_pil(img):
        if num_output_channels not in (1, 3):
            raise ValueError("num_output_channels should be either 1 or 3")
        return P.to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def _check_blur_args(kernel_size, sigma):
    if not isinstance(kernel_size, (int,) + _SEQ):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    sizes = [kernel_size] * 2 if type(kernel_size) is int else list(kernel_size)
    if len(sizes) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(sizes)}")
    if any(k % 2 == 0 or k < 0 for k in sizes):
        raise ValueError(f"kernel_size should have odd and positive integers. Got {sizes}")
    if sigma is None:
        # the sigma OpenCV picks for a kernel of that size
        sigma = [0.15 * k + 0.35 for k in sizes]
    if not isinstance(sigma, _REAL + _SEQ):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    sigmas = [float(sigma)] * 2 if not isinstance(sigma, _SEQ) else list(sigma)
    if len(sigmas) == 1:
        sigmas = sigmas * 2
    if len(sigmas) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigmas)}")
    if any(v <= 0.0 for v in sigmas):
        raise ValueError(f"sigma should have positive values. Got {sigmas}")
    return sizes, sigmas


def gaussian_blur(img, kernel_size, sigma=None):
    """Separable Gaussian blur with reflect padding (a PIL image goes through the tensor kernel)."""
    kernel_size, sigma = _check_blur_args(kernel_size, sigma)
    _require_image(img)
    if _is_tensor(img):
        return _kernel(img, K.gaussian_blur, kernel_size, sigma)
    out = _kernel(pil_to_tensor(img), K.gaussian_blur, kernel_size, sigma)
    return to_pil_image(out, mode=img.mode)


def _uint8_only(img):
    if img.dtype != _dtypes.uint8:
        raise TypeError(f"Only {_dtypes.uint8} image tensors are supported, but found {img.dtype}")


def invert(img):
    """max - x per channel."""
    _require_image(img)
    if not _is_tensor(img):
        _, _, ImageOps = P.pil()
        return ImageOps.invert(img)
    return _wrap(K.invert(_tensor_colour(img)))


def posterize(img, bits):
    """Keep the ``bits`` high bits of each uint8 value."""
    if not (0 <= bits <= 8):
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    _require_image(img)
    if not _is_tensor(img):
        _, _, ImageOps = P.pil()
        return ImageOps.posterize(img, bits=bits)
    _uint8_only(img)
    arr = _tensor_colour(img)
    return _wrap(arr & np.uint8((0xFF << (8 - bits)) & 0xFF))


def solarize(img, threshold):
    """Invert the values at or above ``threshold``."""
    _require_image(img)
    if not _is_tensor(img):
        _, _, ImageOps = P.pil()
        return ImageOps.solarize(img, threshold=threshold)
    arr = _tensor_colour(img)
    if threshold > K.max_value(arr.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return _wrap(K.solarize(arr, threshold))


def autocontrast(img):
    """Stretch each channel to the full range."""
    _require_image(img)
    if not _is_tensor(img):
        return P.pil()[2].autocontrast(img)
    return _wrap(K.autocontrast(_tensor_colour(img)))


def equalize(img):
    """Histogram equalisation per channel (uint8)."""
    _require_image(img)
    if not _is_tensor(img):
        _, _, ImageOps = P.pil()
        return ImageOps.equalize(img)
    _uint8_only(img)
    arr = _tensor_colour(img)
    return _wrap(K.equalize(arr))


def erase(img, i, j, h, w, v, inplace=False):
    """Overwrite img[..., i:i+h, j:j+w] with ``v`` (tensor images only)."""
    if not _is_tensor(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img
