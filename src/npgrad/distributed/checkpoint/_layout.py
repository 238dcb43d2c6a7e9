"""The files of a distributed checkpoint, and reading them as untrusted input.

A checkpoint is a directory: one data file per saving rank, ``__<rank>_<save id>.distcp`` (or one per
item, ``__<rank>_<n>_<save id>.distcp``, with ``single_file_per_rank=False``), and ``.metadata``, a JSON
table of contents written by rank 0 after every rank's data is on disk. Each save has a fresh random save
id, so its data files never overwrite the files the current ``.metadata`` names; ``.metadata`` is then
replaced atomically (temporary + rename), and only after that are the files it no longer names deleted.
A save interrupted at any point therefore leaves either the previous checkpoint or the new one, whole.

In a data file, a tensor chunk is its raw bytes (C order, little-endian), so a loading rank reads just the
part of each saved chunk that overlaps what it needs (``read_region``); any other object is a small
``npgrad.save`` archive, read back with ``npgrad.load(weights_only=True)``.

``.metadata`` is parsed with a size cap and held to a strict schema before anything in it is believed:
file names of the form above only (no paths), dtypes from npgrad's list, chunks inside their tensor,
not overlapping, with exactly the bytes their shape needs, inside files that really hold that many bytes.
"""
import json
import math
import os
import re
import sys

import numpy as np

from ... import dtypes as _dt
from ...serialization._errors import CheckpointError
from ...serialization._npy import shape_fits

METADATA = ".metadata"
FORMAT = "npgrad.distributed.checkpoint"
VERSION = 1
MAX_METADATA_BYTES = 1 << 30
MAX_CHUNKS = 1 << 12  # saved pieces of one tensor (one per saving rank); more is refused, not checked slowly
DATA_FILE = re.compile(r"__[0-9]{1,9}(_[0-9]{1,9})?_[0-9a-f]{8,64}\.distcp\Z")
DTYPES = {d.name: d for d in _dt._ALL}


def data_file_name(rank, save_id, index=None):
    return f"__{rank}_{save_id}.distcp" if index is None else f"__{rank}_{index}_{save_id}.distcp"


def array_of(tensor):
    """The C-contiguous little-endian array of a tensor's values, as a data file holds them."""
    arr = np.ascontiguousarray(tensor._data)
    if sys.byteorder == "big" and arr.dtype.itemsize > 1:
        arr = arr.byteswap()
    return arr


def _bad(where, why):
    raise CheckpointError(f"torch.distributed.checkpoint: {where} is corrupted: {why}")


def _ints(value, where, what, n=None):
    if type(value) is not list or (n is not None and len(value) != n) or len(value) > 64 or \
            not all(type(v) is int and v >= 0 for v in value):
        _bad(where, f"{what} must be a list of {'' if n is None else n} non-negative ints, not {str(value)[:80]}")
    return tuple(value)


def _span(entry, where, files):
    name, offset, length = entry.get("file"), entry.get("offset"), entry.get("length")
    if type(name) is not str or not DATA_FILE.match(name) or name not in files:
        _bad(where, f"it names a data file {str(name)[:80]!r} that is not one of the checkpoint's")
    if type(offset) is not int or type(length) is not int or offset < 0 or length < 0 or \
            offset + length > files[name]:
        _bad(where, f"its bytes {offset}..+{length} are not inside {name} ({files[name]} bytes)")
    return name, offset, length


def _path(value, where):
    if type(value) is not list or not value or not all(type(p) in (str, int) for p in value):
        _bad(where, "its path must be a non-empty list of keys and list indices")
    return tuple(value)


