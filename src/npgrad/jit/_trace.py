"""torch.jit.trace and trace_module over eager code.

PyTorch records the operations one run performs and replays that record; npgrad returns the eager code
itself, so a traced callable computes what the program computes for *every* input (PyTorch's replay
freezes the branches and shapes of the example run). The example run still happens, with
``is_tracing()`` true during it, and so do the extra runs of PyTorch's default check (``check_trace``):
their side effects (random draws, BatchNorm statistics in training mode) are the program's state.
"""
import inspect

from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..tensor import Tensor
from ._script import RecursiveScriptModule, ScriptFunction, ScriptModule, _deprecated, _script_module

__all__ = ["trace", "trace_module", "is_tracing", "TracedModule", "TopLevelTracedModule", "TracerWarning",
           "TracingCheckError"]

_tracing = [0]


def is_tracing():
    """True while ``torch.jit.trace`` runs the traced code on its example inputs."""
    return _tracing[0] > 0


class TracerWarning(Warning):
    """PyTorch's warning category for what a trace cannot record; programs filter it by name."""


class TracingCheckError(Exception):
    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        for part in (graph_diff_error, tensor_compare_error):
            if part is not None:
                self.message += part + "\n"
        super().__init__(self.message)


class TracedModule(ScriptModule):
    """A submodule of a traced module: printed under its original class name."""

    _original_class = Module

    @property
    def original_name(self):
        return self._original_class.__name__

    def _get_name(self):
        return self.original_name

    def extra_repr(self):
        return f"original_name={self.original_name}"


class TopLevelTracedModule(TracedModule):
    """What ``torch.jit.trace(module, ...)`` returns."""


def _as_args(example_inputs):
    return tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)


_ONLY = "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced functions"
_DICT = ("Encountering a dict at the output of the tracer might cause the trace to be incorrect, this is only valid "
         "if the container structure does not change based on the module's inputs. Consider using a constant "
         "container instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a `NamedTuple` instead). If "
         "you absolutely need this and know the side effects, pass strict=False to trace() to allow this behavior.")


def _check_output(out, strict, top=True):
    """Refuse, as PyTorch's tracer does, an output a trace could not record; npgrad would run it anyway."""
    if isinstance(out, Tensor):
        return
    if out is None and top:
        raise RuntimeError("The traced function didn't return any values! Side-effects are not captured in traces, "
                           "so it would be a no-op.")
    if isinstance(out, tuple):
        for item in out:
            _check_output(item, strict, False)
        return
    if isinstance(out, list):
        if all(isinstance(item, Tensor) for item in out):
            return
        if len({type(item) for item in out}) > 1 or any(isinstance(item, list) for item in out):
            raise RuntimeError(f"Tracer cannot infer type of {out}")
        raise RuntimeError(_ONLY)
    if isinstance(out, dict) and top:
        if strict:
            raise RuntimeError(_DICT)
        if all(isinstance(k, str) and not isinstance(v, dict) for k, v in out.items()):
            for v in out.values():
                _check_output(v, strict, False)
            return
    raise RuntimeError(_ONLY)


def _call(fn, example, as_kwargs, tracing):
    args, kwargs = ((), example) if as_kwargs else (_as_args(example), {})
    if tracing:
        _tracing[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _tracing[0] -= 1
    with no_grad():
        return fn(*args, **kwargs)


def _trace_runs(method_of, inputs, check_trace, check_inputs, as_kwargs, warning, strict):
    """Run what PyTorch runs: each method once to trace it; then, for each check input and each method, a
    retrace of every method, two runs of the record and one of the Python code. These are the program's
    random draws and BatchNorm updates (a trace whose check meets a random op stops earlier in PyTorch)."""
    def trace_all(examples):
        for name, example in examples.items():
            _deprecated(warning)
            _check_output(_call(method_of(name), example, as_kwargs, True), strict)
    trace_all(inputs)
    if not check_trace:
        return
    for check in (check_inputs if check_inputs is not None else [inputs]):
        for name, example in check.items():
            trace_all(check)
            for _ in range(3):
                _call(method_of(name), example, as_kwargs, False)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """``torch.jit.trace``: runs ``func`` on the example inputs and returns it as a traced module (a copy that
    shares the module's tensors) or a ScriptFunction; either runs the eager code when called."""
    if isinstance(func, (ScriptModule, ScriptFunction)):
        return func
    if example_inputs is None and not isinstance(example_kwarg_inputs, dict):
        if isinstance(func, Module):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        raise TypeError("'NoneType' object is not iterable")
    as_kwargs = example_inputs is None
    example = example_kwarg_inputs if as_kwargs else example_inputs
    if inspect.ismethod(func) and isinstance(func.__self__, Module) and func.__name__ == "forward":
        func = func.__self__
    checks = None if check_inputs is None else [{"forward": c} for c in check_inputs]
    if isinstance(func, Module):
        _deprecated("trace")
        return trace_module(func, {"forward": example}, None, check_trace, checks, check_tolerance, strict,
                            _force_outplace, _module_class, _compilation_unit, as_kwargs, _store_inputs)
    _trace_runs(lambda name: func, {"forward": example}, check_trace, checks, as_kwargs, "trace", strict)
    return ScriptFunction(func)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    """``torch.jit.trace_module``: runs each named method on its example inputs and returns the module as a
    TopLevelTracedModule (a copy sharing its tensors) whose methods run the eager code."""
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    _trace_runs(lambda name: getattr(mod, name), inputs, check_trace, check_inputs, example_inputs_is_kwarg,
                "trace_method", strict)
    if any(getattr(v, "_npgrad_jit_export", False) for k in type(mod).__mro__ for v in vars(k).values()):
        # PyTorch scripts a module that has exported methods, its traced forward beside them
        return _script_module(mod, RecursiveScriptModule, {}, warn=False)
    return _script_module(mod, TopLevelTracedModule, {}, TracedModule, warn=False)
