"""torchvision.utils on npgrad: image grids, saving tensors as images, and drawing boxes, masks and keypoints.

The drawing functions render through Pillow's ``ImageDraw`` with the same primitives, coordinates and
colours as torchvision, so their uint8 results are the same pixels. Pillow is imported only when a function
that needs it runs.
"""
import math
import warnings

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["make_grid", "save_image", "draw_bounding_boxes", "draw_segmentation_masks", "draw_keypoints",
           "flow_to_image"]

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16)


def _is_float(t):
    return t.dtype in _FLOATS


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """Tile a batch (B, C, H, W) (or a list of (C, H, W) images) into one (C, H', W') image, ``nrow`` per row.

    Single-channel images become three-channel. ``normalize`` maps ``value_range`` (default: the min and max,
    of each image with ``scale_each``) onto [0, 1] after clamping to it. Built from Tensor ops (pad, cat),
    so gradients flow back to the images as in torchvision.
    """
    from ..nn.functional import pad
    from ..ops.movement import cat, stack

    if isinstance(tensor, (list, tuple)) and all(isinstance(t, Tensor) for t in tensor):
        tensor = stack(list(tensor), 0)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if tensor.dim() == 2:  # one (H, W) image
        tensor = tensor[None]
    if tensor.dim() == 3:  # one (C, H, W) image
        tensor = tensor[None]
    if tensor.dim() != 4:
        raise ValueError(f"make_grid expects a (B, C, H, W) batch, a (C, H, W) or (H, W) image, or a list of "
                         f"images; got a tensor of shape {tuple(tensor.shape)}")
    if tensor.shape[1] == 1:
        tensor = cat([tensor] * 3, 1)
    if normalize:
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")
        if not _is_float(tensor):
            raise RuntimeError(f"result type Float can't be cast to the desired output type {tensor.dtype}")
        tensor = (stack([_rescale(t, value_range) for t in tensor], 0) if scale_each
                  else _rescale(tensor, value_range))
    if tensor.shape[0] == 1:
        return tensor[0]
    count, channels, h, w = tensor.shape
    cols = min(nrow, count)
    rows = int(math.ceil(count / cols))
    if not (tensor.requires_grad and is_grad_enabled()):
        # nothing to differentiate: place the images with NumPy (8x faster than the pads and cats below)
        images = tensor.numpy()
        grid = np.full((channels, rows * (h + padding) + padding, cols * (w + padding) + padding), pad_value,
                       dtype=images.dtype)
        for k in range(count):
            top, left = (k // cols) * (h + padding) + padding, (k % cols) * (w + padding) + padding
            grid[:, top:top + h, left:left + w] = images[k]
        return Tensor._wrap(grid)
    # every cell is an image with `padding` above and to its left; the grid gets one more strip right and below
    cells = [pad(img, (padding, 0, padding, 0), value=pad_value) for img in tensor]
    blank = tensor.new_full((channels, h + padding, w + padding), pad_value)
    cells += [blank] * (rows * cols - count)
    grid = cat([cat(cells[r * cols:(r + 1) * cols], 2) for r in range(rows)], 1)
    return pad(grid, (0, padding, 0, padding), value=pad_value)


def _rescale(x, value_range):
    low, high = (float(x.min()), float(x.max())) if value_range is None else value_range
    return (x.clamp(low, high) - low) / max(high - low, 1e-5)


def save_image(tensor, fp, format=None, **kwargs):
    """Save ``make_grid(tensor, **kwargs)`` (values in [0, 1]) as an 8-bit image file through Pillow."""
    Image = _pil()[0]
    grid = make_grid(tensor, **kwargs).detach().numpy()
    kind = grid.dtype.type if grid.dtype.kind == "f" else np.float32
    pixels = (grid.astype(kind, copy=False) * kind(255) + kind(0.5)).clip(0, 255).astype(np.uint8)
    Image.fromarray(np.ascontiguousarray(pixels.transpose(1, 2, 0))).save(fp, format=format)


# -- drawing -----------------------------------------------------------------------------------------------------

def _pil():
    try:
        from PIL import Image, ImageColor, ImageDraw, ImageFont
    except ImportError:
        raise ImportError("npgrad.vision.utils draws through Pillow, which is not installed: "
                          "pip install 'npgrad[vision]' (or pip install pillow)") from None
    return Image, ImageColor, ImageDraw, ImageFont


def _palette(n):
    """torchvision's default colours: object i gets (i * (2**25-1, 2**15-1, 2**21-1)) mod 255."""
    return [tuple(int(i * m % 255) for m in (2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1)) for i in range(n)]


def _colors(colors, n, as_float=False):
    if colors is None:
        colors = _palette(n)
    elif isinstance(colors, list):
        if len(colors) < n:
            raise ValueError(f"Number of colors must be equal or larger than the number of objects, but got "
                             f"{len(colors)} < {n}.")
    elif not isinstance(colors, (tuple, str)):
        raise ValueError(f"colors must be a tuple or a string, or a list thereof, but got {colors}.")
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError(f"If passed as tuple, colors should be an RGB triplet, but got {colors}.")
    else:
        colors = [colors] * n
    ImageColor = _pil()[1]
    rgb = [ImageColor.getrgb(c) if isinstance(c, str) else tuple(c) for c in colors]
    return [tuple(v / 255 for v in c) for c in rgb] if as_float else rgb


def _to_uint8(pixels):
    """torchvision's float -> uint8 with scaling: x * 255.999, truncated."""
    kind = pixels.dtype.type
    return (pixels * kind(255.999)).astype(np.uint8)


def _from_uint8(pixels, like):
    """uint8 -> the float type of the array ``like``, scaled by 1/255 (torchvision's to_dtype)."""
    kind = like.dtype.type
    return pixels.astype(kind) * kind(1 / 255)


def _pil_canvas(pixels):
    Image = _pil()[0]
    return Image.fromarray(np.ascontiguousarray(pixels.transpose(1, 2, 0)))


def _canvas_to_tensor(canvas, original, was_float):
    pixels = np.asarray(canvas).transpose(2, 0, 1)
    return Tensor._wrap(np.ascontiguousarray(_from_uint8(pixels, original) if was_float else pixels))


def draw_bounding_boxes(image, boxes, labels=None, colors=None, fill=False, width=1, font=None, font_size=None,
                        label_colors=None, label_background_colors=None, fill_labels=False):
    """Draw (xmin, ymin, xmax, ymax) ``boxes`` on a uint8 or float (1 or 3, H, W) image; returns a new image.

    ``fill`` shades each box (alpha 100/255); ``labels`` are written inside the top-left corner, on a filled
    background with ``fill_labels``.
    """
    _, _, ImageDraw, ImageFont = _pil()
    if not isinstance(image, Tensor):
        raise TypeError(f"Tensor expected, got {type(image)}")
    if not (image.dtype == dtypes.uint8 or _is_float(image)):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if image.shape[0] not in (1, 3):
        raise ValueError("Only grayscale and RGB images are supported")
    corners = (boxes.detach().numpy() if isinstance(boxes, Tensor) else np.asarray(boxes)).reshape(-1, 4)
    if (corners[:, 0] > corners[:, 2]).any() or (corners[:, 1] > corners[:, 3]).any():
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use torchvision.ops.box_convert to "
                         "convert them")
    n = len(corners)
    if n == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn")
        return image
    if labels is None:
        labels = [None] * n
    elif len(labels) != n:
        raise ValueError(f"Number of boxes ({n}) and labels ({len(labels)}) mismatch. Please specify labels for "
                         "each box.")
    box_colors = _colors(colors, n)
    text_colors = _colors(label_colors, n) if label_colors else None
    backgrounds = _colors(label_background_colors, n) if label_background_colors else box_colors
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.")
        typeface = ImageFont.load_default()
    else:
        typeface = ImageFont.truetype(font=font, size=font_size or 10)
    was_float = _is_float(image)
    pixels = image.detach().numpy()
    if pixels.shape[0] == 1:
        pixels = np.repeat(pixels, 3, axis=0)
    canvas = _pil_canvas(_to_uint8(pixels) if was_float else pixels)
    pen = ImageDraw.Draw(canvas, "RGBA") if fill else ImageDraw.Draw(canvas)
    # box corners are truncated to integer pixels
    for i, (x0, y0, x1, y1) in enumerate(corners.astype(np.int64).tolist()):
        color = box_colors[i]
        pen.rectangle([x0, y0, x1, y1], width=width, outline=color, fill=color + (100,) if fill else None)
        if labels[i] is None:
            continue
        inset = width + 1
        at = (x0 + inset, y0 + inset)
        if fill_labels:
            left, top, right, bottom = pen.textbbox(at, labels[i], font=typeface)
            pen.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=backgrounds[i])
            ink = text_colors[i] if text_colors else (0, 0, 0)
        else:
            ink = text_colors[i] if text_colors else color
        pen.text(at, labels[i], fill=ink, font=typeface)
    return _canvas_to_tensor(canvas, pixels, was_float)


