"""torch.distributed.checkpoint: sharded saves on 3 ranks loaded on 2 and on 1, a rank dying mid-save,
malformed checkpoints, and the single-process API against PyTorch's."""
import json
import os
import sys
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.distributed.checkpoint as dcp
from npgrad.distributed.checkpoint import state_dict_saver
from npgrad.distributed.checkpoint.format_utils import dcp_to_torch_save, torch_save_to_dcp
from npgrad.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                       get_optimizer_state_dict, get_state_dict, set_state_dict,
                                                       set_model_state_dict, set_optimizer_state_dict)
from npgrad.serialization import CheckpointError

from _mpi_jobs import SCRIPTS, check_ok, mpirun
from oracle import HAS_TORCH, torch

sys.path.insert(0, SCRIPTS)
import checkpoint as job  # noqa: E402  (the MPI script's state dicts, rebuilt here on one process)

pytestmark = pytest.mark.filterwarnings("ignore:torch.distributed is disabled")


def _full_state(empty):
    """The job's state dict as one process holds it: whole tensors where the ranks held shards."""
    sd = job.state(0, 0, 1, empty)
    for k in ("rows", "cols"):
        sd["model"][k] = sd["model"][k].tensor
    sd["ints"] = sd["ints"].tensor
    return sd


def test_saved_on_3_ranks_loads_on_2_ranks_and_on_one_process(tmp_path):
    ck = str(tmp_path / "ck")
    check_ok(mpirun(3, "checkpoint.py", "save", ck, 4), 3)
    names = sorted(os.listdir(ck))
    assert names[0] == ".metadata" and len(names) == 4 and all(n.endswith(".distcp") for n in names[1:]), names
    check_ok(mpirun(2, "checkpoint.py", "load", ck, 4), 2)
    # one process, no process group: every tensor whole, assembled from the three ranks' chunks
    sd = job.state(4, 0, 1, empty=True)
    dcp.load(sd, checkpoint_id=ck)
    job.check(sd, 4, 0, 1)
    md = dcp.FileSystemReader(ck).read_metadata()
    rows = md.state_dict_metadata["model.rows"]
    assert rows.size == (7, 5) and [tuple(c.sizes) for c in rows.chunks] == [(2, 5), (3, 5), (2, 5)]
    assert rows.properties.dtype == npgrad.float64
    assert isinstance(md.state_dict_metadata["step"], dcp.BytesStorageMetadata)
    out = str(tmp_path / "whole.pt")
    dcp_to_torch_save(ck, out)
    whole = npgrad.load(out)
    assert np.array_equal(whole["model"]["cols"].numpy(), job.full("cols", 4)) and whole["step"] == 104
    if HAS_TORCH:  # the converted file is PyTorch's own format
        theirs = torch.load(out, weights_only=True)
        assert np.array_equal(theirs["model"]["rows"].numpy(), job.full("rows", 4))


def test_a_rank_killed_mid_save_leaves_the_previous_checkpoint(tmp_path):
    ck = str(tmp_path / "ck")
    proc = mpirun(2, "checkpoint.py", "kill", ck, timeout=60)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "the save with a dead rank returned" not in proc.stdout + proc.stderr
    sd = job.state(1, 0, 1, empty=True)
    dcp.load(sd, checkpoint_id=ck)  # version 1, whole: the interrupted save of version 2 is absent
    job.check(sd, 1, 0, 1)
    # the next save removes the dead save's data files along with the previous checkpoint's
    dcp.save(_full_state(False), checkpoint_id=ck)
    assert len([n for n in os.listdir(ck) if n.endswith(".distcp")]) == 1


