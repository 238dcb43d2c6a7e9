"""npgrad.save(..., format="npgrad") / npgrad.load round trips, atomic writes, and refusal of unsafe or broken files."""
import io
import json
import math
import os
import pickle
import re
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import npgrad
from npgrad import serialization
from oracle import HAS_TORCH, torch

DTYPES = [npgrad.float16, npgrad.float32, npgrad.float64, npgrad.int8, npgrad.int16, npgrad.int32, npgrad.int64,
          npgrad.uint8, npgrad.bool]
SHAPES = [(), (0,), (3,), (2, 0, 3), (2, 3, 4)]


def _save(obj, f, **kw):
    """npgrad's own format (this file's subject); torch.save's format is tests/test_torch_checkpoints.py's."""
    return npgrad.save(obj, f, format="npgrad", **kw)


def _roundtrip(obj, tmp_path=None):
    if tmp_path is None:
        buf = io.BytesIO()
        _save(obj, buf)
        buf.seek(0)
        return npgrad.load(buf)
    path = tmp_path / "obj.pt"
    _save(obj, path)
    return npgrad.load(path)


def _values(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) * 50).astype(dtype.np) if dtype is not npgrad.bool else rng.random(shape) > 0.5


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_tensor_roundtrip_every_dtype_and_shape(dtype, tmp_path):
    for shape in SHAPES:
        t = npgrad.tensor(_values(dtype, shape), dtype=dtype)
        back = _roundtrip(t, tmp_path)
        assert isinstance(back, npgrad.Tensor) and back.dtype == dtype and back.shape == t.shape
        np.testing.assert_array_equal(back.numpy(), t.numpy())
        assert back._data.flags.writeable and back._data.base is None or back._data.base is not t._data


def test_special_float_values_and_views():
    t = npgrad.tensor([np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4e38], dtype=npgrad.float32)
    back = _roundtrip(t)
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    assert np.signbit(back.numpy()[3])
    base = npgrad.arange(24, dtype=npgrad.float64).reshape(2, 3, 4)
    for view in (base.transpose(0, 2), base[:, 1], base[..., ::2]):
        back = _roundtrip(view)
        np.testing.assert_array_equal(back.numpy(), view.numpy())
        assert back.shape == view.shape


def test_requires_grad_survives():
    w = npgrad.tensor([1.0, 2.0], requires_grad=True)
    y = w * 2  # a non-leaf: saved as data, loads as a leaf (as in PyTorch)
    back = _roundtrip({"w": w, "y": y, "i": npgrad.tensor([1, 2])})
    assert back["w"].requires_grad and back["w"].is_leaf
    assert back["y"].requires_grad and back["y"].is_leaf and back["y"].tolist() == [2.0, 4.0]
    assert not back["i"].requires_grad


if hasattr(npgrad.nn, "Parameter"):
    def test_parameters_load_as_parameters():
        Parameter = npgrad.nn.Parameter
        p = Parameter(npgrad.tensor([3.0]))
        back = _roundtrip({"p": p, "frozen": Parameter(npgrad.ones(1), requires_grad=False)})
        assert isinstance(back["p"], Parameter) and back["p"].requires_grad
        assert isinstance(back["frozen"], Parameter) and not back["frozen"].requires_grad


