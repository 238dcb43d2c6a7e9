"""``torch.distributed.checkpoint``: state dicts saved by every rank of a job, each writing its own shards,
and loaded on any number of ranks (or one process) by resharding.

``save(state_dict, checkpoint_id=dir)`` writes a directory: a data file per rank and ``.metadata``, the
table of contents rank 0 writes last and atomically, so a save killed part way leaves the previous
checkpoint loadable. ``load(state_dict, checkpoint_id=dir)`` fills ``state_dict`` in place; each rank
reads only the bytes of the saved chunks that overlap the tensors (or shards) it holds. A shard is any
value with ``.tensor`` (the local piece), ``.global_shape`` and ``.offsets``; plain tensors and other
objects are replicated and written once. The files are npgrad's own layout (``_layout``), not PyTorch's
``.distcp``; ``format_utils.dcp_to_torch_save`` turns a checkpoint into one ``torch.save`` file.
``state_dict`` (``get_state_dict``/``set_state_dict`` ...) gives model and optimizer state dicts keyed
by parameter names, ready for it.
"""
from .api import CheckpointException
from .filesystem import FileSystemReader, FileSystemWriter
from .metadata import BytesStorageMetadata, ChunkStorageMetadata, Metadata, TensorStorageMetadata
from .state_dict_loader import load, load_state_dict
from .state_dict_saver import save, save_state_dict

__all__ = ["save", "load", "save_state_dict", "load_state_dict", "FileSystemWriter", "FileSystemReader", "Metadata",
           "TensorStorageMetadata", "BytesStorageMetadata", "ChunkStorageMetadata", "CheckpointException"]
