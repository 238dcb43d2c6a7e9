"""FSDP with distributed checkpoints, as PyTorch users combine them: train 10 AdamW steps on 3 ranks, save
the sharded model and optimizer state (``FSDP.state_dict_type(SHARDED_STATE_DICT)`` + ``dcp.save``), load
it on 2 ranks into a freshly wrapped model (another wrap policy) and train 10 more: the parameters equal
20 uninterrupted steps of one process on the whole batch (float64, exact to 1e-12). Also
``get_state_dict``/``set_state_dict`` with FSDP and fully_shard models and ZeroRedundancyOptimizer's
consolidated state saved. ``python fsdp_checkpoint.py MODE DIR`` with MODE save (3 ranks) or load (2 ranks);
the test loads the checkpoint into the unwrapped model on one process with ``resume_plain``."""
import functools
import sys

import numpy as np

import npgrad as torch
import npgrad.distributed as dist
import npgrad.distributed.checkpoint as dcp
import npgrad.nn as nn
from npgrad.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict
from npgrad.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType, fully_shard
from npgrad.distributed.fsdp.wrap import size_based_auto_wrap_policy, transformer_auto_wrap_policy
from npgrad.distributed.optim import ZeroRedundancyOptimizer

BATCH, STEPS = 12, 10


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + torch.tanh(self.fc(x)))


def make(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 7), Block(7), Block(7), nn.Linear(7, 2)).double()


def data():
    torch.manual_seed(1)
    return torch.randn(BATCH, 4, dtype=torch.float64), torch.randn(BATCH, 2, dtype=torch.float64)


def adamw(params):
    return torch.optim.AdamW(params, lr=0.02, weight_decay=0.05)


def train(model, opt, steps, rank=0, world=1):
    x, y = data()
    k = BATCH // world
    x, y = x[rank * k:(rank + 1) * k], y[rank * k:(rank + 1) * k]
    for _ in range(steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()


def reference(steps):
    """One process on the whole batch: the unwrapped model's state dict after ``steps`` steps."""
    model = make()
    train(model, adamw(model.parameters()), steps)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def check(full, ref, what):
    assert list(full) == list(ref), (what, list(full), list(ref))
    for k in ref:
        err = float(np.max(np.abs(full[k].numpy() - ref[k].numpy())))
        assert err <= 1e-12, f"{what}: {k} differs from uninterrupted training by {err}"


def full_params(model):
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
        return model.state_dict()


def save(directory, rank, world):
    model = FSDP(make(), auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}))
    opt = adamw(model.parameters())
    train(model, opt, STEPS, rank, world)
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        sd = {"model": model.state_dict(), "optim": FSDP.optim_state_dict(model, opt), "step": STEPS}
    dcp.save(sd, checkpoint_id=directory + "/fsdp")
    check(full_params(model), reference(STEPS), "FSDP after the first steps")

    # the state_dict helpers on the same model: full and sharded, saved for the other world size
    msd, osd = get_state_dict(model, opt)
    assert type(msd["1.fc.weight"]).__name__ == "LocalShard", msd
    whole, whole_opt = get_state_dict(model, opt, options=StateDictOptions(full_state_dict=True))
    check(whole, reference(STEPS), "get_state_dict(full_state_dict=True) of FSDP")
    assert set(whole_opt["state"]) == set(whole) and all(isinstance(v, torch.Tensor) for v in whole.values())
    assert whole_opt["state"]["1.fc.weight"]["exp_avg"].shape == (7, 7), whole_opt["state"]["1.fc.weight"]
    dcp.save({"model": msd, "optim": osd}, checkpoint_id=directory + "/helpers")

    # fully_shard: per-parameter shards through the same helpers
    fs = make()
    for block in (fs[1], fs[2]):
        fully_shard(block)
    fully_shard(fs)
    fopt = adamw(fs.parameters())
    train(fs, fopt, STEPS, rank, world)
    fmsd, fosd = get_state_dict(fs, fopt, options=StateDictOptions(full_state_dict=True))
    check(fmsd, reference(STEPS), "get_state_dict(full_state_dict=True) of fully_shard")
    dcp.save(dict(zip(("model", "optim"), get_state_dict(fs, fopt))), checkpoint_id=directory + "/fully_shard")

    # ZeRO: consolidate on rank 0 and save the optimizer's whole state there
    zm = make()
    zopt = ZeroRedundancyOptimizer(zm.parameters(), optimizer_class=torch.optim.AdamW, lr=0.02, weight_decay=0.05)
    ddp = nn.parallel.DistributedDataParallel(zm)
    train(ddp, zopt, STEPS, rank, world)
    zopt.consolidate_state_dict(to=0)
    if rank == 0:
        torch.save({"model": zm.state_dict(), "optim": zopt.state_dict()}, directory + "/zero.pt")