def draw_segmentation_masks(image, masks, alpha=0.8, colors=None):
    """Blend boolean ``masks`` (N, H, W) (or one (H, W)) over an RGB image: ``image * (1 - alpha) + colour * alpha``.

    Pixels covered by more than one mask are blended with black, as torchvision does.
    """
    if not isinstance(image, Tensor):
        raise TypeError(f"The image must be a tensor, got {type(image)}")
    if not (image.dtype == dtypes.uint8 or _is_float(image)):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if image.shape[0] != 3:
        raise ValueError("Pass an RGB image. Other Image formats are not supported")
    if masks.dim() == 2:
        masks = masks[None]
    if masks.dim() != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if masks.dtype != dtypes.bool:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}")
    if tuple(masks.shape[-2:]) != tuple(image.shape[-2:]):
        raise ValueError("The image and the masks must have the same height and width")
    if masks.shape[0] == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn")
        return image
    pixels = image.detach().numpy()
    cover = masks.detach().numpy()
    painted = pixels.copy()
    for mask, color in zip(cover, _colors(colors, len(cover), as_float=_is_float(image))):
        painted[:, mask] = np.asarray(color, dtype=pixels.dtype)[:, None]
    painted[:, cover.sum(0) > 1] = 0
    # uint8 images blend in float32 and are truncated back, as torch's type promotion does
    kind = pixels.dtype.type if pixels.dtype.kind == "f" else np.float32
    blended = pixels * kind(1 - alpha) + painted * kind(alpha)
    return Tensor._wrap(blended.astype(pixels.dtype))


