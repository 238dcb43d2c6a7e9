"""Loading a file someone else made is safe and bounded.

Every malformed input (a checkpoint truncated at every byte, random bit flips, crafted .npy headers,
structure JSON and zip members, a 1000:1 zip bomb, a ~1 GB deflated structure JSON; the same for
safetensors files) raises CheckpointError, or loads the original values when a flip hit bytes nothing
reads, or (for a crafted file that is valid) loads what it holds. Never another exception type, never a
hang, and peak memory (tracemalloc, which sees NumPy's allocations) stays within PEAK_FACTOR times the
file's size plus PEAK_SLACK.

``python -m pytest -s tests/reliability/test_checkpoint_fuzz.py`` prints the table of outcomes kept in
docs/reliability.md (with HYPOTHESIS_PROFILE=thorough for the long run).
"""
import collections
import io
import json
import math
import os
import shutil
import struct
import tempfile
import time
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import npgrad
from npgrad.serialization import CheckpointError, load_safetensors

import _hostile_files as H

PEAK_FACTOR = 2
PEAK_SLACK = 256 * 1024  # fixed costs of a load (zip directory, JSON objects, the result, caches) on a small file
TIME_LIMIT = 5.0

ORIGINAL = {"w": npgrad.arange(12, dtype=npgrad.float32).reshape(3, 4), "b": npgrad.tensor([1, 2, 3]),
            "mask": npgrad.tensor([True, False]), "h": npgrad.zeros(2, dtype=npgrad.float16),
            "arr": np.arange(3, dtype=np.uint16), "step": 7, "lr": 0.1, "inf": float("inf"), "name": "m",
            "size": npgrad.Size([2, 3]), "nested": [(1, 2.5), {"k": None}]}
_buf = io.BytesIO()
npgrad.save(ORIGINAL, _buf, format="npgrad")
GOOD = _buf.getvalue()
STRUCTURE = json.loads(H.members_of(GOOD)[0].data)
ST_ORIGINAL = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([1, -2, 3, 4], dtype=np.int64),
               "c": np.array([True, False]), "e": np.zeros((0, 3), dtype=np.float32)}
ST_GOOD = H.safetensors_bytes(ST_ORIGINAL)

BIG_ORIGINAL = {"w": npgrad.arange(1 << 18, dtype=npgrad.float32), "step": 1}  # 1 MiB of data
_buf = io.BytesIO()
npgrad.save(BIG_ORIGINAL, _buf, format="npgrad")
BIG = _buf.getvalue()

# family -> Counter of outcomes; family -> [largest peak, file size at that peak]
OUTCOMES = collections.defaultdict(collections.Counter)
PEAKS = collections.defaultdict(lambda: [0, 0])
_TMP = tempfile.mkdtemp(prefix="npgrad-fuzz-")


@pytest.fixture(scope="module", autouse=True)
def _trace_and_report():
    # one-time costs (imports of zipfile, json, ast; first use of zlib) come before anything is measured
    npgrad.load(io.BytesIO(GOOD))
    npgrad.load(io.BytesIO(H.build_zip([H.Member(m.name, m.data, method=H.DEFLATED) for m in H.members_of(GOOD)])))
    load_safetensors(_write_tmp(ST_GOOD))
    tracemalloc.start()
    yield
    tracemalloc.stop()
    shutil.rmtree(_TMP, ignore_errors=True)
    print("\n" + report())


def report():
    kinds = ["CheckpointError", "loaded: original values", "loaded: another valid file"]
    others = sorted({k for c in OUTCOMES.values() for k in c} - set(kinds))
    cols = kinds + others
    lines = ["| inputs | tried | " + " | ".join(cols) + " | largest peak (that file's size) |",
             "|---|---:|" + "---:|" * len(cols) + "---:|"]
    for family, counts in OUTCOMES.items():
        peak, size = PEAKS[family]
        lines.append(f"| {family} | {sum(counts.values())} | " + " | ".join(str(counts.get(c, 0)) for c in cols)
                     + f" | {_human(peak)} ({_human(size)}) |")
    return "\n".join(lines)


