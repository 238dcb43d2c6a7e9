"""torchvision.datasets on npgrad: the classic image-classification datasets in torchvision's on-disk layouts.

A root folder that torchvision filled works unchanged, ``download=True`` fetches the same files from the
same mirrors and checks the same md5s, and samples are the PIL images and targets torchvision gives for
the same files. Pillow is imported when a sample is built, SciPy only by ``SVHN``.
"""
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .stl10 import STL10
from .svhn import SVHN
from .vision import VisionDataset

__all__ = ["VisionDataset", "MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST", "CIFAR10", "CIFAR100", "SVHN",
           "STL10", "DatasetFolder", "ImageFolder", "FakeData"]