def test_nested_structures():
    state = OrderedDict([("layer.weight", npgrad.ones(2, 2)), ("layer.bias", npgrad.zeros(2))])
    state._metadata = {"": {"version": 1}}
    obj = {
        "epoch": 7, "step": 2 ** 70, "loss": 0.125, "best": float("inf"), "nan": float("nan"), "neg": -float("inf"),
        "name": "run-1 ✓", "none": None, "flags": [True, False], "betas": (0.9, 0.999),
        "shape": npgrad.Size([2, 3]), "dtype": npgrad.float16, "milestones": Counter({3: 1, 10: 2}),
        "ids": {0: "a", 1: "b", (2, 3): "c", 2.5: "d", None: "e", "k": True},
        "model": state, "tags": {"x", "y"}, "frozen": frozenset({1, 2}),
        "np": np.arange(6, dtype=np.int32).reshape(2, 3), "np_scalar": np.float32(1.5), "np_int": np.int64(-3),
        "nested": [[{"deep": (npgrad.tensor(1.0), [None])}]], "empty": {}, "empty_list": [], "empty_tuple": (),
    }
    back = _roundtrip(obj)
    assert back["epoch"] == 7 and type(back["epoch"]) is int and back["step"] == 2 ** 70
    assert back["loss"] == 0.125 and back["best"] == math.inf and math.isnan(back["nan"]) and back["neg"] == -math.inf
    assert back["name"] == "run-1 ✓" and back["none"] is None and back["flags"] == [True, False]
    assert back["betas"] == (0.9, 0.999) and type(back["betas"]) is tuple
    assert type(back["shape"]) is npgrad.Size and back["shape"] == (2, 3)
    assert back["dtype"] is npgrad.float16
    assert type(back["milestones"]) is Counter and back["milestones"] == Counter({3: 1, 10: 2})
    assert back["ids"] == obj["ids"] and list(back["ids"]) == list(obj["ids"])
    assert type(back["model"]) is OrderedDict and list(back["model"]) == ["layer.weight", "layer.bias"]
    assert back["model"]._metadata == {"": {"version": 1}}
    assert back["tags"] == {"x", "y"} and back["frozen"] == frozenset({1, 2}) and type(back["frozen"]) is frozenset
    assert isinstance(back["np"], np.ndarray) and back["np"].dtype == np.int32
    np.testing.assert_array_equal(back["np"], obj["np"])
    assert type(back["np_scalar"]) is np.float32 and back["np_scalar"] == 1.5
    assert type(back["np_int"]) is np.int64 and back["np_int"] == -3
    assert back["nested"][0][0]["deep"][0].item() == 1.0 and back["empty"] == {} and back["empty_tuple"] == ()


def test_shared_tensors_stay_shared():
    t = npgrad.ones(3)
    back = _roundtrip({"a": t, "b": [t, t]})
    assert back["a"] is back["b"][0] is back["b"][1]


def test_unsupported_objects_raise_type_error():
    class Thing:
        pass
    with pytest.raises(TypeError, match=r"cannot store an object of type .*Thing \(at obj\['x'\]\[0\]\)"):
        _save({"x": [Thing()]}, io.BytesIO())
    with pytest.raises(TypeError, match="dtype object"):
        _save(np.array([1, "a"], dtype=object), io.BytesIO())
    with pytest.raises(TypeError, match="keyed by tensors"):
        _save({npgrad.ones(1): 1}, io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="self-referencing"):
        _save(loop, io.BytesIO())
    with pytest.raises(TypeError, match="path or a writable binary file"):
        _save(npgrad.ones(1), 42)


def test_paths_and_file_objects(tmp_path):
    t = npgrad.arange(5)
    _save(t, str(tmp_path / "a.pt"))
    assert npgrad.load(str(tmp_path / "a.pt")).tolist() == [0, 1, 2, 3, 4]
    with open(tmp_path / "b.pt", "wb") as fh:
        _save(t, fh)
    with open(tmp_path / "b.pt", "rb") as fh:
        assert npgrad.load(fh, map_location="cpu").tolist() == [0, 1, 2, 3, 4]
    assert npgrad.load(tmp_path / "a.pt", map_location=npgrad.device("cpu"), weights_only=False).tolist() == \
        [0, 1, 2, 3, 4]
    with pytest.raises(FileNotFoundError):
        npgrad.load(tmp_path / "missing.pt")
    with pytest.raises(RuntimeError, match="Parent directory .* does not exist"):
        _save(t, tmp_path / "nodir" / "x.pt")
    with pytest.raises(RuntimeError, match="CPU only"):
        npgrad.load(tmp_path / "a.pt", map_location="cuda:0")


def test_overwrite_keeps_permissions_and_follows_symlinks(tmp_path):
    path = tmp_path / "ck.pt"
    _save(npgrad.zeros(1), path)
    os.chmod(path, 0o640)
    _save(npgrad.ones(1), path)
    assert (os.stat(path).st_mode & 0o777) == 0o640 and npgrad.load(path).tolist() == [1.0]
    link = tmp_path / "latest.pt"
    os.symlink(path, link)
    _save(npgrad.full((1,), 2.0), link)
    assert os.path.islink(link) and npgrad.load(path).tolist() == [2.0]


