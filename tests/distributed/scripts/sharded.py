"""FSDP (every strategy, two auto-wrap policies), fully_shard and ZeroRedundancyOptimizer on N ranks equal
one process on the whole batch: 20 SGD and 20 AdamW steps, float64 to 1e-12, float32 within rounding.
Then state dicts (full, sharded, loaded back), summon_full_params, clip_grad_norm_, no_sync, the
optimizer state dicts. Every rank computes the one-process reference itself (no communication)."""
import functools

import numpy as np

import npgrad as torch
import npgrad.distributed as dist
import npgrad.nn as nn
from npgrad.distributed.fsdp import (FullStateDictConfig, FullyShardedDataParallel as FSDP, ShardingStrategy,
                                     StateDictType, fully_shard)
from npgrad.distributed.fsdp.wrap import ModuleWrapPolicy, size_based_auto_wrap_policy, transformer_auto_wrap_policy
from npgrad.distributed.optim import ZeroRedundancyOptimizer

dist.init_process_group("mpi")
RANK, N = dist.get_rank(), dist.get_world_size()
BATCH = 12
STEPS = 20


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + torch.tanh(self.fc(x)))


def make(dtype):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 5), Block(5), Block(5), nn.Linear(5, 2)).to(dtype)


torch.manual_seed(1)
X64 = torch.randn(BATCH, 4, dtype=torch.float64)
Y64 = torch.randn(BATCH, 2, dtype=torch.float64)
K = BATCH // N
OPTIMS = {"sgd": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
          "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.02)}
TOL = {torch.float64: dict(rtol=0, atol=1e-12), torch.float32: dict(rtol=1e-5, atol=2e-6)}
POLICIES = {"size": functools.partial(size_based_auto_wrap_policy, min_num_params=30),
            "transformer": functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})}


def loss_of(model, x, y):
    return ((model(x) - y) ** 2).mean()


def train(model, opt, dtype, local):
    x, y = X64.to(dtype), Y64.to(dtype)
    if local:
        x, y = x[RANK * K:(RANK + 1) * K], y[RANK * K:(RANK + 1) * K]
    for _ in range(STEPS):
        opt.zero_grad()
        loss_of(model, x, y).backward()
        opt.step()


REF = {}


def reference(opt_name, dtype):
    key = (opt_name, dtype)
    if key not in REF:
        m = make(dtype)
        train(m, OPTIMS[opt_name](m.parameters()), dtype, local=False)
        REF[key] = {k: v._data.copy() for k, v in m.state_dict().items()}
    return REF[key]


