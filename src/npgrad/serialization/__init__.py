"""``npgrad.save`` / ``npgrad.load`` (``torch.save`` / ``torch.load`` under ``npgrad run``).

``save`` writes PyTorch's zip format by default (``_torch_write``): the object pickled with tensors as
PyTorch's rebuild calls on storages stored beside the pickle, so any picklable object saves and a state_dict
loads in PyTorch with ``weights_only=True``. ``save(obj, f, format="npgrad")`` writes npgrad's own format:
a zip of ``npgrad/structure.json`` (the object's shape as JSON, every tensor or array a reference) and one
``npgrad/data/<n>.npy`` per array: loading it only parses JSON and reads raw numbers, so nothing can run.

``load`` recognises the file by its contents: npgrad's format (``_load``, ``_schema``, ``_npy``,
``_decode``), PyTorch's zip format (``_torch_format``) or its legacy pre-1.6 format (``_torch_legacy``).
For PyTorch's formats it keeps PyTorch's contract: ``weights_only=True`` by default, a restricted
unpickler whose allow list is ``_torch_globals`` (npgrad's own stand-ins for PyTorch's rebuild functions,
storages, dtypes, Size, device) plus what ``add_safe_globals`` / ``safe_globals`` allow
(``_safe_globals``), refusing anything else with PyTorch's message; ``weights_only=False`` unpickles
(executing whatever the file names: trusted files only).

A file someone else made is validated before anything it declares is believed, whatever the format and
``weights_only``: zip members against the archive with a compression-ratio cap and an absolute cap
(``_zipcheck``; ``load(..., max_ratio=100, max_bytes=2**34)``), storages against the bytes present, tensor
views inside their storage, shapes against what an array can hold, the pickle read by the pure-Python
unpickler (its memo is a dict); so a crafted file is refused with a ``CheckpointError`` while using memory
bounded by its size. Writing goes to a temporary file in the target's directory that replaces the target
only once complete (``_atomic``), so an interrupted save leaves the previous checkpoint intact.

``save_safetensors`` / ``load_safetensors`` exchange flat ``{name: tensor}`` dicts (state_dicts) with
PyTorch and other frameworks through the safetensors format (writing needs the optional package).
"""
from ._errors import CheckpointError, WeightsOnlyError
from ._load import get_unsafe_globals_in_checkpoint, load
from ._safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._safetensors import load_safetensors, save_safetensors
from ._save import save
from ._schema import MAX_STRUCTURE_BYTES
from ._zipcheck import MAX_BYTES, MAX_RATIO

DEFAULT_PROTOCOL = 2  # the pickle protocol torch.save writes

__all__ = ["save", "load", "save_safetensors", "load_safetensors", "add_safe_globals", "get_safe_globals",
           "clear_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint"]