def _human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def _write_tmp(data):
    path = os.path.join(_TMP, "f.safetensors")
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def _same(a, b):
    if isinstance(a, npgrad.Tensor) or isinstance(a, np.ndarray):
        x = a.numpy() if isinstance(a, npgrad.Tensor) else a
        y = b.numpy() if isinstance(b, npgrad.Tensor) else b
        return type(a) is type(b) and x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def attempt(family, data, expected=None, crafted_ok=False, loader=None, peak_bound=None, **limits):
    """Load ``data`` and record the outcome. It must be a CheckpointError, or a load equal to ``expected``
    (when given), or any load when ``crafted_ok`` (a crafted file that happens to be valid: "another valid
    file")."""
    if loader is None:
        src, load = io.BytesIO(data), lambda s: npgrad.load(s, **limits)
    else:
        src, load = _write_tmp(data), loader
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    try:
        out = load(src)
    except CheckpointError as e:
        outcome, out = "CheckpointError", e
    except Exception as e:  # noqa: BLE001 - any other type is what this test exists to catch
        outcome, out = type(e).__name__, e
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] - base
    if not isinstance(out, Exception):
        if expected is not None and _same(out, expected):
            outcome = "loaded: original values"
        elif crafted_ok:
            outcome = "loaded: another valid file"
        else:
            outcome = "loaded: WRONG VALUES"
    error = out if isinstance(out, Exception) else None
    del out
    OUTCOMES[family][outcome] += 1
    record = PEAKS[family]
    if peak > record[0]:
        record[0], record[1] = peak, len(data)
    assert outcome.startswith("CheckpointError") or outcome.startswith("loaded: ") and "WRONG" not in outcome, \
        (family, outcome, repr(error))
    if peak_bound is None:
        peak_bound = PEAK_FACTOR * len(data) + PEAK_SLACK
    assert peak <= peak_bound, (family, peak, len(data))
    assert elapsed < TIME_LIMIT, (family, elapsed)
    return outcome


def _st_expected():
    return {k: npgrad.from_numpy(v) for k, v in ST_ORIGINAL.items()}


def _load_st(path):
    return dict(load_safetensors(path))


# -- truncation at every byte -------------------------------------------------------------------------------
def test_checkpoint_truncated_at_every_byte():
    assert attempt("checkpoint: unmodified", GOOD, ORIGINAL) == "loaded: original values"
    for cut in range(len(GOOD)):
        assert attempt("checkpoint: truncated at every byte", GOOD[:cut]) == "CheckpointError"


def test_safetensors_truncated_at_every_byte():
    expected = _st_expected()
    assert attempt("safetensors: unmodified", ST_GOOD, expected, loader=_load_st) == "loaded: original values"
    for cut in range(len(ST_GOOD)):
        assert attempt("safetensors: truncated at every byte", ST_GOOD[:cut], loader=_load_st) == "CheckpointError"


# -- bit flips ----------------------------------------------------------------------------------------------
def _flip(data, positions):
    out = bytearray(data)
    for p in positions:
        out[p // 8 % len(out)] ^= 1 << (p % 8)
    return bytes(out)


@given(st.lists(st.integers(0, 8 * len(GOOD) - 1), min_size=1, max_size=4))
def test_checkpoint_bit_flips(positions):
    attempt("checkpoint: 1-4 random bit flips", _flip(GOOD, positions), ORIGINAL)


def test_large_checkpoint_truncated():
    """Where the data dominates the file, the peak is about the file's size (the array, allocated once)."""
    assert attempt("1 MiB checkpoint: unmodified", BIG, BIG_ORIGINAL) == "loaded: original values"
    for cut in np.linspace(0, len(BIG) - 1, 64).astype(int):
        assert attempt("1 MiB checkpoint: truncated at 64 points", BIG[:cut]) == "CheckpointError"


@given(st.lists(st.integers(0, 8 * len(BIG) - 1), min_size=1, max_size=4))
def test_large_checkpoint_bit_flips(positions):
    attempt("1 MiB checkpoint: 1-4 random bit flips", _flip(BIG, positions), BIG_ORIGINAL)


@given(st.lists(st.integers(0, 8 * len(ST_GOOD) - 1), min_size=1, max_size=4))
def test_safetensors_bit_flips(positions):
    """safetensors has no checksum: a flip in the tensor data (or one that renames a tensor) is a valid file
    holding other values. Everything else is refused."""
    attempt("safetensors: 1-4 random bit flips", _flip(ST_GOOD, positions), _st_expected(), crafted_ok=True,
            loader=_load_st)


# -- crafted .npy headers -----------------------------------------------------------------------------------
_DIMS = st.one_of(st.integers(-3, 4), st.just(-1), st.sampled_from([2 ** 31, 2 ** 32 + 1, 2 ** 62, 2 ** 63, 2 ** 64]),
                  st.booleans(), st.floats(allow_nan=True), st.text(max_size=2))
_DESCRS = st.one_of(st.sampled_from(["<f4", "<f8", ">f8", "|b1", "<i8", "|u1", "<u2", "<c16", "<M8[s]", "|O", "O",
                                     "<U4", "|S3", "|V8", "<f4 ", "f", "<M8[99999999999s]", "<m8[xyz]", "<f3"]),
                    st.just([("a", "<f4")]), st.just(("<f4", (2,))), st.just([("", "|O")]), st.integers(), st.none())


@given(shape=st.one_of(st.lists(_DIMS, max_size=4).map(tuple), st.lists(_DIMS, max_size=2), st.none(),
                       st.just((1,) * 70), st.just((0, 2 ** 70))),
       descr=_DESCRS, fortran=st.sampled_from([False, True, 0, "no", None]),
       body=st.integers(0, 40), extra_key=st.booleans(), version=st.sampled_from([1, 2, 3, 9]))
def test_crafted_npy_headers(shape, descr, fortran, body, extra_key, version):
    header = {"descr": descr, "fortran_order": fortran, "shape": shape}
    if extra_key:
        header["x"] = 1
    member = H.npy_bytes(header, bytes(range(body)), version=version)
    reference = _reference_npy(member)
    structure = {"format": "npgrad.checkpoint", "version": 1, "root": {"$": "ndarray", "data": 0}}
    data = H.build_zip([H.Member("npgrad/structure.json", json.dumps(structure).encode()),
                        H.Member("npgrad/data/0.npy", member)])
    outcome = attempt("crafted .npy headers", data, reference, crafted_ok=False)
    if reference is None:
        assert outcome == "CheckpointError"


def _reference_npy(member):
    """What NumPy itself makes of a member, when it is a plain numeric array whose bytes all belong to it."""
    try:
        with warnings.catch_warnings():  # NumPy warns about the huge shapes it then refuses
            warnings.simplefilter("ignore")
            arr = np.load(io.BytesIO(member), allow_pickle=False)
    except Exception:  # noqa: BLE001 - NumPy refusing it in any way means there is no valid reading
        return None
    if arr.dtype.kind not in "biufcmM" or arr.dtype.fields is not None:
        return None
    return arr.astype(arr.dtype.newbyteorder("=")) if not arr.dtype.isnative else arr


# -- crafted structure JSON ---------------------------------------------------------------------------------
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(), st.text(max_size=4),
              st.sampled_from(["tensor", "ndarray", "float", "size", "dict", "$", "nan", "inf"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["$", "data", "dtype", "items", "value", "name",
                                                             "requires_grad", "parameter", "metadata", "zz"]),
                                            inner, max_size=4)),
    max_leaves=8)