def close(a, b, dtype, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    assert np.allclose(a, b, **TOL[dtype]), f"{what}: max error {np.max(np.abs(a - b))}"


def check_full(sd, ref, dtype, what):
    assert list(sd) == list(ref), (what, list(sd), list(ref))
    for k, v in sd.items():
        close(v._data, ref[k], dtype, f"{what} {k}")


def check_shards(sd, ref, dtype, what):
    assert list(sd) == list(ref), (what, list(sd))
    for k, v in sd.items():
        if hasattr(v, "offsets"):
            where = tuple(slice(o, o + s) for o, s in zip(v.offsets, v.tensor.shape))
            close(v.tensor._data, ref[k][where], dtype, f"{what} {k}")
        else:
            close(v._data, ref[k], dtype, f"{what} {k}")


cases = 0
# -- FullyShardedDataParallel: every strategy, both policies, both optimizers, both dtypes ---------------------
for strategy in ShardingStrategy:
    for pname, policy in POLICIES.items():
        for oname in OPTIMS:
            for dtype in (torch.float64, torch.float32):
                what = f"FSDP {strategy.name} {pname} {oname} {dtype}"
                model = FSDP(make(dtype), sharding_strategy=strategy, auto_wrap_policy=policy)
                flat = list(model.parameters())
                assert all(p.ndim == 1 for p in flat), what
                if strategy != ShardingStrategy.NO_SHARD:  # each rank holds 1/N of every unit (padded)
                    total = sum(p.numel() for p in make(dtype).parameters())
                    assert sum(p.numel() for p in flat) < total / N + len(flat), what
                train(model, OPTIMS[oname](model.parameters()), dtype, local=True)
                ref = reference(oname, dtype)
                check_full(model.state_dict(), ref, dtype, what)
                cases += 1

# -- use_orig_params=True: the original parameters stay registered, as this rank's 1-D pieces of them ----------
for strategy in ShardingStrategy:
    for oname in OPTIMS:
        dtype = torch.float64
        what = f"FSDP use_orig_params {strategy.name} {oname}"
        model = FSDP(make(dtype), sharding_strategy=strategy, auto_wrap_policy=POLICIES["size"], use_orig_params=True)
        names = [n.replace("_fsdp_wrapped_module.", "") for n, _ in model.named_parameters()]
        assert names == [n for n, _ in make(dtype).named_parameters()], (what, names)
        if strategy != ShardingStrategy.NO_SHARD:
            assert all(p.ndim == 1 for p in model.parameters()), what
        opt = OPTIMS[oname](model.parameters())
        train(model, opt, dtype, local=True)
        ref = reference(oname, dtype)
        check_full(model.state_dict(), ref, dtype, what)
        if oname == "adamw":
            osd = FSDP.optim_state_dict(model, opt)
            ref_model = make(dtype)
            ref_opt = OPTIMS[oname](ref_model.parameters())
            train(ref_model, ref_opt, dtype, local=False)
            for j, (n, _) in enumerate(ref_model.named_parameters()):
                close(osd["state"][n]["exp_avg_sq"]._data, ref_opt.state_dict()["state"][j]["exp_avg_sq"]._data,
                      dtype, f"{what} optim state {n}")
            opt2 = OPTIMS[oname](model.parameters())
            opt2.load_state_dict(FSDP.optim_state_dict_to_load(model, opt2, osd))
            for a, b in zip(opt2.state_dict()["state"].values(), opt.state_dict()["state"].values()):
                close(a["exp_avg"]._data, b["exp_avg"]._data, dtype, f"{what} optim state loaded")
            with FSDP.summon_full_params(model):
                assert [tuple(p.shape) for p in model.parameters()] == [tuple(p.shape) for p in ref_model.parameters()]
        cases += 1

# -- a unit whose forward returns several tensors (a tuple and a dict): each output's gradient re-gathers it
class Split(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Linear(4, 3)

    def forward(self, x):
        return self.a(x), {"b": self.b(x)}


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.split = Split()
        self.out = nn.Linear(3, 2)

    def forward(self, x):
        a, d = self.split(x)
        return self.out(torch.tanh(a) * d["b"])


def two_heads(dtype):
    torch.manual_seed(0)
    return TwoHeads().to(dtype)


dtype = torch.float64
plain = two_heads(dtype)
train(plain, OPTIMS["adamw"](plain.parameters()), dtype, local=False)
model = FSDP(two_heads(dtype), auto_wrap_policy=ModuleWrapPolicy({Split}))
train(model, OPTIMS["adamw"](model.parameters()), dtype, local=True)
check_full(model.state_dict(), {k: v._data for k, v in plain.state_dict().items()}, dtype, "unit with several outputs")
cases += 1

# -- a unit called twice in one forward: freed after each call, gathered again for each call's backward, and
# its two reduce-scatters add up
class Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(4, 5)
        self.block = Block(5)
        self.out = nn.Linear(5, 2)

    def forward(self, x):
        return self.out(self.block(self.block(self.inp(x))))


def twice(dtype):
    torch.manual_seed(0)
    return Twice().to(dtype)


for strategy in (ShardingStrategy.FULL_SHARD, ShardingStrategy.SHARD_GRAD_OP):
    plain = twice(dtype)
    train(plain, OPTIMS["sgd"](plain.parameters()), dtype, local=False)
    model = FSDP(twice(dtype), sharding_strategy=strategy, auto_wrap_policy=POLICIES["transformer"])
    train(model, OPTIMS["sgd"](model.parameters()), dtype, local=True)
    check_full(model.state_dict(), {k: v._data for k, v in plain.state_dict().items()}, dtype,
               f"unit called twice, {strategy.name}")
    cases += 1

# -- a frozen unit in the middle: the gradient reaching the layers before it goes through its weights, which
# must be gathered again for backward though nothing of the unit is trained; and sync_module_states
def frozen(dtype, seed=0):
    m = make(dtype)
    if seed:
        for p in m.parameters():
            p.data.add_(seed)
    m[1].requires_grad_(False)
    return m


dtype = torch.float64
plain = frozen(dtype)
train(plain, OPTIMS["sgd"](p for p in plain.parameters() if p.requires_grad), dtype, local=False)
model = FSDP(frozen(dtype, seed=RANK), auto_wrap_policy=POLICIES["transformer"], sync_module_states=True)
train(model, OPTIMS["sgd"](p for p in model.parameters() if p.requires_grad), dtype, local=True)
check_full(model.state_dict(), {k: v._data for k, v in plain.state_dict().items()}, dtype, "frozen unit, synced")
cases += 1

# -- state dicts, summon_full_params, clip_grad_norm_, no_sync on one FULL_SHARD model -------------------------
dtype = torch.float64
model = FSDP(make(dtype), auto_wrap_policy=POLICIES["transformer"])
opt = torch.optim.AdamW(model.parameters(), lr=0.02)
train(model, opt, dtype, local=True)
ref = reference("adamw", dtype)
with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(rank0_only=True)):
    sd = model.state_dict()
assert (len(sd) > 0) == (RANK == 0), len(sd)
with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
    shards = model.state_dict()
    check_shards(shards, ref, dtype, "sharded state dict")
    fresh = FSDP(make(dtype), auto_wrap_policy=POLICIES["size"])  # another wrapping: other flat layouts
    with FSDP.state_dict_type(fresh, StateDictType.SHARDED_STATE_DICT):
        fresh.load_state_dict(shards)
check_full(fresh.state_dict(), ref, dtype, "sharded state dict loaded into another wrapping")
# shards of another layout (as written by one process: rank 0 holds everything, the others empty pieces)
from npgrad.distributed._sharded import LocalShard  # noqa: E402
lone = {}
for k, v in ref.items():
    if k in shards and hasattr(shards[k], "offsets"):
        piece = v if RANK == 0 else v[v.shape[0]:]
        start = 0 if RANK == 0 else v.shape[0]
        lone[k] = LocalShard(torch.tensor(piece), v.shape, (start,) + (0,) * (v.ndim - 1))
    else:
        lone[k] = torch.tensor(v)
third = FSDP(make(dtype), sharding_strategy=ShardingStrategy.SHARD_GRAD_OP)
with FSDP.state_dict_type(third, StateDictType.SHARDED_STATE_DICT):
    third.load_state_dict(lone)
check_full(third.state_dict(), ref, dtype, "shards of another layout loaded")
full = {k: torch.tensor(v) for k, v in ref.items()}
again = FSDP(make(dtype), sharding_strategy=ShardingStrategy.SHARD_GRAD_OP)
again.load_state_dict(full)
check_full(again.state_dict(), ref, dtype, "full state dict loaded")
with FSDP.summon_full_params(model):
    names = [n for n, _ in model.named_parameters()]
    assert names == list(k for k in ref if "running" not in k), names
    model.get_submodule("0").weight.data.mul_(2.0)  # written back on exit
after = model.state_dict()
close(after["0.weight"]._data, 2 * ref["0.weight"], dtype, "summon_full_params writeback")
model.load_state_dict(full)
# no_sync: two micro-batches, the first without communication, give the gradient of both
plain = make(dtype)
plain.load_state_dict(full)
x, y = X64[RANK * K:(RANK + 1) * K], Y64[RANK * K:(RANK + 1) * K]
half = K // 2 or 1
opt.zero_grad()
with model.no_sync():
    loss_of(model, x[:half], y[:half]).backward()
loss_of(model, x[half:], y[half:]).backward()
parts = [(X64[r * K:r * K + half], Y64[r * K:r * K + half]) for r in range(N)] + \
        [(X64[r * K + half:(r + 1) * K], Y64[r * K + half:(r + 1) * K]) for r in range(N)]
for xs, ys in parts:
    (loss_of(plain, xs, ys) / N).backward()
with FSDP.summon_full_params(model, with_grads=True, writeback=False):
    for (n, p), q in zip(model.named_parameters(), plain.parameters()):
        close(p.grad._data, q.grad._data, dtype, f"no_sync gradient {n}")
norm = model.clip_grad_norm_(0.05)
ref_norm = nn.utils.clip_grad_norm_(plain.parameters(), 0.05)
close(norm._data, ref_norm._data, dtype, "clip_grad_norm_ total norm")
with FSDP.summon_full_params(model, with_grads=True, writeback=False):
    for (n, p), q in zip(model.named_parameters(), plain.parameters()):
        close(p.grad._data, q.grad._data, dtype, f"clipped gradient {n}")
# optimizer state dict keyed by the unwrapped model's names, and back
osd = FSDP.optim_state_dict(model, opt)
plain_opt = torch.optim.AdamW(plain.parameters(), lr=0.02)
plain_ref = make(dtype)
ref_opt = torch.optim.AdamW(plain_ref.parameters(), lr=0.02)
train(plain_ref, ref_opt, dtype, local=False)
names = [n for n, _ in plain_ref.named_parameters()]
for j, n in enumerate(names):
    for key in ("exp_avg", "exp_avg_sq"):
        close(osd["state"][n][key]._data, ref_opt.state_dict()["state"][j][key]._data, dtype, f"optim state {n} {key}")
assert sorted(osd["param_groups"][0]["params"]) == sorted(names), osd["param_groups"]
opt2 = torch.optim.AdamW(again.parameters(), lr=0.02)
opt2.load_state_dict(FSDP.optim_state_dict_to_load(again, opt2, osd))
osd2 = FSDP.optim_state_dict(again, opt2)  # another wrapping (one unit): the same state by name
full_osd = FSDP.full_optim_state_dict(model, opt)  # the older spelling: full tensors, rank 0 only
assert (len(full_osd) > 0) == (RANK == 0)
full_osd = FSDP.full_optim_state_dict(model, opt, rank0_only=False)
opt3 = torch.optim.AdamW(model.parameters(), lr=0.02)
opt3.load_state_dict(FSDP.shard_full_optim_state_dict(full_osd, model))
for a, b in zip(opt3.state_dict()["state"].values(), opt.state_dict()["state"].values()):
    close(a["exp_avg_sq"]._data, b["exp_avg_sq"]._data, dtype, "full optim state dict sharded back")
for n in names:
    for key in ("exp_avg", "exp_avg_sq"):
        close(osd2["state"][n][key]._data, osd["state"][n][key]._data, dtype, f"optim state loaded {n} {key}")
cases += 1

# -- fully_shard ------------------------------------------------------------------------------------------------
for oname in OPTIMS:
    for dtype in (torch.float64, torch.float32):
        what = f"fully_shard {oname} {dtype}"
        model = make(dtype)
        for block in (model[1], model[2]):
            fully_shard(block)
        fully_shard(model)
        assert type(model).__name__ == "FSDPSequential" and isinstance(model, nn.Sequential)
        shapes = {n: tuple(p.shape) for n, p in model.named_parameters()}
        rows = -(-5 // N)
        assert shapes["0.weight"] == (min(rows, max(0, 5 - RANK * rows)), 4), shapes
        train(model, OPTIMS[oname](model.parameters()), dtype, local=True)
        ref = reference(oname, dtype)
        sd = model.state_dict()
        check_shards(sd, ref, dtype, what)
        other = make(dtype)
        fully_shard(other)  # another layout (one unit) loads the shards, a plain model the full tensors
        other.load_state_dict(sd)
        check_shards(other.state_dict(), ref, dtype, what + " loaded")
        cases += 1

# fully_shard's gradient accumulation without communication (set_requires_gradient_sync), and unshard()
dtype = torch.float64
model = make(dtype)
for block in (model[1], model[2]):
    fully_shard(block)
fully_shard(model)
plain = make(dtype)
x, y = X64[RANK * K:(RANK + 1) * K], Y64[RANK * K:(RANK + 1) * K]
half = K // 2 or 1
model.set_requires_gradient_sync(False)
loss_of(model, x[:half], y[:half]).backward()
assert all(p.grad is None for p in model.parameters())  # nothing reduced yet
model.set_requires_gradient_sync(True)
loss_of(model, x[half:], y[half:]).backward()
for r in range(N):
    for lo, hi in ((r * K, r * K + half), (r * K + half, (r + 1) * K)):
        (loss_of(plain, X64[lo:hi], Y64[lo:hi]) / N).backward()
for (n, p), q in zip(model.named_parameters(), plain.parameters()):
    shard = model.state_dict()[n]
    where = tuple(slice(o, o + s) for o, s in zip(shard.offsets, p.shape))
    close(p.grad._data, q.grad._data[where], dtype, f"fully_shard accumulated gradient {n}")
model[1].unshard()
with torch.no_grad():
    close(model(X64).detach()._data, plain(X64).detach()._data, dtype, "forward after unshard()")
model[1].reshard()
cases += 1

# -- ZeroRedundancyOptimizer (with DDP averaging the gradients) -------------------------------------------------
from npgrad.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
for oname, cls, kw in (("sgd", torch.optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
                       ("adamw", torch.optim.AdamW, dict(lr=0.02))):
    for dtype in (torch.float64, torch.float32):
        what = f"ZeRO {oname} {dtype}"
        model = DDP(make(dtype))
        zero = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=cls, **kw)
        mine = sum(p.numel() for g in zero.optim.param_groups for p in g["params"])
        assert mine < sum(p.numel() for p in model.parameters()), what
        train(model, zero, dtype, local=True)
        ref = reference(oname, dtype)
        check_full(model.module.state_dict(), ref, dtype, what)
        try:
            zero.state_dict()
            raise AssertionError("state_dict before consolidate_state_dict")
        except RuntimeError as e:
            assert "consolidate_state_dict(to=" in str(e)
        zero.consolidate_state_dict(to=0)
        if RANK == 0:
            full_sd = zero.state_dict()
            plain = make(dtype)
            plain_opt = cls(plain.parameters(), **kw)
            train(plain, plain_opt, dtype, local=False)
            want = plain_opt.state_dict()
            assert full_sd["param_groups"] == want["param_groups"], (full_sd["param_groups"], want["param_groups"])
            for j, st in want["state"].items():
                for key, v in st.items():
                    close(full_sd["state"][j][key]._data, v._data, dtype, f"{what} state {j} {key}")
        full_sd = dist.broadcast_object_list([full_sd if RANK == 0 else None], src=0) or None
        cases += 1
# a consolidated state loads into a fresh ZeRO on every rank and training resumes identically
obj = [None]
zero.consolidate_state_dict(to=0)
if RANK == 0:
    obj = [zero.state_dict()]
dist.broadcast_object_list(obj, src=0)
model2 = DDP(make(torch.float32))
model2.module.load_state_dict(model.module.state_dict())
zero2 = ZeroRedundancyOptimizer(model2.parameters(), optimizer_class=torch.optim.AdamW, lr=0.02)
zero2.load_state_dict(obj[0])
x, y = X64.float()[RANK * K:(RANK + 1) * K], Y64.float()[RANK * K:(RANK + 1) * K]
for m, z in ((model, zero), (model2, zero2)):
    z.zero_grad()
    loss_of(m, x, y).backward()
    z.step()
for a, b in zip(model.parameters(), model2.parameters()):
    assert np.array_equal(a._data, b._data), "ZeRO resumed from its state dict"

dist.barrier()
if RANK == 0:
    print(f"OK {N} ranks: {cases} sharded cases")
