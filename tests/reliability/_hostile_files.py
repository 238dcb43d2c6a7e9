"""Builders of hostile checkpoint and safetensors files for test_checkpoint_fuzz.py.

A minimal zip writer of our own (zipfile would refuse to write lies): each member's declared sizes, CRC
and compression are whatever the test says. Large declared contents (the 1 GiB zip bomb, the ~1 GB JSON)
are made by repeating one deflate block that ends in a full flush, so they are built in a second from a
~1 MB compressed stream and never exist uncompressed.
"""
import io
import json
import struct
import zlib

import numpy as np

_LOCAL = struct.Struct("<4s5H3L2H")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_END = struct.Struct("<4s4H2LH")
STORED, DEFLATED = 0, 8


class Member:
    def __init__(self, name, payload=b"", method=STORED, size=None, crc=None, compressed=None):
        """``payload``: the content (compressed here when method is DEFLATED), or ``compressed`` ready-made
        raw deflate data with its ``size`` and ``crc``. ``size``/``crc`` override what is declared."""
        self.name = name.encode("utf-8") if isinstance(name, str) else name
        self.method = method
        if compressed is None:
            compressed = payload if method == STORED else _deflate(payload)
            size = len(payload) if size is None else size
            crc = zlib.crc32(payload) if crc is None else crc
        self.data, self.size, self.crc = compressed, size, crc


def _deflate(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def build_zip(members):
    out = io.BytesIO()
    central = []
    for m in members:
        offset = out.tell()
        out.write(_LOCAL.pack(b"PK\x03\x04", 20, 0, m.method, 0, 0x21, m.crc, len(m.data), m.size, len(m.name), 0))
        out.write(m.name)
        out.write(m.data)
        central.append(_CENTRAL.pack(b"PK\x01\x02", 20, 20, 0, m.method, 0, 0x21, m.crc, len(m.data), m.size,
                                     len(m.name), 0, 0, 0, 0, 0, offset) + m.name)
    cd_offset = out.tell()
    for c in central:
        out.write(c)
    out.write(_END.pack(b"PK\x05\x06", 0, 0, len(members), len(members), out.tell() - cd_offset, cd_offset, 0))
    return out.getvalue()


def members_of(data):
    """The members of a well-formed archive, as Member objects that rebuild it."""
    import zipfile
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [Member(i.filename, zf.read(i)) for i in zf.infolist()]


def npy_bytes(header, body=b"", version=1):
    """A .npy member with an arbitrary header dict (written as its repr, as NumPy does)."""
    text = repr(header).encode("latin1", "replace")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    lead = b"\x93NUMPY" + bytes([version, 0])
    lead += struct.pack("<H" if version == 1 else "<I", len(text))
    return lead + text + body


def repeated_deflate(block, times, prefix=b"", suffix=b""):
    """(compressed, size, crc) of prefix + block * times + suffix, without ever holding the whole."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    piece = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)  # no back-reference crosses a full flush
    tail = c.compress(suffix) + c.flush()
    crc = zlib.crc32(prefix)
    for _ in range(times):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(suffix, crc)
    return head + piece * times + tail, len(prefix) + len(block) * times + len(suffix), crc


def zip_bomb(structure):
    """A checkpoint whose one float32 tensor of 2**28 zeros (1 GiB) is deflated ~1000:1."""
    header = npy_bytes({"descr": "<f4", "fortran_order": False, "shape": (1 << 28,)})
    compressed, size, crc = repeated_deflate(b"\0" * (1 << 20), 1 << 10, prefix=header)
    return build_zip([Member("npgrad/structure.json", structure),
                      Member("npgrad/data/0.npy", method=DEFLATED, size=size, crc=crc, compressed=compressed)])


def json_bomb():
    """A checkpoint whose structure JSON is ~1 GB (a list of 0s) deflated to ~1 MB."""
    compressed, size, crc = repeated_deflate(b"0," * (1 << 19), 1 << 10, prefix=b'{"format":"npgrad.checkpoint",'
                                             b'"version":1,"root":[', suffix=b"0]}")
    return build_zip([Member("npgrad/structure.json", method=DEFLATED, size=size, crc=crc, compressed=compressed)])


# -- safetensors ---------------------------------------------------------------------------------------------
ST_CODES = {"float32": "F32", "int64": "I64", "bool": "BOOL", "float16": "F16", "uint8": "U8"}


def safetensors_bytes(arrays, header_override=None):
    """A safetensors file, written by hand (so no optional package is needed); ``header_override`` replaces
    the JSON header with any object, to craft lies."""
    header, chunks, pos = {}, [], 0
    for k, a in arrays.items():
        raw = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()
        header[k] = {"dtype": ST_CODES[a.dtype.name], "shape": list(a.shape), "data_offsets": [pos, pos + len(raw)]}
        chunks.append(raw)
        pos += len(raw)
    if header_override is not None:
        header = header_override
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)
