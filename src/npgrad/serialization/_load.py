"""``npgrad.load``: a validator first, a reader second.

Order of work on a file: recognise it (npgrad's zip, PyTorch's zip (``_torch_format``), PyTorch's
legacy pickle format (``_torch_legacy``), or a .npy / .npz / other file to explain); check every
member of the zip before inflating any (``_zipcheck.inventory``: names, sizes against the archive, the
compression-ratio cap ``max_ratio`` and the absolute cap ``max_bytes``); read the structure JSON within
``MAX_STRUCTURE_BYTES`` and validate its schema (``_schema``); check that every array it references is
present (an array member nothing references passed the zip checks and is never read); and only then
read each array (``_npy``), whose header must account for
every byte of its member before the array is allocated. Anything wrong is a ``CheckpointError``.
"""
import io
import os

from ._decode import Decoder
from ._errors import fail
from ._format import DATA, DATA_RE, STRUCTURE
from ._npy import read_array
from ._schema import MAX_STRUCTURE_BYTES, check, parse_json
from ._zipcheck import MAX_BYTES, MAX_RATIO, MemberReader, inventory

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _describe_non_checkpoint(head, name, zf=None):
    if zf is not None:
        names = zf.namelist()
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
            fail(name, "is a zip with a data.pkl that is not laid out as torch.save writes it (<archive>/data.pkl "
                        "as the first member, storages in <archive>/data/)")
        if names and all(n.endswith(".npy") for n in names):
            fail(name, "is a NumPy .npz archive, not an npgrad checkpoint; read it with "
                        "numpy.load(path, allow_pickle=False)")
        fail(name, "is a zip archive but not an npgrad checkpoint (it has no npgrad/structure.json)")
    if not head:
        fail(name, "is empty")
    if head.startswith(b"\x93NUMPY"):
        fail(name, "is a NumPy .npy file, not an npgrad checkpoint; read it with numpy.load(path, "
                    "allow_pickle=False)")
    if head.startswith(b"PK") or b"PK\x03\x04".startswith(head):
        fail(name, "is truncated or corrupted (an incomplete zip archive)")
    fail(name, "is not an npgrad checkpoint (it is not a zip archive)")


def _check_map_location(map_location):
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return  # nothing to move: every tensor lives on the CPU
    name = str(map_location)
    if not (name == "cpu" or name.startswith("cpu:")):
        raise RuntimeError(f"npgrad.load: map_location={map_location!r}: npgrad runs on the CPU only")


def _check_limit(value, keyword):
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"npgrad.load: {keyword} must be a positive number or None, got {value!r}")


