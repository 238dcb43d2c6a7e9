"""Sharded checkpoints on N ranks: ``save DIR [VERSION]``, ``load DIR [VERSION]``, ``kill DIR``.

Each rank holds row-shards (uneven) of one tensor, column-shards of another, a rank-local shard of an
int tensor, a replicated tensor and plain objects; VERSION shifts every value so that two checkpoints
are told apart. ``kill``: a complete save of version 1, then a save of version 2 in which rank 1 exits
(os._exit) after writing its data file and before rank 0 writes the metadata.
"""
import os
import sys

import numpy as np

import npgrad as torch
import npgrad.distributed as dist
import npgrad.distributed.checkpoint as dcp
from npgrad.distributed.checkpoint import state_dict_saver
from npgrad.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict, get_state_dict,
                                                       set_model_state_dict, set_state_dict)
from npgrad.nn.parallel import DistributedDataParallel as DDP

SHAPES = {"rows": ((7, 5), np.float64, 0), "cols": ((4, 9), np.float32, 1), "ints": ((10,), np.int64, 0)}


class Shard:  # what npgrad.distributed._sharded.LocalShard looks like to the checkpoint code
    def __init__(self, tensor, global_shape, offsets):
        self.tensor, self.global_shape, self.offsets = tensor, tuple(global_shape), tuple(offsets)


def full(name, version):
    shape, dtype, _ = SHAPES[name]
    return (np.arange(np.prod(shape)).reshape(shape) * (1 + version) + version).astype(dtype)


def shard(name, version, rank, world, empty=False):
    shape, dtype, dim = SHAPES[name]
    bounds = np.linspace(0, shape[dim], world + 1).round().astype(int)
    lo, hi = bounds[rank], bounds[rank + 1]
    idx = [slice(None)] * len(shape)
    idx[dim] = slice(lo, hi)
    offsets = [0] * len(shape)
    offsets[dim] = int(lo)
    values = full(name, version)[tuple(idx)]
    t = torch.zeros(values.shape, dtype=torch.from_numpy(values).dtype) if empty else torch.from_numpy(values.copy())
    return Shard(t, shape, offsets)


def state(version, rank, world, empty=False):
    def z(a):
        return torch.zeros_like(torch.from_numpy(a)) if empty else torch.from_numpy(a)
    return {"model": {"rows": shard("rows", version, rank, world, empty),
                      "cols": shard("cols", version, rank, world, empty),
                      "rep": z(np.full((3,), float(version)))},
            "ints": shard("ints", version, rank, world, empty),
            "step": None if empty else 100 + version,
            "extra": [None if empty else "v%d" % version, z(np.eye(2) * version)]}


def check(sd, version, rank, world):
    for name, sh in (("rows", sd["model"]["rows"]), ("cols", sd["model"]["cols"]), ("ints", sd["ints"])):
        want = shard(name, version, rank, world)
        assert np.array_equal(sh.tensor.numpy(), want.tensor.numpy()), (name, sh.tensor, want.tensor)
        assert sh.tensor.dtype == want.tensor.dtype
    assert np.array_equal(sd["model"]["rep"].numpy(), np.full((3,), float(version)))
    assert sd["step"] == 100 + version and sd["extra"][0] == "v%d" % version, sd
    assert np.array_equal(sd["extra"][1].numpy(), np.eye(2) * version)


class Sharded:  # a model whose state dict is shards, as an FSDP-wrapped one's is
    def __init__(self, sd):
        self.sd = sd

    def state_dict(self):
        return self.sd


def ddp_model(seed):
    torch.manual_seed(seed)
    model = DDP(torch.nn.Linear(4, 3).double())
    return model, torch.optim.Adam(model.parameters(), lr=0.01)


def ddp_reference(model, opt):
    inner = model.module
    return {"weight": inner.weight.detach().clone(), "bias": inner.bias.detach().clone(),
            "exp_avg": opt.state[inner.weight]["exp_avg"].clone(), "step": float(opt.state[inner.weight]["step"])}


def save_ddp(directory, rank):
    """The resume recipe: get_state_dict of a DDP model and its optimizer, saved by every rank."""
    model, opt = ddp_model(0)
    for _ in range(2):
        opt.zero_grad()
        model(torch.ones(2, 4, dtype=torch.float64) * (rank + 1)).pow(2).sum().backward()
        opt.step()
    msd, osd = get_state_dict(model, opt)
    assert list(msd) == ["weight", "bias"] and list(osd["state"]) == ["weight", "bias"], (list(msd), osd)
    dcp.save({"model": msd, "optim": osd, "epoch": 2}, checkpoint_id=directory + "_ddp")
    if rank == 0:
        torch.save(ddp_reference(model, opt), directory + "_ddp_ref.pt")


def broadcast_load(directory, rank):
    """Rank 0 reads a full state dict with torch.load; broadcast_from_rank0 gives it to every rank."""
    model, opt = ddp_model(2)
    full = torch.load(directory + "_ddp_ref.pt") if rank == 0 else {}
    sd = {"weight": full["weight"], "bias": full["bias"]} if rank == 0 else {}
    set_model_state_dict(model, sd, options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
    ref = torch.load(directory + "_ddp_ref.pt")
    assert torch.equal(model.module.weight, ref["weight"]) and torch.equal(model.module.bias, ref["bias"])


def load_ddp(directory):
    model, opt = ddp_model(1)  # other weights, a fresh optimizer
    msd, osd = get_state_dict(model, opt)
    state = {"model": msd, "optim": osd, "epoch": 0}
    dcp.load(state, checkpoint_id=directory + "_ddp")
    set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
    ref, got = torch.load(directory + "_ddp_ref.pt"), ddp_reference(model, opt)
    assert state["epoch"] == 2 and got["step"] == ref["step"] == 2.0
    for k in ("weight", "bias", "exp_avg"):
        assert torch.equal(got[k], ref[k]), (k, got[k], ref[k])


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    version = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if mode == "save":
        md = dcp.save(state(version, rank, world), checkpoint_id=directory)
        assert [list(c.offsets) for c in md.state_dict_metadata["model.rows"].chunks] == \
            [list(shard("rows", version, r, world).offsets) for r in range(world)]
        # get_model_state_dict(full_state_dict=True) gathers shards into whole tensors, on rank 0 alone with cpu_offload
        model = Sharded({"rows": shard("rows", version, rank, world), "bias": torch.ones(2)})
        whole = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
        assert np.array_equal(whole["rows"].numpy(), full("rows", version)) and whole["bias"].shape == (2,)
        only0 = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
        assert (list(only0) == ["rows", "bias"]) if rank == 0 else only0 == {}, only0
        save_ddp(directory, rank)
    elif mode == "load":
        sd = state(version, rank, world, empty=True)
        dcp.load(sd, checkpoint_id=directory)
        check(sd, version, rank, world)
        load_ddp(directory)
        broadcast_load(directory, rank)
    elif mode == "kill":
        dcp.save(state(1, rank, world), checkpoint_id=directory)
        write = state_dict_saver._write_rank_file

        def write_then_die(*args):
            out = write(*args)
            if rank == 1:
                sys.stdout.flush()
                os._exit(3)  # as if killed: no exception, no MPI_Abort, the metadata not yet written
            return out
        state_dict_saver._write_rank_file = write_then_die
        dcp.save(state(2, rank, world), checkpoint_id=directory)
        raise AssertionError("the save with a dead rank returned")
    dist.barrier()
    if rank == 0:
        print(f"OK {world} ranks {mode}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