def test_round_trip_in_place_and_keys_as_pytorch(tmp_path):
    t = npgrad.arange(6.0).reshape(2, 3)
    sd = {"model": {"w": t, "b": npgrad.tensor([1, 2], dtype=npgrad.int64), "h": npgrad.ones(2, dtype=npgrad.bfloat16),
                    "s": npgrad.tensor(3.5), "e": npgrad.zeros(0, 4)},
          "step": 7, "names": ("a", "b"), "lst": [1, npgrad.ones(2)], "opt": {"state": {0: {"m": npgrad.ones(1)}}},
          "empty": {}}
    md = dcp.save(sd, checkpoint_id=str(tmp_path))
    keys = ["model.w", "model.b", "model.h", "model.s", "model.e", "step", "names", "lst.0", "lst.1", "opt.state.0.m"]
    assert list(md.state_dict_metadata) == keys
    assert md.planner_data["lst.1"] == ("lst", 1) and md.planner_data["opt.state.0.m"] == ("opt", "state", "0", "m")
    if HAS_TORCH:
        theirs = {"model": {"w": torch.arange(6.0).reshape(2, 3), "b": torch.tensor([1, 2]), "h": torch.ones(2),
                            "s": torch.tensor(3.5), "e": torch.zeros(0, 4)},
                  "step": 7, "names": ("a", "b"), "lst": [1, torch.ones(2)],
                  "opt": {"state": {0: {"m": torch.ones(1)}}},
                  "empty": {}}
        import torch.distributed.checkpoint as tdcp
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tmd = tdcp.save(theirs, checkpoint_id=str(tmp_path / "torch"))
        assert list(tmd.state_dict_metadata) == keys
        assert {k: tuple(v) for k, v in tmd.planner_data.items()} == md.planner_data
        with pytest.raises(dcp.CheckpointException, match="is a PyTorch distributed checkpoint"):
            dcp.load({"step": 0}, checkpoint_id=str(tmp_path / "torch"))
    target = {"model": {"w": npgrad.zeros(2, 3, dtype=npgrad.float64), "b": npgrad.zeros(2, dtype=npgrad.int64),
                        "h": npgrad.zeros(2, dtype=npgrad.bfloat16), "s": npgrad.tensor(0.0), "e": npgrad.ones(0, 4)},
              "step": 0, "names": None, "lst": [0, npgrad.zeros(2)], "opt": {"state": {0: {"m": npgrad.zeros(1)}}}}
    w = target["model"]["w"]
    dcp.load(target, checkpoint_id=str(tmp_path))
    assert target["model"]["w"] is w and w.dtype == npgrad.float64 and np.array_equal(w.numpy(), t.numpy())
    assert target["step"] == 7 and target["names"] == ("a", "b") and target["lst"][0] == 1
    assert float(target["model"]["s"]) == 3.5 and target["model"]["h"].dtype == npgrad.bfloat16
    assert float(target["opt"]["state"][0]["m"].sum()) == 1.0


