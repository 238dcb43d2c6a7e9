"""torch.autograd's API: backward/grad, Function, grad mode, gradcheck, anomaly detection."""
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
