"""Tensor collectives and point-to-point messages, on MPI's buffer interface.

Every call hands NumPy arrays straight to mpi4py's upper-case (buffer) methods, so tensors are never
pickled. Results land in the tensors the caller passed, as in PyTorch: in their own arrays when those are
contiguous and writable, else through a contiguous copy written back when the operation completes.
Each collective is started non-blocking; ``async_op=True`` returns its Work, otherwise it is waited on.
"""
import numpy as np

from ..tensor import Tensor
from ._group import ReduceOp, _group_peer, _mpi, _resolve
from ._work import Work


def _check(t, name):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor but got "
                        f"{type(t)} instead.")


def _check_list(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor] "
                        f"but got {type(ts)} instead.")


def _readable(t):
    return np.ascontiguousarray(t._data)


def _writable(t):
    """(contiguous array MPI writes into, function that puts it into ``t`` afterwards)."""
    a = t._data
    if a.flags.c_contiguous and a.flags.writeable:
        return a, lambda: _bump(t)
    b = np.ascontiguousarray(a).copy()

    def back():
        if a.flags.writeable:
            np.copyto(a, b.reshape(a.shape))
        else:
            t._data = b.reshape(a.shape)
        _bump(t)
    return b, back


def _bump(t):
    t._version_counter()[0] += 1


def _into(t, src):
    """Copy the array ``src`` into tensor ``t`` in place."""
    a = t._data
    if a.flags.writeable:
        np.copyto(a, src.reshape(a.shape), casting="unsafe")
    else:
        t._data = src.reshape(a.shape).astype(a.dtype, copy=True)
    _bump(t)


def _same_dtype(*groups):
    dtypes = {t._data.dtype for g in groups for t in (g if isinstance(g, (list, tuple)) else [g])}
    if len(dtypes) > 1:
        raise ValueError("Invalid usage of tensors with different dtypes"
                         f"Found {sorted(str(d) for d in dtypes)}")


_BOOL_OPS = {ReduceOp.SUM: "LOR", ReduceOp.MAX: "LOR", ReduceOp.BOR: "LOR", ReduceOp.PRODUCT: "LAND",
             ReduceOp.MIN: "LAND", ReduceOp.BAND: "LAND", ReduceOp.BXOR: "LXOR", ReduceOp.AVG: "LOR"}
_OPS = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD", ReduceOp.MIN: "MIN",
        ReduceOp.MAX: "MAX", ReduceOp.BAND: "BAND", ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR"}


def _mpi_op(MPI, op, dtype):
    try:
        op = ReduceOp(op)
    except ValueError:
        raise ValueError(f"Unsupported ReduceOp: {op}") from None
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "iub":
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with {dtype} tensors")
    return getattr(MPI, (_BOOL_OPS if dtype.kind == "b" else _OPS)[op])


def _average(buf, n, op):
    if op == ReduceOp.AVG and buf.dtype.kind != "b":
        if buf.dtype.kind in "iu":
            np.floor_divide(buf, n, out=buf)
        else:
            np.divide(buf, n, out=buf)


