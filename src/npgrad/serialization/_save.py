"""``npgrad.save``: the object as a zip of a JSON structure and one uncompressed ``.npy`` per array."""
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


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False, *, format="npgrad"):  # noqa: A002 - the name the task gives it
    """Save ``obj`` (tensors, arrays, numbers, strings, None, and lists/tuples/dicts of them) to ``f``.

    ``f`` is a path (written atomically: a temporary ``.<name>.npgrad-tmp-<pid>-<random>`` in the same
    directory replaces it when complete, and stale temporaries of earlier killed saves are removed) or a
    binary file object. Tensors saved several times in ``obj`` are stored once and load as one tensor.
    ``pickle_module``/``pickle_protocol`` are accepted for PyTorch compatibility and ignored: nothing is
    pickled.

    ``format="torch"`` writes ``torch.save``'s zip layout instead (``_torch_write``), for
    ``torch.load(f, weights_only=True)``: tensors, Parameters, numbers, strings, None, dtypes, torch.Size,
    devices and lists/tuples/sets/dicts of them. Tensors that are views of one array share one storage
    in that file; NumPy arrays are refused (PyTorch's safe loader does not read them).
    """
    if format == "torch":
        from ._torch_write import write_torch
        writer = lambda fh: write_torch(fh, obj)  # noqa: E731
        if isinstance(f, (str, bytes, os.PathLike)):
            atomic_write(f, writer)
        elif hasattr(f, "write"):
            writer(f)
        else:
            raise TypeError(f"npgrad.save: f must be a path or a writable binary file object, not {type(f).__name__}")
        return
    if format != "npgrad":
        raise ValueError(f"npgrad.save: format must be 'npgrad' or 'torch', got {format!r}")
    import json
    enc = _Encoder()
    root = enc.encode(obj)
    structure = json.dumps({"format": FORMAT, "version": VERSION, "root": root}, allow_nan=False,
                           separators=(",", ":"))
    if isinstance(f, (str, bytes, os.PathLike)):
        atomic_write(f, lambda fh: _write_archive(fh, structure, enc.arrays))
    elif hasattr(f, "write"):
        _write_archive(f, structure, enc.arrays)
    else:
        raise TypeError(f"npgrad.save: f must be a path or a writable binary file object, not {type(f).__name__}")
