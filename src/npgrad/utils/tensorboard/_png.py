"""A minimal PNG encoder (8-bit RGB/RGBA, no filtering) so images need no imaging library."""
import struct
import zlib

import numpy as np


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(hwc):
    """PNG bytes of a ``(H, W, 3 or 4)`` uint8 array."""
    hwc = np.ascontiguousarray(hwc, dtype=np.uint8)
    h, w, c = hwc.shape
    if c not in (3, 4):
        raise ValueError(f"a PNG image needs 3 or 4 channels, got {c}")
    # Each scanline starts with its filter byte; 0 (none) keeps the encoder a single vectorised step.
    raw = np.concatenate([np.zeros((h, 1), np.uint8), hwc.reshape(h, w * c)], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", w, h, 8, 2 if c == 3 else 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6))
            + _chunk(b"IEND", b""))
