"""Converting between a distributed checkpoint directory and one ``torch.save`` file."""
import os

from ...serialization import load as _torch_load
from ...serialization import save as _torch_save
from ...tensor import Tensor
from . import _layout
from ._flatten import unflatten
from .filesystem import FileSystemReader
from .state_dict_saver import save


def dcp_to_torch_save(dcp_checkpoint_dir, torch_save_path):
    """Write the whole state dict of the checkpoint ``dcp_checkpoint_dir`` (every tensor assembled from
    all its saved chunks, nested as it was saved) to ``torch_save_path`` with ``torch.save``'s format."""
    reader = FileSystemReader(dcp_checkpoint_dir)
    contents = reader._contents()
    pairs = []
    for key, item in contents["items"].items():
        if item["kind"] == "bytes":
            import io
            raw = _layout.read_bytes(reader.path, item["file"], item["offset"], item["length"])
            pairs.append((item["path"], _torch_load(io.BytesIO(raw), weights_only=True)))
            continue
        size = item["size"]
        if not _layout.covered(item, (0,) * len(size), size):
            raise ValueError(f"dcp_to_torch_save: the checkpoint holds only part of {key} (its saved chunks do not "
                             f"cover its size {list(size)})")
        pairs.append((item["path"], Tensor._wrap(_layout.read_region(reader.path, item, (0,) * len(size), size))))
    _torch_save(unflatten(pairs), os.fspath(torch_save_path))


def torch_save_to_dcp(torch_save_path, dcp_checkpoint_dir):
    """Save the state dict in the ``torch.save`` file ``torch_save_path`` (loaded with
    ``weights_only=False``: trusted files only, as in PyTorch) as a checkpoint directory, from this process."""
    state_dict = _torch_load(os.fspath(torch_save_path), weights_only=False)
    save(state_dict, checkpoint_id=dcp_checkpoint_dir, no_dist=True)