def parse_metadata(raw, where, directory):
    """The validated contents of a ``.metadata`` file: ``{"save_id", "items": {key: item}}`` where an item
    is ``{"kind": "tensor", "path", "dtype", "size", "chunks": [(offsets, sizes, file, offset, length)]}``
    or ``{"kind": "bytes", "path", "file", "offset", "length"}``. Data files must exist with at least the
    bytes the metadata says they hold (a truncated file is refused here, before anything is read)."""
    if raw[:1] == b"\x80":  # a pickle: the .metadata PyTorch's own checkpoints have
        _bad(where, "it is a PyTorch distributed checkpoint (a pickled .metadata), which npgrad does not read; "
                    "convert it with PyTorch's torch.distributed.checkpoint.format_utils.dcp_to_torch_save and "
                    "load that file with torch.load")
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        _bad(where, f"it is not the JSON an npgrad checkpoint writes ({type(e).__name__}: {str(e)[:100]})")
    if type(doc) is not dict or doc.get("format") != FORMAT:
        _bad(where, "it is not the metadata of an npgrad distributed checkpoint")
    if doc.get("version") != VERSION:
        _bad(where, f"it has format version {str(doc.get('version'))[:20]}; this npgrad reads version {VERSION}")
    files, items = doc.get("files"), doc.get("items")
    if type(files) is not dict or type(items) is not list:
        _bad(where, "it lacks its files and items tables")
    for name, size in files.items():
        if not DATA_FILE.match(name) or type(size) is not int or size < 0:
            _bad(where, f"its file table has an invalid entry {name[:80]!r}")
        try:
            real = os.path.getsize(os.path.join(directory, name))
        except OSError:
            _bad(where, f"its data file {name} is missing")
        if real < size:
            _bad(where, f"its data file {name} is truncated ({real} of {size} bytes)")
    parsed = {}
    for item in items:
        if type(item) is not dict or type(item.get("key")) is not str:
            _bad(where, "an item is not a table with a key")
        key = item["key"]
        at = f"{where} (key {key[:80]!r})"
        if key in parsed:
            _bad(at, "the key appears twice")
        kind, path = item.get("kind"), _path(item.get("path"), at)
        if kind == "bytes":
            name, offset, length = _span(item, at, files)
            parsed[key] = {"kind": "bytes", "path": path, "file": name, "offset": offset, "length": length}
            continue
        if kind != "tensor":
            _bad(at, f"its kind is {str(kind)[:20]!r}, not 'tensor' or 'bytes'")
        dtype = DTYPES.get(item.get("dtype"))
        if dtype is None:
            _bad(at, f"its dtype {str(item.get('dtype'))[:40]!r} is not one npgrad has")
        size = _ints(item.get("size"), at, "size")
        if not shape_fits(size, np.dtype(dtype.np).itemsize):
            _bad(at, f"its size {list(size)} is too large for any array")
        chunks = item.get("chunks")
        if type(chunks) is not list:
            _bad(at, "its chunks must be a list")
        out = []
        for c in chunks:
            if type(c) is not dict:
                _bad(at, "a chunk is not a table")
            offsets = _ints(c.get("offsets"), at, "a chunk's offsets", len(size))
            sizes = _ints(c.get("sizes"), at, "a chunk's sizes", len(size))
            if any(o + s > n for o, s, n in zip(offsets, sizes, size)):
                _bad(at, f"a chunk at {list(offsets)} of size {list(sizes)} lies outside the tensor {list(size)}")
            name, offset, length = _span(c, at, files)
            if length != _nbytes(sizes, dtype):
                _bad(at, f"a chunk of size {list(sizes)} ({dtype.name}) holds {length} bytes")
            out.append((offsets, sizes, name, offset, length))
        if len(out) > MAX_CHUNKS:
            _bad(at, f"it has {len(out)} chunks (at most {MAX_CHUNKS} per tensor)")
        clash = first_overlap([c[:2] for c in out])
        if clash is not None:
            _bad(at, f"its chunks at {list(clash[0])} and {list(clash[1])} overlap")
        parsed[key] = {"kind": "tensor", "path": path, "dtype": dtype, "size": size, "chunks": out}
    save_id = doc.get("save_id")
    return {"save_id": save_id if type(save_id) is str else None, "items": parsed, "files": files}