def draw_keypoints(image, keypoints, connectivity=None, colors=None, radius=2, width=3, visibility=None):
    """Draw each instance's keypoints (N, K, 2) as discs of ``radius`` and the ``connectivity`` pairs as lines.

    ``visibility`` (N, K) hides keypoints (and the lines that touch them).
    """
    ImageDraw = _pil()[2]
    if not isinstance(image, Tensor):
        raise TypeError(f"The image must be a tensor, got {type(image)}")
    if not (image.dtype == dtypes.uint8 or _is_float(image)):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if image.shape[0] != 3:
        raise ValueError("Pass an RGB image. Other Image formats are not supported")
    if keypoints.dim() != 3:
        raise ValueError("keypoints must be of shape (num_instances, K, 2)")
    points = keypoints.detach().numpy()
    if visibility is None:
        shown = np.ones(points.shape[:2], dtype=bool)
    else:
        shown = visibility.detach().numpy() if isinstance(visibility, Tensor) else np.asarray(visibility)
        if shown.ndim == 3:
            shown = shown[..., 0]
        if shown.ndim != 2:
            raise ValueError(f"visibility must be of shape (num_instances, K). Got ndim={shown.ndim}")
        if shown.shape != points.shape[:2]:
            raise ValueError("keypoints and visibility must have the same dimensionality for num_instances and K. "
                             f"Got visibility.shape={visibility.shape} and keypoints.shape={keypoints.shape}")
    was_float = _is_float(image)
    pixels = image.detach().numpy()
    canvas = _pil_canvas(_to_uint8(pixels) if was_float else pixels)
    pen = ImageDraw.Draw(canvas)
    for where, visible in zip(points.astype(np.int64).tolist(), shown.tolist()):
        for (x, y), on in zip(where, visible):
            if on:
                pen.ellipse([x - radius, y - radius, x + radius, y + radius], fill=colors, outline=None, width=0)
        for a, b in connectivity or ():
            if visible[a] and visible[b]:
                pen.line((tuple(where[a]), tuple(where[b])), width=width)
    return _canvas_to_tensor(canvas, pixels, was_float)


# -- optical flow -------------------------------------------------------------------------------------------------

# The Middlebury flow colour wheel: six hue ramps (red->yellow->green->cyan->blue->magenta->red) of these
# lengths; along each ramp one channel is held at 255 while another rises (+) or falls (-) in steps of 255/n.
_WHEEL_SEGMENTS = ((15, 0, 1, +1), (6, 1, 0, -1), (4, 1, 2, +1), (11, 2, 1, -1), (13, 2, 0, +1), (6, 0, 2, -1))


def _colour_wheel():
    rows = []
    for n, held, moving, direction in _WHEEL_SEGMENTS:
        ramp = np.floor(255 * np.arange(n) / n)
        seg = np.zeros((n, 3))
        seg[:, held] = 255
        seg[:, moving] = ramp if direction > 0 else 255 - ramp
        rows.append(seg)
    return np.concatenate(rows)


def flow_to_image(flow):
    """Colour-code optical flow (2, H, W) or (N, 2, H, W) float32 as uint8 RGB: hue = direction, saturation =
    magnitude relative to the largest in the input."""
    if flow.dtype != dtypes.float32:
        raise ValueError(f"Flow should be of dtype torch.float, got {flow.dtype}.")
    uv = flow.detach().numpy()
    single = uv.ndim == 3
    if single:
        uv = uv[None]
    if uv.ndim != 4 or uv.shape[1] != 2:
        raise ValueError(f"Input flow should have shape (2, H, W) or (N, 2, H, W), got {flow.shape}.")
    f32 = np.float32
    uv = uv / (np.sqrt((uv ** 2).sum(1)).max() + np.finfo(f32).eps)
    wheel = _colour_wheel()
    spokes = len(wheel)
    radius = np.sqrt((uv ** 2).sum(1))
    position = (np.arctan2(-uv[:, 1], -uv[:, 0]) / f32(np.pi) + 1) / 2 * (spokes - 1)
    lower = np.floor(position).astype(np.int64)
    upper = np.where(lower + 1 == spokes, 0, lower + 1)
    frac = position - lower
    image = np.empty((uv.shape[0], 3, uv.shape[2], uv.shape[3]), dtype=np.uint8)
    for c in range(3):
        hue = (1 - frac) * (wheel[lower, c] / 255).astype(f32) + frac * (wheel[upper, c] / 255).astype(f32)
        # radius can round to just above 1, taking a 0 channel to -1: it stays 0, as in torchvision
        image[:, c] = np.floor(255 * (1 - radius * (1 - hue))).clip(0, 255)
    return Tensor._wrap(image[0] if single else image)
