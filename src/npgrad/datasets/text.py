"""Character-level text data: a tokenizer, a dataset of next-character windows, and tiny-shakespeare.

A language model reads ``block_size`` characters and predicts, at every position, the character that
comes next; so each example is a window ``x = text[i : i + block_size]`` and its target is the same
window shifted by one, ``y = text[i + 1 : i + block_size + 1]``.
"""
import os

import numpy as np

from ..tensor import Tensor
from .download import fetch_files

__all__ = ["CharTokenizer", "TextDataset", "find_tiny_shakespeare", "load_tiny_shakespeare"]

try:  # subclass torch.utils.data.Dataset once npgrad has it; duck typing works either way
    from ..utils.data import Dataset as _Base
except ImportError:  # pragma: no cover - depends on the state of npgrad.utils.data
    _Base = object


def _codepoints(text):
    # UTF-32 gives one fixed-width integer per character: the whole text becomes an array at C speed.
    return np.frombuffer(text.encode("utf-32-le"), np.uint32)


class CharTokenizer:
    """Maps each distinct character of a text to an integer id, in sorted character order.

    ``stoi`` (char -> id) and ``itos`` (id -> char) are the two tables; ``vocab_size`` their size.
    ``encode`` and ``decode`` are vectorised, so encoding a whole corpus takes milliseconds. Build it from
    a text (its distinct characters) or from ``chars=`` (an explicit alphabet).
    """

    def __init__(self, text=None, chars=None):
        if (text is None) == (chars is None):
            raise TypeError("CharTokenizer() takes either a text to build the vocabulary from or chars=")
        if chars is None:
            chars = np.unique(_codepoints(text))
        else:
            chars = np.unique(_codepoints("".join(chars)))
        if chars.size == 0:
            raise ValueError("CharTokenizer(): the vocabulary is empty (the text has no characters)")
        self._codes = chars  # sorted code points: id = position
        self.itos = [chr(c) for c in chars.tolist()]
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}
        self._chars = np.array(self.itos)

    @property
    def vocab_size(self):
        return len(self.itos)

    def __len__(self):
        return len(self.itos)

    def encode_array(self, text):
        """The ids of ``text`` as an int64 NumPy array."""
        codes = _codepoints(text)
        ids = np.searchsorted(self._codes, codes)
        ids[ids == self._codes.size] = 0
        bad = self._codes[ids] != codes
        if bad.any():
            unknown = sorted({chr(c) for c in codes[bad].tolist()})
            raise ValueError(f"CharTokenizer.encode: character{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(repr(c) for c in unknown[:10])}{' ...' if len(unknown) > 10 else ''} "
                             f"not in the vocabulary of {self.vocab_size} characters")
        return ids.astype(np.int64)

    def encode(self, text):
        """The ids of ``text`` as a list of ints (``npgrad.tensor(tok.encode(s))`` makes a tensor)."""
        return self.encode_array(text).tolist()

    def decode(self, ids):
        """The text of a sequence of ids (a list, a NumPy array or a 0-/1-d Tensor)."""
        if isinstance(ids, Tensor):
            ids = ids._data
        arr = np.asarray(ids)
        if arr.ndim > 1:
            raise ValueError(f"CharTokenizer.decode expects a 1-d sequence of ids, got shape {tuple(arr.shape)}")
        arr = arr.reshape(-1)
        if arr.size == 0:
            return ""
        if arr.dtype.kind not in "iu":
            raise TypeError(f"CharTokenizer.decode expects integer ids, got {arr.dtype}")
        if arr.min() < 0 or arr.max() >= self.vocab_size:
            raise ValueError(f"CharTokenizer.decode: id {int(arr.max() if arr.max() >= self.vocab_size else arr.min())}"
                             f" is out of range for a vocabulary of {self.vocab_size}")
        return "".join(self._chars[arr].tolist())

    def __repr__(self):
        return f"CharTokenizer(vocab_size={self.vocab_size})"


def _read_source(path_or_text):
    """The text itself: ``path_or_text`` is a path (os.PathLike, or a str naming an existing file) or text."""
    if isinstance(path_or_text, os.PathLike):
        with open(path_or_text, encoding="utf-8") as f:
            return f.read()
    if not isinstance(path_or_text, str):
        raise TypeError(f"TextDataset expects a path or a str of text, got {type(path_or_text).__name__}")
    s = path_or_text
    if "\n" not in s and len(s) < 4096:
        if os.path.isfile(s):
            with open(s, encoding="utf-8") as f:
                return f.read()
        # A one-line string ending like a file name is far more likely a mistyped path than a corpus.
        if s.endswith((".txt", ".text", ".md")) and " " not in s:
            raise FileNotFoundError(f"TextDataset: no such file: {s!r} (to use a string as the text itself, "
                                    "pass it with at least one newline or as a longer text)")
    return s


