"""nn.Container: the deprecated predecessor of Module's own child-module support, kept as PyTorch keeps it."""
import warnings

from .module import Module

__all__ = ["Container"]


class Container(Module):
    """A Module holding the modules passed as keyword arguments (FutureWarning: subclass Module instead)."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
