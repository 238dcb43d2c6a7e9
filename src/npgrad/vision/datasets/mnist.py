"""MNIST and the datasets in its IDX format: FashionMNIST, KMNIST, EMNIST, QMNIST (torchvision's layouts).

A dataset lives in ``root/<ClassName>/raw`` as the unpacked IDX files (a download keeps the ``.gz``
archives beside them). ``root/<ClassName>/processed/{training,test}.pt``, the layout of torchvision
before 0.9, is still read when both files are there. Images come out as PIL images of mode ``L``.
"""
import os
import shutil
import warnings

import numpy as np

from ...tensor import Tensor
from ._idx import IDXError, read_idx
from .utils import DownloadError, check_integrity, download_and_extract_archive, extract_archive, verify_str_arg
from .vision import VisionDataset, _image

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST", "read_sn3_pascalvincent_tensor",
           "read_image_file", "read_label_file"]


def read_sn3_pascalvincent_tensor(path, strict=True):
    """An IDX ("SN3 pascalvincent") file as a Tensor of its stored type and shape.

    ``strict`` is torchvision's switch for tolerating extra bytes; here the data must always fill the
    declared shape exactly (``IDXError`` otherwise), gzipped or not.
    """
    return Tensor._wrap(read_idx(path))


# The magic number fixes the element type and the number of dimensions, so checking it checks both.
def read_image_file(path):
    """The uint8 (N, H, W) Tensor of an ``*-images-idx3-ubyte`` file."""
    return Tensor._wrap(read_idx(path, expected_magic=0x00000803))


def read_label_file(path):
    """The int64 (N,) Tensor of an ``*-labels-idx1-ubyte`` file."""
    return Tensor._wrap(read_idx(path, expected_magic=0x00000801).astype(np.int64))


def _same_length(images, labels, image_path, label_path):
    n, m = images.shape[0], labels.shape[0]
    if n != m:
        raise IDXError(f"{image_path} holds {n} images but {label_path} holds {m} labels")


