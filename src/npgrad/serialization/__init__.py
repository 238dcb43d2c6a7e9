"""``npgrad.save`` / ``npgrad.load``: checkpoints that can never execute code when loaded.

A checkpoint is a zip archive holding
  * ``npgrad/structure.json``: the saved object's shape as JSON (dicts, lists, tuples, numbers,
    strings, None) where every tensor or array is a reference to an entry, and
  * ``npgrad/data/<n>.npy``: one NumPy ``.npy`` file per tensor or array (stored uncompressed).

Loading only parses JSON and reads raw numbers: there is no pickle anywhere. And a file someone else
made is validated before anything it declares is believed (``_load``): member sizes against the archive,
a compression-ratio cap and an absolute cap (``load(..., max_ratio=100, max_bytes=2**34)``), the JSON's
size and schema, every ``.npy`` header against the bytes present, so a crafted file is refused with a
``CheckpointError`` while using memory bounded by its size. Writing goes to a temporary file in the
target's directory that replaces the target only once complete (``_atomic``), so an interrupted save
leaves the previous checkpoint intact.

``load`` also reads ``torch.save``'s zip format (``_torch_format``: a restricted unpickler whose allow
list is ``_torch_globals``, the globals ``torch.load(..., weights_only=True)`` accepts for tensors and
containers, so nothing from the file runs), and ``save(obj, f, format="torch")`` writes it
(``_torch_write``) for ``torch.load(f, weights_only=True)``.

``save_safetensors`` / ``load_safetensors`` exchange flat ``{name: tensor}`` dicts (state_dicts) with
PyTorch and other frameworks through the safetensors format (writing needs the optional package).

Modules: ``_encode``/``_save`` write; ``_zipcheck`` (zip members), ``_schema`` (structure JSON), ``_npy``
(arrays), ``_decode`` and ``_load`` read; ``_torch_format``/``_torch_globals``/``_torch_write``; ``_safetensors``; ``_atomic``; ``_errors``; ``_format``.
"""
from ._errors import CheckpointError, WeightsOnlyError
from ._load import load
from ._safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._safetensors import load_safetensors, save_safetensors
from ._save import save
from ._schema import MAX_STRUCTURE_BYTES
from ._zipcheck import MAX_BYTES, MAX_RATIO

DEFAULT_PROTOCOL = 2  # the pickle protocol torch.save writes

__all__ = ["save", "load", "save_safetensors", "load_safetensors", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals"]
