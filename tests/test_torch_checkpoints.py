"""PyTorch checkpoints both ways: ``npgrad.load`` reads ``torch.save``'s zip format without executing
anything, ``npgrad.save(..., format="torch")`` writes files ``torch.load(weights_only=True)`` reads.

Files from PyTorch are made here with torch when it is installed; the hostile files are built by hand
from pickle opcodes and zipfile, so they run without torch. Every payload is first shown to be live
(plain ``pickle.loads`` creates its marker file), then shown refused with nothing created.
"""
import builtins
import dataclasses
import io
import os
import pickle
import struct
import subprocess
import sys
import tracemalloc
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import npgrad
from npgrad import serialization
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH,
                                 reason="PyTorch is not installed (the oracle that writes/reads the files)")


# -- hand-built pickles ---------------------------------------------------------------------------------------
def _s(text):
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def _i(v):
    if -2 ** 31 <= v < 2 ** 31:
        return b"J" + struct.pack("<i", v)
    raw = v.to_bytes(16, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def _tup(*parts):
    return b"(" + b"".join(parts) + b"t"


def _tensor(key, numel, size, stride, storage="FloatStorage", offset=0):
    pid = _tup(_s("storage"), b"ctorch\n" + storage.encode() + b"\n", _s(key), _s("cpu"), _i(numel)) + b"Q"
    args = _tup(pid, _i(offset), _tup(*map(_i, size)), _tup(*map(_i, stride)), b"\x89",
                b"ccollections\nOrderedDict\n)R")
    return b"ctorch._utils\n_rebuild_tensor_v2\n" + args + b"R"


def _dict(*pairs):
    return b"}(" + b"".join(k + v for k, v in pairs) + b"u"


def _pkl(body):
    return b"\x80\x02" + body + b"."


def _zip(path, pkl, storages=(), prefix="archive", extra=()):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{prefix}/data.pkl", pkl)
        zf.writestr(f"{prefix}/byteorder", "little")
        for key, data in storages:
            zf.writestr(f"{prefix}/data/{key}", data)
        for name, data in extra:
            zf.writestr(name, data)
        zf.writestr(f"{prefix}/version", "3\n")
    return path


def _refused(path, match, **kw):
    with pytest.raises(serialization.CheckpointError, match=match) as info:
        npgrad.load(path, **kw)
    assert repr(str(path)) in str(info.value)
    return str(info.value)


class _Reduce:
    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _payloads(marker):
    m = str(marker)
    return {"os.system": _Reduce(os.system, (f"touch {m}",)),
            "builtins.eval": _Reduce(builtins.eval, (f"open({m!r}, 'w').close()",)),
            "builtins.exec": _Reduce(builtins.exec, (f"open({m!r}, 'w').close()",)),
            "subprocess": _Reduce(subprocess.call, (["touch", m],))}


def _body(obj):
    """An object's pickle without PROTO/STOP, to splice into a hand-built one."""
    raw = pickle.dumps(obj, protocol=2)
    assert raw[:2] == b"\x80\x02" and raw[-1:] == b"."
    return raw[2:-1]


# -- hostile files --------------------------------------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="the payloads use POSIX touch")
@pytest.mark.parametrize("kind", ["os.system", "builtins.eval", "builtins.exec", "subprocess"])
def test_code_payloads_are_refused_and_never_run(tmp_path, kind):
    marker = tmp_path / "pwned"
    payload = _payloads(marker)[kind]
    pickle.loads(pickle.dumps(payload, protocol=2))  # the payload is live: plain unpickling runs it
    assert marker.exists()
    marker.unlink()
    good = _tensor("0", 2, (2,), (1,))
    pkl = _pkl(_dict((_s("w"), good), (_s("evil"), _body(payload))))
    path = _zip(tmp_path / "evil.pt", pkl, [("0", np.ones(2, np.float32).tobytes())])
    module = {"os.system": "posix.system|os.system", "subprocess": "subprocess.call|commands.call",
              "builtins.eval": "eval", "builtins.exec": "exec"}[kind]
    message = _refused(path, f"Unsupported global: GLOBAL ({module}) was not an allowed global by default")
    assert "nothing from the file was executed" in message and message.startswith("Weights only load failed.")
    assert not marker.exists()
    # the same payload as the whole file, and through a file object
    path2 = _zip(tmp_path / "evil2.pt", pickle.dumps(payload, protocol=2))
    _refused(path2, "was not an allowed global")
    with pytest.raises(pickle.UnpicklingError, match="was not an allowed global"):  # what PyTorch raises
        npgrad.load(io.BytesIO(path2.read_bytes()))
    assert not marker.exists()


def test_globals_off_the_list_and_misused_allowed_ones(tmp_path):
    unsupported = "Unsupported global: GLOBAL {} was not an allowed global by default"
    cases = {
        "defaultdict": (b"ccollections\ndefaultdict\n)R", unsupported.format("collections.defaultdict")),
        "rebuild_from_type": (b"ctorch._tensor\n_rebuild_from_type_v2\n)R", "torch._tensor._rebuild_from_type_v2, "
                              "which npgrad.load does not support"),
        "numpy": (b"cnumpy.core.multiarray\n_reconstruct\n)R", unsupported.format("numpy.core.multiarray._reconstruct")),
        "dotted qualname": (b"\x8c\x0bcollections\x8c\x14OrderedDict.fromkeys\x93)R",
                            unsupported.format("collections.OrderedDict.fromkeys")),
        "call a storage class": (b"ctorch\nFloatStorage\n)R", "Trying to call reduce for unrecognized function"),
        "call a dtype": (b"ctorch\nfloat32\n)R", "Trying to call reduce for unrecognized function"),
        "instantiate Size": (b"ctorch\nSize\n)\x81", "Trying to instantiate unsupported class"),
        "BUILD on a tensor": (_tensor("0", 2, (2,), (1,)) + b"}" + _s("_data") + b"Nsb", "tensor with Python attributes"),
        "BUILD on a dict": (b"}}" + _s("x") + b"Ns" + b"b", "Can only build Tensor, Parameter, OrderedDict or types "
                            "allowlisted via `add_safe_globals`, but got <class 'dict'>"),
        "SETITEM on a tensor": (_tensor("0", 2, (2,), (1,)) + _i(0) + _i(5) + b"s", "SETITEM on a Tensor is not allowed"),
        "APPEND on a tensor": (_tensor("0", 2, (2,), (1,)) + _i(5) + b"a", "APPEND on a Tensor is not allowed"),
        "INST opcode": (b"(ios\nsystem\n", "Unsupported operand 105"),
        "OBJ opcode": (b"(ccollections\nOrderedDict\no", "Unsupported operand 111"),
        "EXT opcode": (b"\x82\x01", "Unsupported operand 130"),
        "bare storage": (_tup(_s("storage"), b"ctorch\nFloatStorage\n", _s("0"), _s("cpu"), _i(2)) + b"Q",
                         "bare storage"),
        "not a storage record": (_s("file:///etc/passwd") + b"Q", "not a storage record"),
        "hooks": (_tensor("0", 2, (2,), (1,)).replace(b"ccollections\nOrderedDict\n)R",
                                                       b"}" + _i(1) + _i(2) + b"s"), "backward hooks"),
        "int requires_grad": (_tensor("0", 1, (1,), (1,), storage="LongStorage").replace(b"\x89", b"\x88"),
                              "int64 tensor marked requires_grad"),
    }
    for label, (body, match) in cases.items():
        path = _zip(tmp_path / f"{label.replace(' ', '_')}.pt", _pkl(body), [("0", bytes(8))])
        _refused(path, match)
    # NEWOBJ on an allowed container builds it, as in PyTorch
    path = _zip(tmp_path / "newobj.pt", _pkl(b"ccollections\nOrderedDict\n)\x81"))
    assert npgrad.load(path) == OrderedDict() and type(npgrad.load(path)) is OrderedDict


def test_persistent_ids_outside_the_archive_are_refused(tmp_path):
    for key in ["../../etc/passwd", "/etc/passwd", "1", "..", "0/../0"]:
        path = _zip(tmp_path / "out.pt", _pkl(_tensor(key, 2, (2,), (1,))), [("0", bytes(8))])
        _refused(path, f"refers to the storage {key!r}, which is not in the archive")
    # a member outside the archive's folder is refused by the zip check itself
    path = _zip(tmp_path / "stray.pt", _pkl(_tensor("0", 2, (2,), (1,))), [("0", bytes(8))],
                extra=[("../evil", b"x")])
    _refused(path, "unexpected member")


def test_storage_larger_than_the_file_is_refused_before_allocating(tmp_path):
    path = _zip(tmp_path / "huge.pt", _pkl(_tensor("0", 10 ** 12, (10 ** 12,), (1,))), [("0", bytes(8))])
    tracemalloc.start()
    try:
        _refused(path, "the storage 0 declares 4000000000000 bytes but the archive holds 8")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    # a view reaching past its storage, a negative size, a size/stride mismatch
    for size, stride, offset, match in [((3,), (1,), 0, "reaches element 2 of a storage of 2"),
                                        ((2,), (1,), 1, "reaches element 2"), ((-1,), (1,), 0, "size"),
                                        ((2, 1), (1,), 0, "size")]:
        path = _zip(tmp_path / "view.pt", _pkl(_tensor("0", 2, size, stride, offset=offset)), [("0", bytes(8))])
        _refused(path, match)
    path = _zip(tmp_path / "odd.pt", _pkl(_tensor("0", 2, (2,), (1,))), [("0", bytes(7))])
    _refused(path, "declares 8 bytes but the archive holds 7")


def test_limits_of_npgrad_format_apply(tmp_path):
    path = tmp_path / "m.pt"
    npgrad.save({"w": npgrad.zeros(1000)}, path, format="torch")
    _refused(path, "max_bytes=100", max_bytes=100)
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("archive/data.pkl", _pkl(_tensor("0", 10 ** 6, (10 ** 6,), (1,))))
        zf.writestr("archive/data/0", bytes(4 * 10 ** 6))
    _refused(bomb, "max_ratio=100")
    assert npgrad.load(bomb, max_ratio=None).shape == (10 ** 6,)


def test_truncated_and_corrupted_files(tmp_path):
    path = tmp_path / "m.pt"
    npgrad.save({"w": npgrad.arange(64.0), "b": npgrad.ones(3, dtype=npgrad.int64)}, path, format="torch")
    data = path.read_bytes()
    bad = tmp_path / "bad.pt"
    for cut in [1, 4, 30, 100, len(data) // 2, len(data) - 30, len(data) - 1]:
        bad.write_bytes(data[:cut])
        _refused(bad, "truncated|corrupted|incomplete")
    rng = np.random.default_rng(0)
    flips = 0
    for pos in rng.choice(len(data), 300, replace=False):
        raw = bytearray(data)
        raw[pos] ^= 0x5A
        bad.write_bytes(bytes(raw))
        try:
            out = npgrad.load(bad)
        except serialization.CheckpointError:
            flips += 1
            continue
        # a flipped byte nothing reads (padding, timestamps) changes nothing
        assert out["w"].tolist() == list(np.arange(64.0)) and out["b"].tolist() == [1, 1, 1]
    assert flips > 200


def test_map_location_and_plain_pickles(tmp_path):
    path = tmp_path / "m.pt"
    npgrad.save({"w": npgrad.ones(2)}, path)
    for wo in (True, False):
        assert npgrad.load(path, weights_only=wo)["w"].tolist() == [1.0, 1.0]
    for where in ["cpu", npgrad.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage]:
        assert npgrad.load(path, map_location=where)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="CPU only"):
        npgrad.load(path, map_location="cuda")
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        npgrad.load(path, pickle_module=pickle, weights_only=True)
    assert npgrad.load(path, pickle_module=pickle)["w"].tolist() == [1.0, 1.0]  # weights_only=False then
    # a file saved from a GPU names its storages' device; npgrad puts them on the CPU
    cuda = _zip(tmp_path / "cuda.pt", _pkl(_tensor("0", 2, (2,), (1,)).replace(_s("cpu"), _s("cuda:0"))),
                [("0", np.array([1, 2], "<f4").tobytes())])
    assert npgrad.load(cuda).tolist() == [1.0, 2.0]
    plain = tmp_path / "plain.pt"  # a pickle, but not torch.save's legacy format
    plain.write_bytes(pickle.dumps({"w": [1.0]}, protocol=2))
    for wo in (True, False):
        _refused(plain, "is a pickle file but not a PyTorch checkpoint .*Invalid magic number", weights_only=wo)


def test_unsupported_dtypes(tmp_path):
    path = _zip(tmp_path / "c.pt", _pkl(_tensor("0", 2, (2,), (1,), storage="ComplexHalfStorage")),
                [("0", bytes(8))])
    _refused(path, "complex32 tensors, a dtype npgrad does not support")
    path = _zip(tmp_path / "q.pt", _pkl(_tensor("0", 2, (2,), (1,), storage="QInt8Storage")), [("0", bytes(2))])
    _refused(path, "qint8 tensors, a dtype npgrad does not support")


def test_bfloat16_loads_as_bfloat16(tmp_path):
    values = np.array([1.0, -2.5, 3.140625, 2.0 ** 100, -0.0, np.inf], np.float32)
    bits = (values.view(np.uint32) >> 16).astype("<u2")  # these values are exact in bfloat16
    path = _zip(tmp_path / "bf.pt", _pkl(_tensor("0", 6, (6,), (1,), storage="BFloat16Storage")),
                [("0", bits.tobytes())])
    t = npgrad.load(path)
    assert t.dtype == npgrad.bfloat16
    np.testing.assert_array_equal(t.float().numpy(), values)


def test_expanded_and_big_endian_storages(tmp_path):
    path = _zip(tmp_path / "e.pt", _pkl(_tensor("0", 3, (2, 3), (0, 1))), [("0", np.arange(3, dtype="<f4").tobytes())])
    t = npgrad.load(path)
    np.testing.assert_array_equal(t.numpy(), [[0, 1, 2], [0, 1, 2]])
    t[0, 0] = 7.0  # a copy: the overlapping view is not written through
    assert t.tolist() == [[7, 1, 2], [0, 1, 2]]
    big = tmp_path / "big.pt"
    with zipfile.ZipFile(big, "w") as zf:
        zf.writestr("archive/data.pkl", _pkl(_tensor("0", 3, (3,), (1,), storage="LongStorage")))
        zf.writestr("archive/byteorder", "big")
        zf.writestr("archive/data/0", np.array([1, -2, 3], ">i8").tobytes())
    assert npgrad.load(big).tolist() == [1, -2, 3]


# -- npgrad's own writer, read back by npgrad (no torch needed) -----------------------------------------------
DTYPES = [npgrad.float16, npgrad.float32, npgrad.float64, npgrad.int8, npgrad.int16, npgrad.int32, npgrad.int64,
          npgrad.uint8, npgrad.bool]


def _sample():
    base = npgrad.arange(24.0).reshape(4, 6)
    obj = OrderedDict((f"t_{d.name}", npgrad.tensor([[0, 1, 2], [3, 4, 5]]).to(d)) for d in DTYPES)
    obj.update(base=base, rows=base[1:3], cols=base[:, ::2], tr=base.t(), flat=base.view(-1), again=base,
               flip=npgrad.arange(5.0).flip(0), scalar=npgrad.tensor(2.5, requires_grad=True),
               param=npgrad.nn.Parameter(npgrad.ones(3)), empty=npgrad.zeros(0, 3),
               misc={"n": [1, -2, 2 ** 40, 2 ** 80, 2.5, float("inf"), None, True, "x"], "t": (1, 2, 3, 4, 5),
                     "size": npgrad.Size([2, 3]), "dtype": npgrad.float64, "set": {3, 1}})
    obj._metadata = OrderedDict([("", {"version": 1})])
    return obj


def _assert_same(a, b):
    assert type(a) is type(b) or isinstance(a, npgrad.Tensor), (type(a), type(b))
    if isinstance(a, npgrad.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b)
    else:
        assert a == b


def test_npgrad_roundtrip_keeps_values_types_and_sharing(tmp_path):
    obj = _sample()
    path = tmp_path / "s.pt"
    npgrad.save(obj, path, format="torch")
    back = npgrad.load(path)
    _assert_same(obj, back)
    assert back._metadata == obj._metadata
    assert type(back["param"]).__name__ == "Parameter" and back["param"].requires_grad
    assert back["again"] is back["base"]
    for view in ("rows", "cols", "tr", "flat"):
        assert np.shares_memory(back[view].numpy(), back["base"].numpy()), view
    back["base"][2, 0] = -1.0  # a write through one shows through every view of the storage
    assert back["rows"][1, 0].item() == -1.0 and back["cols"][2, 0].item() == -1.0 and back["tr"][0, 2].item() == -1.0
    # the file is one storage per base array: 9 dtypes + base + flip + scalar + param + empty
    with zipfile.ZipFile(path) as zf:
        assert sum(n.startswith("archive/data/") for n in zf.namelist()) == 14
        for info in zf.infolist():
            if info.filename.startswith("archive/data/"):
                assert (info.header_offset + 30 + len(info.filename) + len(info.extra)) % 64 == 0
    buf = io.BytesIO()
    npgrad.save(obj, buf, format="torch")
    assert buf.getvalue() == path.read_bytes()  # deterministic, and file objects work
    _assert_same(obj, npgrad.load(io.BytesIO(buf.getvalue())))


@dataclasses.dataclass
class _Config:
    width: int = 4
    name: str = "run"


def _model_and_optimizer():
    npgrad.manual_seed(0)
    model = npgrad.nn.Sequential(npgrad.nn.Linear(3, 4), npgrad.nn.BatchNorm1d(4), npgrad.nn.Linear(4, 1))
    opt = npgrad.optim.Adam(model.parameters(), lr=0.01)
    model(npgrad.randn(5, 3)).pow(2).mean().backward()
    opt.step()
    return model, opt


def test_any_picklable_object_with_weights_only_false(tmp_path):
    model, opt = _model_and_optimizer()
    loop = [1]
    loop.append(loop)
    obj = {"model": model, "opt": opt, "cfg": _Config(7), "np": np.arange(3.0), "loop": loop, "fs": frozenset({1})}
    path = tmp_path / "whole.pt"
    npgrad.save(obj, path)
    back = npgrad.load(path, weights_only=False)
    assert type(back["model"]) is type(model) and back["cfg"] == _Config(7) and back["fs"] == frozenset({1})
    assert back["loop"][1] is back["loop"] and back["np"].tolist() == [0.0, 1.0, 2.0]
    # the optimizer still drives the loaded model's own parameters
    assert all(p is q for p, q in zip(back["model"].parameters(), back["opt"].param_groups[0]["params"]))
    x = npgrad.randn(2, 3)
    model.eval()
    back["model"].eval()
    np.testing.assert_array_equal(back["model"](x).detach().numpy(), model(x).detach().numpy())
    back["opt"].step()  # its state (exp_avg, step) came along: one more step works
    # weights_only=True (the default) refuses the first class off the list, with PyTorch's message
    with pytest.raises(serialization.WeightsOnlyError, match="GLOBAL npgrad.nn.modules.container.Sequential"):
        npgrad.load(path)
    # ... and loads it once the user allows what the file names
    cfg_path = tmp_path / "cfg.pt"
    npgrad.save({"cfg": _Config(3), "sd": model.state_dict()}, cfg_path)
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {__name__}._Config was not an allowed global"):
        npgrad.load(cfg_path)
    with serialization.safe_globals([_Config]):
        assert serialization.get_safe_globals() == [_Config]
        assert npgrad.load(cfg_path)["cfg"] == _Config(3)
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([(_Config, f"{__name__}._Config")])
    try:
        assert npgrad.load(cfg_path)["cfg"] == _Config(3)
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_save_errors(tmp_path):
    with pytest.raises(ValueError, match="format must be 'torch' or 'npgrad'"):
        npgrad.save({}, tmp_path / "a.pt", format="pickle")
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        npgrad.save({"f": lambda: 1}, tmp_path / "a.pt")  # not picklable, as in PyTorch
    assert not (tmp_path / "a.pt").exists()  # the failed save left nothing behind


def test_legacy_format_files(tmp_path):
    """``_use_new_zipfile_serialization=False`` files, built here without torch (the layout PyTorch writes)."""
    def legacy(obj_pickle, storages, keys=None):
        head = b"".join(pickle.dumps(v, protocol=2) for v in (0x1950A86A20F9469CFC6C, 1001,
                        {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4,
                                                                                           "long": 4}}))
        keys = [k for k, _, _ in storages] if keys is None else keys
        body = b"".join(struct.pack("<q", n) + raw for _, n, raw in storages)
        return io.BytesIO(head + obj_pickle + pickle.dumps(keys, protocol=2) + body)

    def t(key, numel, size, stride, storage="FloatStorage", offset=0):
        return _tensor(key, numel, size, stride, storage, offset).replace(_i(numel) + b"t", _i(numel) + b"Nt", 1)

    vals = np.arange(6, dtype="<f4")
    f = legacy(_pkl(_dict((_s("a"), t("k1", 6, (2, 3), (3, 1))), (_s("b"), t("k1", 6, (3,), (1,), offset=3)),
                          (_s("e"), t("k2", 2, (3, 2), (0, 1))), (_s("m"), t("k3", 2, (2,), (1,), "BoolStorage")))),
               [("k1", 6, vals.tobytes()), ("k2", 2, vals[:2].tobytes()), ("k3", 2, b"\x00\x07")])
    back = npgrad.load(f)
    assert back["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and back["b"].tolist() == [3, 4, 5]
    assert np.shares_memory(back["a"].numpy(), back["b"].numpy())
    assert back["e"].tolist() == [[0, 1]] * 3 and back["m"].tolist() == [False, True]
    back["e"][0, 0] = 5.0  # an expanded tensor is its own copy
    assert back["e"].tolist() == [[5, 1], [0, 1], [0, 1]]
    one = _pkl(t("k", 2, (2,), (1,)))
    for bad, match in [(legacy(one, [("k", 2, bytes(4))]), "truncated"),
                       (legacy(one, [("k", 3, bytes(12))]), "does not start with its 2 elements"),
                       (legacy(one, [("k", 2, bytes(8))], keys=["k", "j"]), "storage list does not match"),
                       (legacy(_pkl(t("k", 10 ** 12, (2,), (1,))), [("k", 2, bytes(8))]), "declare .* bytes but only"),
                       (legacy(_pkl(b"cos\nsystem\n"), []), "GLOBAL posix.system|GLOBAL os.system")]:
        with pytest.raises(serialization.CheckpointError, match=match):
            npgrad.load(bad)
    # npgrad writes the format too; read back here, and by PyTorch when it is installed
    x = npgrad.arange(6.0).reshape(2, 3)
    obj = {"x": x, "t": x.t(), "p": npgrad.nn.Parameter(npgrad.ones(2)), "m": npgrad.tensor([True, False]), "n": 3}
    buf = io.BytesIO()
    npgrad.save(obj, buf, _use_new_zipfile_serialization=False)
    assert not buf.getvalue().startswith(b"PK")
    back = npgrad.load(io.BytesIO(buf.getvalue()))
    _assert_same(obj, back)
    assert np.shares_memory(back["t"].numpy(), back["x"].numpy())
    if HAS_TORCH:
        theirs = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
        assert theirs["t"].tolist() == x.t().tolist() and isinstance(theirs["p"], torch.nn.Parameter)
        assert theirs["t"].untyped_storage().data_ptr() == theirs["x"].untyped_storage().data_ptr()


# -- against PyTorch -----------------------------------------------------------------------------------------
def _cnn(nn):
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 2 * 2, 5))


