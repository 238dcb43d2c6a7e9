"""Tensor methods and ``npgrad.*`` functions that PyTorch code reaches for and that are implemented here
(x.softmax(dim), torch.erf ...). Each is attached only if the core does not already define it."""
import sys

from ..tensor import Tensor
from ._functional import erf as _erf
from ._functional import softmax as _softmax


def _softmax_method(self, dim, dtype=None):
    return _softmax.softmax(self, dim, dtype=dtype)


def _log_softmax_method(self, dim, dtype=None):
    return _softmax.log_softmax(self, dim, dtype=dtype)


_METHODS = {"softmax": _softmax_method, "log_softmax": _log_softmax_method, "erf": _erf.erf, "erfc": _erf.erfc}
_FUNCTIONS = {"softmax": _softmax_method, "log_softmax": _log_softmax_method, "erf": _erf.erf, "erfc": _erf.erfc}


def _inplace_of(name):
    from ..ops.inplace import inplace

    def method(self, *args, **kwargs):
        return inplace(self, getattr(Tensor, name), *args, **kwargs)
    method.__name__ = name + "_"
    return method


def attach():
    root = sys.modules[__name__.split(".")[0]]
    for name, fn in _METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
        if name in ("erf", "erfc") and not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_of(name))
    for name, fn in _FUNCTIONS.items():
        if not hasattr(root, name):
            setattr(root, name, fn)
