"""Attach an operator to Tensor as a method: ``@tensor_method()`` on ``def exp(input)`` gives ``x.exp()``."""
from ..tensor import Tensor


def tensor_method(*names):
    """Register the decorated function as Tensor method(s); by default under its own name."""
    def register(fn):
        for name in names or (fn.__name__,):
            setattr(Tensor, name, fn)
        return fn
    return register
