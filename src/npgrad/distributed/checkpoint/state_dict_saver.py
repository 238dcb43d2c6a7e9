"""``save``: every rank writes its part of a state dict, then rank 0 writes the table of contents.

1. Rank 0 prepares the directory and draws the save id (``_layout``), and every rank learns it.
2. Rank 0 gathers what each rank holds and decides who writes what: every rank its own shards (pieces of
   global tensors), and each replicated tensor or other object once, by the lowest rank holding it. It
   checks that the ranks agree on each key's kind, dtype and global size and that shards do not overlap.
3. Every rank writes (and fsyncs) its data file, then reports where each item went.
4. Rank 0 writes ``.metadata`` atomically, then deletes the data files it no longer names.
A failure on any rank is reported on every rank as a ``CheckpointException``; a rank that dies ends the
MPI job before step 4, so the previous checkpoint stays the one ``.metadata`` names.
"""
import io
import json
import os
import secrets

import numpy as np

from ...serialization import save as _torch_save
from ...serialization._atomic import atomic_write
from ...tensor import Tensor
from . import _layout
from ._coordinator import Coordinator
from ._flatten import flatten, is_shard, is_stateful
from .api import captured, raise_failures
from .filesystem import FileSystemWriter, to_metadata


def _writer(checkpoint_id, storage_writer, who):
    if storage_writer is None:
        if checkpoint_id is None:
            raise RuntimeError("`checkpoint_id` must be specificed if storage_writer/storage_reader is None.")
        return FileSystemWriter(checkpoint_id)
    if not isinstance(storage_writer, FileSystemWriter):
        raise TypeError(f"{who}: storage_writer must be a FileSystemWriter, not {type(storage_writer).__name__}")
    storage_writer.reset(checkpoint_id)
    return storage_writer


def _check_planner(planner, who):
    if planner is not None:
        raise TypeError(f"{who}: npgrad's checkpoints have no custom planners (planner must be None)")


def _plan_of(leaf):
    v = leaf.value
    if is_shard(v):
        t = v.tensor
        offsets, size = tuple(int(o) for o in v.offsets), tuple(int(s) for s in v.global_shape)
        if len(offsets) != t.dim() or len(size) != t.dim() or \
                any(o < 0 or o + s > n for o, s, n in zip(offsets, t.shape, size)):
            raise ValueError(f"torch.distributed.checkpoint: the shard of {leaf.key!r} at offsets {list(offsets)} "
                             f"with shape {list(t.shape)} does not lie inside its global shape {list(size)}")
        return ("shard", leaf.path, t.dtype.name, size, offsets, tuple(t.shape))
    if isinstance(v, Tensor):  # a plain tensor: replicated
        return ("tensor", leaf.path, v.dtype.name, tuple(v.shape), (0,) * v.dim(), tuple(v.shape))
    return ("bytes", leaf.path)


def _assign(plans):
    """Rank 0: {rank: [keys it writes]}, checking the ranks' plans agree."""
    first, writes = {}, {r: [] for r in range(len(plans))}
    chunks = {}
    for rank, plan in enumerate(plans):
        for key, p in plan.items():
            seen = first.get(key)
            if seen is None:
                first[key] = (rank, p)
            else:
                q = seen[1]
                if p[0] != q[0] or (p[0] != "bytes" and p[2:4] != q[2:4]):
                    what = lambda x: x[0] if x[0] == "bytes" else f"a {x[0]} of {x[2]} {list(x[3])}"  # noqa: E731
                    raise ValueError(f"torch.distributed.checkpoint: ranks disagree on {key!r}: rank {seen[0]} "
                                     f"holds {what(q)}, rank {rank} {what(p)}")
            if p[0] == "shard":
                box = (p[4], p[5])
                boxes = chunks.setdefault(key, [])
                if box in boxes:  # the same piece held by several ranks (replicas): written once
                    continue
                boxes.append(box)
                writes[rank].append(key)
            elif seen is None:
                writes[rank].append(key)
    for key, boxes in chunks.items():
        clash = _layout.first_overlap(boxes)
        if clash is not None:
            raise ValueError(f"torch.distributed.checkpoint: shards of {key!r} at offsets {list(clash[0])} and "
                             f"{list(clash[1])} overlap")
    return writes


def _write_rank_file(writer, directory, rank, save_id, leaves, keys):
    """Write this rank's items; returns {key: ("tensor", offsets, sizes, file, offset, length) | ("bytes", ...)}."""
    entries, handle, name, pos = {}, None, None, 0
    try:
        for i, key in enumerate(keys):
            value = leaves[key].value
            if writer.single_file_per_rank:
                if handle is None:
                    name = _layout.data_file_name(rank, save_id)
                    handle = open(os.path.join(directory, name), "wb")
            else:
                if handle is not None:
                    _close(handle, writer.sync_files)
                name, pos = _layout.data_file_name(rank, save_id, i), 0
                handle = open(os.path.join(directory, name), "wb")
            if is_shard(value) or isinstance(value, Tensor):
                t = value.tensor if is_shard(value) else value
                data = memoryview(_layout.array_of(t).reshape(-1).view(np.uint8))
                offsets = tuple(int(o) for o in value.offsets) if is_shard(value) else (0,) * t.dim()
                entries[key] = ("tensor", offsets, tuple(t.shape), name, pos, data.nbytes)
            else:
                buf = io.BytesIO()
                _torch_save(value, buf)
                data = buf.getbuffer()
                entries[key] = ("bytes", name, pos, data.nbytes)
            handle.write(data)
            pos += data.nbytes
        if handle is not None:
            _close(handle, writer.sync_files)
            handle = None
    finally:
        if handle is not None:
            handle.close()
    return entries


