"""STL-10 from its binary release, unpacked in ``root/stl10_binary``: 96x96 RGB images in 10 classes,
plus 100,000 unlabelled ones; ten predefined folds of 1,000 training images each."""
import os

import numpy as np

from .utils import DownloadError, check_integrity, download_and_extract_archive, verify_str_arg
from .vision import VisionDataset, _image

__all__ = ["STL10"]


class STL10(VisionDataset):
    """``split``: 'train', 'test', 'unlabeled' or 'train+unlabeled' (unlabelled images get label -1).

    ``folds`` (0-9) keeps only that fold's training images. ``data`` is the uint8 array (N, 3, 96, 96).
    """

    base_folder = "stl10_binary"
    url = "http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz"
    filename = "stl10_binary.tar.gz"
    tgz_md5 = "91f7769df0f17e558f3565bffb0c7dfb"
    class_names_file = "class_names.txt"
    folds_list_file = "fold_indices.txt"
    train_list = [
        ["train_X.bin", "918c2871b30a85fa023e0c44e0bee87f"],
        ["train_y.bin", "5a34089d4802c674881badbb80307741"],
        ["unlabeled_X.bin", "5242ba1fed5e4be9e1e742405eb56ca4"],
    ]
    test_list = [["test_X.bin", "7f263ba9f9e0b06b93213547f721ac82"], ["test_y.bin", "36f9794fa4beb8a2c72628de14fa638e"]]
    splits = ("train", "train+unlabeled", "unlabeled", "test")

    def __init__(self, root, split="train", folds=None, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", self.splits)
        self.folds = self._verify_folds(folds)
        if download:
            self.download()
        elif not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        if self.split == "test":
            self.data, self.labels = self._read("test_X.bin", "test_y.bin")
        elif self.split == "unlabeled":
            self.data, _ = self._read("unlabeled_X.bin")
            self.labels = np.full(len(self.data), -1, dtype=np.int64)
        else:
            self.data, self.labels = self._read("train_X.bin", "train_y.bin")
            self._keep_fold(folds)
            if self.split == "train+unlabeled":
                extra, _ = self._read("unlabeled_X.bin")
                self.data = np.concatenate((self.data, extra))
                self.labels = np.concatenate((self.labels, np.full(len(extra), -1, dtype=np.int64)))
        class_file = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(class_file):
            with open(class_file) as f:
                self.classes = f.read().splitlines()

    @staticmethod
    def _verify_folds(folds):
        if folds is None:
            return folds
        if isinstance(folds, int):
            if folds in range(10):
                return folds
            raise ValueError(f"Value for argument folds should be in the range [0, 10), but got {folds}.")
        raise ValueError(f"Expected type None or int for argument folds, but got type {type(folds)}.")

    def _read(self, data_file, labels_file=None):
        folder = os.path.join(self.root, self.base_folder)
        labels = None
        if labels_file is not None:
            # stored 1-10
            labels = np.fromfile(os.path.join(folder, labels_file), dtype=np.uint8) - 1
        raw = np.fromfile(os.path.join(folder, data_file), dtype=np.uint8)
        # column-major images: (N, C, W, H) on disk, served as (N, C, H, W)
        return np.reshape(raw, (-1, 3, 96, 96)).transpose(0, 1, 3, 2), labels

    def _keep_fold(self, folds):
        if folds is None:
            return
        with open(os.path.join(self.root, self.base_folder, self.folds_list_file)) as f:
            line = f.read().splitlines()[folds]
        keep = np.array(line.split(), dtype=np.int64)
        self.data = self.data[keep]
        if self.labels is not None:
            self.labels = self.labels[keep]

    def __getitem__(self, index):
        target = int(self.labels[index]) if self.labels is not None else None
        img = _image(np.ascontiguousarray(np.transpose(self.data[index], (1, 2, 0))))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return self.data.shape[0]

    def _check_integrity(self):
        folder = os.path.join(self.root, self.base_folder)
        return all(check_integrity(os.path.join(folder, name), md5) for name, md5 in self.train_list + self.test_list)

    def download(self):
        if self._check_integrity():
            return
        try:
            download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)
        except DownloadError as e:
            raise DownloadError(f"{e}\nWithout network access, place {self.filename} (md5 {self.tgz_md5}) in "
                                f"{self.root} and use download=True to unpack it", url=self.url,
                                reason=e.reason) from None
        self._check_integrity()

    def extra_repr(self):
        return f"Split: {self.split}"
