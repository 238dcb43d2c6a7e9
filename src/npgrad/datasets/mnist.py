"""MNIST and Fashion-MNIST, read from their four original IDX gzip files (torchvision's API).

Differences from torchvision, which has PIL to hand out images: with no ``transform``, an image is a
float32 Tensor of shape (1, 28, 28) scaled to [0, 1], exactly what torchvision's ``ToTensor()`` would
make of it, and a ``transform`` receives that tensor. For fast, vectorised use skip ``__getitem__``:
``.data`` is the uint8 Tensor (N, 28, 28) of all images and ``.targets`` the int64 Tensor (N,) of labels.
"""
import numpy as np

from ..tensor import Tensor
from .download import fetch_files, md5sum
from .idx import IDXError, read_idx

__all__ = ["MNIST", "FashionMNIST"]

_IMAGES_MAGIC = 0x00000803  # unsigned bytes, 3 dimensions
_LABELS_MAGIC = 0x00000801  # unsigned bytes, 1 dimension

try:  # subclass torch.utils.data.Dataset once npgrad has it; duck typing works either way
    from ..utils.data import Dataset as _Base
except ImportError:  # pragma: no cover - depends on the state of npgrad.utils.data
    _Base = object


class MNIST(_Base):
    """The MNIST handwritten digits: 60,000 training and 10,000 test images, 28x28, labels 0-9.

    Args:
        root: a folder holding the four ``*-ubyte.gz`` files (or their unpacked forms), directly or in a
            ``mnist/`` subfolder; when None (or when they are not there) ``$NPGRAD_DATA`` and then
            ``~/.cache/npgrad`` are searched too (see ``npgrad.datasets.download``).
        train: the 60,000 training images if True, the 10,000 test images if False.
        transform: called on each image (a float32 Tensor (1, 28, 28) in [0, 1]).
        target_transform: called on each label (a Python int).
        download: download the files (md5-checked) when they are not found anywhere.
    """

    mirrors = [
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "http://yann.lecun.com/exdb/mnist/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    # Folders (inside root, $NPGRAD_DATA, the cache) where the files may sit; the first one is where a
    # download goes. The second is torchvision's layout, so an existing torchvision download is reused.
    subdirs = ("mnist", "MNIST/raw")
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
               "7 - seven", "8 - eight", "9 - nine"]
    image_size = (28, 28)

    def __init__(self, root=None, train=True, transform=None, target_transform=None, download=True):
        self.root = root
        self.train = bool(train)
        self.transform = transform
        self.target_transform = target_transform
        files = fetch_files(type(self).__name__, self.resources, self.mirrors, root=root,
                            subdirs=self.subdirs, download=download, reject=self._foreign_file)
        prefix = "train" if self.train else "t10k"
        images = read_idx(files[f"{prefix}-images-idx3-ubyte.gz"], _IMAGES_MAGIC)
        labels = read_idx(files[f"{prefix}-labels-idx1-ubyte.gz"], _LABELS_MAGIC)
        self._check(images, labels, files, prefix)
        self.data = Tensor._wrap(images)
        self.targets = Tensor._wrap(labels.astype(np.int64))

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

    def _check(self, images, labels, files, prefix):
        img_path = files[f"{prefix}-images-idx3-ubyte.gz"]
        if images.shape[1:] != self.image_size:
            raise IDXError(f"{img_path}: images are {images.shape[1]}x{images.shape[2]}, expected "
                           f"{self.image_size[0]}x{self.image_size[1]}")
        if images.shape[0] != labels.shape[0]:
            raise IDXError(f"{img_path} holds {images.shape[0]} images but "
                           f"{files[f'{prefix}-labels-idx1-ubyte.gz']} holds {labels.shape[0]} labels")
        if labels.size and labels.max() >= len(self.classes):
            raise IDXError(f"{files[f'{prefix}-labels-idx1-ubyte.gz']}: label {int(labels.max())} is out of "
                           f"range for {len(self.classes)} classes")

    def __len__(self):
        return self.data._data.shape[0]

    def __getitem__(self, index):
        index = int(index)
        img = self.data._data[index].astype(np.float32)
        img *= np.float32(1 / 255)
        img = Tensor._wrap(img.reshape((1,) + self.image_size))
        target = int(self.targets._data[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __repr__(self):
        lines = [f"Dataset {type(self).__name__}",
                 f"    Number of datapoints: {len(self)}",
                 f"    Root location: {self.root}",
                 f"    Split: {'Train' if self.train else 'Test'}"]
        if self.transform is not None:
            lines.append(f"    Transform: {self.transform!r}")
        if self.target_transform is not None:
            lines.append(f"    Target transform: {self.target_transform!r}")
        return "\n".join(lines)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: the same format and sizes as MNIST, 10 kinds of clothing instead of digits."""

    mirrors = [
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
        "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    subdirs = ("fashion_mnist", "FashionMNIST/raw")
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
