"""Neural-network building blocks with torch.nn's API: Module, Parameter, layers, functional, init, utils."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .modules.linear import NonDynamicallyQuantizableLinear  # noqa: F401
from . import functional, init, utils  # noqa: F401
from . import parameter  # noqa: F401
from . import modules  # noqa: F401


def __getattr__(name):
    # nn.parallel (DistributedDataParallel) loads on first use, with torch.distributed behind it.
    if name == "parallel":
        import importlib
        return importlib.import_module(".parallel", __name__)
    raise AttributeError(f"module 'npgrad.nn' has no attribute '{name}'")
