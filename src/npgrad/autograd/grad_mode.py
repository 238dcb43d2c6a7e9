"""Grad mode: whether operations record the graph. Thread-local, nestable, usable as decorators."""
import functools
import inspect
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

    Instances also decorate functions (``@no_grad`` and ``@no_grad()`` both work, as in PyTorch); a
    decorated generator runs each of its steps in the mode, and its caller keeps its own between steps.
    """

    enabled = False    # the grad mode inside the block
    inference = None   # the inference mode inside the block; None keeps the current one

    def __new__(cls, *args):
        self = object.__new__(cls)
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool):
            self.__init__()
            return self(args[0])
        return self

    def _target(self):
        return self.enabled, (state.inference if self.inference is None else self.inference)

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        state.enabled, state.inference = self._target()
        return self

    def __exit__(self, *exc):
        state.enabled, state.inference = self._prev
        return False

    def clone(self):
        return self.__class__()

    def __call__(self, fn):
        mode = self

        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                gen = fn(*args, **kwargs)
                step, arg = gen.send, None
                while True:
                    prev = (state.enabled, state.inference)
                    state.enabled, state.inference = mode._target()
                    try:
                        item = step(arg)
                    except StopIteration as stop:
                        return stop.value
                    finally:
                        state.enabled, state.inference = prev
                    try:
                        arg = yield item
                        step = gen.send
                    except GeneratorExit:
                        gen.close()
                        raise
                    except BaseException as e:  # thrown in by the caller: deliver it inside the mode
                        step, arg = gen.throw, e
            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = (state.enabled, state.inference)
            state.enabled, state.inference = mode._target()
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

    def clone(self):
        return self.__class__(self.enabled)

    def __call__(self, fn):
        state.enabled, state.inference = self._prev  # as a decorator it must not change the mode now
        return super().__call__(fn)


class inference_mode(_Mode):
    """Like ``no_grad`` (npgrad has no separate inference tensors). ``inference_mode(False)`` leaves
    inference mode and turns recording back on, as in PyTorch."""

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self.enabled, self.inference = (False, True) if self.mode else (True, False)

    def clone(self):
        return self.__class__(self.mode)
