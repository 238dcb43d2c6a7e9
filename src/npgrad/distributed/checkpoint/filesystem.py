"""``FileSystemWriter`` and ``FileSystemReader``: a checkpoint as a directory on a file system that every
rank sees (a local disk for one machine, a shared one for several). The layout is ``_layout``'s."""
import os

from . import _layout
from .metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata, MetadataIndex, StorageMeta,
                       TensorProperties, TensorStorageMetadata)


class FileSystemWriter:
    """Where ``save`` writes: ``path`` (created if missing). ``single_file_per_rank`` puts each rank's
    items in one data file (else one file per item); ``sync_files`` fsyncs them before the metadata names
    them; ``overwrite=False`` refuses a directory that already holds a checkpoint. ``thread_count``,
    ``per_thread_copy_ahead`` and ``cache_staged_state_dict`` are tuning knobs of PyTorch's writer
    threads and staging; npgrad writes from the calling thread."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000,
                 cache_staged_state_dict=False, overwrite=True, _extensions=None, serialization_format=None):
        if _extensions:
            raise ValueError("FileSystemWriter: npgrad has no stream transform extensions")
        self.path = os.fspath(path)
        self.single_file_per_rank = single_file_per_rank
        self.sync_files = sync_files
        self.thread_count = thread_count
        self.per_thread_copy_ahead = per_thread_copy_ahead
        self.cache_staged_state_dict = cache_staged_state_dict
        self.overwrite = overwrite
        self.save_id = None

    def reset(self, checkpoint_id=None):
        if checkpoint_id is not None:
            self.path = os.fspath(checkpoint_id)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return isinstance(checkpoint_id, (str, os.PathLike))


class FileSystemReader:
    """Where ``load`` reads: the checkpoint directory ``path``. ``read_metadata()`` gives its ``Metadata``
    (which keys it holds, each tensor's dtype, size and saved chunks) without reading any data."""

    def __init__(self, path, _extension_registry=None):
        self.path = os.fspath(path)
        self.load_id = None

    def reset(self, checkpoint_id=None):
        if checkpoint_id is not None:
            self.path = os.fspath(checkpoint_id)

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id):
        return isinstance(checkpoint_id, (str, os.PathLike))

    def _contents(self):
        """The validated table of contents (``_layout.parse_metadata``)."""
        where = os.path.join(self.path, _layout.METADATA)
        try:
            raw = _layout.read_metadata_file(self.path)
        except FileNotFoundError:
            raise FileNotFoundError(f"torch.distributed.checkpoint: no checkpoint at {self.path} ({where} does not "
                                    "exist: nothing was saved there, or a save into it never completed)") from None
        return _layout.parse_metadata(raw, where, self.path)

    def read_metadata(self):
        return to_metadata(self._contents(), self.path)


def to_metadata(contents, path):
    """``Metadata`` (PyTorch's classes) for a parsed table of contents."""
    from ...tensor import Size
    sd_meta, planner, storage = {}, {}, {}
    for key, item in contents["items"].items():
        planner[key] = item["path"]
        if item["kind"] == "bytes":
            sd_meta[key] = BytesStorageMetadata()
            storage[MetadataIndex(key)] = (item["file"], item["offset"], item["length"])
            continue
        chunks = []
        for i, (offsets, sizes, name, offset, length) in enumerate(item["chunks"]):
            chunks.append(ChunkStorageMetadata(offsets=Size(offsets), sizes=Size(sizes)))
            storage[MetadataIndex(key, offsets, i)] = (name, offset, length)
        sd_meta[key] = TensorStorageMetadata(TensorProperties(dtype=item["dtype"]), Size(item["size"]), chunks)
    return Metadata(state_dict_metadata=sd_meta, planner_data=planner, storage_data=storage,
                    storage_meta=StorageMeta(checkpoint_id=path, save_id=contents["save_id"]), version="1.0.0")