def test_interrupted_save_keeps_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "ck.pt"
    _save({"epoch": 1, "w": npgrad.ones(3)}, path)
    calls = []

    def failing_write(fp, arr, *a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of writing the second tensor
        return real(fp, arr, *a, **k)

    real = np.lib.format.write_array
    monkeypatch.setattr(np.lib.format, "write_array", failing_write)
    with pytest.raises(KeyboardInterrupt):
        _save({"epoch": 2, "w": npgrad.zeros(3), "v": npgrad.zeros(2)}, path)
    monkeypatch.undo()
    assert len(calls) == 2
    back = npgrad.load(path)
    assert back["epoch"] == 1 and back["w"].tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(tmp_path) == ["ck.pt"]  # no temporary file left behind


# -- refusing broken and malicious files ----------------------------------------------------------------------
MARKER_CODE = "open({path!r}, 'w').write('pwned')"


class _Payload:
    """Unpickling this runs code that creates a marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (MARKER_CODE.format(path=self.marker),))


def _good_file(tmp_path):
    path = tmp_path / "good.pt"
    _save({"w": npgrad.arange(100, dtype=npgrad.float32), "b": npgrad.ones(3), "epoch": 3}, path)
    return path


def _expect_refusal(path, match):
    with pytest.raises(RuntimeError) as info:
        npgrad.load(path)
    assert isinstance(info.value, serialization.CheckpointError)
    message = str(info.value)
    assert repr(str(path)) in message  # the error names the file ...
    assert re.search(match, message.replace(repr(str(path)), "<file>")), message  # ... and what is wrong


def test_truncated_files_are_refused(tmp_path):
    data = _good_file(tmp_path).read_bytes()
    for cut in (0, 1, 3, 10, 100, len(data) // 2, len(data) - 30, len(data) - 1):
        bad = tmp_path / f"cut{cut}.pt"
        bad.write_bytes(data[:cut])
        _expect_refusal(bad, "empty|truncated|corrupted")


def test_corrupted_files_are_refused(tmp_path):
    good = _good_file(tmp_path)
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as zf:
        info = zf.getinfo("npgrad/data/0.npy")
    # flip a byte inside the first array's numbers: the zip CRC check catches it
    pos = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    data[pos] ^= 0xFF
    bad = tmp_path / "flipped.pt"
    bad.write_bytes(bytes(data))
    _expect_refusal(bad, "corrupted")
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(os.urandom(1000).replace(b"PK", b"pk").replace(b"\x80", b"\x00"))
    _expect_refusal(garbage, "not an npgrad checkpoint")
    text = tmp_path / "text.pt"
    text.write_text("hello")
    _expect_refusal(text, "not an npgrad checkpoint")


def _rewrite(src, dst, replace):
    """Copy a checkpoint, replacing entries: replace = {name: bytes or None (drop)}."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            if item.filename in replace:
                if replace[item.filename] is not None:
                    zout.writestr(item.filename, replace[item.filename])
            else:
                zout.writestr(item, zin.read(item.filename))
        for name, content in replace.items():
            if name not in zin.namelist() and content is not None:
                zout.writestr(name, content)


def _structure(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("npgrad/structure.json"))


def test_crafted_structures_are_refused(tmp_path):
    good = _good_file(tmp_path)
    meta = _structure(good)
    cases = {
        "not json": (b"{not json", "not valid JSON"),
        "wrong format": (json.dumps({"format": "other", "version": 1, "root": 1}).encode(), "not an npgrad checkpoint"),
        "future": (json.dumps({**meta, "version": 99}).encode(), "newer npgrad"),
        "unknown tag": (json.dumps({**meta, "root": {"$": "pickle", "items": []}}).encode(), "unknown entry type"),
        "bad dtype": (json.dumps({**meta, "root": {"$": "tensor", "data": 0, "dtype": "object"}}).encode(),
                      "unknown dtype"),
        "dtype mismatch": (json.dumps({**meta, "root": {"$": "tensor", "data": 0, "dtype": "int8"}}).encode(),
                           "recorded as int8"),
        "missing array": (json.dumps({**meta, "root": {"$": "tensor", "data": 7, "dtype": "float32"}}).encode(),
                          "missing"),
        "bad ref": (json.dumps({**meta, "root": {"$": "ndarray", "data": "../../etc/passwd"}}).encode(),
                    "invalid data reference"),
        "deep": (json.dumps({**meta, "root": "DEEP"}).encode().replace(b'"DEEP"', b"[" * 100000 + b"]" * 100000),
                 "nested too deeply|JSON"),
    }
    for label, (content, match) in cases.items():
        bad = tmp_path / f"{label.replace(' ', '_')}.pt"
        _rewrite(good, bad, {"npgrad/structure.json": content})
        _expect_refusal(bad, match)
    missing = tmp_path / "nostructure.pt"
    _rewrite(good, missing, {"npgrad/structure.json": None})
    _expect_refusal(missing, "not an npgrad checkpoint")


def test_huge_declared_shape_is_refused_without_allocating(tmp_path):
    good = _good_file(tmp_path)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 6, 10 ** 6)})
    bad = tmp_path / "huge.pt"
    _rewrite(good, bad, {"npgrad/data/0.npy": header.getvalue() + b"\x00" * 16})
    _expect_refusal(bad, "declares")