def test_modules_and_optimizers_save_through_their_state_dicts(tmp_path):
    npgrad.manual_seed(0)
    m = npgrad.nn.Linear(3, 2)
    opt = npgrad.optim.Adam(m.parameters(), lr=0.1)
    m(npgrad.ones(4, 3)).sum().backward()
    opt.step()
    dcp.save({"model": m, "optim": opt}, checkpoint_id=str(tmp_path))
    m2 = npgrad.nn.Linear(3, 2)
    opt2 = npgrad.optim.Adam(m2.parameters(), lr=0.5)
    dcp.load({"model": m2, "optim": opt2}, checkpoint_id=str(tmp_path))
    assert npgrad.equal(m.weight, m2.weight) and opt2.param_groups[0]["lr"] == 0.1
    assert not opt2.state  # as in PyTorch: a fresh optimizer's state dict has no state to load into
    # the resume recipe: get_state_dict gives a fresh optimizer its state first, so all of it loads
    m3 = npgrad.nn.Linear(3, 2)
    opt3 = npgrad.optim.Adam(m3.parameters(), lr=0.5)
    w3 = m3.weight.clone()
    msd, osd = get_state_dict(m3, opt3)
    assert npgrad.equal(m3.weight, w3) and not opt3.state[m3.weight]["exp_avg"].any()
    dcp.save(dict(zip(("model", "optim"), get_state_dict(m, opt))), checkpoint_id=str(tmp_path / "fqn"))
    sd = {"model": msd, "optim": osd}
    dcp.load(sd, checkpoint_id=str(tmp_path / "fqn"))
    set_state_dict(m3, opt3, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
    assert npgrad.equal(m.weight, m3.weight) and opt3.param_groups[0]["lr"] == 0.1
    assert npgrad.equal(opt.state[m.weight]["exp_avg"], opt3.state[m3.weight]["exp_avg"])
    assert float(opt3.state[m3.weight]["step"]) == float(opt.state[m.weight]["step"])


def test_an_app_state_object_saves_and_loads_through_the_helpers(tmp_path):
    from npgrad.distributed.checkpoint.stateful import Stateful

    class AppState(Stateful):  # the pattern of PyTorch's DCP recipe
        def __init__(self, model, optimizer):
            self.model, self.optimizer = model, optimizer

        def state_dict(self):
            model_sd, optim_sd = get_state_dict(self.model, self.optimizer)
            return {"model": model_sd, "optim": optim_sd}

        def load_state_dict(self, state_dict):
            set_state_dict(self.model, self.optimizer, model_state_dict=state_dict["model"],
                           optim_state_dict=state_dict["optim"])
    m, opt = _model_and_optimizer(npgrad)
    dcp.save({"app": AppState(m, opt)}, checkpoint_id=str(tmp_path))
    npgrad.manual_seed(1)
    m2 = npgrad.nn.Sequential(npgrad.nn.Linear(2, 3), npgrad.nn.ReLU(), npgrad.nn.Linear(3, 1))
    m2[2].bias.requires_grad_(False)
    opt2 = npgrad.optim.Adam([{"params": [m2[0].weight]}, {"params": [m2[0].bias, m2[2].weight, m2[2].bias]}], lr=1.0)
    dcp.load({"app": AppState(m2, opt2)}, checkpoint_id=str(tmp_path))
    assert opt2.param_groups[1]["lr"] == 0.5
    assert all(npgrad.equal(a, b) for a, b in zip(m.parameters(), m2.parameters()))
    assert npgrad.equal(opt2.state[m2[0].weight]["exp_avg"], opt.state[m[0].weight]["exp_avg"])
    assert isinstance(m, Stateful) and not isinstance({"a": 1}, Stateful)


def _failure(excinfo):
    (err,) = excinfo.value.failures.values()
    return err


def test_load_errors_as_pytorch(tmp_path):
    dcp.save({"w": npgrad.ones(2, 3)}, checkpoint_id=str(tmp_path))
    with pytest.raises(dcp.CheckpointException) as e:
        dcp.load({"w": npgrad.ones(3, 3)}, checkpoint_id=str(tmp_path))
    assert str(_failure(e)) == "Size mismatch between saved torch.Size([2, 3]) and current: torch.Size([3, 3]) for w"
    assert "CheckpointException ranks:dict_keys([0])" in str(e.value)
    with pytest.raises(dcp.CheckpointException) as e:
        dcp.load({"zz": npgrad.ones(2)}, checkpoint_id=str(tmp_path))
    assert str(_failure(e)) == "Missing key in checkpoint state_dict: zz."
    with pytest.raises(dcp.CheckpointException) as e:
        dcp.save({"w": npgrad.ones(1)}, storage_writer=dcp.FileSystemWriter(str(tmp_path), overwrite=False))
    assert str(_failure(e)) == "Checkpoint already exists and self.overwrite=False."
    with pytest.raises(RuntimeError, match="`checkpoint_id` must be specificed"):
        dcp.save({"w": npgrad.ones(1)})
    with pytest.raises(dcp.CheckpointException) as e:
        dcp.load({"w": npgrad.ones(1)}, checkpoint_id=str(tmp_path / "never"))
    assert isinstance(_failure(e), FileNotFoundError) and "no checkpoint at" in str(_failure(e))


def test_the_older_names_warn_and_work(tmp_path):
    with pytest.warns(FutureWarning, match="`save_state_dict` is deprecated"):
        dcp.save_state_dict({"w": npgrad.ones(2)}, dcp.FileSystemWriter(str(tmp_path), single_file_per_rank=False))
    sd = {"w": npgrad.zeros(2)}
    with pytest.warns(FutureWarning, match="`load_state_dict` is deprecated"):
        dcp.load_state_dict(sd, dcp.FileSystemReader(str(tmp_path)))
    assert sd["w"].tolist() == [1.0, 1.0]


def _doc(ck):
    with open(os.path.join(ck, ".metadata")) as fh:
        return json.load(fh)


def _rewrite(ck, doc):
    with open(os.path.join(ck, ".metadata"), "w") as fh:
        json.dump(doc, fh)


def _tensor_item(doc):
    return next(i for i in doc["items"] if i["key"] == "w")


def _truncate(ck):
    name = next(n for n in os.listdir(ck) if n.endswith(".distcp"))
    with open(os.path.join(ck, name), "r+b") as fh:
        fh.truncate(5)


CORRUPTIONS = {
    "not json": (lambda ck: open(os.path.join(ck, ".metadata"), "wb").write(b"{garbage"), "is not the JSON"),
    "pytorch's pickle": (lambda ck: open(os.path.join(ck, ".metadata"), "wb").write(b"\x80\x04garbage"),
                         "is a PyTorch distributed checkpoint"),
    "truncated data file": (_truncate, "is truncated"),
    "huge chunk": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d).update(size=[2**20, 2**20]),
                                                        _tensor_item(d)["chunks"][0].update(sizes=[2**20, 2**20]),
                                                        d)[-1])(_doc(ck))), "holds 48 bytes"),
    "path outside": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d)["chunks"][0].update(file="../../etc/passwd"),
                                                          d)[-1])(_doc(ck))), "not one of the checkpoint's"),
    "chunk outside": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d)["chunks"][0].update(offsets=[1, 0]),
                                                           d)[-1])(_doc(ck))), "lies outside the tensor"),
    "bad dtype": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d).update(dtype="object"), d)[-1])(_doc(ck))),
                  "is not one npgrad has"),
    "overlapping chunks": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d)["chunks"].append(
        dict(_tensor_item(d)["chunks"][0])), d)[-1])(_doc(ck))), "overlap"),
    "impossible size": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d).update(size=[0, 2**62, 2**62]), d)[-1])(
        _doc(ck))), "too large for any array"),
    "bytes beyond the file": (lambda ck: _rewrite(ck, (lambda d: (_tensor_item(d)["chunks"][0].update(offset=10**9),
                                                                   d)[-1])(_doc(ck))), "are not inside"),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_malformed_checkpoints_are_refused_clearly(tmp_path, corruption):
    ck = str(tmp_path)
    dcp.save({"w": npgrad.ones(2, 3, dtype=npgrad.float64), "step": 3}, checkpoint_id=ck)
    damage, message = CORRUPTIONS[corruption]
    damage(ck)
    with pytest.raises(dcp.CheckpointException) as e:
        dcp.load({"w": npgrad.zeros(2, 3, dtype=npgrad.float64)}, checkpoint_id=ck)
    err = _failure(e)
    assert isinstance(err, CheckpointError) and message in str(err), str(err)
    with pytest.raises(CheckpointError, match=message.replace("(", r"\(")):
        dcp.FileSystemReader(ck).read_metadata()


