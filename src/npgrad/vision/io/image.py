"""Reading, decoding, encoding and writing image files as uint8 Tensors, through Pillow.

Where torchvision's decoders (libpng, libjpeg-turbo, libwebp) and Pillow's agree, the pixels are the same;
where they convert colours differently, the conversion is done here as torchvision's does it: PNG
colour-to-gray is libpng's fixed-point weighting (0.2989, 0.587, 0.114, truncated), JPEG gray is the
decoder's own luma channel, and ``UNCHANGED`` on a palette PNG gives the palette indices.
"""
import enum
import io
import os

import numpy as np

from ...dtypes import uint8
from ...tensor import Tensor

__all__ = ["ImageReadMode", "read_file", "write_file", "decode_png", "decode_jpeg", "decode_webp", "decode_gif",
           "decode_image",
           "read_image", "encode_png", "encode_jpeg", "write_png", "write_jpeg"]


class ImageReadMode(enum.Enum):
    """How many channels a decoded image gets: as stored, or converted to gray/RGB with or without alpha."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# libpng's rgb-to-gray weights as torchvision sets them (0.2989, 0.587), in libpng's 15-bit fixed point
_GRAY_WEIGHTS = (29890 * 32768 // 100000, 58700 * 32768 // 100000)
_GRAY_WEIGHTS += (32768 - sum(_GRAY_WEIGHTS),)


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("npgrad.vision.io decodes and encodes images through Pillow, which is not installed: "
                          "pip install 'npgrad[vision]' (or pip install pillow)") from None
    return Image


def _mode(mode):
    if isinstance(mode, str):
        return ImageReadMode[mode.upper()]
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"mode should be an ImageReadMode or a str, got {type(mode).__name__}")
    return mode


def _encoded_bytes(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"Expected a Tensor of encoded image bytes, got {type(input).__name__}")
    if input.dtype != uint8:
        raise RuntimeError("Expected a torch.uint8 tensor")
    if input.dim() != 1 or input.numel() == 0:
        raise RuntimeError("Expected a non empty 1-dimensional tensor")
    return input.numpy().tobytes()


def _chw(array):
    """(H, W) or (H, W, C) -> a contiguous (C, H, W) Tensor."""
    if array.ndim == 2:
        array = array[:, :, None]
    return Tensor._wrap(np.ascontiguousarray(array.transpose(2, 0, 1)))


_BROKEN = {  # what torchvision says of a damaged file of each kind
    "PNG": "Out of bound read in decode_png. Probably, the input image is corrupted",
    "JPEG": "Image is incomplete or truncated",
}


def _open(data, kind="image"):
    """The decoded Pillow image of ``data``; a damaged file is a RuntimeError naming what Pillow found."""
    Image = _pil()
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except (OSError, SyntaxError, ValueError) as e:  # Pillow's ways of saying "truncated" / "not decodable"
        raise RuntimeError(f"{_BROKEN.get(kind, f'Could not decode the {kind} file')} ({e})") from None
    return img


def _oriented(img, apply_exif_orientation):
    if apply_exif_orientation:
        from PIL import ImageOps
        img = ImageOps.exif_transpose(img)
    return img


def read_file(path):
    """The bytes of the file at ``path`` as a 1-D uint8 Tensor."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RuntimeError(f"[Errno {e.errno}] {e.strerror}: '{path}'") from None
    return Tensor._wrap(np.frombuffer(bytearray(data), dtype=np.uint8))


def write_file(filename, data):
    """Write the bytes of the 1-D uint8 Tensor ``data`` to ``filename``."""
    payload = _encoded_bytes(data)
    with open(os.fspath(filename), "wb") as f:
        f.write(payload)


# -- PNG ---------------------------------------------------------------------------------------------------------

def _libpng_gray(rgb):
    """libpng's rgb-to-gray on uint8 (..., 3) pixels: weighted sum >> 15; gray pixels pass unchanged."""
    wide = rgb.astype(np.int64)
    r, g, b = wide[..., 0], wide[..., 1], wide[..., 2]
    mixed = (_GRAY_WEIGHTS[0] * r + _GRAY_WEIGHTS[1] * g + _GRAY_WEIGHTS[2] * b) >> 15
    return np.where((r == g) & (g == b), r, mixed).astype(rgb.dtype)


def _png_pixels(img, data):
    """(pixels (H, W, C), has_alpha, is_palette) of a decoded PNG, colour as stored."""
    if data[24] == 16:  # the IHDR bit depth
        raise RuntimeError("16-bit PNGs decode to uint16 in torchvision, a dtype npgrad does not have (and "
                           "Pillow reads 16-bit colour PNGs as 8 bits): convert the file to 8 bits first")
    if img.mode == "P":
        return np.asarray(img)[:, :, None], False, True
    if img.mode == "1":
        img = img.convert("L")
    return np.atleast_3d(np.asarray(img)), img.mode in ("LA", "RGBA"), False