def _transformer(nn):
    return nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)


def _lstm(nn):
    return nn.LSTM(6, 8, num_layers=2, batch_first=True)


MODELS = {"cnn": (_cnn, (2, 3, 8, 8)), "transformer": (_transformer, (2, 5, 16)), "lstm": (_lstm, (2, 5, 6))}


def _out(y):
    return (y[0] if isinstance(y, tuple) else y).detach().numpy()


def _train_bn(model, shape, randn):
    model.train()
    for _ in range(3):  # BatchNorm's running statistics become non-trivial buffers
        model(randn(*shape))
    model.eval()


@needs_torch
@pytest.mark.parametrize("arch", list(MODELS))
def test_pytorch_state_dicts_load_into_npgrad_models(tmp_path, arch):
    build, shape = MODELS[arch]
    torch.manual_seed(0)
    tm = build(torch.nn).double()
    _train_bn(tm, shape, lambda *s: torch.randn(*s, dtype=torch.float64))
    path = tmp_path / f"{arch}.pt"
    torch.save(tm.state_dict(), path)
    nm = build(npgrad.nn).double()
    sd = npgrad.load(path)
    assert isinstance(sd, OrderedDict) and sd._metadata == tm.state_dict()._metadata
    nm.load_state_dict(sd)
    nm.eval()
    x = np.random.default_rng(1).standard_normal(shape)
    with torch.no_grad():
        expected = _out(tm(torch.from_numpy(x)))
    np.testing.assert_allclose(_out(nm(npgrad.from_numpy(x))), expected, rtol=1e-6, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("arch", list(MODELS))
def test_npgrad_state_dicts_load_in_pytorch_weights_only(tmp_path, arch):
    build, shape = MODELS[arch]
    npgrad.manual_seed(0)
    nm = build(npgrad.nn)
    _train_bn(nm, shape, npgrad.randn)
    path = tmp_path / f"{arch}.pt"
    npgrad.save(nm.state_dict(), path, format="torch")
    sd = torch.load(path, weights_only=True)
    assert list(sd) == list(nm.state_dict())
    for k, v in nm.state_dict().items():
        assert sd[k].dtype == getattr(torch, v.dtype.name)
        np.testing.assert_array_equal(sd[k].numpy(), v.numpy())
    tm = build(torch.nn)
    tm.load_state_dict(sd)
    tm.eval()
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    with torch.no_grad():
        expected = _out(tm(torch.from_numpy(x)))
    np.testing.assert_allclose(_out(nm(npgrad.from_numpy(x))), expected, rtol=1e-5, atol=1e-6)


@needs_torch
def test_pytorch_files_of_every_dtype_and_shared_storage(tmp_path):
    base = torch.arange(24.0).reshape(4, 6)
    obj = {f"t_{d}": torch.tensor([[0, 1, 2], [3, 4, 5]]).to(getattr(torch, d))
           for d in ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]}
    obj.update(base=base, rows=base[1:3], cols=base[:, ::2], tr=base.t(), again=base, exp=torch.ones(3).expand(2, 3),
               param=torch.nn.Parameter(torch.ones(2)), grad=torch.ones(2, requires_grad=True), scalar=torch.tensor(3),
               empty=torch.zeros(0, 3), size=torch.Size([1, 2]), dtype=torch.int16, dev=torch.device("cpu"),
               nested=[{"a": (1, 2.5, "s", None)}], od=OrderedDict(x=1),
               bf=torch.tensor([1.5, -3.0], dtype=torch.bfloat16))
    path = tmp_path / "t.pt"
    torch.save(obj, path)
    back = npgrad.load(path)
    assert list(back) == list(obj)
    for k, v in obj.items():
        if isinstance(v, torch.Tensor):
            b = back[k]
            assert b.dtype.name == str(v.dtype).replace("torch.", ""), k
            assert b.requires_grad == v.requires_grad and b.shape == tuple(v.shape), k
            bf = v.dtype == torch.bfloat16  # (NumPy has no bfloat16: compared through float32)
            np.testing.assert_array_equal((b.detach().float() if bf else b.detach()).numpy(),
                                          (v.detach().float() if bf else v.detach()).numpy())
    assert type(back["param"]).__name__ == "Parameter"
    assert back["size"] == npgrad.Size([1, 2]) and back["dtype"] == npgrad.int16 and back["dev"] == npgrad.device("cpu")
    assert back["nested"] == [{"a": (1, 2.5, "s", None)}] and type(back["od"]) is OrderedDict
    assert back["again"] is back["base"]
    for view in ("rows", "cols", "tr"):
        assert np.shares_memory(back[view].numpy(), back["base"].numpy()), view
    back["base"][1, 0] = 100.0
    assert back["rows"][0, 0].item() == 100.0 and back["tr"][0, 1].item() == 100.0


