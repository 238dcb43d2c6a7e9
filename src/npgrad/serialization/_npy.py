"""One ``.npy`` member read as untrusted input, with a header parser of our own.

The header is a Python dict literal; it is parsed with ``ast.literal_eval`` only after its length is
checked against ``MAX_HEADER`` and the member's size, and then held to what ``np.save`` writes for the
arrays a checkpoint may hold: exactly the keys descr/fortran_order/shape, a plain numeric descr string
from an allow list (no objects, strings, records or subarrays), a bool order, and a tuple of
non-negative ints whose product, times the item size, is exactly the bytes the member holds after the
header. Only then is the array allocated, and it is filled straight from the member reader.
"""
import ast
import re

import numpy as np

from ._errors import fail

MAX_HEADER = 10000  # bytes of .npy header accepted (NumPy's own default limit)
_MAGIC = b"\x93NUMPY"
_KEYS = {"descr", "fortran_order", "shape"}
_UNITS = "Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as"
_DESCR = re.compile(rf"[<>|=]?(b1|[iu][1248]|f(2|4|8|16)|c(8|16|32)|[Mm]8(\[[0-9]{{0,4}}({_UNITS})\])?)\Z")
_INTP_MAX = int(np.iinfo(np.intp).max)
_MAX_DIMS = 64 if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else 32


def read_array(reader, size, entry, name):
    """The array held by a member of ``size`` bytes, read through ``reader`` (a MemberReader)."""
    def bad(why):
        fail(name, f"is corrupted: the array member {entry} {why}")

    if size < 10:
        bad("is too short to be a .npy file")
    lead = bytes(reader.read(10))
    if lead[:6] != _MAGIC:
        bad("is not a .npy file")
    major = lead[6]
    if major == 1:
        start, hlen = 10, int.from_bytes(lead[8:10], "little")
    elif major in (2, 3) and size >= 12:
        start, hlen = 12, int.from_bytes(lead[8:10] + bytes(reader.read(2)), "little")
    else:
        bad(f"has an unsupported .npy version {tuple(lead[6:8])}")
    if hlen > MAX_HEADER or start + hlen > size:
        bad(f"declares a {hlen}-byte header (at most {min(MAX_HEADER, size - start)} allowed)")
    shape, fortran, dtype = _parse_header(bytes(reader.read(hlen)), major, bad, entry, name)
    count = 1
    for s in shape:
        count *= s
    nbytes = count * dtype.itemsize
    if nbytes != size - start - hlen:
        bad(f"declares {nbytes} bytes of data for shape {shape} and dtype {dtype} but holds {size - start - hlen}")
    flat = np.empty(count, dtype)
    if nbytes:
        reader.readinto(memoryview(flat.view(np.uint8)))
    reader.finish()
    arr = flat.reshape(shape, order="F" if fortran else "C")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _parse_header(raw, major, bad, entry, name):
    try:
        text = raw.decode("utf-8" if major >= 3 else "latin1")
        d = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError, UnicodeDecodeError) as e:
        bad(f"has an unreadable header ({type(e).__name__})")
    if type(d) is not dict or set(d) != _KEYS:
        bad("has a header that is not a dict of descr, fortran_order and shape")
    descr, fortran, shape = d["descr"], d["fortran_order"], d["shape"]
    if descr in ("O", "|O", "<O", ">O", "=O") or (type(descr) is not str and "O" in repr(descr)):
        fail(name, f"is unsafe: {entry} holds Python objects (a pickle), which npgrad.load refuses to load")
    if type(descr) is not str or not _DESCR.match(descr):
        bad(f"has dtype {descr!r}, which is not a plain numeric dtype (objects, strings and records are refused)")
    if type(fortran) is not bool:
        bad(f"has an invalid fortran_order {fortran!r}")
    if type(shape) is not tuple or len(shape) > _MAX_DIMS or not all(type(s) is int and s >= 0 for s in shape):
        bad(f"has an invalid shape {shape!r} (a tuple of at most {_MAX_DIMS} non-negative ints)")
    try:
        dtype = np.dtype(descr)
    except (TypeError, ValueError, OverflowError):
        bad(f"has an invalid dtype {descr!r}")
    if not shape_fits(shape, dtype.itemsize):
        bad(f"has a shape {shape} too large for any array")
    return shape, fortran, dtype


def shape_fits(shape, itemsize):
    """Whether NumPy can make an array of this shape: few enough dimensions, and the product of the
    non-zero sizes, in bytes, within an intp (an empty array of shape (0, 2**70) is still refused)."""
    if len(shape) > _MAX_DIMS:
        return False
    extent = itemsize
    for s in shape:
        extent *= max(s, 1)
        if extent > _INTP_MAX:
            return False
    return True