def test_pickle_payloads_never_run(tmp_path):
    marker = tmp_path / "pwned.txt"
    payload = _Payload(marker)
    # sanity: the payload really does run when unpickled
    pickle.loads(pickle.dumps(payload))
    assert marker.exists()
    marker.unlink()

    # 1. a plain pickle file (torch.save's legacy format looks like this)
    plain = tmp_path / "plain.pt"
    plain.write_bytes(pickle.dumps({"state": payload}, protocol=2))
    _expect_refusal(plain, "is a pickle file")
    # 2. an .npz whose array is an object array (np.save pickles its contents)
    npz = tmp_path / "evil.npz"
    np.savez(npz, x=np.array([payload, 1], dtype=object))
    _expect_refusal(npz, "NumPy .npz archive")
    # 3. an npgrad checkpoint whose array entry was replaced by a pickled object array
    good = _good_file(tmp_path)
    evil_npy = io.BytesIO()
    np.save(evil_npy, np.array([payload, 1], dtype=object), allow_pickle=True)
    crafted = tmp_path / "crafted.pt"
    _rewrite(good, crafted, {"npgrad/data/0.npy": evil_npy.getvalue()})
    _expect_refusal(crafted, "unsafe: .* Python objects")
    # 4. a .npy file with a pickled payload
    npy = tmp_path / "evil.npy"
    npy.write_bytes(evil_npy.getvalue())
    _expect_refusal(npy, "NumPy .npy file")
    # 5. the same through a file object
    with pytest.raises(RuntimeError, match="<BytesIO> is a pickle file"):
        npgrad.load(io.BytesIO(plain.read_bytes()))
    assert not marker.exists()


if HAS_TORCH:
    def test_torch_checkpoints_with_payload_never_run(tmp_path):
        marker = tmp_path / "pwned.txt"
        ck = tmp_path / "torch.pt"
        torch.save({"w": torch.ones(2), "evil": _Payload(marker)}, ck)
        _expect_refusal(ck, "Unsupported global: GLOBAL exec was not an allowed global")
        legacy = tmp_path / "legacy.pt"
        torch.save({"evil": _Payload(marker)}, legacy, _use_new_zipfile_serialization=False)
        _expect_refusal(legacy, "Unsupported global: GLOBAL exec was not an allowed global")
        assert not marker.exists()


# -- safetensors bridge --------------------------------------------------------------------------------------
def test_safetensors_roundtrip(tmp_path):
    sd = OrderedDict((f"t_{d.name}", npgrad.tensor(_values(d, (2, 3)), dtype=d)) for d in DTYPES)
    sd["scalar"] = npgrad.tensor(2.5)
    sd["view"] = npgrad.arange(12.0).reshape(3, 4).transpose(0, 1)
    path = tmp_path / "m.safetensors"
    serialization.save_safetensors(sd, path, metadata={"epoch": "3"})
    back = serialization.load_safetensors(path)
    assert set(back) == set(sd)
    for k, v in sd.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        np.testing.assert_array_equal(back[k].numpy(), v.numpy())
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(path.read_bytes()[:50])
    with pytest.raises(RuntimeError, match="not a valid safetensors file"):
        serialization.load_safetensors(bad)