class TextDataset(_Base):
    """Windows of ``block_size`` character ids and their next-character targets.

    Args:
        path_or_text: a file to read (UTF-8) or the text itself.
        block_size: the length of each window.
        split: ``'train'`` (the first ``1 - val_fraction`` of the text) or ``'val'`` (the rest).
        val_fraction: the share of the text, taken at its end, held out for ``'val'``.
        tokenizer: a ``CharTokenizer``; by default one is built from the whole text, so the two splits
            of the same text share ids.

    ``dataset[i]`` is ``(x, y)``, two int64 Tensors of length ``block_size`` with ``y`` = ``x`` shifted
    by one character; ``len(dataset)`` counts every window start. ``get_batch`` draws a random batch
    in one vectorised step, the usual way to feed a character model. ``.data`` is the split's ids.
    """

    def __init__(self, path_or_text, block_size, split="train", val_fraction=0.1, tokenizer=None):
        if split not in ("train", "val"):
            raise ValueError(f"TextDataset: split must be 'train' or 'val', got {split!r}")
        if not 0.0 <= val_fraction < 1.0:
            raise ValueError(f"TextDataset: val_fraction must be in [0, 1), got {val_fraction}")
        block_size = int(block_size)
        if block_size < 1:
            raise ValueError(f"TextDataset: block_size must be at least 1, got {block_size}")
        text = _read_source(path_or_text)
        self.tokenizer = tokenizer if tokenizer is not None else CharTokenizer(text)
        ids = self.tokenizer.encode_array(text)
        n_train = int(len(ids) * (1.0 - val_fraction))
        ids = ids[:n_train] if split == "train" else ids[n_train:]
        if len(ids) <= block_size:
            raise ValueError(f"TextDataset: the {split!r} split has {len(ids)} characters, too few for one window "
                             f"of block_size={block_size} plus its target (needs at least {block_size + 1})")
        self.block_size = block_size
        self.split = split
        self._ids = np.ascontiguousarray(ids)
        self.data = Tensor._wrap(self._ids)
        self._offsets = np.arange(block_size)

    @property
    def vocab_size(self):
        return self.tokenizer.vocab_size

    def __len__(self):
        return len(self._ids) - self.block_size

    def __getitem__(self, index):
        n = len(self)
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"index {index} is out of range for a TextDataset of {n} windows")
        chunk = self._ids[i:i + self.block_size + 1]
        return Tensor._wrap(chunk[:-1].copy()), Tensor._wrap(chunk[1:].copy())

    def get_batch(self, batch_size, generator=None):
        """``(x, y)``: int64 Tensors (batch_size, block_size) of windows starting at random positions.

        Positions are drawn with replacement from ``generator`` (an ``npgrad.Generator``; the default
        generator when None, so ``npgrad.manual_seed`` makes batches reproducible).
        """
        from ..random import rng
        starts = rng(generator).integers(0, len(self), size=int(batch_size))
        idx = starts[:, None] + self._offsets  # one gather per tensor for the whole batch
        # Two gathers rather than two overlapping views of one, so x and y never share memory.
        return Tensor._wrap(self._ids[idx]), Tensor._wrap(self._ids[idx + 1])

    def __repr__(self):
        return (f"TextDataset(split={self.split!r}, characters={len(self._ids)}, block_size={self.block_size}, "
                f"vocab_size={self.vocab_size})")


_SHAKESPEARE = [("input.txt", "6fb458f1232090904fb40fe944165e91")]
_SHAKESPEARE_MIRRORS = ["https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/"]


def find_tiny_shakespeare(root=None, download=True):
    """The path of tiny-shakespeare's ``input.txt`` (about 1.1 MB of Shakespeare's plays).

    Looked for in ``root``, ``$NPGRAD_DATA`` and ``~/.cache/npgrad``, each directly or in a
    ``tinyshakespeare/`` subfolder; downloaded (md5-checked) when missing and ``download`` is True.
    ``root`` may also be the file itself.
    """
    if root is not None and os.path.isfile(os.fspath(root)):
        return os.fspath(root)
    files = fetch_files("tiny-shakespeare", _SHAKESPEARE, _SHAKESPEARE_MIRRORS, root=root,
                        subdirs=("tinyshakespeare",), download=download)
    return files["input.txt"]


def load_tiny_shakespeare(root=None, download=True):
    """The text of tiny-shakespeare (see ``find_tiny_shakespeare`` for where it is looked for)."""
    with open(find_tiny_shakespeare(root, download), encoding="utf-8") as f:
        return f.read()