def test_metadata_over_the_size_limit_is_not_read(tmp_path, monkeypatch):
    from npgrad.distributed.checkpoint import _layout
    dcp.save({"w": npgrad.ones(2)}, checkpoint_id=str(tmp_path))
    monkeypatch.setattr(_layout, "MAX_METADATA_BYTES", 100)
    with pytest.raises(CheckpointError, match="over the 100-byte limit"):
        dcp.FileSystemReader(str(tmp_path)).read_metadata()


def test_too_many_chunks_are_refused_and_overlap_checks_are_quick(tmp_path, monkeypatch):
    import time
    from npgrad.distributed.checkpoint import _layout
    n = 3000  # non-overlapping boxes laid out so that every one reaches the next along both dimensions
    t0 = time.perf_counter()
    assert _layout.first_overlap([((i, i), (n - i, 1)) for i in range(n)]) is None
    assert time.perf_counter() - t0 < 20
    assert _layout.first_overlap([((0, 0), (2, 3)), ((2, 0), (3, 3)), ((1, 2), (2, 2))]) == ((0, 0), (1, 2))
    ck = str(tmp_path)
    dcp.save({"w": npgrad.ones(2, 3)}, checkpoint_id=ck)
    doc = _doc(ck)
    _tensor_item(doc)["chunks"] *= 3
    _rewrite(ck, doc)
    monkeypatch.setattr(_layout, "MAX_CHUNKS", 2)
    with pytest.raises(CheckpointError, match="it has 3 chunks"):
        dcp.FileSystemReader(ck).read_metadata()