def _png_convert(img, pixels, alpha, palette, mode):
    channels = pixels.shape[2]
    if mode is ImageReadMode.UNCHANGED:
        return pixels
    if palette:  # expanded through the palette (and its transparency, as alpha)
        pixels = np.asarray(img.convert("RGBA"))
        alpha, channels = True, 4
    full = np.iinfo(pixels.dtype).max
    color = pixels[..., : (3 if channels >= 3 else 1)]
    opaque = pixels[..., -1:] if alpha else np.full(pixels.shape[:2] + (1,), full, pixels.dtype)
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA):
        gray = _libpng_gray(color)[..., None] if color.shape[2] == 3 else color
        return gray if mode is ImageReadMode.GRAY else np.concatenate([gray, opaque], axis=2)
    rgb = color if color.shape[2] == 3 else np.repeat(color, 3, axis=2)
    return rgb if mode is ImageReadMode.RGB else np.concatenate([rgb, opaque], axis=2)


def _decode_png_bytes(data, mode, apply_exif_orientation):
    if not data.startswith(_PNG_MAGIC):
        raise RuntimeError("Content is not png!")
    img = _oriented(_open(data, "PNG"), apply_exif_orientation)
    pixels, alpha, palette = _png_pixels(img, data)
    return _chw(_png_convert(img, pixels, alpha, palette, mode))


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decode 8-bit (or lower) PNG bytes (a 1-D uint8 Tensor) into a uint8 (C, H, W) Tensor."""
    return _decode_png_bytes(_encoded_bytes(input), _mode(mode), apply_exif_orientation)


# -- JPEG / WebP ---------------------------------------------------------------------------------------------------

def _decode_jpeg_bytes(data, mode, apply_exif_orientation):
    if data[:2] != b"\xff\xd8":
        raise RuntimeError(f"Not a JPEG file: starts with 0x{data[0]:02x} 0x{data[1] if len(data) > 1 else 0:02x}")
    if mode not in (ImageReadMode.UNCHANGED, ImageReadMode.GRAY, ImageReadMode.RGB):
        raise RuntimeError("The provided mode is not supported for JPEG files")
    Image = _pil()
    try:
        img = Image.open(io.BytesIO(data))
        if mode is ImageReadMode.GRAY and img.mode != "L":
            img.draft("L", img.size)  # the decoder emits its luma channel, as libjpeg's grayscale output does
        img.load()
    except (OSError, SyntaxError, ValueError) as e:
        raise RuntimeError(f"{_BROKEN['JPEG']} ({e})") from None
    img = _oriented(img, apply_exif_orientation)
    if img.mode not in ("L", "RGB"):  # CMYK / YCCK
        img = img.convert("RGB")
    if mode is ImageReadMode.RGB and img.mode != "RGB":
        img = img.convert("RGB")
    elif mode is ImageReadMode.GRAY and img.mode != "L":
        img = img.convert("L")
    return _chw(np.asarray(img))


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu", apply_exif_orientation=False):
    """Decode JPEG bytes (a 1-D uint8 Tensor, or a list of them) into uint8 (C, H, W) Tensor(s)."""
    if str(device) != "cpu":
        raise RuntimeError(f"npgrad decodes JPEG on the CPU only, not on {device!r}")
    mode = _mode(mode)
    if isinstance(input, (list, tuple)):
        return [_decode_jpeg_bytes(_encoded_bytes(x), mode, apply_exif_orientation) for x in input]
    return _decode_jpeg_bytes(_encoded_bytes(input), mode, apply_exif_orientation)


def _decode_webp_bytes(data, mode):
    img = _open(data, "WebP")
    # only RGB and RGB_ALPHA convert; the gray modes give the image as stored, as torchvision's decoder does
    want = {ImageReadMode.RGB: "RGB", ImageReadMode.RGB_ALPHA: "RGBA"}.get(mode)
    if want is None:
        want = "RGBA" if img.mode in ("RGBA", "LA") else "RGB"
    return _chw(np.asarray(img.convert(want)))


def decode_webp(input, mode=ImageReadMode.UNCHANGED):
    """Decode WebP bytes into a uint8 (3 or 4, H, W) Tensor (RGB, or RGBA where the file has alpha)."""
    data = _encoded_bytes(input)
    if not (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        raise RuntimeError("Content is not webp")
    return _decode_webp_bytes(data, _mode(mode))


# -- GIF -----------------------------------------------------------------------------------------------------------

def _decode_gif_bytes(data):
    from PIL import ImageSequence
    img = _open(data, "GIF")
    palette = img.getpalette() or []
    index = img.info.get("background", 0)
    # pixels no frame has painted show the logical screen's background colour, as in torchvision's decoder
    background = np.array((palette[3 * index:3 * index + 3] + [0, 0, 0])[:3], dtype=np.uint8)
    frames = []
    for frame in ImageSequence.Iterator(img):
        if frame.mode in ("P", "L"):  # the first frame, as stored
            rgb = np.array(frame.convert("RGB"))
            clear = frame.info.get("transparency")
            if clear is not None and frame.mode == "P":
                rgb[np.asarray(frame) == clear] = background
        else:  # later frames, composited by Pillow onto what came before
            rgba = np.asarray(frame.convert("RGBA"))
            rgb = rgba[..., :3].copy()
            rgb[rgba[..., 3] == 0] = background
        frames.append(rgb.transpose(2, 0, 1))
    return Tensor._wrap(np.ascontiguousarray(np.stack(frames) if len(frames) > 1 else frames[0]))


def decode_gif(input):
    """Decode GIF bytes into uint8 RGB: (3, H, W) for one frame, (N, 3, H, W) for an animation.

    Frames are composited by Pillow following the GIF disposal methods; torchvision's decoder treats
    disposal 3 ("restore to previous") like 1, so such animations can differ from torchvision's.
    """
    data = _encoded_bytes(input)
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise RuntimeError("Content is not gif")
    return _decode_gif_bytes(data)


# -- any format --------------------------------------------------------------------------------------------------

def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decode a PNG, JPEG, WebP or GIF image (bytes as a 1-D uint8 Tensor, or a path) into a (C, H, W) Tensor."""
    if not isinstance(input, Tensor):
        input = read_file(str(input))
    mode = _mode(mode)
    data = _encoded_bytes(input)
    if data[:3] == b"\xff\xd8\xff":
        return _decode_jpeg_bytes(data, mode, apply_exif_orientation)
    if data.startswith(_PNG_MAGIC):
        return _decode_png_bytes(data, mode, apply_exif_orientation)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _decode_webp_bytes(data, mode)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return _decode_gif_bytes(data)  # always RGB, whatever the mode, as in torchvision
    raise RuntimeError("Unsupported image file. npgrad.vision.io decodes jpeg, png, webp and gif (avif and heic "
                       "are not available).")


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """``decode_image(read_file(path), mode, apply_exif_orientation)``."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


# -- encoding ----------------------------------------------------------------------------------------------------

def _image_to_encode(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"Expected a Tensor image, got {type(input).__name__}")
    if input.dtype != uint8:
        raise RuntimeError("Input tensor dtype should be uint8")
    if input.dim() != 3:
        raise RuntimeError("Input tensor dimension should be 3")
    channels = input.shape[0]
    if channels not in (1, 3):
        raise RuntimeError(f"The number of channels should be 1 or 3, got: {channels}")
    pixels = input.numpy().transpose(1, 2, 0)
    return _pil().fromarray(np.ascontiguousarray(pixels[:, :, 0] if channels == 1 else pixels))


def _to_bytes_tensor(img, **options):
    buffer = io.BytesIO()
    img.save(buffer, **options)
    return Tensor._wrap(np.frombuffer(bytearray(buffer.getvalue()), dtype=np.uint8))


def encode_png(input, compression_level=6):
    """A uint8 (1 or 3, H, W) Tensor as PNG bytes (a 1-D uint8 Tensor)."""
    if not 0 <= compression_level <= 9:
        raise RuntimeError("Compression level should be between 0 and 9")
    return _to_bytes_tensor(_image_to_encode(input), format="PNG", compress_level=compression_level)


def encode_jpeg(input, quality=75):
    """A uint8 (1 or 3, H, W) Tensor (or a list of them) as JPEG bytes, 4:2:0 subsampled like libjpeg's default."""
    if quality < 1 or quality > 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, (list, tuple)):
        if not input:
            raise ValueError("encode_jpeg requires at least one input tensor when a list is passed")
        return [encode_jpeg(x, quality) for x in input]
    img = _image_to_encode(input)
    # libjpeg's defaults: colour is 4:2:0 subsampled, a gray image's one component is not
    options = {"subsampling": "4:2:0"} if img.mode == "RGB" else {}
    return _to_bytes_tensor(img, format="JPEG", quality=quality, **options)


def write_png(input, filename, compression_level=6):
    write_file(filename, encode_png(input, compression_level))


def write_jpeg(input, filename, quality=75):
    write_file(filename, encode_jpeg(input, quality))
