"""Datasets: MNIST/Fashion-MNIST (IDX files), character-level text, and a small embedded digits set.

* ``MNIST``, ``FashionMNIST``: ``npgrad.vision.datasets``' classes, whose files are looked for in
  ``root``, ``$NPGRAD_DATA`` and ``~/.cache/npgrad`` and downloaded when missing, and whose samples
  are Tensors (see ``npgrad.datasets.mnist``).
* ``CharTokenizer``, ``TextDataset``, ``load_tiny_shakespeare``: character-level language modelling.
* ``load_digits``, ``Digits``: the UCI 8x8 handwritten digits, shipped inside npgrad (no download).
* ``read_idx``: the IDX reader (``npgrad.vision.datasets``' own).
"""
from .digits import Digits, load_digits
from .download import DatasetNotFoundError, cache_dir
from .idx import IDXError, read_idx
from .mnist import MNIST, FashionMNIST
from .text import CharTokenizer, TextDataset, find_tiny_shakespeare, load_tiny_shakespeare

__all__ = ["MNIST", "FashionMNIST", "CharTokenizer", "TextDataset", "find_tiny_shakespeare",
           "load_tiny_shakespeare", "Digits", "load_digits", "read_idx", "IDXError", "DatasetNotFoundError",
           "cache_dir"]
