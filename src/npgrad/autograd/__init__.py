"""torch.autograd's API: backward/grad, Function, grad mode, gradcheck, anomaly detection."""
from .function import Function, FunctionCtx, Op, once_differentiable  # noqa: F401
from .engine import backward, grad  # noqa: F401
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,  # noqa: F401
                        is_inference_mode_enabled)
from .anomaly import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,  # noqa: F401
                      is_anomaly_check_nan_enabled)
from . import graph  # noqa: F401
from . import functional  # noqa: F401
# Imported by name so that `npgrad.autograd.gradcheck` is the function (as in PyTorch), while
# `from npgrad.autograd.gradcheck import GradcheckError` still finds the module. Both modules import
# the operators lazily, inside their functions, so importing them here creates no cycle.
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: F401
