"""DistributedDataParallel on N ranks against one process training on the whole batch."""
import numpy as np

import npgrad as torch
import npgrad.distributed as dist
from npgrad import nn
from npgrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
r, n = dist.get_rank(), dist.get_world_size()
checks = 0
GLOBAL = 12  # the global batch: divisible by 2 and 3 ranks
STEPS = 20


def make(dtype, seed=0):
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 3))
    return net.to(dtype)


def batches(dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((STEPS, GLOBAL, 6))
    y = rng.standard_normal((STEPS, GLOBAL, 3))
    return torch.from_numpy(x).to(dtype), torch.from_numpy(y).to(dtype)


def shard(a):
    k = GLOBAL // n
    return a[r * k:(r + 1) * k]


def train(model, opt, xs, ys, part):
    for s in range(STEPS):
        x, y = (shard(xs[s]), shard(ys[s])) if part else (xs[s], ys[s])
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def close(a, b, tol, what):
    global checks
    diff = max(float((p - q).abs().max()) for p, q in zip(a, b))
    assert diff <= tol, f"{what}: max difference {diff} > {tol}"
    checks += 1


for dtype, tol in ((torch.float64, 1e-6), (torch.float32, 1e-5)):
    xs, ys = batches(dtype)
    for name, make_opt in (("SGD", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
                           ("Adam", lambda ps: torch.optim.Adam(ps, lr=1e-2))):
        ref = make(dtype)
        train(ref, make_opt(ref.parameters()), xs, ys, part=False)
        mine = make(dtype, seed=0 if r == 0 else 100 + r)  # DDP starts everyone from rank 0's
        ddp = DDP(mine, bucket_cap_mb=0.004)  # several buckets of ~4 KB
        assert len(ddp._bucket_list) > 2
        train(ddp, make_opt(ddp.parameters()), xs, ys, part=True)
        close(ref.parameters(), mine.parameters(), tol, f"{name} {dtype}")

# the progress thread drove MPI during those backwards (and is parked between them); alone, no thread.
import threading  # noqa: E402

from npgrad.distributed import _progress  # noqa: E402

engine = _progress.engine()
names = [t.name for t in threading.enumerate()]
if n > 1:
    assert engine is not None and engine.probes > 0 and not engine.active, (engine, engine and engine.probes)
    assert "npgrad-mpi-progress" in names, names
checks += 1

# buckets start during backward, not after it: when the first bucket (the last layer) is launched, the
# first layer's gradients do not exist yet.
model = make(torch.float64)
ddp = DDP(model, bucket_cap_mb=0.0001)
launched = []
real_launch = ddp._launch


def spy(bucket):
    launched.append(model[0].weight.grad is None)
    real_launch(bucket)


ddp._launch = spy
xs, ys = batches(torch.float64)
ddp.zero_grad(set_to_none=True)
nn.functional.mse_loss(ddp(shard(xs[0])), shard(ys[0])).backward()
assert launched[0] and not launched[-1] and len(launched) == len(ddp._bucket_list), launched
checks += 1

# no_sync: two local accumulations, then a synchronised backward, equal the full-batch sum of three.
ref = make(torch.float64)
for s in range(3):
    nn.functional.mse_loss(ref(xs[s]), ys[s]).backward()
mine = make(torch.float64)
ddp = DDP(mine)
with ddp.no_sync():
    for s in range(2):
        nn.functional.mse_loss(ddp(shard(xs[s])), shard(ys[s])).backward()
local = mine[0].weight.grad.clone()
seen = [None] * n
dist.all_gather_object(seen, local.numpy())
assert n == 1 or not np.allclose(seen[0], seen[1])  # no communication happened inside no_sync
nn.functional.mse_loss(ddp(shard(xs[2])), shard(ys[2])).backward()
close([p.grad for p in ref.parameters()], [p.grad for p in mine.parameters()], 1e-12, "no_sync accumulation")


# find_unused_parameters: a branch only rank 0 uses is averaged in; one nobody uses keeps grad None.
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 2)
        self.b = nn.Linear(4, 2)
        self.never = nn.Linear(4, 2)

    def forward(self, x, use_b):
        return self.a(x) + (self.b(x) if use_b else 0)


torch.manual_seed(3)
net = Branchy().double()
ddp = DDP(net, find_unused_parameters=True)
x = torch.ones(2, 4, dtype=torch.float64) * (r + 1)
ddp(x, use_b=(r == 0)).sum().backward()
assert net.never.weight.grad is None
g = [None] * n
dist.all_gather_object(g, net.b.weight.grad.numpy())
np.testing.assert_allclose(g[r], np.full((2, 4), 2.0 / n))  # rank 0's gradient (2 rows of ones) / n
checks += 1

# without find_unused_parameters, an unused parameter is an error (on every rank), not a hang.
ddp = DDP(Branchy().double())
try:
    ddp(x, use_b=True).sum().backward()
except RuntimeError as e:
    assert "find_unused_parameters=True" in str(e) and "never.weight" in str(e), e
    checks += 1
else:
    raise AssertionError("an unused parameter went unnoticed")


# broadcast_buffers: rank 0's buffers before every forward; module and state_dict as PyTorch's.
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("scale", torch.ones(2))

    def forward(self, x):
        return self.lin(x) * self.scale


inner = Scaled()
ddp = DDP(inner)
assert ddp.module is inner
assert list(ddp.state_dict()) == ["module.scale", "module.lin.weight", "module.lin.bias"]  # as PyTorch orders them
inner.scale.fill_(float(r + 5))
ddp(torch.ones(1, 2))
assert inner.scale.tolist() == [5.0, 5.0]
checks += 1

counts = [None] * n
dist.all_gather_object(counts, checks)
if r == 0:
    print(f"OK {n} ranks, checks per rank: {counts}", flush=True)
