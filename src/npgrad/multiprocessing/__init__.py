"""torch.multiprocessing: Python's :mod:`multiprocessing` (everything it exports, unchanged), PyTorch's
``spawn``/``start_processes`` with ``ProcessContext`` and its exceptions, and the sharing-strategy settings.

npgrad tensors pickle by value (their NumPy array, dtype and ``requires_grad``), so a tensor put on a Queue
arrives intact in the other process as a copy; whichever sharing strategy is set, nothing is shared in place.
"""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

# The strategies PyTorch offers per platform (file_system alone on macOS and Windows), the first its default, so
# code that checks for "file_system" takes the same branch. Only the setting exists: tensors pickle by value.
_STRATEGIES = ("file_system",) if sys.platform in ("darwin", "win32") else ("file_descriptor", "file_system")
_strategy = [_STRATEGIES[0]]


def set_sharing_strategy(new_strategy):
    """Set the strategy for sharing CPU tensors: one of :func:`get_all_sharing_strategies`."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{get_all_sharing_strategies()}")
    _strategy[0] = new_strategy


def get_sharing_strategy():
    """Return the current strategy for sharing CPU tensors."""
    return _strategy[0]


def get_all_sharing_strategies():
    """Return a set of sharing strategies supported on a current system."""
    return set(_STRATEGIES)