if HAS_TORCH:
    def _mlp_np(lib, sd, x):
        h = (x @ sd["0.weight"].T + sd["0.bias"]).tanh()
        return h @ sd["2.weight"].T + sd["2.bias"]

    def test_safetensors_npgrad_to_torch_module(tmp_path):
        from safetensors.torch import load_file
        rng = np.random.default_rng(0)
        sd = {"0.weight": npgrad.tensor(rng.normal(size=(5, 3)).astype(np.float32)),
              "0.bias": npgrad.tensor(rng.normal(size=5).astype(np.float32)),
              "2.weight": npgrad.tensor(rng.normal(size=(2, 5)).astype(np.float32)),
              "2.bias": npgrad.tensor(rng.normal(size=2).astype(np.float32))}
        serialization.save_safetensors(sd, tmp_path / "m.safetensors")
        model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
        model.load_state_dict(load_file(tmp_path / "m.safetensors"))
        x = rng.normal(size=(4, 3)).astype(np.float32)
        ours = _mlp_np(npgrad, sd, npgrad.tensor(x)).numpy()
        theirs = model(torch.tensor(x)).detach().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)

    def test_safetensors_torch_module_to_npgrad(tmp_path):
        from safetensors.torch import save_file
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
        save_file(model.state_dict(), tmp_path / "t.safetensors")
        sd = serialization.load_safetensors(tmp_path / "t.safetensors")
        x = np.random.default_rng(1).normal(size=(4, 3)).astype(np.float32)
        np.testing.assert_allclose(_mlp_np(npgrad, sd, npgrad.tensor(x)).numpy(),
                                   model(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


if HAS_TORCH and hasattr(npgrad.nn, "Linear") and hasattr(npgrad.nn, "Sequential"):
    def _models():
        ours = npgrad.nn.Sequential(npgrad.nn.Linear(3, 5), npgrad.nn.Tanh(), npgrad.nn.Linear(5, 2))
        theirs = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
        return ours, theirs

    def test_safetensors_modules_both_ways(tmp_path):
        from safetensors.torch import load_file, save_file
        ours, theirs = _models()
        x = np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32)
        # npgrad -> torch
        serialization.save_safetensors(ours.state_dict(), tmp_path / "ours.safetensors")
        theirs.load_state_dict(load_file(tmp_path / "ours.safetensors"))
        np.testing.assert_allclose(ours(npgrad.tensor(x)).detach().numpy(),
                                   theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
        # torch -> npgrad
        torch.manual_seed(7)
        other = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
        save_file(other.state_dict(), tmp_path / "theirs.safetensors")
        ours.load_state_dict(serialization.load_safetensors(tmp_path / "theirs.safetensors"))
        np.testing.assert_allclose(ours(npgrad.tensor(x)).detach().numpy(),
                                   other(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)

    def test_module_checkpoint_roundtrip(tmp_path):
        ours, _ = _models()
        opt = npgrad.optim.Adam(ours.parameters(), lr=0.01)
        x = npgrad.tensor(np.random.default_rng(3).normal(size=(4, 3)).astype(np.float32))
        ours(x).pow(2).sum().backward()
        opt.step()
        npgrad.save({"model": ours.state_dict(), "optim": opt.state_dict(), "epoch": 1}, tmp_path / "ck.pt")
        fresh, _ = _models()
        fresh_opt = npgrad.optim.Adam(fresh.parameters(), lr=0.01)
        ck = npgrad.load(tmp_path / "ck.pt")
        fresh.load_state_dict(ck["model"])
        fresh_opt.load_state_dict(ck["optim"])
        np.testing.assert_array_equal(fresh(x).detach().numpy(), ours(x).detach().numpy())
        assert ck["epoch"] == 1 and fresh_opt.state_dict()["param_groups"] == opt.state_dict()["param_groups"]


def test_tensors_of_dtypes_npgrad_does_not_write_are_refused():
    """A tensor entry whose data is complex256 or datetime, or an integer tensor marked requires_grad,
    is a corrupted file, never a tensor of the wrong kind or a silently dropped flag."""
    def crafted(dtype, arr, requires_grad=False):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("npgrad/structure.json", json.dumps({"format": "npgrad.checkpoint", "version": 1, "root": {
                "$": "tensor", "data": 0, "dtype": dtype, "requires_grad": requires_grad}}))
            with zf.open("npgrad/data/0.npy", "w") as out:
                np.lib.format.write_array(out, arr)
        buf.seek(0)
        return buf

    for dtype, arr, rg, match in [("complex128", np.ones(2, np.clongdouble), False, "whose data is complex256"),
                                  ("float64", np.array(["2020-01-01"], "M8[D]"), False, "whose data is datetime64"),
                                  ("int64", np.ones(2, np.int64), True, "int64 tensor marked requires_grad"),
                                  ("bool", np.ones(2, bool), True, "bool tensor marked requires_grad")]:
        with pytest.raises(serialization.CheckpointError, match=match):
            npgrad.load(crafted(dtype, arr, rg))
    back = npgrad.load(crafted("complex64", np.ones(2, np.complex64), True))  # complex may require grad
    assert back.dtype == npgrad.complex64 and back.requires_grad
