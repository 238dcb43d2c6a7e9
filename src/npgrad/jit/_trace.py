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
from ._script import ScriptFunction, ScriptModule, _deprecated, _script_module

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


def _run(fn, args, kwargs, times):
    # The first run is the trace; PyTorch's check retraces, replays the record and reruns the Python code,
    # three more evaluations per check input. Those have no graph to build here.
    _tracing[0] += 1
    try:
        fn(*args, **kwargs)
    finally:
        _tracing[0] -= 1
    with no_grad():
        for _ in range(times - 1):
            fn(*args, **kwargs)


def _checks(check_trace, check_inputs):
    if not check_trace:
        return 0
    return 1 if check_inputs is None else len(check_inputs)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """``torch.jit.trace``: runs ``func`` on the example inputs and returns it as a traced module (a copy that
    shares the module's tensors) or a ScriptFunction; either runs the eager code when called."""
    if isinstance(func, (ScriptModule, ScriptFunction)):
        return func
    if example_inputs is None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    _deprecated("trace")
    if inspect.ismethod(func) and isinstance(func.__self__, Module) and func.__name__ == "forward":
        func = func.__self__
    if isinstance(func, Module):
        inputs = example_inputs if example_inputs is not None else example_kwarg_inputs
        return trace_module(func, {"forward": inputs}, None, check_trace, [(c,) if not isinstance(c, tuple)
                                                                          else c for c in check_inputs]
                            if check_inputs is not None else None, check_tolerance, strict, _force_outplace,
                            _module_class, _compilation_unit, example_inputs_is_kwarg=example_inputs is None,
                            _store_inputs=_store_inputs, _trace_checks=True)
    args, kwargs = (_as_args(example_inputs), {}) if example_inputs is not None else ((), example_kwarg_inputs)
    _run(func, args, kwargs, 1)
    for _ in range(_checks(check_trace, check_inputs)):
        _deprecated("trace")
        _run(func, args, kwargs, 3)
    return ScriptFunction(func)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True, _trace_checks=False):
    """``torch.jit.trace_module``: runs each named method on its example inputs and returns the module as a
    TopLevelTracedModule (a copy sharing its tensors) whose methods run the eager code."""
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for name, example in inputs.items():
        method = getattr(mod, name)
        if example_inputs_is_kwarg:
            args, kwargs = (), example
        else:
            args, kwargs = _as_args(example), {}
        _deprecated("trace_method")
        _run(method, args, kwargs, 1)
        # PyTorch's check after trace() reruns the module three times per check input; trace_module's own
        # check is not repeated here (it runs the methods a different number of times per method).
        if _trace_checks:
            for check in (check_inputs if check_trace and check_inputs is not None else [None] * check_trace):
                _deprecated("trace_method")
                c_args = args if check is None else check
                _run(method, c_args, kwargs if check is None else {}, 3)
    return _script_module(mod, TopLevelTracedModule, {}, TracedModule, warn=False)