def _nbytes(sizes, dtype):
    return math.prod(sizes) * np.dtype(dtype.np).itemsize


def _overlap(a, b):
    """The box where chunks ``a`` and ``b`` (each (offsets, sizes)) meet, as (offsets, sizes), or None."""
    lo = [max(x, y) for x, y in zip(a[0], b[0])]
    hi = [min(x + s, y + t) for x, s, y, t in zip(a[0], a[1], b[0], b[1])]
    if any(h <= l_ for l_, h in zip(lo, hi)):
        return None
    return tuple(lo), tuple(h - l_ for l_, h in zip(lo, hi))


def first_overlap(boxes):
    """Two non-empty boxes (offsets, sizes) that share an element, or None. A sweep along the dimension
    where the boxes start at the most different places: each box is compared (in NumPy) only with the
    boxes before it that still reach it there, which for shards along any one dimension is one or two."""
    boxes = [b for b in boxes if math.prod(b[1])]
    if len(boxes) < 2:
        return None
    kind = object if any(o + s >= 2**62 for b in boxes for o, s in zip(*b)) else np.int64
    lo = np.array([b[0] for b in boxes], dtype=kind).reshape(len(boxes), -1)
    hi = lo + np.array([b[1] for b in boxes], dtype=kind).reshape(len(boxes), -1)
    dim = max(range(lo.shape[1]), key=lambda d: len(set(lo[:, d].tolist())))
    active = np.zeros(0, dtype=np.int64)
    for i in sorted(range(len(boxes)), key=lambda k: lo[k, dim]):
        active = active[hi[active, dim] > lo[i, dim]]
        if active.size:
            meet = (np.maximum(lo[active], lo[i]) < np.minimum(hi[active], hi[i])).all(axis=1)
            if meet.any():
                return boxes[int(active[np.argmax(meet)])][0], boxes[i][0]
        active = np.append(active, i)
    return None


def covered(item, offsets, sizes):
    """Whether the saved chunks of ``item`` hold every element of the box (offsets, sizes)."""
    need = math.prod(sizes)
    got = 0
    for c in item["chunks"]:
        box = _overlap(c[:2], (offsets, sizes))
        if box is not None:
            got += math.prod(box[1])
    return got == need


def read_region(directory, item, offsets, sizes):
    """The box (offsets, sizes) of a saved tensor, as a new array of its saved dtype: each overlapping
    chunk is mapped from its file and only the overlap is copied."""
    np_dtype = np.dtype(item["dtype"].np)
    out = np.empty(sizes, np_dtype)
    if not out.size:
        return out
    for chunk_off, chunk_sizes, name, offset, length in item["chunks"]:
        box = _overlap((chunk_off, chunk_sizes), (offsets, sizes))
        if box is None:
            continue
        lo, extent = box
        src = np.memmap(os.path.join(directory, name), dtype=np_dtype.newbyteorder("<"), mode="r", offset=offset,
                        shape=(math.prod(chunk_sizes),)).reshape(chunk_sizes)
        take = tuple(slice(l_ - c, l_ - c + e) for l_, c, e in zip(lo, chunk_off, extent))
        put = tuple(slice(l_ - o, l_ - o + e) for l_, o, e in zip(lo, offsets, extent))
        out[put] = src[take]
        del src
    return out


def read_bytes(directory, name, offset, length):
    with open(os.path.join(directory, name), "rb") as fh:
        fh.seek(offset)
        data = fh.read(length)
    if len(data) != length:
        _bad(os.path.join(directory, name), f"it holds fewer bytes than the metadata says ({len(data)} of {length})")
    return data


def read_metadata_file(directory):
    """The raw bytes of ``directory/.metadata``, refusing one over ``MAX_METADATA_BYTES``."""
    path = os.path.join(directory, METADATA)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_METADATA_BYTES:
            _bad(path, f"it is {size} bytes, over the {MAX_METADATA_BYTES}-byte limit for checkpoint metadata")
        return fh.read(size + 1)