class MNIST(VisionDataset):
    """The MNIST handwritten digits: 60,000 training and 10,000 test images, 28x28, labels 0-9.

    ``data`` is the uint8 Tensor (N, 28, 28) of all images, ``targets`` the int64 Tensor (N,) of labels;
    ``dataset[i]`` is ``(PIL image of mode 'L', int label)`` after the transforms.
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, None, transform, target_transform)
        self.train = train
        legacy = self._legacy_file()
        if legacy is not None:
            from ...serialization import load
            self.data, self.targets = load(legacy, weights_only=True)
            return
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        self.data, self.targets = self._load_data()

    # -- where the files are ------------------------------------------------------------------------------
    @property
    def raw_folder(self):
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, type(self).__name__, "processed")

    def _raw_files(self):
        """The unpacked files this split reads: (images, labels)."""
        prefix = "train" if self.train else "t10k"
        return (os.path.join(self.raw_folder, f"{prefix}-images-idx3-ubyte"),
                os.path.join(self.raw_folder, f"{prefix}-labels-idx1-ubyte"))

    def _check_exists(self):
        names = [os.path.splitext(os.path.basename(name))[0] for name, _ in self.resources]
        return all(check_integrity(os.path.join(self.raw_folder, n)) for n in names)

    def _legacy_file(self):
        """The split's file in torchvision's pre-0.9 ``processed/`` layout, when both splits are there."""
        paths = [os.path.join(self.processed_folder, name) for name in (self.training_file, self.test_file)]
        if all(os.path.isfile(p) for p in paths):
            return paths[0] if self.train else paths[1]
        return None

    def _load_data(self):
        image_path, label_path = self._raw_files()
        data, targets = read_image_file(image_path), read_label_file(label_path)
        _same_length(data, targets, image_path, label_path)
        return data, targets

    # -- samples ---------------------------------------------------------------------------------------------
    def __getitem__(self, index):
        # through NumPy: indexing the Tensors would cost more than building the image
        return self._transformed(_image(self.data.numpy()[index], "L"), int(self.targets.numpy()[index]))

    def __len__(self):
        return len(self.data)

    @property
    def class_to_idx(self):
        return {name: i for i, name in enumerate(self.classes)}

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"

    # torchvision's pre-0.9 attribute names, kept with its warnings
    @property
    def train_labels(self):
        warnings.warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self):
        warnings.warn("test_labels has been renamed targets")
        return self.targets

    @property
    def train_data(self):
        warnings.warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self):
        warnings.warn("test_data has been renamed data")
        return self.data

    # -- downloading -------------------------------------------------------------------------------------------
    def _offline_hint(self):
        names = ", ".join(os.path.splitext(n)[0] for n, _ in self.resources)
        return (f"Without network access, place {names} (or the .gz files, with download=True to unpack "
                f"them) in {self.raw_folder}")

    def download(self):
        """Fetch the four .gz files into ``raw_folder``, trying each mirror in turn, and unpack them."""
        if not self._check_exists():
            for name, checksum in self.resources:
                self._from_first_mirror(name, checksum)

    def _from_first_mirror(self, name, checksum):
        failures, url = [], None
        for url in [base + name for base in self.mirrors]:
            try:
                return download_and_extract_archive(url, self.raw_folder, filename=name, md5=checksum)
            except DownloadError as e:
                failures.append(f"Tried {url}, got:\n{e.reason}\n")
        raise DownloadError(f"Error downloading {name}:\n{''.join(failures)}{self._offline_hint()}", url=url)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: MNIST's format and sizes, 10 kinds of clothing."""

    mirrors = [
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST: cursive Japanese characters, one per row of the hiragana table, in MNIST's format."""

    mirrors = [
        "http://codh.rois.ac.jp/kmnist/dataset/kmnist/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = [
        "o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo",
    ]


_DIGITS = [str(d) for d in range(10)]
_UPPER = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
_LOWER = [chr(c) for c in range(ord("a"), ord("z") + 1)]
# Lower-case letters that look like their capitals; the merged splits fold them into the capital's class.
_MERGED = set("cijklmopsuvwxyz")


class EMNIST(MNIST):
    """The extended MNIST of NIST Special Database 19: six splits of digits and letters.

    As in torchvision the images are served as stored in the files, which hold each one transposed.
    """

    url, md5 = ("https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip", "58c8d27c78d21e728a6bc7b3cc06412e")
    splits = (
        "byclass", "bymerge", "balanced", "letters", "digits", "mnist",
    )
    _merged_classes = _MERGED
    _all_classes = set(_DIGITS + _UPPER + _LOWER)
    classes_split_dict = {
        "byclass": _DIGITS + _UPPER + _LOWER,
        "bymerge": _DIGITS + _UPPER + [c for c in _LOWER if c not in _MERGED],
        "balanced": _DIGITS + _UPPER + [c for c in _LOWER if c not in _MERGED],
        "letters": ["N/A"] + _LOWER,
        "digits": list(_DIGITS),
        "mnist": list(_DIGITS),
    }

    def __init__(self, root, split, **kwargs):
        self.split = verify_str_arg(split, "split", self.splits)
        self.training_file, self.test_file = (self._training_file(split), self._test_file(split))
        super().__init__(root, **kwargs)
        self.classes = self.classes_split_dict[split]

    @staticmethod
    def _training_file(split):
        return f"training_{split}.pt"

    @staticmethod
    def _test_file(split):
        return f"test_{split}.pt"

    @property
    def _file_prefix(self):
        return f"emnist-{self.split}-{'train' if self.train else 'test'}"

    @property
    def images_file(self):
        return os.path.join(self.raw_folder, f"{self._file_prefix}-images-idx3-ubyte")

    @property
    def labels_file(self):
        return os.path.join(self.raw_folder, f"{self._file_prefix}-labels-idx1-ubyte")

    def _raw_files(self):
        return self.images_file, self.labels_file

    def _check_exists(self):
        return all(check_integrity(f) for f in (self.images_file, self.labels_file))

    def _offline_hint(self):
        return (f"Without network access, place gzip.zip (md5 {self.md5}) in {self.raw_folder} and use "
                f"download=True to unpack it, or place {os.path.basename(self.images_file)} and "
                f"{os.path.basename(self.labels_file)} there")

    def download(self):
        """Fetch NIST's gzip.zip into ``raw_folder`` and unpack every split's IDX files next to it."""
        if self._check_exists():
            return
        try:
            download_and_extract_archive(self.url, self.raw_folder, md5=self.md5)
        except DownloadError as e:
            raise DownloadError(f"{e}\n{self._offline_hint()}", url=self.url, reason=e.reason) from None
        # the zip holds a gzip/ folder of every split's .gz files: unpack them all beside it, then drop it
        unpacked = os.path.join(self.raw_folder, "gzip")
        for archive in sorted(os.listdir(unpacked)):
            if archive.endswith(".gz"):
                extract_archive(os.path.join(unpacked, archive), self.raw_folder)
        shutil.rmtree(unpacked)


class QMNIST(MNIST):
    """QMNIST: MNIST's images reconstructed from NIST, with 8 columns of metadata per label.

    ``what`` picks 'train', 'test' (all 60,000), 'test10k' (MNIST's test images), 'test50k' (the lost
    ones) or 'nist' (the whole of NIST); ``compat=True`` gives the class as an int, ``compat=False`` the
    whole int64 Tensor row (class, NIST writer/series ids, ...).
    """

    subsets = {  # what -> the files it reads
        "train": "train", "test": "test", "test10k": "test", "test50k": "test", "nist": "nist",
    }
    _base = "https://raw.githubusercontent.com/facebookresearch/qmnist/master/"
    resources = {
        "train": [(_base + "qmnist-train-images-idx3-ubyte.gz", "ed72d4157d28c017586c42bc6afe6370"),
                  (_base + "qmnist-train-labels-idx2-int.gz", "0058f8dd561b90ffdd0f734c6a30e5e4")],
        "test": [(_base + "qmnist-test-images-idx3-ubyte.gz", "1394631089c404de565df7b7aeaf9412"),
                 (_base + "qmnist-test-labels-idx2-int.gz", "5b5b05890a5e13444e108efe57b788aa")],
        "nist": [(_base + "xnist-images-idx3-ubyte.xz", "7f124b3b8ab81486c9d8c2749c17f834"),
                 (_base + "xnist-labels-idx2-int.xz", "5ed0e788978e45d4a8bd4b7caec3d79d")],
    }
    del _base
    classes = MNIST.classes

    def __init__(self, root, what=None, compat=True, train=True, **kwargs):
        self.what = verify_str_arg(what if what is not None else ("train" if train else "test"), "what",
                                   tuple(self.subsets))
        self.compat = compat
        # the legacy processed/ layout had one file per subset
        self.data_file = self.training_file = self.test_file = f"{self.what}.pt"
        super().__init__(root, train, **kwargs)

    def _subset_file(self, i):
        url = self.resources[self.subsets[self.what]][i][0]
        stem = os.path.splitext(url.rsplit("/", 1)[-1])[0]  # the file the .gz/.xz unpacks to
        return os.path.join(self.raw_folder, stem)

    @property
    def images_file(self):
        return self._subset_file(0)

    @property
    def labels_file(self):
        return self._subset_file(1)

    def _check_exists(self):
        return all(check_integrity(f) for f in (self.images_file, self.labels_file))

    def _load_data(self):
        data = read_image_file(self.images_file)
        targets = read_idx(self.labels_file, expected_magic=0x00000C02).astype(np.int64)  # int32 (N, 8)
        _same_length(data, targets, self.images_file, self.labels_file)
        if self.what == "test10k":
            data, targets = data[:10000].clone(), targets[:10000]
        elif self.what == "test50k":
            data, targets = data[10000:].clone(), targets[10000:]
        return data, Tensor._wrap(np.ascontiguousarray(targets))

    def _offline_hint(self):
        names = ", ".join(os.path.basename(url) for url, _ in self.resources[self.subsets[self.what]])
        return f"Without network access, place {names} in {self.raw_folder} and use download=True to unpack them"

    def download(self):
        if self._check_exists():
            return
        for url, checksum in self.resources[self.subsets[self.what]]:
            try:
                download_and_extract_archive(url, self.raw_folder, md5=checksum)
            except DownloadError as e:
                raise DownloadError(f"{e}\n{self._offline_hint()}", url=url, reason=e.reason) from None

    def __getitem__(self, index):
        row = self.targets[index]
        return self._transformed(_image(self.data[index].numpy(), "L"), int(row[0]) if self.compat else row)

    def extra_repr(self):
        return f"Split: {self.what}"
