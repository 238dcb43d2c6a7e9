"""Sharded state-dict values (``LocalShard``): this rank's dim-0 chunk of a parameter, and the full
tensor back from every rank's pieces, whatever their layout (a checkpoint written on another world size)."""
import numpy as np

from ...tensor import Tensor
from .._sharded import LocalShard
from ._units import chunk_rows


def chunk_of(full, rank, world):
    """This rank's torch.chunk piece of the array ``full`` along dim 0, as a LocalShard (a copy). A 0-d
    tensor cannot be split: every rank holds it whole."""
    if full.ndim == 0:
        return LocalShard(Tensor._wrap(full.copy()), (), ())
    _, bounds = chunk_rows(full.shape[0], world)
    a, b = bounds[rank]
    return LocalShard(Tensor._wrap(full[a:b].copy()), full.shape, (a,) + (0,) * (full.ndim - 1))


def is_shard(value):
    return all(hasattr(value, k) for k in ("tensor", "global_shape", "offsets"))


def assemble(comm, value, shape, dtype, key):
    """The full array of shape ``shape`` from each rank's ``value`` (a shard-like record, or a full
    Tensor). A collective: every rank calls it for the same keys in the same order."""
    if isinstance(value, Tensor):
        if tuple(value.shape) != tuple(shape):
            raise RuntimeError(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                               f"checkpoint, the shape in current model is {list(shape)}.")
        mine = ("full", (), ())
        piece = np.ascontiguousarray(value._data, dtype).reshape(-1)
    elif is_shard(value):
        if tuple(value.global_shape) != tuple(shape):
            raise RuntimeError(f"size mismatch for {key}: copying a param with shape {list(value.global_shape)} "
                               f"from checkpoint, the shape in current model is {list(shape)}.")
        data = value.tensor._data if isinstance(value.tensor, Tensor) else np.asarray(value.tensor)
        mine = ("piece", tuple(value.offsets), tuple(data.shape))
        piece = np.ascontiguousarray(data, dtype).reshape(-1)
    else:
        raise RuntimeError(f'While copying the parameter named "{key}", expected torch.Tensor or a LocalShard '
                           f"from checkpoint but received {type(value)}")
    metas = comm.allgather(mine)
    if metas[comm.Get_rank()][0] == "full" and all(m[0] == "full" for m in metas):
        return piece.reshape(shape)
    counts = [int(np.prod(m[2], dtype=np.int64)) if m[0] == "piece" else int(np.prod(shape, dtype=np.int64))
              for m in metas]
    displs = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()
    every = np.empty(sum(counts), dtype)
    comm.Allgatherv(piece, [every, (counts, displs)])
    full = np.zeros(shape, dtype)
    covered = np.zeros(shape, bool)
    for (kind, offsets, pshape), c, d in zip(metas, counts, displs):
        if kind == "full":
            full[...] = every[d:d + c].reshape(shape)
            covered[...] = True
            continue
        where = tuple(slice(o, o + s) for o, s in zip(offsets, pshape))
        full[where] = every[d:d + c].reshape(pshape)
        covered[where] = True
    if not covered.all():
        raise RuntimeError(f"the shards of {key} cover {int(covered.sum())} of its {covered.size} elements")
    return full
