"""The Street View House Numbers, cropped-digits format: ``root/{train,test,extra}_32x32.mat``.

Reading the MATLAB files needs SciPy, imported when a dataset is built.
"""
import os

import numpy as np

from .utils import DownloadError, check_integrity, download_url, verify_str_arg
from .vision import VisionDataset, _image

__all__ = ["SVHN"]


class SVHN(VisionDataset):
    """32x32 RGB crops of house-number digits; label 10 in the files (the digit 0) is served as 0.

    ``data`` is the uint8 array (N, 3, 32, 32) and ``labels`` the int64 array (N,).
    """

    split_list = {
        "train": ["http://ufldl.stanford.edu/housenumbers/train_32x32.mat", "train_32x32.mat",
                  "e26dedcc434d2e4c54c9b2d4a06d8373"],
        "test": ["http://ufldl.stanford.edu/housenumbers/test_32x32.mat", "test_32x32.mat",
                 "eb5a983be6a315427106f1b164d9cef3"],
        "extra": ["http://ufldl.stanford.edu/housenumbers/extra_32x32.mat", "extra_32x32.mat",
                  "a93ce644f1a588dc4d68dda5feec44a7"],
    }

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False):
        super().__init__(root, None, transform, target_transform)
        self.split = verify_str_arg(split, "split", tuple(self.split_list))
        self.url, self.filename, self.file_md5 = self.split_list[split]
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError("SVHN reads MATLAB files through SciPy, which is not installed: pip install scipy") \
                from None
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        mat = loadmat(os.path.join(self.root, self.filename))
        # X is (H, W, C, N) in the file; kept as (N, C, H, W)
        self.data = np.ascontiguousarray(mat["X"].transpose(3, 2, 0, 1))
        self.labels = mat["y"].reshape(-1).astype(np.int64) % 10

    def __getitem__(self, index):
        return self._transformed(_image(self.data[index].transpose(1, 2, 0)), int(self.labels[index]))

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        return check_integrity(os.path.join(self.root, self.filename), self.file_md5)

    def download(self):
        try:
            download_url(self.url, self.root, self.filename, self.file_md5)
        except DownloadError as e:
            raise DownloadError(f"{e}\nWithout network access, place {self.filename} (md5 {self.file_md5}) in "
                                f"{self.root}", url=self.url, reason=e.reason) from None

    def extra_repr(self):
        return "Split: " + self.split
