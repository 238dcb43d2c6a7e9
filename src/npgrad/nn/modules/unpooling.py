"""MaxUnpool1d/2d/3d and FractionalMaxPool2d/3d."""
from .. import functional as F
from .._functional._utils import _pair, _single, _triple
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]


class _MaxUnpoolNd(Module):
    """The unpooling layers (a subclass gives ``_ntuple`` and ``_unpool``, the functional form)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._ntuple
        self.kernel_size = n(kernel_size)
        self.stride = n(stride if stride is not None else kernel_size)
        self.padding = n(padding)

    def forward(self, input, indices, output_size=None):
        return self._unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _ntuple = staticmethod(_single)
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    _ntuple = staticmethod(_pair)
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    _ntuple = staticmethod(_triple)
    _unpool = staticmethod(F.max_unpool3d)


class _FractionalMaxPoolNd(Module):
    """FractionalMaxPool2d/3d: ``_random_samples`` (a buffer, None by default) fixes the windows; without it each
    forward draws new ones from npgrad's generator."""

    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        n = self._ntuple
        self.kernel_size = n(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = n(output_size) if output_size is not None else None
        self.output_ratio = n(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                          _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _ntuple = staticmethod(_pair)
    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _ntuple = staticmethod(_triple)
    _pool = staticmethod(F.fractional_max_pool3d)
