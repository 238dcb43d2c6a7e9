"""torch.autograd's API: backward/grad, Function, grad mode, gradcheck, anomaly detection."""
from .function import Function, FunctionCtx, Op, once_differentiable  # noqa: F401
from .engine import backward, grad  # noqa: F401
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,  # noqa: F401
                        is_inference_mode_enabled)
from .anomaly import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,  # noqa: F401
                      is_anomaly_check_nan_enabled)
from . import graph  # noqa: F401


def __getattr__(name):
    # gradcheck imports the operators, which import this package: load it on first use.
    if name in ("gradcheck", "gradgradcheck", "GradcheckError"):
        import importlib
        mod = importlib.import_module(".gradcheck", __name__)
        # The import binds the submodule as `gradcheck`; the name must mean the function, as in PyTorch.
        g = globals()
        g["gradcheck"], g["gradgradcheck"], g["GradcheckError"] = mod.gradcheck, mod.gradgradcheck, mod.GradcheckError
        return g[name]
    if name == "functional":
        import importlib  # not `from . import functional`: that looks the name up here again
        return importlib.import_module(".functional", __name__)
    raise AttributeError(f"module 'npgrad.autograd' has no attribute '{name}'")
