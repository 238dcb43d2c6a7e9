"""``npgrad.save``: PyTorch's zip format (``_torch_write``), or npgrad's own: a zip of a JSON structure and
one uncompressed ``.npy`` per array."""
import os

import numpy as np

from ._atomic import atomic_write
from ._encode import _Encoder
from ._format import FORMAT, STRUCTURE, VERSION


def _write_archive(fh, structure, arrays):
    import zipfile  # zipfile and json load on first use: `import npgrad` stays quick
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        # a fixed timestamp (as the array entries get): the same object always saves to the same bytes
        zf.writestr(zipfile.ZipInfo(STRUCTURE, date_time=(1980, 1, 1, 0, 0, 0)), structure)
        for name, arr in arrays:
            with zf.open(name, "w", force_zip64=arr.nbytes > 0x7FFF0000) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)


def _write(f, writer):
    if isinstance(f, (str, bytes, os.PathLike)):
        atomic_write(f, writer)
    elif hasattr(f, "write"):
        writer(f)
    else:
        raise TypeError(f"npgrad.save: f must be a path or a writable binary file object, not {type(f).__name__}")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False, *, format="torch"):  # noqa: A002 - the name the task gives it
    """Save ``obj`` to ``f`` as ``torch.save`` does: any picklable object, in PyTorch's zip format.

    ``f`` is a path (written atomically: a temporary ``.<name>.npgrad-tmp-<pid>-<random>`` in the same
    directory replaces it when complete, and stale temporaries of earlier killed saves are removed) or a
    binary file object.

    ``format="torch"`` (the default) pickles ``obj`` (``_torch_write``): tensors as PyTorch's
    ``_rebuild_tensor_v2`` on storages (tensors that are views of one array share one storage, in the
    file and after loading), Parameters with ``requires_grad``, ``Size``/``device``/dtypes as PyTorch's,
    and everything else (dicts, dataclasses, whole modules, optimizers) as Python pickles it. PyTorch's
    ``torch.load(f, weights_only=True)`` reads a file of tensors, numbers, strings and containers (a
    state_dict); objects of other classes need ``weights_only=False`` there, and a whole npgrad module
    pickles as npgrad's classes, which PyTorch cannot import. ``pickle_protocol`` is the pickle protocol
    (2, as PyTorch); ``pickle_module`` is accepted for PyTorch compatibility and npgrad's pickler is used.
    ``_use_new_zipfile_serialization=False`` writes PyTorch's legacy (pre-1.6, non-zip) format, and
    ``_disable_byteorder_record=True`` leaves out the zip's byteorder record, as in PyTorch.

    ``format="npgrad"`` writes npgrad's own safe format instead: a zip of a JSON structure and one
    ``.npy`` per array, which loading only parses (there is no pickle, so nothing can run). It stores
    tensors, NumPy arrays, numbers, strings, None, dtypes and lists/tuples/sets/dicts of them; tensors
    saved several times in ``obj`` are stored once and load as one tensor.
    """
    if format == "torch":
        from ._torch_write import write_torch
        if not _use_new_zipfile_serialization:
            from ._torch_write import write_legacy
            _write(f, lambda fh: write_legacy(fh, obj, pickle_protocol))
            return
        _write(f, lambda fh: write_torch(fh, obj, pickle_protocol, not _disable_byteorder_record))
        return
    if format != "npgrad":
        raise ValueError(f"npgrad.save: format must be 'torch' or 'npgrad', got {format!r}")
    import json
    enc = _Encoder()
    root = enc.encode(obj)
    structure = json.dumps({"format": FORMAT, "version": VERSION, "root": root}, allow_nan=False,
                           separators=(",", ":"))
    _write(f, lambda fh: _write_archive(fh, structure, enc.arrays))
