"""``npgrad.load``: a validator first, a reader second.

Order of work on a file: recognise it (zip, or a pickle / .npy / PyTorch file to explain); check every
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
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        fail(name, "is a pickle file (e.g. torch.save's legacy format). npgrad.load never unpickles arbitrary "
                    "objects, because unpickling can run arbitrary code; if PyTorch wrote it, load it there and "
                    "re-save it with a recent PyTorch (torch.save's zip format, the default since 1.6), which "
                    "npgrad.load reads")
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


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, max_bytes=MAX_BYTES,
         max_ratio=MAX_RATIO, **pickle_load_args):
    """Load an object written by ``npgrad.save`` from a path or binary file object.

    Never executes code from the file, whatever ``weights_only`` says (the format has no pickle), and
    validates the whole file before trusting any size in it: a crafted file is refused, not obeyed.
    Files written by ``torch.save`` (its zip format) are read too, through an unpickler that rebuilds only
    tensors, Parameters, torch.Size/device/dtypes and plain containers (``_torch_format``: what
    ``torch.load(..., weights_only=True)`` allows); for them ``weights_only=False`` is refused, since
    npgrad never unpickles arbitrary objects. Their legacy non-zip format is refused.
    A missing file raises FileNotFoundError; anything else wrong with the file (not a checkpoint,
    truncated, corrupted, over a limit, a pickle, a PyTorch checkpoint naming a global off the allow list)
    raises ``CheckpointError`` (a
    RuntimeError) naming the file and the problem. ``map_location`` may be None, ``'cpu'``, a device, a
    dict or a callable; tensors always load on the CPU.

    Limits (npgrad's keywords, not PyTorch's), for files from elsewhere:

    * ``max_ratio`` (default 100): a compressed (deflated) member may inflate to at most this many times
      its compressed size, which refuses zip bombs. ``npgrad.save`` stores members uncompressed (ratio 1).
    * ``max_bytes`` (default 2**34, 16 GiB): all members together may hold at most this many bytes.

    Pass ``None`` to lift either for a file you trust. With both in force, memory use is bounded by the
    file's size: stored members never exceed it, deflated ones at most ``max_ratio`` times it, and the
    structure description (at most 256 MiB of JSON) costs some tens of times its own size as Python
    objects.
    """
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


def _known(entry):
    return entry == STRUCTURE or DATA_RE.match(entry) is not None


def _load_from(fh, name, limits, weights_only=True):
    import zipfile
    start = fh.tell()
    head = fh.read(8)
    fh.seek(start)
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
