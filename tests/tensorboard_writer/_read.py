"""Reading event files back with TensorBoard's own reader, and decoding the PNGs written into them."""
import glob
import os
import struct
import zlib

import numpy as np
import pytest

pytest.importorskip("tensorboard", reason="SummaryWriter needs the optional tensorboard package")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader  # noqa: E402


def accumulator(logdir):
    acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0, "images": 0, "histograms": 0, "tensors": 0})
    acc.Reload()
    return acc


def events(logdir):
    """Every event of every event file directly in ``logdir``, in file order."""
    out = []
    for path in sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))):
        out.extend(EventFileLoader(path).Load())
    return out


def decode_png(data):
    """Pixels of an 8-bit RGB/RGBA PNG, undoing all five scanline filters (so PIL-written files decode too)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        (n,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6)
    c = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * c)
    out = np.zeros((h, w * c), np.int64)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        prev = out[y - 1] if y else np.zeros(w * c, np.int64)
        row = np.zeros(w * c, np.int64)
        for x in range(w * c):
            a = row[x - c] if x >= c else 0
            b, cc = prev[x], (prev[x - c] if x >= c else 0)
            if f == 0:
                pred = 0
            elif f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            else:
                p = a + b - cc
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
            row[x] = (line[x] + pred) & 0xFF
        out[y] = row
    return out.reshape(h, w, c).astype(np.uint8)
