"""A job in which something goes wrong (argv[1] says what); the test checks the job ends, non-zero, and says why."""
import os
import signal
import sys

import npgrad as torch
import npgrad.distributed as dist
from npgrad import nn

mode = sys.argv[1]
if mode == "before_init":
    try:
        dist.all_reduce(torch.ones(3))
    except ValueError as e:
        print(f"rank error: {e}", flush=True)
        raise

dist.init_process_group("mpi")
r, n = dist.get_rank(), dist.get_world_size()

if mode == "shapes":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8 if r == 0 else 9), nn.ReLU(), nn.Linear(8 if r == 0 else 9, 2))
    try:
        nn.parallel.DistributedDataParallel(model)
    except RuntimeError as e:
        print(f"rank {r} error: {e}", flush=True)
        dist.barrier()  # every rank has said it before the first one's exit aborts the job
        raise
    print(f"rank {r}: mismatched models were accepted", flush=True)
    sys.exit(0)

model = nn.parallel.DistributedDataParallel(nn.Linear(1000, 100))
x = torch.ones(8, 1000)
for step in range(1000):
    if r == n - 1 and step == 5:
        if mode == "raise":
            # also into a file: the launcher forwards output through pipes, and the abort that the exception
            # triggers can end the forwarding before the traceback's last line (the message) gets through
            with open("failed_rank.txt", "w") as fh:
                fh.write(f"rank {r} failed at step {step}")
            raise RuntimeError(f"rank {r} failed at step {step}")
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)  # the others are in (or entering) the allreduce
    model(x).sum().backward()
print(f"rank {r}: finished although rank {n - 1} failed", flush=True)
