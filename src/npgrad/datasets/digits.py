"""The UCI 8x8 handwritten digits (the set scikit-learn ships as ``load_digits``), embedded in npgrad.

1797 images of 8x8 pixels, each pixel a count 0..16, labels 0..9. It is small enough to ship inside
the package (data/digits.csv.gz, about 57 KB; see data/NOTICE.txt for its origin and licence), so
examples and tests can train a real classifier with no download.
"""
import functools
import os

import numpy as np

from ..tensor import Tensor

__all__ = ["load_digits", "Digits"]

_FILE = os.path.join(os.path.dirname(__file__), "data", "digits.csv.gz")
N_SAMPLES, N_FEATURES, N_CLASSES = 1797, 64, 10
TEST_FRACTION = 0.2
_SPLIT_SEED = 0

try:  # subclass torch.utils.data.Dataset once npgrad has it; duck typing works either way
    from ..utils.data import Dataset as _Base
except ImportError:  # pragma: no cover - depends on the state of npgrad.utils.data
    _Base = object


@functools.lru_cache(maxsize=1)
def _load():
    table = np.loadtxt(_FILE, delimiter=",", dtype=np.int64)
    if table.shape != (N_SAMPLES, N_FEATURES + 1):
        raise RuntimeError(f"{_FILE}: expected {N_SAMPLES} rows of {N_FEATURES + 1} values, got shape "
                           f"{table.shape}; the npgrad installation is damaged")
    pixels, labels = table[:, :N_FEATURES], table[:, N_FEATURES]
    if pixels.min() < 0 or pixels.max() > 16 or labels.min() < 0 or labels.max() >= N_CLASSES:
        raise RuntimeError(f"{_FILE}: values out of range; the npgrad installation is damaged")
    images = pixels.astype(np.uint8).reshape(N_SAMPLES, 8, 8)
    images.flags.writeable = False  # shared by every caller: hand out copies
    labels.flags.writeable = False
    return images, labels


def load_digits():
    """All 1797 digits as ``(X, y)``: X a float32 Tensor (1797, 64) of raw pixel counts 0..16 (as
    scikit-learn gives them; divide by 16 to scale to [0, 1]), y an int64 Tensor (1797,) of labels."""
    images, labels = _load()
    return (Tensor._wrap(images.reshape(N_SAMPLES, N_FEATURES).astype(np.float32)),
            Tensor._wrap(labels.copy()))


@functools.lru_cache(maxsize=1)
def _split():
    """Indices of the fixed train/test split: 20% of each class goes to test.

    A seeded legacy ``RandomState`` is used because NumPy keeps its stream unchanged across versions,
    so the split is the same everywhere.
    """
    _, labels = _load()
    rs = np.random.RandomState(_SPLIT_SEED)
    test = []
    for c in range(N_CLASSES):
        idx = np.flatnonzero(labels == c)
        test.append(rs.permutation(idx)[:int(round(TEST_FRACTION * idx.size))])
    is_test = np.zeros(N_SAMPLES, bool)
    is_test[np.concatenate(test)] = True
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


class Digits(_Base):
    """The 8x8 digits as a dataset with a fixed, class-stratified 80/20 train/test split
    (1438 training and 359 test images), in the file's order.

    Like ``MNIST``: ``__getitem__`` gives ``(image, label)`` with the image a float32 Tensor (1, 8, 8)
    scaled to [0, 1] (pixel count / 16), passed through ``transform`` when one is given; ``.data`` is the
    uint8 Tensor (N, 8, 8) of raw counts and ``.targets`` the int64 Tensor (N,) of labels.
    """

    classes = [str(i) for i in range(N_CLASSES)]

    def __init__(self, train=True, transform=None, target_transform=None):
        self.train = bool(train)
        self.transform = transform
        self.target_transform = target_transform
        images, labels = _load()
        idx = _split()[0 if self.train else 1]
        self.data = Tensor._wrap(images[idx])  # fancy indexing copies: the caller's own arrays
        self.targets = Tensor._wrap(labels[idx])

    def __len__(self):
        return self.data._data.shape[0]

    def __getitem__(self, index):
        img = self.data._data[int(index)].astype(np.float32)
        img *= np.float32(1 / 16)
        img = Tensor._wrap(img.reshape(1, 8, 8))
        target = int(self.targets._data[int(index)])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __repr__(self):
        return (f"Dataset Digits\n    Number of datapoints: {len(self)}\n"
                f"    Split: {'Train' if self.train else 'Test'}")
