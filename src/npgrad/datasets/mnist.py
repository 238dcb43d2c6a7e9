"""MNIST and Fashion-MNIST for npgrad's own tools: ``npgrad.vision.datasets``' classes, found anywhere.

These are the torchvision datasets of ``npgrad.vision.datasets`` (same reader, same ``data``/``targets``),
with two conveniences for scripts and ``npgrad train``:

* the files are looked for in ``root``, ``$NPGRAD_DATA`` and ``~/.cache/npgrad``, each directly or in a
  ``mnist/`` (``fashion_mnist/``) or torchvision's ``MNIST/raw/`` subfolder, gzipped or not, and
  downloaded (md5-checked) into the first of those when missing (``download=True`` by default);
* with no ``transform``, a sample is the float32 Tensor (1, 28, 28) in [0, 1] that torchvision's
  ``ToTensor()`` makes of the image, not a PIL image, so no Pillow is needed; a ``transform`` gets
  that Tensor. For vectorised use, ``.data`` (uint8, (N, 28, 28)) and ``.targets`` (int64) hold all.
"""
import numpy as np

from ..tensor import Tensor
from ..vision import datasets as _vision
from ..vision.datasets.vision import VisionDataset
from .download import fetch_files, md5sum
from .idx import IDXError

__all__ = ["MNIST", "FashionMNIST"]


class _Anywhere:
    """What npgrad's loaders add to a torchvision MNIST-format class (see the module docstring)."""

    subdirs = ()
    image_size = (28, 28)

    def __init__(self, root=None, train=True, transform=None, target_transform=None, download=True):
        VisionDataset.__init__(self, root, None, transform, target_transform)
        self.train = bool(train)
        found = fetch_files(type(self).__name__, self.resources, self.mirrors, root=root, subdirs=self.subdirs,
                            download=download, reject=self._foreign_file)
        prefix = "train" if self.train else "t10k"
        self._files = (found[f"{prefix}-images-idx3-ubyte.gz"], found[f"{prefix}-labels-idx1-ubyte.gz"])
        self.data, self.targets = self._load_data()
        self._check_contents()

    def _raw_files(self):  # read where the files were found, not only in torchvision's raw_folder
        return self._files

    @classmethod
    def _foreign_file(cls, path):
        """Why ``path`` must not be used: it is, byte for byte, another dataset's file of the same name.

        MNIST and Fashion-MNIST name their files identically, so a folder of one would otherwise be
        read silently as the other. Files with unknown checksums (recompressed, synthetic) are accepted.
        """
        if not path.endswith(".gz"):
            return None
        digest = md5sum(path)
        for other in (MNIST, FashionMNIST):
            if other is not cls and digest in {m for _, m in other.resources}:
                return f"{path} is {other.__name__}'s file, not {cls.__name__}'s"
        return None

    def _check_contents(self):
        images, labels = self._files
        height, width = self.data.shape[1:]
        if (height, width) != self.image_size:
            raise IDXError(f"{images}: images are {height}x{width}, expected {self.image_size[0]}x{self.image_size[1]}")
        top = int(self.targets.max()) if len(self.targets) else -1
        if top >= len(self.classes):
            raise IDXError(f"{labels}: label {top} is out of range for {len(self.classes)} classes")

    def __getitem__(self, index):
        pixels = self.data.numpy()[int(index)]
        # ToTensor's arithmetic: uint8 -> float32, divided by 255
        img = Tensor._wrap((pixels.astype(np.float32) / np.float32(255)).reshape((1,) + self.image_size))
        return self._transformed(img, int(self.targets[index]))


class MNIST(_Anywhere, _vision.MNIST):
    __doc__ = _vision.MNIST.__doc__.split("\n")[0] + "\n\n    Found, downloaded and served as described in " \
        "``npgrad.datasets.mnist``."
    # Where a download goes first; then torchvision's layout, so an existing torchvision root is reused.
    subdirs = ("mnist", "MNIST/raw")


class FashionMNIST(_Anywhere, _vision.FashionMNIST):
    __doc__ = _vision.FashionMNIST.__doc__.split("\n")[0] + "\n\n    Found, downloaded and served as described " \
        "in ``npgrad.datasets.mnist``."
    mirrors = _vision.FashionMNIST.mirrors + [
        "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/",
    ]
    subdirs = ("fashion_mnist", "FashionMNIST/raw")
