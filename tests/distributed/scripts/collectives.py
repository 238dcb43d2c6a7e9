"""Every collective against a NumPy reference, on whatever number of ranks mpiexec started."""
import numpy as np

import npgrad as torch
import npgrad.distributed as dist
from npgrad.distributed import ReduceOp

dist.init_process_group("mpi")
r, n = dist.get_rank(), dist.get_world_size()
checks = 0


def data(rank, shape=(3, 4), dtype=np.float64):
    """What rank ``rank`` contributes: distinct per rank, so a wrong source shows."""
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * (rank + 1) + rank
    return a.astype(dtype)


def t(a):
    return torch.from_numpy(np.array(a, copy=True))


def same(tensor, expected, what):
    global checks
    got = tensor.numpy() if isinstance(tensor, torch.Tensor) else np.asarray(tensor)
    assert got.dtype == np.asarray(expected).dtype, (what, got.dtype, np.asarray(expected).dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0, err_msg=what)
    checks += 1


everyone = [data(k) for k in range(n)]
refs = {ReduceOp.SUM: np.sum(everyone, 0), ReduceOp.AVG: np.mean(everyone, 0), ReduceOp.PRODUCT: np.prod(everyone, 0),
        ReduceOp.MIN: np.min(everyone, 0), ReduceOp.MAX: np.max(everyone, 0)}
assert dist.is_initialized() and dist.get_backend() == "mpi" and dist.Backend.MPI == "mpi"

# all_reduce: every op, in place in the tensor passed, also on a non-contiguous view and asynchronously.
for op, ref in refs.items():
    for dtype in (np.float64, np.float32):
        x = t(data(r, dtype=dtype))
        keep = x
        assert dist.all_reduce(x, op=op) is None
        assert x is keep
        same(x, ref.astype(dtype), f"all_reduce {op!r} {dtype}")
    x = t(data(r))
    work = dist.all_reduce(x, op=op, async_op=True)
    assert work.wait() is True and work.is_completed()
    same(x, ref, f"async all_reduce {op!r}")
big = t(data(r, (4, 6)))
view = big[:, ::2]  # strided: written back into `big`
dist.all_reduce(view)
same(big[:, ::2], np.sum([data(k, (4, 6)) for k in range(n)], 0)[:, ::2], "all_reduce of a strided view")
same(big[:, 1::2], data(r, (4, 6))[:, 1::2], "all_reduce leaves the rest of the base alone")
ints = t(np.array([r + 1, 2 * r + 3, 12], np.int64))
dist.all_reduce(ints, op=ReduceOp.PRODUCT)
same(ints, np.prod([[k + 1, 2 * k + 3, 12] for k in range(n)], 0), "int64 PRODUCT")
for op, fn in ((ReduceOp.BAND, np.bitwise_and.reduce), (ReduceOp.BOR, np.bitwise_or.reduce),
               (ReduceOp.BXOR, np.bitwise_xor.reduce)):
    bits = t(np.array([5 + r, 3 * r + 1], np.int64))
    dist.all_reduce(bits, op=op)
    same(bits, fn(np.array([[5 + k, 3 * k + 1] for k in range(n)]), axis=0), f"{op!r}")
flags = t(np.array([r == 0, True, False]))
dist.all_reduce(flags)  # bool SUM: logical or
same(flags, np.array([True, True, False]), "bool all_reduce")

# broadcast from every root, and from a group rank.
for root in range(n):
    x = t(data(r))
    dist.broadcast(x, src=root)
    same(x, data(root), f"broadcast from {root}")
x = t(data(r, dtype=np.float32))
dist.broadcast(x, group_src=n - 1, async_op=True).wait()
same(x, data(n - 1, dtype=np.float32), "broadcast group_src")

# reduce into one rank; the others keep their input.
for root in range(n):
    x = t(data(r))
    dist.reduce(x, dst=root, op=ReduceOp.MAX)
    same(x, refs[ReduceOp.MAX] if r == root else data(r), f"reduce to {root}")

# all_gather (also of uneven sizes), all_gather_into_tensor (both output layouts).
outs = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)]
dist.all_gather(outs, t(data(r)))
for k in range(n):
    same(outs[k], data(k), f"all_gather[{k}]")
uneven = [torch.zeros(k + 1) for k in range(n)]
dist.all_gather(uneven, torch.full((r + 1,), float(r)))
for k in range(n):
    same(uneven[k], np.full(k + 1, float(k), np.float32), f"uneven all_gather[{k}]")
flat = torch.zeros(n * 3, 4, dtype=torch.float64)
dist.all_gather_into_tensor(flat, t(data(r)))
same(flat, np.concatenate(everyone), "all_gather_into_tensor (cat)")
stacked = torch.zeros(n, 3, 4, dtype=torch.float64)
dist.all_gather_into_tensor(stacked, t(data(r)), async_op=True).wait()
same(stacked, np.stack(everyone), "all_gather_into_tensor (stack)")

# gather and scatter, to and from every root.
for root in range(n):
    lst = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(n)] if r == root else None
    dist.gather(t(data(r)), lst, dst=root)
    if r == root:
        for k in range(n):
            same(lst[k], data(k), f"gather to {root} [{k}]")
    out = torch.zeros(3, 4, dtype=torch.float64)
    dist.scatter(out, [t(data(k) * 10) for k in range(n)] if r == root else None, src=root)
    same(out, data(r) * 10, f"scatter from {root}")

