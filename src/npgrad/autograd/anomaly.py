"""Anomaly detection: remember where each node was created, and fail loudly on NaN gradients."""
import os
import threading
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_anomaly_enabled"]


class _State(threading.local):
    enabled = False
    check_nan = True


_state = _State()
# True once any thread has turned anomaly mode on: the per-op path reads this plain flag first and only
# then the thread-local state, so recording stays cheap for everyone who never uses anomaly mode.
any_enabled = [False]


def enabled():
    return _state.enabled


is_anomaly_enabled = enabled


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_anomaly_check_nan_enabled():
    return _state.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled``: set_detect_anomaly's switch without the context manager."""
    for i, (name, value) in enumerate((("enabled", enabled), ("check_nan", check_nan))):
        if not isinstance(value, bool):
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {i + 1}) must be bool, not "
                            f"{type(value).__name__}")
    _state.enabled, _state.check_nan = enabled, check_nan
    any_enabled[0] = any_enabled[0] or enabled


def creation_trace():
    """The stack of the forward call that is creating a node, up to the user's line (npgrad's own
    frames at the top are dropped, as PyTorch shows only the caller's)."""
    import traceback  # (anomaly mode only: ~2 ms of npgrad's import otherwise)
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PKG_DIR):
        frames.pop()
    return "".join(traceback.format_list(frames))


def warn_error_in(node):
    """PyTorch's warning when a node's backward fails under anomaly mode: where its forward ran."""
    trace = node._trace
    if trace:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                      + trace, UserWarning, stacklevel=2)


class set_detect_anomaly:
    """Turn anomaly detection on or off; as a call it takes effect at once, as a context it is undone."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = bool(mode), bool(check_nan)
        any_enabled[0] = any_enabled[0] or bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
        return False


class detect_anomaly:
    """Context manager: nodes record their creation stack, and backward raises on NaN gradients."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = True, self.check_nan
        any_enabled[0] = True
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


def check_nan(node, grads, data_of):
    """Raise naming the node and where its forward ran if any gradient it produced has a NaN."""
    if not _state.check_nan:
        return
    import numpy as np
    for i, g in enumerate(grads):
        if g is None:
            continue
        arr = data_of(g)
        if arr.dtype.kind in "fc" and np.isnan(arr).any():
            trace = node._trace
            msg = f"Function '{node.name()}' returned nan values in its {i}th output."
            if trace:
                msg += "\nTraceback of the forward call that created this node:\n" + trace
            raise RuntimeError(msg)
