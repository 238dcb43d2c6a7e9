"""torch.autograd's API: backward/grad, Function, grad mode, gradcheck, anomaly detection."""
import sys as _sys
import types as _types

from .function import Function, FunctionCtx, Op, once_differentiable  # noqa: F401
from .engine import backward, grad  # noqa: F401
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,  # noqa: F401
                        is_inference_mode_enabled)
from .anomaly import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,  # noqa: F401
                      is_anomaly_check_nan_enabled)
from . import graph  # noqa: F401


def __getattr__(name):
    # functional and gradcheck load on first use (import time). `npgrad.autograd.gradcheck` is then the
    # function, as in PyTorch, while `from npgrad.autograd.gradcheck import GradcheckError` still finds
    # the module in sys.modules. importlib (not `from . import`) so this hook is not re-entered.
    import importlib
    if name in ("functional", "forward_ad", "profiler"):
        return importlib.import_module("." + name, __name__)
    if name in ("gradcheck", "gradgradcheck", "GradcheckError"):
        module = importlib.import_module(".gradcheck", __name__)
        for n in ("gradcheck", "gradgradcheck", "GradcheckError"):
            globals()[n] = getattr(module, n)
        return globals()[name]
    raise AttributeError(f"module 'npgrad.autograd' has no attribute '{name}'")


class _Package(_types.ModuleType):
    """This package's module type: importing the ``gradcheck`` submodule (``from npgrad.autograd.gradcheck import
    GradcheckError``, before anything read the attribute) makes the import system set the package attribute to
    the module; here it becomes the function, as in PyTorch, whose package imports it eagerly."""

    def __setattr__(self, name, value):
        if name == "gradcheck" and isinstance(value, _types.ModuleType):
            for n in ("gradcheck", "gradgradcheck", "GradcheckError"):
                super().__setattr__(n, getattr(value, n))
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
