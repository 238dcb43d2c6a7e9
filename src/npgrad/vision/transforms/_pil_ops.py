"""The PIL half of ``transforms.functional``: each op done by Pillow itself (imported lazily by the caller)."""
import numpy as np


def pil():
    try:
        from PIL import Image, ImageEnhance, ImageOps
    except ImportError as e:  # pragma: no cover - Pillow is the vision extra
        raise ImportError("PIL images need Pillow: pip install 'npgrad[vision]'") from e
    return Image, ImageEnhance, ImageOps


def is_pil(img):
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def num_channels(img):
    return len(img.getbands())


def parse_fill(fill, img, name="fillcolor"):
    """Pillow's ``fillcolor`` argument for ``fill`` (None, a number or one value per band)."""
    bands = num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = (fill,) * bands
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError("The number of elements in 'fill' does not match the number of channels of the "
                             f"image ({len(fill)} != {bands})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(v) for v in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def enhance(img, kind, factor):
    _, ImageEnhance, _ = pil()
    return getattr(ImageEnhance, kind)(img).enhance(factor)


def adjust_hue(img, factor):
    Image, _, _ = pil()
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    shifted = np.array(h, dtype=np.uint8)
    # a negative shift wraps around the 256 hue steps, as a C cast to uint8 does
    shift = int(np.trunc(factor * 255)) % 256
    h = Image.fromarray(((shifted.astype(np.int64) + shift) % 256).astype(np.uint8))
    return Image.merge("HSV", (h, s, v)).convert(mode)


def adjust_gamma(img, g, gain):
    mode = img.mode
    rgb = img.convert("RGB")
    table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, g)) for v in range(256)] * 3
    return rgb.point(table).convert(mode)


def pad(img, left, top, right, bottom, fill, mode):
    Image, _, ImageOps = pil()
    if mode == "constant":
        opts = parse_fill(fill, img, name="fill")
        if img.mode == "P":
            palette = img.getpalette()
            out = ImageOps.expand(img, border=(left, top, right, bottom), **opts)
            out.putpalette(palette)
            return out
        if min(left, top, right, bottom) < 0:
            img = img.crop((max(-left, 0), max(-top, 0), img.width - max(-right, 0),
                            img.height - max(-bottom, 0)))
            left, top, right, bottom = (max(p, 0) for p in (left, top, right, bottom))
        return ImageOps.expand(img, border=(left, top, right, bottom), **opts)
    if min(left, top, right, bottom) < 0:
        img = img.crop((max(-left, 0), max(-top, 0), img.width - max(-right, 0), img.height - max(-bottom, 0)))
        left, top, right, bottom = (max(p, 0) for p in (left, top, right, bottom))
    palette = img.getpalette() if img.mode == "P" else None
    arr = np.asarray(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    out = Image.fromarray(np.pad(arr, widths, mode=mode))
    if palette is not None:
        out = out.convert("P") if out.mode != "P" else out
        out.putpalette(palette)
    return out


def to_grayscale(img, out_channels):
    Image, _, _ = pil()
    if out_channels == 1:
        return img.convert("L")
    gray = np.asarray(img.convert("L"))
    return Image.fromarray(np.dstack([gray] * 3))