def _close(handle, sync):
    handle.flush()
    if sync:
        os.fsync(handle.fileno())
    handle.close()


def _contents_json(save_id, plans, reports, directory):
    items, order, files = {}, [], {}
    for rank, plan in enumerate(plans):
        for key, p in plan.items():
            if key not in items:
                order.append(key)
                items[key] = ({"key": key, "path": list(p[1]), "kind": "bytes"} if p[0] == "bytes" else
                              {"key": key, "path": list(p[1]), "kind": "tensor", "dtype": p[2], "size": list(p[3]),
                               "chunks": []})
    for report in reports:
        for key, e in report.items():
            item = items[key]
            if e[0] == "bytes":
                item.update(file=e[1], offset=e[2], length=e[3])
                files[e[1]] = max(files.get(e[1], 0), e[2] + e[3])
            else:
                item["chunks"].append({"offsets": list(e[1]), "sizes": list(e[2]), "file": e[3], "offset": e[4],
                                       "length": e[5]})
                files[e[3]] = max(files.get(e[3], 0), e[4] + e[5])
    for name in files:  # a rank whose only items are empty still wrote its (empty) file
        files[name] = os.path.getsize(os.path.join(directory, name))
    return {"format": _layout.FORMAT, "version": _layout.VERSION, "save_id": save_id, "world_size": len(plans),
            "files": files, "items": [items[k] for k in order]}


def _remove_unnamed(directory, keep):
    for n in os.listdir(directory):
        if _layout.DATA_FILE.match(n) and n not in keep:
            try:
                os.unlink(os.path.join(directory, n))
            except OSError:
                pass


def _step(coord, fn):
    """Run ``fn`` on this rank; returns (result, None) or (None, captured error)."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - every rank's failure is reported on every rank
        return None, captured(e)


def _agree(coord, err):
    """Every rank learns which ranks failed a step; raises on all of them if any did."""
    failures = {r: e for r, e in enumerate(coord.allgather(err)) if e is not None}
    if failures:
        raise_failures(failures)


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None, no_dist=False,
         use_collectives=True):
    """Save ``state_dict`` (nested dicts and lists of tensors, shards and other objects; values with
    ``state_dict()``/``load_state_dict()`` such as modules and optimizers are saved as their state dicts)
    into the checkpoint directory ``checkpoint_id``, every rank of ``process_group`` taking part. Returns
    the checkpoint's ``Metadata``."""
    who = "torch.distributed.checkpoint.save"
    _check_planner(planner, who)
    writer = _writer(checkpoint_id, storage_writer, who)
    coord = Coordinator(process_group, no_dist, "save")
    directory = writer.path
    state_dict = {k: (v.state_dict() if is_stateful(v) else v) for k, v in state_dict.items()}

    def prepare():
        if coord.rank == 0:
            if not writer.overwrite and os.path.exists(os.path.join(directory, _layout.METADATA)):
                raise RuntimeError("Checkpoint already exists and self.overwrite=False.")
            os.makedirs(directory, exist_ok=True)
            return secrets.token_hex(8)
        return None
    save_id, err = _step(coord, prepare)
    _agree(coord, err)
    save_id = coord.bcast(save_id)
    writer.save_id = save_id

    def plan():
        leaves = {leaf.key: leaf for leaf in flatten(state_dict)}
        return leaves, {k: _plan_of(leaf) for k, leaf in leaves.items()}
    got, err = _step(coord, plan)
    plans = coord.gather(None if err else got[1])
    assignment, rank0_err = None, None
    if coord.rank == 0 and all(p is not None for p in plans):
        assignment, rank0_err = _step(coord, lambda: _assign(plans))
    assignment, failures = coord.bcast((assignment, rank0_err))
    _agree(coord, err or (failures if coord.rank == 0 else None))
    leaves = got[0]

    report, err = _step(coord, lambda: _write_rank_file(writer, directory, coord.rank, save_id, leaves,
                                                         assignment[coord.rank]))
    reports = coord.gather((report, err))
    outcome = None
    if coord.rank == 0:
        failed = {r: e for r, (_, e) in enumerate(reports) if e is not None}
        if failed:
            outcome = ("failed", failed)
        else:
            def commit():
                contents = _contents_json(save_id, plans, [r for r, _ in reports], directory)
                raw = json.dumps(contents, separators=(",", ":")).encode()
                atomic_write(os.path.join(directory, _layout.METADATA), lambda fh: fh.write(raw), who=who)
                _remove_unnamed(directory, set(contents["files"]))
                return raw
            raw, e = _step(coord, commit)
            outcome = ("failed", {0: e}) if e else ("ok", raw)
    status, payload = coord.bcast(outcome)
    if status == "failed":
        raise_failures(payload)
    contents = _layout.parse_metadata(payload, os.path.join(directory, _layout.METADATA), directory)
    return to_metadata(contents, directory)


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0, no_dist=False, planner=None):
    """The older spelling of ``save`` (deprecated in PyTorch): ``storage_writer`` is required."""
    import warnings
    warnings.warn("`save_state_dict` is deprecated and will be removed in future versions.Please use `save` instead.",
                  FutureWarning, stacklevel=2)
    if coordinator_rank != 0:
        raise ValueError("torch.distributed.checkpoint: npgrad's coordinator is rank 0")
    return save(state_dict, storage_writer=storage_writer, process_group=process_group, no_dist=no_dist,
                planner=planner)
