"""A PyTorch DDP training script as people write them for torchrun, unmodified: run it with
``npgrad run --nproc-per-node N torchrun_ddp.py OUT`` (or on one process with ``npgrad run``). Rank 0
writes the loss of every step (averaged over the ranks) and the final weights to OUT; each rank writes
torchrun's variables to OUT.env<rank>. ``--fail-rank R`` makes rank R raise at step 3."""
import argparse
import json
import os

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


@record
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--global-batch", type=int, default=12)
    args = parser.parse_args()

    distributed = "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group(backend="gloo", init_method="env://")
        rank, world = dist.get_rank(), dist.get_world_size()
        with open(f"{args.out}.env{rank}", "w") as fh:
            json.dump({k: os.environ[k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                                  "MASTER_ADDR", "MASTER_PORT")}, fh)
    else:
        rank, world = 0, 1

    torch.manual_seed(0)
    x = torch.randn(48, 4, dtype=torch.float64)
    y = (x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]], dtype=torch.float64)).tanh()
    data = TensorDataset(x, y)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    sampler = DistributedSampler(data, shuffle=False) if distributed else None
    loader = DataLoader(data, batch_size=args.global_batch // world, sampler=sampler, shuffle=False)
    net = DDP(model) if distributed else model
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for epoch in range(3):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for step, (xb, yb) in enumerate(loader):
            if step == 3 and rank == args.fail_rank:
                raise RuntimeError(f"rank {rank} failed on purpose")
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(xb), yb)
            loss.backward()
            opt.step()
            mean = loss.detach().clone()
            if distributed:
                dist.all_reduce(mean)
                mean /= world
            losses.append(mean.item())
    if rank == 0:
        with open(args.out, "w") as fh:
            json.dump({"losses": losses, "weights": [p.detach().reshape(-1).tolist() for p in model.parameters()]}, fh)
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
