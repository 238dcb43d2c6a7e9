"""A PyTorch FSDP training script as people write them for torchrun, unmodified: run it with
``npgrad run --nproc-per-node N torchrun_fsdp.py OUT`` (or on one process, unwrapped, with ``npgrad run``).
It trains, saves a sharded checkpoint to OUT.ck with torch.distributed.checkpoint, and rank 0 writes the
loss of every step (averaged over the ranks) and the full final weights to OUT.json."""
import functools
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.fsdp import FullStateDictConfig, FullyShardedDataParallel as FSDP, StateDictType
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    out = sys.argv[1]
    distributed = "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group(backend="gloo", init_method="env://")
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        rank, world = 0, 1

    torch.manual_seed(0)
    x = torch.randn(48, 4, dtype=torch.float64)
    y = (x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]], dtype=torch.float64)).tanh()
    data = TensorDataset(x, y)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                                torch.nn.Linear(16, 1)).double()
    if distributed:
        model = FSDP(model, auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=100))
    sampler = DistributedSampler(data, shuffle=False) if distributed else None
    loader = DataLoader(data, batch_size=12 // world, sampler=sampler, shuffle=False)
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    losses = []
    for epoch in range(2):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for xb, yb in loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            mean = loss.detach().clone()
            if distributed:
                dist.all_reduce(mean)
                mean /= world
            losses.append(mean.item())

    if distributed:
        with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
            state = {"model": model.state_dict(), "optim": FSDP.optim_state_dict(model, opt)}
        dcp.save(state, checkpoint_id=out + ".ck")
        with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(rank0_only=True)):
            weights = model.state_dict()
    else:
        dcp.save({"model": model.state_dict()}, checkpoint_id=out + ".ck")
        weights = model.state_dict()
    if rank == 0:
        with open(out + ".json", "w") as fh:
            json.dump({"world": world, "losses": losses, "shapes": {k: list(v.shape) for k, v in weights.items()},
                       "weights": {k: v.reshape(-1).tolist() for k, v in weights.items()}}, fh)
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
