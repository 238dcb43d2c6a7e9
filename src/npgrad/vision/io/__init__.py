"""torchvision.io's image functions on npgrad, decoding and encoding through Pillow (the vision extra).

Images are uint8 Tensors (C, H, W), encoded files 1-D uint8 Tensors. 16-bit PNGs, which torchvision
decodes to uint16 (a dtype npgrad lacks), are refused with a clear error.
Video reading and writing are absent: they need FFmpeg bindings npgrad does not carry.
"""
from .image import (ImageReadMode, decode_gif, decode_image, decode_jpeg, decode_png, decode_webp, encode_jpeg,
                    encode_png, read_file, read_image, write_file, write_jpeg, write_png)

__all__ = ["ImageReadMode", "decode_gif", "decode_image", "decode_jpeg", "decode_png", "decode_webp", "encode_jpeg",
           "encode_png", "read_file", "read_image", "write_file", "write_jpeg", "write_png"]
