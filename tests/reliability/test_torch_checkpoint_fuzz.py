"""Fuzzing ``npgrad.load`` on PyTorch-format files (``torch.save``'s zip layout, written here by
``npgrad.save(..., format="torch")`` so no torch is needed).

Every input must load (the original values, or, for a crafted pickle that happens to be valid, anything
made only of allowed objects) or raise ``CheckpointError``; never another exception, never more than 5 s,
peak memory within ``2 x file size + 256 KiB``, and never the payload's marker file. The pickles are
random sequences of opcode fragments: the allowed ones, the rebuild globals, and the dangerous ones
(``os.system``, ``INST``, ``OBJ``, ``NEWOBJ``, ``EXT``) that must be refused.
"""
import io
import os
import struct
import tempfile
import time
import tracemalloc
import zipfile

import numpy as np
from hypothesis import given, strategies as st

import npgrad
from npgrad.serialization import CheckpointError

ORIGINAL = {"w": npgrad.arange(12, dtype=npgrad.float32).reshape(3, 4), "b": npgrad.tensor([1, 2, 3]),
            "mask": npgrad.tensor([True, False]), "h": npgrad.zeros(2, dtype=npgrad.float16), "step": 7,
            "lr": 0.1, "name": "m", "size": npgrad.Size([2, 3]), "nested": [(1, 2.5), {"k": None}]}
ORIGINAL["row"] = ORIGINAL["w"][1]
_buf = io.BytesIO()
npgrad.save(ORIGINAL, _buf, format="torch")
GOOD = _buf.getvalue()
npgrad.load(io.BytesIO(GOOD))  # one-time costs (imports, first use of the unpickler) come before measuring
MARKER = os.path.join(tempfile.gettempdir(), f"npgrad-torch-fuzz-{os.getpid()}")


def _s(text):
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


FRAGMENTS = [b"(", b")", b"]", b"}", b"N", b"\x88", b"\x89", b"K\x02", b"J\xff\xff\xff\xff", b"G" + bytes(8),
             _s("0"), _s("storage"), _s("cpu"), _s("_metadata"), b"t", b"\x85", b"\x86", b"\x87", b"a", b"e", b"s",
             b"u", b"R", b"b", b"Q", b"h\x00", b"q\x00", b"0", b"2", b"l", b"d", b"\x8f", b"\x90", b"\x91",
             b"ctorch._utils\n_rebuild_tensor_v2\n", b"ctorch._utils\n_rebuild_parameter\n", b"ctorch\nFloatStorage\n",
             b"ctorch\nSize\n", b"ctorch\ndevice\n", b"ccollections\nOrderedDict\n", b"c__builtin__\nset\n",
             b"ctorch.storage\nUntypedStorage\n", b"ctorch._utils\n_rebuild_tensor_v3\n", b"ctorch\nfloat32\n",
             b"cos\nsystem\n(" + _s(f"touch {MARKER}") + b"tR",
             b"ci\nos\nsystem\n", b"o", b"\x81", b"\x82\x01", b"\x92", b"\x96", b"\x97"]


def attempt(data, expected=None, **limits):
    tracemalloc.start()
    try:
        start = time.perf_counter()
        try:
            out = npgrad.load(io.BytesIO(data), **limits)
            outcome = "loaded"
        except CheckpointError:
            outcome, out = "CheckpointError", None
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not os.path.exists(MARKER)
    assert elapsed < 5.0
    assert peak <= 2 * len(data) + 256 * 1024, (peak, len(data))
    if outcome == "loaded" and expected is not None:
        for k, v in expected.items():
            got = out[k]
            if isinstance(v, npgrad.Tensor):
                assert got.dtype == v.dtype and np.array_equal(got.numpy(), v.numpy()), k
            else:
                assert got == v, k
    return outcome


def _flip(data, positions):
    out = bytearray(data)
    for p in positions:
        out[p // 8 % len(out)] ^= 1 << (p % 8)
    return bytes(out)


def test_truncated_at_every_byte():
    assert attempt(GOOD, ORIGINAL) == "loaded"
    for cut in range(0, len(GOOD), 3):
        assert attempt(GOOD[:cut]) == "CheckpointError"


@given(st.lists(st.integers(0, 8 * len(GOOD) - 1), min_size=1, max_size=4))
def test_bit_flips(positions):
    attempt(_flip(GOOD, positions), ORIGINAL)


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40), st.booleans())
def test_random_pickles(fragments, deflate):
    pkl = b"\x80\x02" + b"".join(fragments) + b"."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as zf:
        zf.writestr("archive/data.pkl", pkl)
        zf.writestr("archive/data/0", np.arange(4, dtype=np.float32).tobytes())
    attempt(buf.getvalue())
