"""Reading IDX files, the simple binary format MNIST and Fashion-MNIST are distributed in.

An IDX file is a 4-byte magic number, one big-endian uint32 size per dimension, then the values in
row-major order. The magic number is ``0x00 0x00 <type code> <number of dimensions>``, so MNIST's
image files start with 0x00000803 (unsigned bytes, 3 dimensions) and its label files with 0x00000801.
Files may be gzip-compressed; that is detected from the content, not the file name.
"""
import gzip
import os
import zlib

import numpy as np

__all__ = ["read_idx", "parse_idx", "IDXError"]

# type code -> element type; multi-byte values are big-endian in the file.
_TYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


class IDXError(ValueError):
    """The bytes are not a valid IDX file (bad magic number, sizes that disagree with the data...)."""


def read_idx(path, expected_magic=None):
    """Read an IDX file (plain or gzip-compressed) into a NumPy array of its declared shape.

    ``expected_magic``: when given (e.g. 0x803 for an image file), a file with another magic number is
    rejected, which catches swapped image/label files early. Raises ``IDXError`` naming the file for
    anything malformed or truncated.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise IDXError(f"{path}: not a readable gzip file ({e}); the file is probably truncated or "
                           "corrupt: delete it and download it again") from None
    return parse_idx(raw, expected_magic=expected_magic, name=path)


def parse_idx(buf, expected_magic=None, name="<bytes>"):
    """Parse the (decompressed) bytes of an IDX file; see ``read_idx``."""
    buf = memoryview(buf).cast("B")
    n = len(buf)
    if n < 4:
        raise IDXError(f"{name}: {n} bytes is too short to be an IDX file (the header alone is at least 4)")
    magic = int.from_bytes(buf[:4], "big")
    if buf[0] != 0 or buf[1] != 0 or buf[2] not in _TYPES or buf[3] == 0:
        raise IDXError(f"{name}: bad IDX magic number 0x{magic:08X}; expected 0x0000TTNN with type code TT "
                       f"in {{{', '.join(f'0x{c:02X}' for c in _TYPES)}}} and NN >= 1 dimensions")
    if expected_magic is not None and magic != expected_magic:
        raise IDXError(f"{name}: IDX magic number is 0x{magic:08X}, expected 0x{expected_magic:08X} "
                       f"({_describe(expected_magic)}); is this the right file?")
    dtype = _TYPES[buf[2]]
    ndim = buf[3]
    header = 4 + 4 * ndim
    if n < header:
        raise IDXError(f"{name}: truncated header: {ndim} dimensions need {header} header bytes, "
                       f"the file has {n}")
    shape = tuple(int(d) for d in np.frombuffer(buf, ">u4", count=ndim, offset=4))
    count = 1
    for d in shape:
        count *= d
    need = count * dtype.itemsize
    have = n - header
    if have != need:
        what = "truncated" if have < need else "has trailing bytes"
        raise IDXError(f"{name}: file {what}: the header declares shape {shape} of {dtype.name} "
                       f"({need} data bytes) but {have} data bytes follow the header")
    arr = np.frombuffer(buf, dtype, count=count, offset=header).reshape(shape)
    # astype always copies: the result is writable and in native byte order.
    return arr.astype(dtype.newbyteorder("="))


def _describe(magic):
    code, ndim = (magic >> 8) & 0xFF, magic & 0xFF
    kind = _TYPES[code].name if code in _TYPES else f"type 0x{code:02X}"
    return f"{kind}, {ndim} dimension{'s' if ndim != 1 else ''}"
