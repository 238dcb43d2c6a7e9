"""Padding modules (constant, zero, reflection, replication, circular) over F.pad."""
from .. import functional as F
from .._functional._utils import _ntuple
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    """Pads the last ``n`` dimensions; ``padding`` is an int or a (left, right[, top, bottom ...]) tuple."""

    mode = "constant"
    n = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self.n, "_pad")(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    n = 1


class ConstantPad2d(_ConstantPadNd):
    n = 2


class ConstantPad3d(_ConstantPadNd):
    n = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    n = 1


class ZeroPad2d(_ZeroPadNd):
    n = 2


class ZeroPad3d(_ZeroPadNd):
    n = 3


class ReflectionPad1d(_PadNd):
    mode, n = "reflect", 1


class ReflectionPad2d(_PadNd):
    mode, n = "reflect", 2


class ReflectionPad3d(_PadNd):
    mode, n = "reflect", 3


class ReplicationPad1d(_PadNd):
    mode, n = "replicate", 1


class ReplicationPad2d(_PadNd):
    mode, n = "replicate", 2


class ReplicationPad3d(_PadNd):
    mode, n = "replicate", 3


class CircularPad1d(_PadNd):
    mode, n = "circular", 1


class CircularPad2d(_PadNd):
    mode, n = "circular", 2


class CircularPad3d(_PadNd):
    mode, n = "circular", 3
