"""safetensors files, to exchange flat ``{name: tensor}`` dicts (state_dicts) with PyTorch and others.

Writing uses the optional ``safetensors`` package. Reading is npgrad's own validating parser (it needs
no package): an 8-byte little-endian header length that fits in the file and ``MAX_HEADER``; a strict
JSON header (no duplicate keys, no NaN/Infinity) whose entries have exactly dtype/shape/data_offsets;
dtypes from the allow list; shapes of non-negative ints; offsets that tile the data section exactly, each
entry's length equal to its shape times its item size. Only then is any tensor allocated.
"""
import os
from collections import OrderedDict

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ._atomic import atomic_write
from ._errors import fail
from ._npy import shape_fits
from ._schema import parse_json

MAX_HEADER = 100_000_000  # the safetensors format's own limit on its JSON header
_DTYPES = {"BOOL": "|b1", "U8": "|u1", "I8": "|i1", "I16": "<i2", "I32": "<i4", "I64": "<i8", "F16": "<f2",
           "F32": "<f4", "F64": "<f8", "BF16": _dt.bfloat16.np}
_ENTRY_KEYS = {"dtype", "shape", "data_offsets"}
_WHO = "load_safetensors"


def _safetensors_numpy():
    try:
        import safetensors.numpy as st  # optional
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("save_safetensors needs the optional package safetensors (pip install safetensors)") from e
    return st


def save_safetensors(tensors, path, metadata=None):
    """Write a flat ``{name: tensor}`` dict (e.g. ``model.state_dict()``) as a .safetensors file.

    The file loads in PyTorch with ``safetensors.torch.load_file(path)``. ``metadata`` is an optional
    ``{str: str}`` dict stored in the header. Written atomically, like ``save``.
    """
    st = _safetensors_numpy()
    if not isinstance(tensors, dict):
        raise TypeError(f"save_safetensors expects a dict of tensors, got {type(tensors).__name__}")
    arrays = {}
    for k, v in tensors.items():
        if not isinstance(k, str):
            raise TypeError(f"save_safetensors: keys must be strings, got {k!r}")
        if isinstance(v, Tensor):
            v = v._data
        if not isinstance(v, np.ndarray):
            raise TypeError(f"save_safetensors: value of {k!r} is a {type(v).__name__}, not a tensor")
        arrays[k] = v if v.flags.c_contiguous else v.copy(order="C")  # ascontiguousarray would make 0-d 1-d
    data = st.save(arrays, metadata=metadata)
    atomic_write(path, lambda fh: fh.write(data), who="save_safetensors")


def load_safetensors(path):
    """Read a .safetensors file (e.g. from ``safetensors.torch.save_file``) as a ``{name: Tensor}`` dict.

    A file that is not valid safetensors (truncated, corrupted, crafted) raises ``CheckpointError``
    naming the file and the problem; so does a dtype npgrad tensors lack (bfloat16, uint16, ...).
    """
    p = os.fsdecode(path)
    name = repr(p)

    def bad(why):
        fail(name, f"is not a valid safetensors file ({why})", _WHO)

    with open(p, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(8)
        if len(head) < 8:
            bad("shorter than its 8-byte header length")
        n = int.from_bytes(head, "little")
        if n > min(size - 8, MAX_HEADER):
            bad(f"it declares a {n}-byte header in a {size}-byte file")
        header = parse_json(fh.read(n), lambda e: bad(f"its header is not valid JSON: {type(e).__name__}: {e}"))
        entries = _check_header(header, size - 8 - n, name, bad)
        out = OrderedDict()
        for begin, end, key, dtype, shape in entries:
            arr = np.empty(shape, dtype)
            fh.seek(8 + n + begin)
            if end > begin and fh.readinto(memoryview(arr.reshape(-1).view(np.uint8))) != end - begin:
                bad(f"the data of {key!r} ends early")
            out[key] = Tensor._wrap(arr if arr.dtype.isnative else arr.astype(arr.dtype.newbyteorder("=")))
    return out


def _check_header(header, data_len, name, bad):
    """The header's tensors as (begin, end, name, dtype, shape), in file order, once all are proven sound."""
    if not isinstance(header, dict):
        bad("its header is not a JSON object")
    entries = []
    for key, entry in header.items():
        if key == "__metadata__":
            if entry is not None and not (isinstance(entry, dict) and
                                          all(isinstance(v, str) for v in entry.values())):
                bad("its __metadata__ is not a {str: str} object")
            continue
        if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
            bad(f"the entry {key!r} does not have exactly the keys {sorted(_ENTRY_KEYS)}")
        dt, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if not isinstance(dt, str):
            bad(f"the entry {key!r} has a dtype that is not a string")
        if dt not in _DTYPES:
            fail(name, f"has {key!r} with dtype {dt}, which npgrad tensors do not support (supported: "
                       f"{', '.join(_DTYPES)})", _WHO)
        if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)
                and shape_fits(shape, np.dtype(_DTYPES[dt]).itemsize)):
            bad(f"the entry {key!r} has an invalid shape {str(shape)[:80]}")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets)
                and 0 <= offsets[0] <= offsets[1] <= data_len):
            bad(f"the entry {key!r} has data offsets {str(offsets)[:80]} outside the {data_len}-byte data")
        dtype = np.dtype(_DTYPES[dt])
        count = 1
        for s in shape:
            count *= s
        if count * dtype.itemsize != offsets[1] - offsets[0]:
            bad(f"the entry {key!r} has shape {shape} of {dt} but {offsets[1] - offsets[0]} bytes of data")
        entries.append((offsets[0], offsets[1], key, dtype, tuple(shape)))
    entries.sort()
    pos = 0
    for begin, end, key, _, _ in entries:  # the tensors tile the data exactly: no gaps, no overlaps
        if begin != pos:
            bad(f"the data of {key!r} starts at {begin}, not at {pos}")
        pos = end
    if pos != data_len:
        bad(f"its tensors cover {pos} of the {data_len} bytes of data")
    return entries
