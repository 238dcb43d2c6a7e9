"""Padding modules (constant, zero, reflection, replication, circular) over F.pad."""
from .. import functional as F
from .._functional._utils import _ntuple
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
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


def _make(name, base, mode, n):
    cls = type(name, (base,), {"mode": mode, "n": n, "__module__": __name__})
    globals()[name] = cls
    return cls


for _n, _d in ((1, "1d"), (2, "2d"), (3, "3d")):
    _make("ConstantPad" + _d, _ConstantPadNd, "constant", _n)
    _make("ReflectionPad" + _d, _PadNd, "reflect", _n)
    _make("ReplicationPad" + _d, _PadNd, "replicate", _n)
    _make("CircularPad" + _d, _PadNd, "circular", _n)


class ZeroPad1d(ConstantPad1d):  # noqa: F821
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):  # noqa: F821
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):  # noqa: F821
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
