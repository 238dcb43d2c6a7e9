"""STL-10 from its binary release, unpacked in ``root/stl10_binary``: 96x96 RGB images in 10 classes,
plus 100,000 unlabelled ones; ten predefined folds of 1,000 training images each."""
import os

import numpy as np

from .utils import DownloadError, check_integrity, download_and_extract_archive, verify_str_arg
from .vision import VisionDataset, _image

__all__ = ["STL10"]


class STL10(VisionDataset):
    """``split``: 'train', 'test', 'unlabeled' or 'train+unlabeled' (unlabelled images get label -1).

    ``folds`` (0-9) keeps only that fold's training images. ``data`` is the uint8 array (N, 3, 96, 96),
    ``labels`` the labels 0-9 (or -1).
    """

    base_folder, filename = ("stl10_binary", "stl10_binary.tar.gz")
    url, tgz_md5 = ("http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz", "91f7769df0f17e558f3565bffb0c7dfb")
    class_names_file, folds_list_file = ("class_names.txt", "fold_indices.txt")
    train_list = [
        ("train_X.bin", "918c2871b30a85fa023e0c44e0bee87f"),
        ("train_y.bin", "5a34089d4802c674881badbb80307741"),
        ("unlabeled_X.bin", "5242ba1fed5e4be9e1e742405eb56ca4"),
    ]
    test_list = [
        ("test_X.bin", "7f263ba9f9e0b06b93213547f721ac82"),
        ("test_y.bin", "36f9794fa4beb8a2c72628de14fa638e"),
    ]
    splits = ("train", "train+unlabeled", "unlabeled", "test")

    def __init__(self, root, split="train", folds=None, transform=None, target_transform=None, download=False):
        super().__init__(root, None, transform, target_transform)
        self.split = verify_str_arg(split, "split", self.splits)
        self.folds = self._verify_folds(folds)
        if download:
            self.download()
        elif not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        parts = []  # (images, labels or None) pieces, concatenated below
        if split in ("train", "train+unlabeled"):
            parts.append(self._fold(self._images("train_X.bin"), self._labels("train_y.bin")))
        if split in ("unlabeled", "train+unlabeled"):
            parts.append((self._images("unlabeled_X.bin"), None))
        if split == "test":
            parts.append((self._images("test_X.bin"), self._labels("test_y.bin")))
        if len(parts) == 1 and parts[0][1] is not None:
            self.data, self.labels = parts[0]
        else:
            self.data = np.concatenate([images for images, _ in parts])
            self.labels = np.concatenate([np.asarray(labels if labels is not None else [-1] * len(images))
                                          for images, labels in parts])
        names_path = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(names_path):
            with open(names_path) as f:
                self.classes = f.read().splitlines()

    @staticmethod
    def _verify_folds(folds):
        if folds is None:
            return None
        if not isinstance(folds, int):
            raise ValueError(f"Expected type None or int for argument folds, but got type {type(folds)}.")
        if not 0 <= folds < 10:
            raise ValueError(f"Value for argument folds should be in the range [0, 10), but got {folds}.")
        return folds

    def _file(self, name):
        return os.path.join(self.root, self.base_folder, name)

    def _images(self, name):
        flat = np.fromfile(self._file(name), dtype=np.uint8)
        # each channel is stored column by column: (N, C, W, H) on disk, served as (N, C, H, W)
        return flat.reshape(-1, 3, 96, 96).swapaxes(2, 3)

    def _labels(self, name):
        return np.fromfile(self._file(name), dtype=np.uint8) - 1  # stored 1-10

    def _fold(self, images, labels):
        if self.folds is None:
            return images, labels
        with open(self._file(self.folds_list_file)) as f:
            rows = f.read().splitlines()
        keep = np.array(rows[self.folds].split(), dtype=np.int64)
        return images[keep], labels[keep]

    def __getitem__(self, index):
        label = None if self.labels is None else int(self.labels[index])
        return self._transformed(_image(np.ascontiguousarray(self.data[index].transpose(1, 2, 0))), label)

    def __len__(self):
        return self.data.shape[0]

    def _check_integrity(self):
        return all(check_integrity(self._file(name), md5) for name, md5 in [*self.train_list, *self.test_list])

    def download(self):
        if self._check_integrity():
            return
        try:
            download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)
        except DownloadError as e:
            raise DownloadError(f"{e}\nWithout network access, place {self.filename} (md5 {self.tgz_md5}) in "
                                f"{self.root} and use download=True to unpack it", url=self.url,
                                reason=e.reason) from None

    def extra_repr(self):
        return "Split: " + self.split