def test_a_failed_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    ck = str(tmp_path)
    dcp.save({"w": npgrad.ones(2)}, checkpoint_id=ck)
    write = state_dict_saver._write_rank_file

    def write_then_fail(*args):
        write(*args)
        raise OSError("disk full")
    monkeypatch.setattr(state_dict_saver, "_write_rank_file", write_then_fail)
    with pytest.raises(dcp.CheckpointException, match="disk full"):
        dcp.save({"w": npgrad.full((2,), 5.0)}, checkpoint_id=ck)
    sd = {"w": npgrad.zeros(2)}
    dcp.load(sd, checkpoint_id=ck)
    assert sd["w"].tolist() == [1.0, 1.0]


def test_torch_save_to_dcp_and_back(tmp_path):
    src, ck, back = str(tmp_path / "a.pt"), str(tmp_path / "ck"), str(tmp_path / "b.pt")
    npgrad.save({"w": npgrad.arange(4.0), "n": {"k": 2}}, src)
    torch_save_to_dcp(src, ck)
    dcp_to_torch_save(ck, back)
    got = npgrad.load(back)
    assert got["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and got["n"] == {"k": 2}


def _model_and_optimizer(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
    m[2].bias.requires_grad_(False)
    opt = lib.optim.Adam([{"params": [m[0].weight]}, {"params": [m[0].bias, m[2].weight, m[2].bias], "lr": 0.5}],
                         lr=0.1)
    m(lib.ones(4, 2)).sum().backward()
    opt.step()
    return m, opt


def _shape_of(osd):
    return ({k: sorted(v) for k, v in osd["state"].items()}, [(g["params"], g["lr"]) for g in osd["param_groups"]])


def test_state_dict_helpers_key_by_fqn():
    m, opt = _model_and_optimizer(npgrad)
    msd, osd = get_state_dict(m, opt)
    assert list(msd) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert _shape_of(osd) == ({n: ["exp_avg", "exp_avg_sq", "step"] for n in ("0.weight", "0.bias", "2.weight")},
                              [(["0.weight"], 0.1), (["0.bias", "2.weight", "2.bias"], 0.5)])
    unfrozen = get_model_state_dict(m, options=StateDictOptions(ignore_frozen_params=True))
    assert list(unfrozen) == ["0.weight", "0.bias", "2.weight"]
    flat = get_optimizer_state_dict(m, opt, options=StateDictOptions(flatten_optimizer_state_dict=True))
    assert "state.0.weight.exp_avg" in flat and flat["param_groups.2.bias.lr"] == 0.5
    if HAS_TORCH:
        from torch.distributed.checkpoint import state_dict as tsd
        tm, topt = _model_and_optimizer(torch)
        tmsd, tosd = tsd.get_state_dict(tm, topt)
        assert list(tmsd) == list(msd) and _shape_of(tosd) == _shape_of(osd)
        tflat = tsd.get_optimizer_state_dict(tm, topt, options=tsd.StateDictOptions(flatten_optimizer_state_dict=True))
        assert sorted(tflat) == sorted(flat)
    m2, opt2 = _model_and_optimizer(npgrad)
    with npgrad.no_grad():
        for p in m2.parameters():
            p.zero_()
    opt2.param_groups[0]["lr"] = 9.0
    set_state_dict(m2, opt2, model_state_dict=msd, optim_state_dict=osd)
    assert npgrad.equal(m2[0].weight, m[0].weight) and opt2.param_groups[0]["lr"] == 0.1
    assert npgrad.equal(opt2.state[m2[2].weight]["exp_avg_sq"], opt.state[m[2].weight]["exp_avg_sq"])
    opt2.param_groups[0]["lr"] = 9.0
    set_optimizer_state_dict(m2, opt2, flat)
    assert opt2.param_groups[0]["lr"] == 0.1
    keys = set_model_state_dict(m2, {"0.weight": msd["0.weight"]}, options=StateDictOptions(strict=False))
    assert keys.missing_keys == ["0.bias", "2.weight", "2.bias"] and keys.unexpected_keys == []
    with pytest.raises(ValueError, match="full_state_dict must be True when broadcast_from_rank0 is True."):
        set_model_state_dict(m2, msd, options=StateDictOptions(broadcast_from_rank0=True))
    fresh = npgrad.nn.Sequential(npgrad.nn.Linear(2, 3), npgrad.nn.ReLU(), npgrad.nn.Linear(3, 1))
    with pytest.raises(RuntimeError, match="Missing optimizer state for parameter '2.bias' in checkpoint"):
        set_optimizer_state_dict(fresh, npgrad.optim.Adam(fresh.parameters()), osd)