def _done(requests, finish, async_op, result=()):
    work = Work(requests, finish, result)
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across the group; every rank gets the result in ``tensor``."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    MPI = _mpi()
    buf, back = _writable(tensor)
    req = pg._comm.Iallreduce(MPI.IN_PLACE, buf, op=_mpi_op(MPI, op, buf.dtype))

    def finish():
        _average(buf, pg.size(), op)
        back()
    return _done([req], finish, async_op, [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy ``tensor`` of rank ``src`` into ``tensor`` on every rank of the group."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    root = _group_peer(pg, src, group_src)
    buf, back = _writable(tensor)
    req = pg._comm.Ibcast(buf, root=root)
    return _done([req], back, async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` across the group into ``tensor`` on rank ``dst`` (the others' are left as they are)."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    MPI = _mpi()
    root = _group_peer(pg, dst, group_dst)
    mop = _mpi_op(MPI, op, tensor._data.dtype)
    if pg.rank() == root:
        buf, back = _writable(tensor)
        req = pg._comm.Ireduce(MPI.IN_PLACE, buf, op=mop, root=root)

        def finish():
            _average(buf, pg.size(), op)
            back()
        return _done([req], finish, async_op, [tensor])
    req = pg._comm.Ireduce(_readable(tensor), None, op=mop, root=root)
    return _done([req], None, async_op, [tensor])


def _layout(tensors):
    counts = [int(t._data.size) for t in tensors]
    displs = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist() if counts else []
    return counts, displs


def _scatter_into(big, counts, displs, tensors):
    for t, c, d in zip(tensors, counts, displs):
        _into(t, big[d:d + c])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[i]`` receives rank i's ``tensor``."""
    _check_list(tensor_list, "tensor_list")
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    _same_dtype(tensor_list, tensor)
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {pg.size()}")
    counts, displs = _layout(tensor_list)
    big = np.empty(sum(counts), tensor._data.dtype)
    req = pg._comm.Iallgatherv(_readable(tensor), [big, (counts, displs)])
    return _done([req], lambda: _scatter_into(big, counts, displs, tensor_list), async_op, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Rank i's ``input_tensor`` becomes the i-th slice (along dim 0) of ``output_tensor``."""
    _check(output_tensor, "output_tensor")
    _check(input_tensor, "input_tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    _same_dtype(output_tensor, input_tensor)
    if output_tensor._data.size != input_tensor._data.size * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    buf, back = _writable(output_tensor)
    req = pg._comm.Iallgather(_readable(input_tensor), buf)
    return _done([req], back, async_op, [output_tensor])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Rank ``dst`` (default 0) receives every rank's ``tensor`` in ``gather_list``."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    root = _group_peer(pg, dst, group_dst, default=pg._ranks[0])
    if pg.rank() != root:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        req = pg._comm.Igatherv(_readable(tensor), None, root=root)
        return _done([req], None, async_op)
    if gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    _check_list(gather_list, "gather_list")
    _same_dtype(gather_list, tensor)
    if len(gather_list) != pg.size():
        raise ValueError(f"gather: gather_list has {len(gather_list)} tensors for a group of {pg.size()}")
    counts, displs = _layout(gather_list)
    big = np.empty(sum(counts), tensor._data.dtype)
    req = pg._comm.Igatherv(_readable(tensor), [big, (counts, displs)], root=root)
    return _done([req], lambda: _scatter_into(big, counts, displs, gather_list), async_op, gather_list)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank ``src`` (default 0) sends ``scatter_list[i]`` to rank i, which receives it in ``tensor``."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    root = _group_peer(pg, src, group_src, default=pg._ranks[0])
    buf, back = _writable(tensor)
    if pg.rank() != root:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        req = pg._comm.Iscatterv(None, buf, root=root)
        return _done([req], back, async_op, [tensor])
    if scatter_list is None:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    _check_list(scatter_list, "scatter_list")
    _same_dtype(scatter_list, tensor)
    if len(scatter_list) != pg.size():
        raise ValueError(f"scatter: scatter_list has {len(scatter_list)} tensors for a group of {pg.size()}")
    counts, displs = _layout(scatter_list)
    big = np.concatenate([t._data.ravel() for t in scatter_list]) if counts else np.empty(0, buf.dtype)
    req = pg._comm.Iscatterv([big, (counts, displs)], buf, root=root)
    return _done([req], back, async_op, [tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list`` across ranks; rank i receives the reduction of every rank's ``input_list[i]``."""
    _check(output, "output")
    _check_list(input_list, "input_list")
    pg = _resolve(group)
    if pg is None:
        return None
    _same_dtype(input_list, output)
    if len(input_list) != pg.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors for a group of {pg.size()}")
    MPI = _mpi()
    counts, _ = _layout(input_list)
    if counts[pg.rank()] != output._data.size:
        raise ValueError("reduce_scatter: output must have the size of this rank's input_list entry")
    send = np.concatenate([t._data.ravel() for t in input_list])
    buf, back = _writable(output)
    req = pg._comm.Ireduce_scatter(send, buf, counts, op=_mpi_op(MPI, op, buf.dtype))

    def finish():
        _average(buf, pg.size(), op)
        back()
    return _done([req], finish, async_op, [output])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` across ranks; rank i receives the i-th slice (along dim 0) of the result."""
    _check(output, "output")
    _check(input, "input")
    pg = _resolve(group)
    if pg is None:
        return None
    _same_dtype(output, input)
    if input._data.size != output._data.size * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    MPI = _mpi()
    buf, back = _writable(output)
    req = pg._comm.Ireduce_scatter_block(_readable(input), buf, op=_mpi_op(MPI, op, buf.dtype))

    def finish():
        _average(buf, pg.size(), op)
        back()
    return _done([req], finish, async_op, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank i sends ``input_tensor_list[j]`` to rank j, which receives it in ``output_tensor_list[i]``."""
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    pg = _resolve(group)
    if pg is None:
        return None
    _same_dtype(output_tensor_list, input_tensor_list)
    n = pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists must hold {n} tensors (one per rank)")
    scounts, sdispls = _layout(input_tensor_list)
    rcounts, rdispls = _layout(output_tensor_list)
    send = np.concatenate([t._data.ravel() for t in input_tensor_list])
    big = np.empty(sum(rcounts), send.dtype)
    req = pg._comm.Ialltoallv([send, (scounts, sdispls)], [big, (rcounts, rdispls)])
    return _done([req], lambda: _scatter_into(big, rcounts, rdispls, output_tensor_list), async_op,
                 output_tensor_list)


def _splits(sizes, rows, n, what):
    if sizes is None or len(sizes) == 0:
        if rows % n:
            raise ValueError(f"all_to_all_single: {what} has {rows} rows, not divisible by the group size {n}")
        return [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or sum(sizes) != rows:
        raise ValueError(f"all_to_all_single: {what}_split_sizes {sizes} must have {n} entries summing to {rows}")
    return sizes


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Split ``input`` along dim 0 (by ``input_split_sizes``) and send part j to rank j; the parts
    received are concatenated, in rank order, into ``output``."""
    _check(output, "output")
    _check(input, "input")
    pg = _resolve(group)
    if pg is None:
        return None
    _same_dtype(output, input)
    n = pg.size()
    row_in = int(np.prod(input._data.shape[1:])) if input._data.ndim else 1
    row_out = int(np.prod(output._data.shape[1:])) if output._data.ndim else 1
    rows_in = input._data.shape[0] if input._data.ndim else 1
    rows_out = output._data.shape[0] if output._data.ndim else 1
    scounts = [s * row_in for s in _splits(input_split_sizes, rows_in, n, "input")]
    rcounts = [s * row_out for s in _splits(output_split_sizes, rows_out, n, "output")]
    sdispls = np.concatenate([[0], np.cumsum(scounts)[:-1]]).astype(np.int64).tolist()
    rdispls = np.concatenate([[0], np.cumsum(rcounts)[:-1]]).astype(np.int64).tolist()
    buf, back = _writable(output)
    req = pg._comm.Ialltoallv([_readable(input), (scounts, sdispls)], [buf, (rcounts, rdispls)])
    return _done([req], back, async_op, [output])


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Wait until every rank of the group has reached this barrier."""
    pg = _resolve(group)
    if pg is None:
        return None
    return _done([pg._comm.Ibarrier()], None, async_op)


def _peer(pg, peer, group_peer):
    p = _group_peer(pg, peer, group_peer)
    if p == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    return p


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; returns a Work to wait on."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    data = _readable(tensor)
    req = pg._comm.Isend(data, dest=_peer(pg, dst, group_dst), tag=tag)
    return Work([req], None, [tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); returns a Work."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    MPI = _mpi()
    source = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src)
    buf, back = _writable(tensor)
    req = pg._comm.Irecv(buf, source=source, tag=tag)
    return Work([req], back, [tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst``, blocking until it can be reused."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    _check(tensor, "tensor")
    pg = _resolve(group)
    if pg is None:
        return -1
    MPI = _mpi()
    source = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src)
    buf, back = _writable(tensor)
    status = MPI.Status()
    pg._comm.Recv(buf, source=source, tag=tag, status=status)
    back()
    return pg._ranks[status.Get_source()]
