"""The base class of nn's fused operators.

It is the autograd ``Op`` plus one thing: forward passes often keep large intermediates as ctx attributes
(im2col windows, softmax probabilities, the normalized input ...) for a fast array backward. PyTorch frees
saved tensors once backward has used them; so does this class, dropping those attributes when the engine
releases the node's saved values (not under ``retain_graph=True``). Reading one afterwards raises
PyTorch's "backward through the graph a second time" error.
"""
from ...autograd import function as _function
from ...autograd.function import Op as _CoreOp

_FREED_MSG = getattr(_function, "_FREED_MSG", "Trying to backward through the graph a second time (or directly access "
                     "saved tensors after they have already been freed). Specify retain_graph=True if you need to "
                     "backward through the graph a second time.")

__all__ = ["Op"]


class _FreedError(RuntimeError, AttributeError):
    """A RuntimeError for users, and an AttributeError for ``getattr(node, name, default)``."""


class Op(_CoreOp):
    __slots__ = ()
    # An empty tuple rather than None: the engine releases a node only if it saved something, and these
    # nodes always hold something worth releasing (their ctx attributes).
    _saved = ()

    def _release(self):
        _CoreOp._release(self)
        d = self.__dict__
        for name in [k for k in d if not k.startswith("_")]:  # the engine's own fields start with "_"
            del d[name]
        self._released = True

    def __getattr__(self, name):
        if not name.startswith("_") and self.__dict__.get("_released", False):
            raise _FreedError(_FREED_MSG)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