def _weights_only_default(weights_only, pickle_module):
    """PyTorch's rule: True unless a pickle_module is given or the environment says otherwise."""
    if os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0") not in ("0", ""):
        return True
    if weights_only is not None:
        return bool(weights_only)
    if os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") not in ("0", ""):
        import warnings
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=3)
        return False
    return pickle_module is None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, max_bytes=MAX_BYTES,
         max_ratio=MAX_RATIO, **pickle_load_args):
    """Load an object saved by ``npgrad.save`` or ``torch.save`` from a path or binary file object.

    The file's kind is recognised by its contents: PyTorch's zip format (what ``npgrad.save`` and
    ``torch.save`` write), PyTorch's legacy format (``_use_new_zipfile_serialization=False``), or
    npgrad's own format (``save(..., format="npgrad")``), which holds no pickle and never runs anything.

    ``weights_only`` (the default, as PyTorch since 2.6; it turns False when a ``pickle_module`` is given,
    or when the environment sets ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD``): the pickle is read by a
    restricted unpickler that builds only what ``torch.load(..., weights_only=True)`` allows: tensors,
    Parameters, storages, dtypes, ``torch.Size``, devices, numbers, strings, bytes, lists, tuples, sets,
    dicts, ``OrderedDict``/``Counter``, plus the globals ``npgrad.serialization.add_safe_globals`` (or the
    ``safe_globals`` context manager) allows. Any other global is refused with PyTorch's message, as a
    ``WeightsOnlyError`` (a ``pickle.UnpicklingError`` and a ``CheckpointError``); nothing from the file
    runs.

    ``weights_only=False`` unpickles as PyTorch does: **the file can execute arbitrary code** (it names
    the classes and functions to import and call), so use it only for files from a source you trust.
    It restores whole modules, optimizers, dataclasses; PyTorch's tensor, storage and dtype globals are
    read as npgrad's and other ``torch.*`` names as npgrad's namesakes.

    A missing file raises FileNotFoundError; anything else wrong with the file (not a checkpoint,
    truncated, corrupted, over a limit, lying about its sizes) raises ``CheckpointError`` (a
    RuntimeError) naming the file and the problem, on every path and whatever ``weights_only`` says.
    ``map_location`` may be None, ``'cpu'``, a device, a dict or a callable; tensors always load on the
    CPU. ``mmap`` is accepted for PyTorch compatibility; storages are read into memory.

    Limits (npgrad's keywords, not PyTorch's), for files from elsewhere:

    * ``max_ratio`` (default 100): a compressed (deflated) member may inflate to at most this many times
      its compressed size, which refuses zip bombs. ``npgrad.save`` stores members uncompressed (ratio 1).
    * ``max_bytes`` (default 2**34, 16 GiB): all members together may hold at most this many bytes.

    Pass ``None`` to lift either for a file you trust. With both in force, memory use is bounded by the
    file's size: every size a file declares (zip members, storages, shapes) is checked against the bytes
    present before anything is allocated, and the pickle is read by Python's unpickler, whose memo
    grows only with what the file holds.
    """
    weights_only = _weights_only_default(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    _check_map_location(map_location)
    _check_limit(max_bytes, "max_bytes")
    _check_limit(max_ratio, "max_ratio")
    limits = {"max_bytes": max_bytes, "max_ratio": max_ratio}
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(f)
        with open(path, "rb") as fh:
            return _load_from(fh, repr(path), limits, weights_only)
    if not hasattr(f, "read"):
        raise TypeError(f"npgrad.load: f must be a path or a readable binary file object, not {type(f).__name__}")
    if not (hasattr(f, "seek") and hasattr(f, "tell")) or (hasattr(f, "seekable") and not f.seekable()):
        f = io.BytesIO(f.read())
    return _load_from(f, getattr(f, "name", None) and repr(f.name) or f"<{type(f).__name__}>", limits, weights_only)


def get_unsafe_globals_in_checkpoint(f):
    """The globals a ``torch.save`` file names that ``load(..., weights_only=True)`` would refuse (those
    neither on its allow list nor added with ``add_safe_globals``), read from the pickle's opcodes without
    running anything: what to review before allowing them."""
    import zipfile
    from ._torch_format import torch_prefix, unsafe_globals
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(os.fsdecode(f), "rb") as fh:
            return get_unsafe_globals_in_checkpoint(fh)
    if not (hasattr(f, "seek") and hasattr(f, "tell")):
        f = io.BytesIO(f.read())
    name = getattr(f, "name", None) and repr(f.name) or f"<{type(f).__name__}>"
    try:
        zf = zipfile.ZipFile(f)
        prefix = torch_prefix(zf)
    except zipfile.BadZipFile:
        prefix = None
    if prefix is None:
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    with zf:
        return unsafe_globals(zf, f, name, prefix, {"max_bytes": MAX_BYTES, "max_ratio": MAX_RATIO})


def _known(entry):
    return entry == STRUCTURE or DATA_RE.match(entry) is not None


def _load_from(fh, name, limits, weights_only=True):
    import zipfile
    start = fh.tell()
    head = fh.read(8)
    fh.seek(start)
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        from ._torch_legacy import load_legacy  # a pickle: PyTorch's format before 1.6, or not a checkpoint
        return load_legacy(fh, name, weights_only)
    if not head.startswith(_ZIP_MAGIC):
        _describe_non_checkpoint(head, name)
    try:
        zf = zipfile.ZipFile(fh)
    except Exception as e:  # zipfile's own parser meeting hostile bytes: whatever it raises, the file is bad
        fail(name, f"is truncated or corrupted ({type(e).__name__}: {e})")
    with zf:
        if STRUCTURE not in zf.NameToInfo:
            from ._torch_format import load_torch, torch_prefix
            prefix = torch_prefix(zf)
            if prefix is not None:
                return load_torch(zf, fh, name, prefix, limits, weights_only)
            _describe_non_checkpoint(head, name, zf)
        members = inventory(zf, fh, name, _known, **limits)
    structure = members.pop(STRUCTURE)
    if structure.size > MAX_STRUCTURE_BYTES:
        fail(name, f"is refused: its structure entry declares {structure.size} bytes, more than the "
                   f"{MAX_STRUCTURE_BYTES} a checkpoint description may take")
    reader = MemberReader(fh, structure, name)
    raw = reader.read(structure.size)
    reader.finish()
    meta = parse_json(raw, lambda e: fail(name, f"is corrupted: its structure is not valid JSON "
                                                f"({type(e).__name__}: {e})"))
    del raw
    refs = check(meta, name)
    for idx in sorted(refs):
        if DATA.format(idx) not in members:
            fail(name, f"is corrupted: the array entry {DATA.format(idx)} is missing")

    def read(idx):
        member = members[DATA.format(idx)]
        return read_array(MemberReader(fh, member, name), member.size, member.entry, name)

    try:
        return Decoder(read, name).decode(meta["root"])
    except RecursionError:
        fail(name, "is corrupted: its structure is nested too deeply")
