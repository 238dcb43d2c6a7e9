"""``load``: fill a state dict in place from a checkpoint saved by any number of ranks.

Rank 0 reads and validates ``.metadata`` and every rank receives it. Each rank then walks its own state
dict: a plain tensor asks for the whole global tensor, a shard (``.tensor``, ``.global_shape``,
``.offsets``) for its box of it; the box is assembled from the overlapping parts of the saved chunks
(``_layout.read_region``), whatever ranks saved them, and copied into the tensor (casting to its dtype).
Other values are replaced by the saved object. A checkpoint saved by N ranks thus loads on M ranks,
or in one process with no process group as full tensors.
"""
import io

from ...autograd.grad_mode import no_grad
from ...serialization import load as _torch_load
from ...tensor import Tensor
from . import _layout
from ._coordinator import Coordinator
from ._flatten import flatten, is_shard, is_stateful
from .api import raise_failures
from .filesystem import FileSystemReader
from .state_dict_saver import _agree, _check_planner, _step


def _reader(checkpoint_id, storage_reader, who):
    if storage_reader is None:
        if checkpoint_id is None:
            raise RuntimeError("`checkpoint_id` must be specificed if storage_writer/storage_reader is None.")
        return FileSystemReader(checkpoint_id)
    if not isinstance(storage_reader, FileSystemReader):
        raise TypeError(f"{who}: storage_reader must be a FileSystemReader, not {type(storage_reader).__name__}")
    storage_reader.reset(checkpoint_id)
    return storage_reader


def _size_text(shape):
    return f"torch.Size({list(shape)})"


def _fill(leaf, item, directory):
    key, value = leaf.key, leaf.value
    if is_shard(value) or isinstance(value, Tensor):
        if item["kind"] != "tensor":
            raise ValueError(f"Invalid checkpoint metadata for {key}, expected TensorStorageMetadata but found "
                             "<class 'torch.distributed.checkpoint.metadata.BytesStorageMetadata'>")
        target = value.tensor if is_shard(value) else value
        size = tuple(int(s) for s in value.global_shape) if is_shard(value) else tuple(target.shape)
        if size != item["size"]:
            raise ValueError(f"Size mismatch between saved {_size_text(item['size'])} and current: "
                             f"{_size_text(size)} for {key}")
        offsets = tuple(int(o) for o in value.offsets) if is_shard(value) else (0,) * len(size)
        sizes = tuple(target.shape)
        if not _layout.covered(item, offsets, sizes):
            raise ValueError(f"torch.distributed.checkpoint: the checkpoint holds only part of {key} at offsets "
                             f"{list(offsets)} of size {list(sizes)} (its saved chunks do not cover it)")
        arr = _layout.read_region(directory, item, offsets, sizes)
        with no_grad():
            target.copy_(Tensor._wrap(arr))
        return
    if item["kind"] != "bytes":
        raise ValueError(f"Invalid checkpoint metadata for {key}, expected BytesStorageMetadata but found "
                         "<class 'torch.distributed.checkpoint.metadata.TensorStorageMetadata'>")
    raw = _layout.read_bytes(directory, item["file"], item["offset"], item["length"])
    leaf.replace(_torch_load(io.BytesIO(raw), weights_only=True))


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None, no_dist=False):
    """Load the checkpoint ``checkpoint_id`` into ``state_dict`` in place: its tensors (and shards) are
    overwritten with the saved values, other values replaced; values with ``load_state_dict`` (modules,
    optimizers) are loaded through their state dicts. Every key of ``state_dict`` must be in the
    checkpoint (it may hold more). Objects other than tensors load with ``weights_only=True``: classes of
    your own need ``torch.serialization.add_safe_globals``, as for ``torch.load``."""
    who = "torch.distributed.checkpoint.load"
    _check_planner(planner, who)
    reader = _reader(checkpoint_id, storage_reader, who)
    coord = Coordinator(process_group, no_dist, "load")
    directory = reader.path
    stateful = {k: v for k, v in state_dict.items() if is_stateful(v)}
    targets = {k: (v.state_dict() if k in stateful else v) for k, v in state_dict.items()}

    contents, err = _step(coord, reader._contents) if coord.rank == 0 else (None, None)
    contents, err0 = coord.bcast((contents, err))
    if err0 is not None:
        raise_failures({0: err0})

    def fill():
        items = contents["items"]
        for leaf in flatten(targets):
            item = items.get(leaf.key)
            if item is None:
                raise RuntimeError(f"Missing key in checkpoint state_dict: {leaf.key}.")
            _fill(leaf, item, directory)
        for k, v in targets.items():
            if k in stateful:
                stateful[k].load_state_dict(v)
            else:  # a top-level object replaced in the copy of the dict
                state_dict[k] = v
    _, err = _step(coord, fill)
    _agree(coord, err)
    reader.load_id = contents["save_id"]


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0, no_dist=False, planner=None):
    """The older spelling of ``load`` (deprecated in PyTorch): ``storage_reader`` is required."""
    import warnings
    warnings.warn("`load_state_dict` is deprecated and will be removed in future versions. Please use `load` instead.",
                  FutureWarning, stacklevel=2)
    if coordinator_rank != 0:
        raise ValueError("torch.distributed.checkpoint: npgrad's coordinator is rank 0")
    load(state_dict, storage_reader=storage_reader, process_group=process_group, no_dist=no_dist, planner=planner)
