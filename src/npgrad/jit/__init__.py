"""torch.jit over eager code: what programs call, computing what the Python they decorate computes.

npgrad has no TorchScript compiler or interpreter. ``script`` and ``trace`` return objects of PyTorch's
types (ScriptFunction, RecursiveScriptModule, TopLevelTracedModule) that run the original Python, so a
decorated function or module gives the eager values and gradients. The decorators (``ignore``, ``unused``,
``export``, ``interface``) only mark code for a compiler, so they return what they decorate. Because no
TorchScript runs, ``is_scripting()`` is always False. TorchScript archives (``torch.jit.save``/``load``,
``ScriptModule.save``) are absent: reading their names says so and what to use instead.
"""
import builtins
import threading
import typing

from ._script import (NO_ARCHIVE, Attribute, RecursiveScriptModule, ScriptFunction, ScriptModule, freeze,
                      optimize_for_inference, script, script_method)
from ._types import jit_isinstance as isinstance  # noqa: A001 - torch.jit.isinstance; builtins' below
from ._trace import (TopLevelTracedModule, TracedModule, TracerWarning, TracingCheckError, is_tracing, trace,
                     trace_module)

__all__ = ["Attribute", "Error", "Final", "Future", "RecursiveScriptModule", "ScriptFunction", "ScriptModule",
           "ScriptWarning", "TopLevelTracedModule", "TracedModule", "TracerWarning", "TracingCheckError", "annotate",
           "export", "fork", "freeze", "ignore", "interface", "is_scripting", "isinstance", "is_tracing",
           "optimize_for_inference", "script", "script_if_tracing", "script_method", "trace", "trace_module", "unused",
           "wait"]

Final = typing.Final


class Error(Exception):
    """The error TorchScript code raises (``torch.jit.Error``)."""


class ScriptWarning(Warning):
    pass


def annotate(the_type, the_value):
    """Tells the TorchScript compiler a value's type; in Python it is the value."""
    return the_value


def is_scripting():
    """Whether TorchScript is running the caller: never in npgrad, which runs every function as Python."""
    return False


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: leave a function to Python. It is Python here."""
    if callable(drop):
        return drop
    if not builtins.isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    return lambda fn: fn


def unused(fn):
    """``@torch.jit.unused``: a method the compiler replaces by a raise; called from Python it runs."""
    return fn


def export(fn):
    """``@torch.jit.export``: compile this method too. Every method runs here, so it is the method, marked:
    a traced module with exported methods is scripted, as PyTorch does."""
    fn._npgrad_jit_export = True
    return fn


def interface(obj):
    """``@torch.jit.interface``: a class used as a TorchScript interface type, returned as it is."""
    if not builtins.isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    from ..nn import Module
    if obj.__mro__[1:] not in ((object,), (Module, object)):
        raise RuntimeError("TorchScript interface does not support inheritance yet. Please directly inherit from "
                           "'object' or 'nn.Module'.")
    return obj


def script_if_tracing(fn):
    """Compile ``fn`` only when a trace calls it: a plain call here."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


_T = typing.TypeVar("_T")


class Future(typing.Generic[_T]):
    """The result of ``torch.jit.fork``: its value (or exception) is set once; ``wait`` blocks until then."""

    def __init__(self, *, devices=None):
        self._done = threading.Event()
        self._value = self._error = None
        self._callbacks = []

    def done(self):
        return self._done.is_set()

    def wait(self):
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        if self._error is not None:
            raise self._error
        return self._value

    def _finish(self):
        self._done.set()
        for cb in self._callbacks:
            cb(self)

    def set_result(self, result):
        if self.done():
            raise RuntimeError("Future can only be marked completed once.")
        self._value = result
        self._finish()

    def set_exception(self, result):
        if not builtins.isinstance(result, Exception):
            raise TypeError(f"{result} is of type {type(result)}, not an Exception.")
        if self.done():
            raise RuntimeError("Future can only be marked completed once.")
        self._error = result
        self._finish()

    def add_done_callback(self, callback):
        if self.done():
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback):
        out = Future()

        def chain(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:
                out.set_exception(e)
        self.add_done_callback(chain)
        return out


def fork(func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` as an asynchronous task. Outside TorchScript PyTorch runs it at once, in
    the caller (an exception propagates from fork), and so does npgrad."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The value of a Future from ``fork``, once it is done."""
    return future.wait()


def __getattr__(name):
    if name in ("save", "load", "save_jit_module_to_flatbuffer", "jit_module_from_flatbuffer"):
        raise AttributeError(f"module 'npgrad.jit' has no attribute '{name}': {NO_ARCHIVE}")
    raise AttributeError(f"module 'npgrad.jit' has no attribute '{name}'")
