"""torch.nn.utils.skip_init: build a module without running its parameter initialisation."""
import inspect

from ... import random as _random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameters are left uninitialised (their values are unspecified).

    PyTorch builds the module on the meta device and allocates empty storage afterwards, so no random numbers
    are drawn. NumPy has no meta device; the module is built normally and the random state is put back, so the
    program's random stream is the one PyTorch's skip_init leaves: untouched."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    state = _random.get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