@needs_torch
def test_npgrad_files_load_in_pytorch_with_shared_storage(tmp_path):
    obj = _sample()
    path = tmp_path / "n.pt"
    npgrad.save(obj, path, format="torch")
    back = torch.load(path, weights_only=True)
    for k, v in obj.items():
        if isinstance(v, npgrad.Tensor):
            assert str(back[k].dtype) == f"torch.{v.dtype.name}" and back[k].requires_grad == v.requires_grad, k
            np.testing.assert_array_equal(back[k].detach().numpy(), v.detach().numpy())
    assert isinstance(back["param"], torch.nn.Parameter) and back._metadata == obj._metadata
    assert back["misc"]["size"] == torch.Size([2, 3]) and back["misc"]["dtype"] == torch.float64
    assert back["misc"]["n"][:5] == [1, -2, 2 ** 40, 2 ** 80, 2.5] and back["misc"]["set"] == {1, 3}
    ptr = back["base"].untyped_storage().data_ptr()
    for view in ("rows", "cols", "tr", "flat"):
        assert back[view].untyped_storage().data_ptr() == ptr, view
    assert back["again"] is back["base"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.load(path, weights_only=True, mmap=True)  # storages are 64-byte aligned, as mmap needs


@needs_torch
def test_pytorch_file_with_payload_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "t.pt"
    torch.save({"w": torch.ones(2), "evil": _payloads(marker)["builtins.exec"]}, path)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(path, weights_only=True)  # PyTorch's own safe loader refuses it too
    ours = _refused(path, "Unsupported global: GLOBAL exec was not an allowed global")
    assert ours.startswith(str(theirs.value))  # PyTorch's message, then the file's name
    assert not marker.exists()
    # a dataclass: refused the same way by both, then allowed the same way
    cfg = tmp_path / "cfg.pt"
    torch.save({"cfg": _Config(5), "w": torch.ones(2)}, cfg)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(cfg)
    assert _refused(cfg, "_Config was not an allowed global").startswith(str(theirs.value))
    with serialization.safe_globals([_Config]), torch.serialization.safe_globals([_Config]):
        assert npgrad.load(cfg)["cfg"] == torch.load(cfg)["cfg"] == _Config(5)
    assert npgrad.load(cfg, weights_only=False)["cfg"] == _Config(5)


@pytest.mark.parametrize("weights_only", [True, False])
def test_malformed_files_on_both_paths(tmp_path, weights_only):
    """Whatever weights_only says, a crafted file is a CheckpointError using little memory, never a
    MemoryError, a crash or a hang."""
    good = _tensor("0", 2, (2,), (1,))
    cases = [
        (_pkl(_tensor("0", 10 ** 12, (10 ** 12,), (1,))), "declares 4000000000000 bytes but the archive holds 8"),
        (_pkl(_tensor("0", 2, (2 ** 20, 2 ** 20), (0, 0))), "expanded tensor"),
        (_pkl(_tensor("0", 2, (2 ** 62, 2 ** 62), (0, 0))), "too large for any array"),
        (_pkl(_tensor("0", 2, (3,), (1,))), "reaches element 2 of a storage of 2"),
        (b"\x80\x02\x8e" + struct.pack("<Q", 2 ** 60) + b"abc.", "cannot be read"),  # a 2**60-byte string
        (b"\x80\x02r" + struct.pack("<I", 2 ** 31) + b".", "cannot be read"),  # a memo index of 2**31
        (_pkl(good)[:-1], "cannot be read"),  # no STOP
    ]
    tracemalloc.start()
    try:
        for i, (pkl, match) in enumerate(cases):
            path = _zip(tmp_path / f"{i}.pt", pkl, [("0", bytes(8))])
            _refused(path, match, weights_only=weights_only)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20
    # deep nesting (a recursion bomb for a recursive reader) loads, as in PyTorch, or fails cleanly
    deep = _zip(tmp_path / "deep.pt", b"\x80\x02" + b"]" * 200_000 + b"a" * 199_999 + b".")
    out = npgrad.load(deep, weights_only=weights_only)
    depth = 0
    while out:
        out, depth = out[0], depth + 1
    assert depth == 199_999
    # a zip bomb and a truncated archive
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("archive/data.pkl", _pkl(_tensor("0", 10 ** 6, (10 ** 6,), (1,))))
        zf.writestr("archive/data/0", bytes(4 * 10 ** 6))
    _refused(bomb, "max_ratio=100", weights_only=weights_only)
    cut = tmp_path / "cut.pt"
    cut.write_bytes(bomb.read_bytes()[:-40])
    _refused(cut, "truncated|corrupted", weights_only=weights_only)


_SCRIPT = """
import sys
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(torch.randn(8, 3)).pow(2).mean().backward()
opt.step()
x = torch.arange(6.0).reshape(2, 3)
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "config": {"hidden": 4},
            "epoch": 3, "views": [x, x.t(), x[:, 1]], "flip": x.flip(0), "size": x.shape, "dtype": torch.int64,
            "complex": torch.tensor([1 + 2j, -3j]), "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 2)},
           sys.argv[1])
torch.save(model, sys.argv[1] + ".model")
print(model(torch.ones(1, 3)).tolist())
"""


def test_a_file_written_under_npgrad_run_loads_in_pytorch(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_SCRIPT)
    path = tmp_path / "ck.pt"
    out = subprocess.run([sys.executable, "-m", "npgrad", "run", str(script), str(path)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    expected = np.array(eval(out.stdout.strip().splitlines()[-1]))
    ours = npgrad.load(path)
    assert ours["epoch"] == 3 and ours["size"] == (2, 3) and ours["dtype"] is npgrad.int64
    assert ours["views"][1].tolist() == [[0, 3], [1, 4], [2, 5]] and ours["flip"].tolist() == [[3, 4, 5], [0, 1, 2]]
    model = npgrad.load(str(path) + ".model", weights_only=False)
    np.testing.assert_allclose(model(npgrad.ones(1, 3)).detach().numpy(), expected, rtol=1e-6)
    if not HAS_TORCH:
        return
    for weights_only in (True, False):
        ck = torch.load(path, weights_only=weights_only)
        tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        tm.load_state_dict(ck["model"])
        np.testing.assert_allclose(tm(torch.ones(1, 3)).detach().numpy(), expected, rtol=1e-6)
        topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
        topt.load_state_dict(ck["optimizer"])  # the momentum buffers come along
        assert ck["size"] == torch.Size([2, 3]) and ck["dtype"] is torch.int64 and ck["config"] == {"hidden": 4}
        views = ck["views"]
        assert views[1].untyped_storage().data_ptr() == views[0].untyped_storage().data_ptr()
        assert views[2].tolist() == [1.0, 4.0] and ck["flip"].tolist() == [[3, 4, 5], [0, 1, 2]]
        assert ck["complex"].dtype == torch.complex64 and ck["complex"].tolist() == [1 + 2j, -3j]
        assert ck["scalar"].shape == () and ck["scalar"].item() == 2.5 and ck["empty"].shape == (0, 2)


@needs_torch
def test_pytorch_whole_modules_and_optimizers_load_in_npgrad(tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    topt = torch.optim.Adam(tm.parameters())
    tm(torch.randn(5, 3)).sum().backward()
    topt.step()
    path = tmp_path / "m.pt"
    torch.save({"model": tm, "opt_state": topt.state_dict(), "cfg": _Config(2)}, path)
    with pytest.raises(serialization.WeightsOnlyError, match="GLOBAL torch.nn.modules.container.Sequential"):
        npgrad.load(path)  # the default refuses what PyTorch's default refuses
    back = npgrad.load(path, weights_only=False)  # PyTorch's classes are read as npgrad's namesakes
    assert type(back["model"]) is npgrad.nn.Sequential and back["cfg"] == _Config(2)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(back["model"](npgrad.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    opt = npgrad.optim.Adam(back["model"].parameters())
    opt.load_state_dict(back["opt_state"])
    np.testing.assert_array_equal(opt.state_dict()["state"][0]["exp_avg"].numpy(),
                                  topt.state_dict()["state"][0]["exp_avg"].numpy())
    legacy = tmp_path / "legacy.pt"
    torch.save({"model": tm.state_dict(), "step": 7}, legacy, _use_new_zipfile_serialization=False)
    sd = npgrad.load(legacy)
    assert sd["step"] == 7 and list(sd["model"]) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        np.testing.assert_array_equal(sd["model"][k].numpy(), v.numpy())


def test_weights_only_environment_switches_and_byteorder_record(tmp_path, monkeypatch):
    path = tmp_path / "cfg.pt"
    npgrad.save({"cfg": _Config(1), "w": npgrad.ones(2)}, path, _disable_byteorder_record=True)
    with zipfile.ZipFile(path) as zf:
        assert "archive/byteorder" not in zf.namelist() and "archive/.data/serialization_id" in zf.namelist()
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")  # the default becomes False, with a warning
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
        assert npgrad.load(path)["cfg"] == _Config(1)
    with pytest.raises(serialization.WeightsOnlyError):
        npgrad.load(path, weights_only=True)  # an explicit True still holds
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")  # forces True even over an explicit False
    with pytest.raises(serialization.WeightsOnlyError):
        npgrad.load(path, weights_only=False)


def test_numpy_values_need_their_globals_allowed(tmp_path):
    """A metric saved as a NumPy scalar: refused by default, loaded once its globals are allowed (the
    recipe PyTorch's documentation gives), with __setstate__ run on the allowed np.dtype."""
    path = tmp_path / "np.pt"
    npgrad.save({"acc": np.float64(0.5), "arr": np.arange(3)}, path)
    with pytest.raises(serialization.WeightsOnlyError, match=r"GLOBAL numpy\._core\.multiarray\.scalar|numpy\.core"):
        npgrad.load(path)
    core = getattr(np, "_core", None) or np.core  # NumPy 2 renamed it
    allowed = [core.multiarray.scalar, np.dtype, np.dtypes.Float64DType, np.dtypes.Int64DType,
               core.multiarray._reconstruct, np.ndarray]
    with serialization.safe_globals(allowed):
        back = npgrad.load(path)
    assert type(back["acc"]) is np.float64 and back["acc"] == 0.5 and back["arr"].tolist() == [0, 1, 2]
    if HAS_TORCH:
        with torch.serialization.safe_globals(allowed):
            theirs = torch.load(path)
        assert theirs["acc"] == 0.5 and theirs["arr"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("protocol", [2, 4])
def test_get_unsafe_globals_in_checkpoint(tmp_path, protocol):
    marker = tmp_path / "pwned"
    path = tmp_path / "u.pt"
    npgrad.save({"cfg": _Config(1), "w": npgrad.ones(2), "evil": _payloads(marker)["builtins.exec"],
                 "od": OrderedDict(a=1)}, path, pickle_protocol=protocol)
    found = serialization.get_unsafe_globals_in_checkpoint(path)
    assert sorted(found) == sorted([f"{__name__}._Config", "builtins.exec"]) and not marker.exists()
    with serialization.safe_globals([_Config]):
        assert serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(path.read_bytes())) == ["builtins.exec"]
    if HAS_TORCH and protocol == 2:  # PyTorch's own reader of the opcodes stops at protocol 4's FRAME
        assert sorted(torch.serialization.get_unsafe_globals_in_checkpoint(path)) == sorted(found)
    legacy = io.BytesIO()
    npgrad.save({"a": 1}, legacy, _use_new_zipfile_serialization=False)
    legacy.seek(0)
    with pytest.raises(ValueError, match="Expected input to be a checkpoint returned by torch.save"):
        serialization.get_unsafe_globals_in_checkpoint(legacy)
