"""The base class of nn's fused operators.

It is the autograd ``Op`` plus one thing: forward passes often keep large intermediates as ctx attributes
(im2col windows, softmax probabilities, the normalized input ...) for a fast array backward. PyTorch frees
saved tensors once backward has used them; so does this class, dropping every public ctx attribute when
the engine releases the node's saved values (not under ``retain_graph=True``). Using one afterwards raises
PyTorch's "backward through the graph a second time" error.
"""
from ...autograd.function import FREED
from ...autograd.function import Op as _CoreOp

__all__ = ["Op"]


class Op(_CoreOp):
    __slots__ = ()

    def _release(self):
        _CoreOp._release(self)
        d = self.__dict__
        names = [name for name in d if not name.startswith("_")]  # the engine's own fields start with "_"
        for name in names:
            d[name] = FREED
        if names:
            self._released = True
