"""The zip layer of a checkpoint, read as untrusted input.

``inventory`` checks every member before anything is inflated: a known name, not encrypted, stored or
deflated, a local header that agrees with the central directory, data inside the archive and not shared
with another member (overlapping members are how small archives declare huge contents), a stored
member's two sizes equal, a deflated member at most ``max_ratio`` times its compressed size, and all
members together at most ``max_bytes``. ``MemberReader`` then inflates one member in bounded chunks
straight into the caller's buffer, never trusting the declared size: it fails if the data ends early,
if more follows, or if the CRC disagrees.
"""
import struct
import zlib

from ._errors import fail

MAX_RATIO = 100        # a deflated member may declare at most this many times its compressed size
MAX_BYTES = 1 << 34    # all members together may declare at most 16 GiB
_LOCAL = struct.Struct("<4s5H3L2H")  # signature, version, flags, method, time, date, crc, sizes, name/extra len
_CHUNK = 1 << 16
_STORED, _DEFLATED = 0, 8


class Member:
    __slots__ = ("entry", "method", "start", "csize", "size", "crc")

    def __init__(self, entry, method, start, csize, size, crc):
        self.entry, self.method, self.start, self.csize, self.size, self.crc = entry, method, start, csize, size, crc


def inventory(zf, fh, name, known, max_bytes=MAX_BYTES, max_ratio=MAX_RATIO):
    """``{entry: Member}`` for an archive whose members all pass the checks above; ``known(entry)`` says
    whether a name belongs in it."""
    members, spans, total = {}, [], 0
    end = zf.start_dir
    for info in zf.infolist():
        entry = info.filename
        if entry in members:
            fail(name, f"is corrupted: the member {entry} appears twice")
        if not known(entry) or "\0" in info.orig_filename:
            fail(name, f"is corrupted: it has an unexpected member {entry!r}")
        if info.flag_bits & 0x1:
            fail(name, f"is unsupported: the member {entry} is encrypted")
        if info.compress_type not in (_STORED, _DEFLATED):
            fail(name, f"is unsupported: the member {entry} uses compression method {info.compress_type} "
                       "(only stored and deflated members are read)")
        size, csize = info.file_size, info.compress_size
        if info.compress_type == _STORED and size != csize:
            fail(name, f"is corrupted: the stored member {entry} declares {size} bytes but occupies {csize}")
        if max_ratio is not None and size > max_ratio * max(csize, 1):
            fail(name, f"is refused: the member {entry} would inflate {csize} bytes to {size}, more than "
                       f"max_ratio={max_ratio} times (a zip bomb?); pass npgrad.load(..., max_ratio=None) to "
                       "lift the limit for a file you trust")
        total += size
        if max_bytes is not None and total > max_bytes:
            fail(name, f"is refused: its members declare more than max_bytes={max_bytes} bytes in total; pass "
                       "npgrad.load(..., max_bytes=None) to lift the limit for a file you trust")
        start = _data_start(fh, info, name)
        if start + csize > end:
            fail(name, f"is truncated or corrupted: the member {entry} lies outside the archive's data")
        spans.append((info.header_offset, start + csize, entry))
        members[entry] = Member(entry, info.compress_type, start, csize, size, info.CRC)
    spans.sort()
    for (_, stop, a), (begin, _, b) in zip(spans, spans[1:]):
        if stop > begin:
            fail(name, f"is corrupted: the members {a} and {b} overlap")
    return members


def _data_start(fh, info, name):
    if info.header_offset < 0:
        fail(name, f"is truncated or corrupted: the member {info.filename} lies outside the archive's data")
    fh.seek(info.header_offset)
    head = fh.read(_LOCAL.size)
    if len(head) != _LOCAL.size:
        fail(name, f"is truncated: the member {info.filename} has no local header")
    sig, _, flags, method, _, _, _, _, _, nlen, xlen = _LOCAL.unpack(head)
    raw = fh.read(nlen)
    try:
        local = raw.decode("utf-8" if flags & 0x800 else "cp437")
    except UnicodeDecodeError:
        local = None
    if sig != b"PK\x03\x04" or method != info.compress_type or local != info.orig_filename:
        fail(name, f"is corrupted: the local header of {info.filename} disagrees with the archive's directory")
    return info.header_offset + _LOCAL.size + nlen + xlen


class MemberReader:
    """Reads exactly ``member.size`` bytes of one member, then ``finish()`` proves nothing else follows."""

    def __init__(self, fh, member, name):
        self._fh, self._m, self._name = fh, member, name
        self._left = member.size
        self._raw_left = member.csize
        self._crc = 0
        self._z = zlib.decompressobj(-15) if member.method == _DEFLATED else None
        self._pending = b""
        fh.seek(member.start)

    def _fail(self, why):
        fail(self._name, f"is truncated or corrupted: the member {self._m.entry} {why}")

    def _raw(self):
        data = self._fh.read(min(_CHUNK, self._raw_left))
        if not data:
            self._fail("ends early")
        self._raw_left -= len(data)
        return data

    def readinto(self, view):
        """Fill the writable byte memoryview ``view`` (no longer than what is left of the member)."""
        n = len(view)
        if n > self._left:
            self._fail(f"is shorter than the {n} bytes its contents need")
        got = 0
        while got < n:
            if self._z is None:
                readinto = getattr(self._fh, "readinto", None)
                if readinto is not None:  # straight into the array: no copy of a large tensor
                    k = readinto(view[got:n])
                    if not k:
                        self._fail("ends early")
                    self._crc = zlib.crc32(view[got:got + k], self._crc)
                    got += k
                    continue
                data = self._fh.read(min(n - got, _CHUNK * 16))
                if not data:
                    self._fail("ends early")
            else:
                if not self._pending:
                    if self._raw_left == 0:
                        self._fail("ends early")
                    self._pending = self._raw()
                try:
                    data = self._z.decompress(self._pending, n - got)
                except zlib.error as e:
                    self._fail(f"cannot be inflated ({e})")
                self._pending = self._z.unconsumed_tail
                if not data and self._z.eof:
                    self._fail(f"inflates to fewer than its declared {self._m.size} bytes")
            view[got:got + len(data)] = data
            self._crc = zlib.crc32(data, self._crc)
            got += len(data)
        self._left -= n

    def read(self, n):
        buf = bytearray(n)
        self.readinto(memoryview(buf))
        return buf

    def finish(self):
        if self._left:
            self._fail(f"holds {self._left} bytes more than its contents need")
        if self._z is not None:
            while not self._z.eof:  # the deflate stream must end exactly at the declared size
                if not self._pending:
                    if self._raw_left == 0:
                        self._fail("ends early")
                    self._pending = self._raw()
                try:
                    extra = self._z.decompress(self._pending, 1)
                except zlib.error as e:
                    self._fail(f"cannot be inflated ({e})")
                if extra:
                    self._fail(f"inflates to more than its declared {self._m.size} bytes")
                self._pending = self._z.unconsumed_tail
            if self._z.unused_data or self._pending or self._raw_left:
                self._fail("has data after its end")
        if self._crc != self._m.crc:
            self._fail("fails its CRC check")
