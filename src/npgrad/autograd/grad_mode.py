"""Grad mode: whether operations record the graph. Thread-local, nestable, usable as decorators."""
import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _State(threading.local):
    # Class attributes are the defaults every new thread starts from.
    enabled = True
    inference = False


state = _State()


def is_grad_enabled():
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """A context manager that sets grad mode on entry and restores the previous mode on exit.

    Instances also decorate functions; ``@no_grad`` and ``@no_grad()`` both work, as in PyTorch.
    """

    enabled = False    # the grad mode inside the block
    inference = False

    def __new__(cls, *args):
        self = object.__new__(cls)
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool):
            return self(args[0])
        return self

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        state.enabled, state.inference = self.enabled, self.inference
        return self

    def __exit__(self, *exc):
        state.enabled, state.inference = self._prev
        return False

    def __call__(self, fn):
        enabled, inference = self.enabled, self.inference

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = (state.enabled, state.inference)
            state.enabled, state.inference = enabled, inference
            try:
                return fn(*args, **kwargs)
            finally:
                state.enabled, state.inference = prev
        return wrapper


class no_grad(_Mode):
    """Operations inside record no graph: results have ``requires_grad=False``."""


class enable_grad(_Mode):
    """Re-enables recording inside a ``no_grad`` block."""

    enabled = True


class set_grad_enabled(_Mode):
    """``set_grad_enabled(False)`` takes effect at once as a call, and is undone on leaving a ``with``."""

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.enabled = bool(mode)
        self._prev = (state.enabled, state.inference)
        state.enabled = self.enabled

    def __enter__(self):
        return self  # the mode was already set by the constructor

    def __call__(self, fn):
        state.enabled, state.inference = self._prev  # as a decorator it must not change the mode now
        return super().__call__(fn)


class inference_mode(_Mode):
    """Like ``no_grad`` (npgrad has no separate inference tensors); ``inference_mode(False)`` changes nothing."""

    def __init__(self, mode=True):
        if not mode:
            self.enabled, self.inference = state.enabled, state.inference
        else:
            self.inference = True

    def __enter__(self):
        if self.inference:
            return super().__enter__()
        self._prev = (state.enabled, state.inference)
        return self