def load(directory, rank, world):
    ref = reference(2 * STEPS)
    # a fresh model wrapped another way (other units, another world size), a fresh optimizer
    ckpt = directory + "/fsdp"
    # docs: resume
    model = FSDP(make(seed=5), auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=20))
    opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.05)
    model_sd, optim_sd = get_state_dict(model, opt)  # a fresh optimizer gets the zero state to load into
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        state = {"model": model_sd, "optim": optim_sd, "step": 0}
        dcp.load(state, checkpoint_id=ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(FSDP.optim_state_dict_to_load(model, opt, state["optim"]))
    # docs: end
    assert state["step"] == STEPS
    whole, whole_opt = get_state_dict(model, opt, options=StateDictOptions(full_state_dict=True))
    flat_opt = get_state_dict(model, opt, options=StateDictOptions(flatten_optimizer_state_dict=True))[1]
    assert "state.1.fc.weight.exp_avg" in flat_opt and "param_groups.3.bias.lr" in flat_opt, list(flat_opt)
    train(model, opt, STEPS, rank, world)
    check(full_params(model), ref, "FSDP resumed on another world size")

    for orig in (False, True):  # flat parameters, or the original parameters' pieces of them
        model = FSDP(make(seed=6), use_orig_params=orig,
                     auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}))
        opt = adamw(model.parameters())
        msd, osd = get_state_dict(model, opt)
        dcp.load({"model": msd, "optim": osd}, checkpoint_id=directory + "/helpers")
        set_state_dict(model, opt, model_state_dict=msd, optim_state_dict=osd)
        train(model, opt, STEPS, rank, world)
        check(full_params(model), ref, f"get_state_dict/set_state_dict of FSDP (use_orig_params={orig}), resumed")

    fs = make(seed=7)
    fully_shard(fs)
    fopt = adamw(fs.parameters())
    msd, osd = get_state_dict(fs, fopt)
    dcp.load({"model": msd, "optim": osd}, checkpoint_id=directory + "/fully_shard")
    set_state_dict(fs, fopt, model_state_dict=msd, optim_state_dict=osd)
    train(fs, fopt, STEPS, rank, world)
    check(get_state_dict(fs, fopt, options=StateDictOptions(full_state_dict=True))[0], ref, "fully_shard resumed")

    # whole tensors into fully_shard, flattened optimizer state into FSDP wrapped as one unit
    fs = make(seed=10)
    fully_shard(fs)
    fopt = adamw(fs.parameters())
    set_state_dict(fs, fopt, model_state_dict=whole, optim_state_dict=whole_opt,
                   options=StateDictOptions(full_state_dict=True))
    train(fs, fopt, STEPS, rank, world)
    check(get_state_dict(fs, fopt, options=StateDictOptions(full_state_dict=True))[0], ref, "fully_shard from full")
    model = FSDP(make(seed=11))
    opt = adamw(model.parameters())
    set_state_dict(model, opt, model_state_dict=whole, optim_state_dict=flat_opt,
                   options=StateDictOptions(flatten_optimizer_state_dict=True))
    train(model, opt, STEPS, rank, world)
    check(full_params(model), ref, "FSDP from a flattened optimizer state dict")

    # the options that pick keys see the unwrapped names (a frozen unit, a submodule)
    m = make()
    m[1].requires_grad_(False)
    model = FSDP(m, auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}))
    kept = get_state_dict(model, adamw(model.parameters()), options=StateDictOptions(ignore_frozen_params=True))[0]
    assert sorted(kept) == sorted(k for k in ref if not k.startswith("1.")), list(kept)
    sub = get_state_dict(model, [], submodules={model[2]}, options=StateDictOptions(keep_submodule_prefixes=False))[0]
    assert sorted(sub) == ["fc.bias", "fc.weight", "norm.bias", "norm.weight"], list(sub)

    saved = torch.load(directory + "/zero.pt")
    zm = make(seed=8)
    zopt = ZeroRedundancyOptimizer(zm.parameters(), optimizer_class=torch.optim.AdamW, lr=0.02, weight_decay=0.05)
    zm.load_state_dict(saved["model"])
    zopt.load_state_dict(saved["optim"])
    train(nn.parallel.DistributedDataParallel(zm), zopt, STEPS, rank, world)
    check(zm.state_dict(), ref, "ZeroRedundancyOptimizer resumed from its consolidated state")


def resume_plain(directory, kind="fsdp"):
    """One process, no process group: the FSDP checkpoint into the plain model and optimizer (full tensors,
    keyed by parameter names as get_state_dict keys them); 10 more steps; the model's state dict."""
    ckpt = f"{directory}/{kind}"
    # docs: plain
    model = make(seed=9)
    opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.05)
    model_sd, optim_sd = get_state_dict(model, opt)
    state = {"model": model_sd, "optim": optim_sd}
    dcp.load(state, checkpoint_id=ckpt)  # one process, no process group: whole tensors from the shards
    set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
    # docs: end
    train(model, opt, STEPS)
    return model.state_dict()


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    {"save": save, "load": load}[mode](directory, rank, world)
    dist.barrier()
    if rank == 0:
        print(f"OK {world} ranks {mode}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