def _slots(node, out):
    if isinstance(node, list):
        for i, v in enumerate(node):
            out.append((node, i))
            _slots(v, out)
    elif isinstance(node, dict):
        for k, v in node.items():
            out.append((node, k))
            _slots(v, out)
    return out


@given(st.data())
def test_crafted_structure_json(data):
    tree = json.loads(json.dumps(STRUCTURE))
    for _ in range(data.draw(st.integers(1, 3))):
        slots = _slots(tree, [])
        parent, key = slots[data.draw(st.integers(0, len(slots) - 1))]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = data.draw(_VALUES)
    text = json.dumps(tree).encode()  # NaN and Infinity come out as the non-JSON literals they are
    text = data.draw(st.sampled_from([
        lambda t: t, lambda t: t[:len(t) // 2], lambda t: t.replace(b'"version":1', b'"version":1,"version":1'),
        lambda t: t.replace(b"7", b"1e999"), lambda t: t.replace(b"7", b"9" * 5000),
        lambda t: t.replace(b'"m"', b'"\\ud800"'), lambda t: t + b"\xff"]))(text)
    archive = H.build_zip([H.Member("npgrad/structure.json", text)] + H.members_of(GOOD)[1:])
    attempt("crafted structure JSON", archive, ORIGINAL, crafted_ok=True)


# -- crafted zip members ------------------------------------------------------------------------------------
_GOOD_MEMBERS = H.members_of(GOOD)


@given(st.data())
def test_crafted_zip_members(data):
    members = [H.Member(m.name, m.data) for m in _GOOD_MEMBERS]
    how = data.draw(st.sampled_from(["duplicate", "missing", "unknown", "unreferenced", "sizes", "deflated lies",
                                     "deflated", "method", "name"]))
    i = data.draw(st.integers(0, len(members) - 1))
    expect_original = False
    if how == "duplicate":
        members.insert(data.draw(st.integers(0, len(members))), H.Member(members[i].name, members[i].data))
    elif how == "missing":
        del members[i]
    elif how == "unknown":
        members.append(H.Member(data.draw(st.sampled_from(["../evil", "data.pkl", "npgrad/data/01.npy", "x/",
                                                           "npgrad/data/-1.npy", "npgrad/structure.json/"])), b"1"))
    elif how == "unreferenced":
        members.append(H.Member("npgrad/data/99.npy", H.npy_bytes({"descr": "<f4", "fortran_order": False,
                                                                   "shape": (1,)}, b"\0" * 4)))
        expect_original = True
    elif how == "sizes":
        m = members[i]
        lie = data.draw(st.sampled_from([-1, 1, 2 ** 31, -len(m.data), 4096]))
        m.size = max(0, min(m.size + lie, 2 ** 32 - 1))
        if data.draw(st.booleans()):
            m.data = m.data[:max(0, len(m.data) - 8)]
    elif how in ("deflated", "deflated lies"):
        payload = members[i].data
        m = members[i] = H.Member(members[i].name, payload, method=H.DEFLATED)
        if how == "deflated":
            expect_original = True
        else:
            m.size = max(0, m.size + data.draw(st.sampled_from([-1, 1, -7, 100])))
    elif how == "method":
        members[i].method = data.draw(st.sampled_from([1, 9, 12, 14, 99]))
    else:
        members[i].name = data.draw(st.sampled_from([b"npgrad/structure.json\0", b"\xff\xfe", b""]))
    outcome = attempt(f"crafted zip members: {how}", H.build_zip(members), ORIGINAL)
    assert (outcome == "loaded: original values") if expect_original else (outcome == "CheckpointError")


def test_zip_bomb_and_huge_structure_are_refused_before_inflating():
    structure = json.dumps({"format": "npgrad.checkpoint", "version": 1,
                            "root": {"$": "tensor", "data": 0, "dtype": "float32"}}).encode()
    bomb = H.zip_bomb(structure)
    assert len(bomb) < 1_100_000
    assert attempt("zip bomb: 1 GiB tensor deflated ~1000:1", bomb) == "CheckpointError"
    assert attempt("zip bomb: 1 GiB tensor deflated ~1000:1", bomb, max_ratio=None, max_bytes=1 << 24) \
        == "CheckpointError"
    huge = H.json_bomb()
    assert len(huge) < 1_100_000
    assert attempt("~1 GB structure JSON deflated to ~1 MB", huge) == "CheckpointError"
    assert attempt("~1 GB structure JSON deflated to ~1 MB", huge, max_ratio=None, max_bytes=None) \
        == "CheckpointError"  # the structure's own size cap still applies
    with pytest.raises(CheckpointError, match="max_ratio"):
        npgrad.load(io.BytesIO(bomb))


def test_limits_let_a_trusted_compressed_file_load():
    """A deflated checkpoint over the ratio cap loads once the caller lifts it, and inflates exactly."""
    zeros = {"z": npgrad.zeros(1 << 16)}
    buf = io.BytesIO()
    npgrad.save(zeros, buf, format="npgrad")
    members = [H.Member(m.name, m.data, method=H.DEFLATED) for m in H.members_of(buf.getvalue())]
    data = H.build_zip(members)
    with pytest.raises(CheckpointError, match="max_ratio"):
        npgrad.load(io.BytesIO(data))
    bound = PEAK_FACTOR * (8 << 16) + PEAK_SLACK  # what it inflates to, not the file's size
    assert attempt("deflated, ratio > 100, max_ratio=None", data, max_ratio=None, crafted_ok=True, peak_bound=bound) \
        == "loaded: another valid file"
    with pytest.raises(CheckpointError, match="max_bytes"):
        npgrad.load(io.BytesIO(data), max_ratio=None, max_bytes=1000)
    assert npgrad.load(io.BytesIO(data), max_ratio=None)["z"].numpy().sum() == 0
    with pytest.raises(ValueError, match="max_ratio"):
        npgrad.load(io.BytesIO(GOOD), max_ratio=-1)


# -- crafted safetensors headers ----------------------------------------------------------------------------
_ST_VALUES = st.one_of(st.integers(-2 ** 65, 2 ** 65), st.floats(), st.none(), st.text(max_size=3), st.booleans(),
                       st.lists(st.integers(-3, 40), max_size=3),
                       st.sampled_from(["F32", "BF16", "U16", "F64", "I64", "object"]))


@given(st.data())
def test_crafted_safetensors_headers(data):
    header = json.loads(ST_GOOD[8:8 + struct.unpack("<Q", ST_GOOD[:8])[0]])
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(sorted(header)))
        field = data.draw(st.sampled_from(["dtype", "shape", "data_offsets", "whole", "extra"]))
        value = data.draw(_ST_VALUES)
        if field == "whole":
            header[key] = value
        elif field == "extra":
            header["__metadata__"] = value
        elif isinstance(header[key], dict):
            header[key][field] = value
    blob = H.safetensors_bytes(ST_ORIGINAL, header_override=header)
    lie = data.draw(st.sampled_from([None, 0, 1, 7, 2 ** 63, len(blob), 2 ** 64 - 1]))
    if lie is not None:
        blob = struct.pack("<Q", lie) + blob[8:]
    attempt("crafted safetensors headers", blob, _st_expected(), crafted_ok=True, loader=_load_st)
