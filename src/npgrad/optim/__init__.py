"""Optimizers and learning-rate schedulers with torch.optim's API."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .muon import Muon  # noqa: F401
from ._swap_in import swap_in_optimizer_params_and_state  # noqa: F401
from . import lr_scheduler  # noqa: F401,E402

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "SparseAdam", "lr_scheduler",
           "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS", "Adafactor", "Muon", "swa_utils",
           "swap_in_optimizer_params_and_state"]


def __getattr__(name):
    # swa_utils needs npgrad.nn (AveragedModel is a Module): load it on first use, not with every optimizer
    if name == "swa_utils":
        import importlib
        return importlib.import_module(".swa_utils", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