# reduce_scatter and reduce_scatter_tensor: rank i gets the reduction of everyone's i-th part.
out = torch.zeros(2, dtype=torch.float64)
dist.reduce_scatter(out, [t(np.full(2, 10.0 * r + k)) for k in range(n)])
same(out, np.full(2, sum(10.0 * k + r for k in range(n))), "reduce_scatter")
out = torch.zeros(2, dtype=torch.float64)
dist.reduce_scatter_tensor(out, t(np.arange(2 * n, dtype=np.float64) + r), op=ReduceOp.AVG)
same(out, np.mean([np.arange(2 * n, dtype=np.float64) + k for k in range(n)], 0)[2 * r:2 * r + 2],
     "reduce_scatter_tensor AVG")

# all_to_all (lists of different sizes) and all_to_all_single (even and uneven splits).
ins = [t(np.full(j + 1, 100.0 * r + j)) for j in range(n)]
outs = [torch.zeros(r + 1, dtype=torch.float64) for _ in range(n)]
dist.all_to_all(outs, ins)
for k in range(n):
    same(outs[k], np.full(r + 1, 100.0 * k + r), f"all_to_all[{k}]")
inp = t(np.arange(2 * n, dtype=np.float64) + 100 * r)
out = torch.zeros(2 * n, dtype=torch.float64)
dist.all_to_all_single(out, inp)
same(out, np.concatenate([np.arange(2 * n, dtype=np.float64)[2 * r:2 * r + 2] + 100 * k for k in range(n)]),
     "all_to_all_single")
in_splits = [j + 1 for j in range(n)]          # rank r sends j+1 rows to rank j
out_splits = [r + 1] * n                         # and receives r+1 rows from each
inp = t(np.full((sum(in_splits), 2), float(r)))
out = torch.zeros(sum(out_splits), 2, dtype=torch.float64)
dist.all_to_all_single(out, inp, out_splits, in_splits)
same(out, np.repeat(np.arange(n, dtype=np.float64), r + 1)[:, None].repeat(2, 1), "uneven all_to_all_single")

# point to point: a ring of send/recv, and isend/irecv with tags.
nxt, prv = (r + 1) % n, (r - 1) % n
got = torch.zeros(3, 4, dtype=torch.float64)
if r % 2 == 0:
    dist.send(t(data(r)), dst=nxt)
    sender = dist.recv(got, src=prv)
else:
    sender = dist.recv(got, src=prv)
    dist.send(t(data(r)), dst=nxt)
same(got, data(prv), "send/recv ring")
assert sender == prv
got = torch.zeros(5)
reqs = [dist.isend(torch.full((5,), float(r)), dst=nxt, tag=7), dist.irecv(got, src=prv, tag=7)]
for w in reqs:
    w.wait()
same(got, np.full(5, float(prv), np.float32), "isend/irecv")
if r == 0:
    got = torch.zeros(1)
    senders = sorted(dist.recv(got) for _ in range(n - 1))  # from any source
    assert senders == list(range(1, n)), senders
else:
    dist.send(torch.ones(1), dst=0)

# barrier, groups.
assert dist.barrier() is None
dist.barrier(async_op=True).wait()
evens = dist.new_group([k for k in range(n) if k % 2 == 0])
if r % 2 == 0:
    x = t(data(r))
    dist.all_reduce(x, group=evens)
    same(x, np.sum([data(k) for k in range(0, n, 2)], 0), "all_reduce on a group")
    assert dist.get_rank(evens) == r and dist.get_world_size(evens) == len(range(0, n, 2))
    assert dist.get_group_rank(evens, r) == r // 2 and dist.get_global_rank(evens, r // 2) == r
else:
    assert evens is dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(evens) == -1 and dist.get_world_size(evens) == -1
    assert dist.all_reduce(t(data(r)), group=evens) is None
if n > 1:
    tail = dist.new_group(list(range(1, n)))
    if r >= 1:
        x = t(data(r))
        dist.broadcast(x, src=n - 1, group=tail)  # src is a global rank
        same(x, data(n - 1), "broadcast on a group, global src")

# objects.
objs = [{"rank": r, "name": f"r{r}"}, None] if r == 0 else [None, None]
dist.broadcast_object_list(objs, src=0)
assert objs == [{"rank": 0, "name": "r0"}, None]
gathered = [None] * n
dist.all_gather_object(gathered, ("hello", r))
assert gathered == [("hello", k) for k in range(n)]
dest = [None] * n if r == n - 1 else None
dist.gather_object(r * r, dest, dst=n - 1)
if r == n - 1:
    assert dest == [k * k for k in range(n)]
box = [None]
dist.scatter_object_list(box, [f"for {k}" for k in range(n)] if r == 0 else None, src=0)
assert box == [f"for {r}"]

# argument errors, as PyTorch's.
for bad in (lambda: dist.all_reduce([1.0]), lambda: dist.broadcast(torch.ones(1)),
            lambda: dist.init_process_group("mpi"), lambda: dist.all_reduce(torch.ones(1), op=ReduceOp.BAND),
            lambda: dist.send(torch.ones(1), dst=r)):
    try:
        bad()
    except (TypeError, ValueError, RuntimeError) as e:
        checks += 1
        assert str(e)
    else:
        raise AssertionError("no error")
try:
    dist.init_process_group("mpi")
except ValueError as e:
    assert str(e) == "trying to initialize the default process group twice!"

dist.destroy_process_group()
assert not dist.is_initialized()
dist.init_process_group(backend="mpi", init_method="env://", world_size=n, rank=r)  # again, after destroy
x = t(data(r))
dist.all_reduce(x)
same(x, refs[ReduceOp.SUM], "all_reduce after re-init")
counts = [None] * n
dist.all_gather_object(counts, checks)
if r == 0:
    print(f"OK {n} ranks, checks per rank: {counts}", flush=True)
dist.destroy_process_group()
