"""Plain PyTorch: children started with the spawn/forkserver start methods re-import this file, and must
get the same `torch` as the parent. Prints one line per child: index, its torch's name, the tensor sent."""
import os
import sys

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


def report(i, q, received):
    q.put((i, torch.__name__, os.path.dirname(torch.__file__), os.getpid(), torch.full((2,), float(i))))
    # PyTorch hands a tensor over as a file descriptor its sender serves: stay until the parent has it.
    received.wait(60)


def process_entry(q, received, i):
    report(i, q, received)


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = torch.utils.data.get_worker_info()
        return {"x": torch.tensor([float(i)]), "torch": torch.__name__, "worker": -1 if info is None else info.id,
                "pid": os.getpid()}


def main(mode):
    here = (torch.__name__, os.path.dirname(torch.__file__), os.getpid())
    print("parent", here[0])
    if mode == "dataloader":
        loader = DataLoader(Items(), batch_size=1, num_workers=2, multiprocessing_context="spawn")
        for b in loader:
            print("child", int(b["x"].item()), b["torch"][0], b["pid"].item() != here[2], b["worker"].item())
        return
    ctx = mp.get_context("spawn" if mode == "spawn" else mode.split("-")[0])
    q, received = ctx.SimpleQueue(), ctx.Event()
    if mode == "spawn":
        children = mp.spawn(report, args=(q, received), nprocs=2, join=False)
    else:  # "<start method>-process"
        procs = [ctx.Process(target=process_entry, args=(q, received, i)) for i in range(2)]
        for p in procs:
            p.start()
    rows = sorted(((i, name, where, pid, t.tolist(), isinstance(t, torch.Tensor))
                   for i, name, where, pid, t in (q.get() for _ in range(2))), key=lambda r: r[0])
    received.set()
    if mode == "spawn":
        while not children.join():
            pass
    else:
        for p in procs:
            p.join()
            assert p.exitcode == 0, p.exitcode
    for i, name, where, pid, values, is_tensor in rows:
        assert is_tensor
        print("child", i, name, pid != here[2], where == here[1], values)


if __name__ == "__main__":
    main(sys.argv[1])
