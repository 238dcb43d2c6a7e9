"""CIFAR-10 and CIFAR-100 from the "python version" pickles, in ``root/cifar-10-batches-py`` (or
``root/cifar-100-python``) as the archive unpacks. Images are 32x32 PIL images of mode ``RGB``."""
import os
import pickle

import numpy as np

from .utils import DownloadError, check_integrity, download_and_extract_archive
from .vision import VisionDataset, _image

__all__ = ["CIFAR10", "CIFAR100"]


class CIFAR10(VisionDataset):
    """60,000 32x32 colour images in 10 classes: five training batches of 10,000 and one test batch.

    ``data`` is the uint8 NumPy array (N, 32, 32, 3) and ``targets`` the list of int labels; every file's
    md5 is checked before it is read, as torchvision does.
    """

    # the release: its archive, the folder it unpacks to, and each file's md5
    base_folder, filename = ("cifar-10-batches-py", "cifar-10-python.tar.gz")
    url, tgz_md5 = ("https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
                    "c58f30108f718f92721af3b95e74349a")
    train_list = [
        ("data_batch_1", "c99cafc152244af753f735de768cd75f"),
        ("data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"),
        ("data_batch_3", "54ebc095f3ab1f0389bbae665268c751"),
        ("data_batch_4", "634d18415352ddfa80567beed471001a"),
        ("data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"),
    ]
    test_list = [("test_batch", "40351d587109b95175f43aff81a1287e")]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}
    _label_key = "labels"

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, None, transform, target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        batches = [_unpickle(self._path(name)) for name, _ in (self.train_list if train else self.test_list)]
        flat = np.concatenate([np.asarray(b["data"], dtype=np.uint8) for b in batches])
        # each row is a channel-major 3x32x32 image; PIL wants (H, W, C), which a transposed view gives
        # (copying 150 MB of training images up front would double the start-up time)
        self.data = flat.reshape(len(flat), 3, 32, 32).transpose(0, 2, 3, 1)
        self.targets = [int(t) for b in batches for t in b[self._label_key]]
        self._load_meta()

    def _path(self, name):
        return os.path.join(self.root, self.base_folder, name)

    def _load_meta(self):
        meta_path = self._path(self.meta["filename"])
        if not check_integrity(meta_path, self.meta["md5"]):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use download=True to download it")
        self.classes = _unpickle(meta_path)[self.meta["key"]]
        self.class_to_idx = dict(zip(self.classes, range(len(self.classes))))

    def __getitem__(self, index):
        return self._transformed(_image(self.data[index]), self.targets[index])

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        return all(check_integrity(self._path(name), md5) for name, md5 in [*self.train_list, *self.test_list])

    def download(self):
        if self._check_integrity():
            return
        try:
            download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)
        except DownloadError as e:
            names = [name for name, _ in [*self.train_list, *self.test_list]] + [self.meta["filename"]]
            raise DownloadError(f"{e}\nWithout network access, place {self.filename} (md5 {self.tgz_md5}) in "
                                f"{self.root} and use download=True to unpack it, or unpack it yourself so that "
                                f"{os.path.join(self.root, self.base_folder)} holds {', '.join(names)}",
                                url=self.url, reason=e.reason) from None

    def extra_repr(self):
        return "Split: " + ("Train" if self.train is True else "Test")


def _unpickle(path):
    with open(path, "rb") as f:
        return pickle.load(f, encoding="latin1")


class CIFAR100(CIFAR10):
    """CIFAR-100: like CIFAR-10, with 100 fine classes (``targets``) in 20 superclasses."""

    base_folder, filename = ("cifar-100-python", "cifar-100-python.tar.gz")
    url, tgz_md5 = ("https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
                    "eb9058c3a382ffc7106e4002c42a8d85")
    train_list = [("train", "16019d7e3df5f24257cddd939b257f8d")]
    test_list = [("test", "f0ef6b0ae62326f3e7ffdfab6717acfc")]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}
    _label_key = "fine_labels"
