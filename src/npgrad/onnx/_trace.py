"""Recording a forward pass: every Op the model runs, in order, with its arguments and its results.

The recorder is the function ``autograd.record`` calls for each Op while it is installed (``set_tracer``);
the export runs the model under ``no_grad``, so every Op goes through that one path. A few functions
compute tensors from a live input without an Op (comparisons, the boolean-mask-to-bias step of attention):
``intercepted`` wraps them for the duration of the recording so they are recorded as one step each.
"""
import contextlib

from ..autograd import record
from ..backends import kernels as _kernel_switch
from ..autograd.grad_mode import no_grad
from ..nn._functional import attention as _attention
from ..ops import _registry
from ..ops import inplace as _inplace
from ..tensor import Tensor


class Step:
    """One recorded operation: ``name`` (an Op class name, or an intercepted function's), the arguments
    as they were passed, and the output arrays."""

    __slots__ = ("name", "args", "outs", "alt")

    def __init__(self, name, args, outs):
        self.name, self.args, self.outs, self.alt = name, args, outs, None

    def __repr__(self):
        return f"Step({self.name!r}, outs={[None if o is None else o.shape for o in self.outs]})"


class Recorder:
    def __init__(self):
        self.steps = []
        self.depth = 0  # inside an intercepted function: its own inner Ops are part of its step

    def __call__(self, cls, args, out):
        if type(out) is tuple:
            res = tuple([Tensor._wrap(o) for o in out])
            outs = [t._data for t in res]
        else:
            res = Tensor._wrap(out)
            outs = [res._data]
        if not self.depth:
            self.steps.append(Step(cls.__name__, args, outs))
        return res

    def wrap(self, name, fn):
        """``fn`` recorded as one step called ``name``."""
        def recorded(*args, **kwargs):
            self.depth += 1
            try:
                res = fn(*args, **kwargs)
            finally:
                self.depth -= 1
            if not self.depth and isinstance(res, Tensor):
                self.steps.append(Step(name, args + tuple(kwargs.values()), [res._data]))
            return res
        recorded.__wrapped__ = fn
        return recorded


# Tensor methods (and their torch.* functions) that build a tensor without an Op: name -> step name.
_METHODS = {"eq": "eq", "__eq__": "eq", "ne": "ne", "__ne__": "ne", "lt": "lt", "__lt__": "lt", "le": "le",
            "__le__": "le", "gt": "gt", "__gt__": "gt", "ge": "ge", "__ge__": "ge", "logical_not": "logical_not",
            "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
            "__invert__": "bitwise_not", "bitwise_not": "bitwise_not", "__and__": "bitwise_and",
            "bitwise_and": "bitwise_and", "__or__": "bitwise_or", "bitwise_or": "bitwise_or"}


# In-place arithmetic outside the graph runs NumPy's ufunc on the array directly (ops/inplace.py's fast path);
# while recording it goes through the generic path instead: the out-of-place op, then the recorded write.
_ARITH_INPLACE = {"add_": "add", "sub_": "sub", "mul_": "mul", "div_": "div", "__iadd__": "add",
                  "__isub__": "sub", "__imul__": "mul", "__itruediv__": "div"}


def _generic_inplace(op_name):
    fn = _registry.OPS[op_name].fn

    def arith_(self, other, **kwargs):
        return _inplace.inplace(self, fn, other, **kwargs)
    return arith_


def _recorded_write(recorder, write):
    """ops/inplace.py's ``_write(t, r)`` (every in-place result lands in its tensor through it), recorded: from
    now on t's array holds the value r names."""
    def recorded(t, r):
        write(t, r)
        if not recorder.depth:
            name = "inplace_write" if t._view_of is None else "inplace_write_to_view"
            recorder.steps.append(Step(name, (t, r), [t._data]))
    return recorded


@contextlib.contextmanager
def recording(recorder):
    """Install ``recorder`` for the body: as the Op tracer, and around the functions that bypass Ops."""
    import npgrad
    from .. import ops
    saved_methods = {m: (getattr(Tensor, m), _registry.METHODS.get(m)) for m in (*_METHODS, *_ARITH_INPLACE)}
    saved_funcs = {m: getattr(npgrad, m) for m in _METHODS if not m.startswith("__")}
    saved_bias, saved_write = _attention._bool_to_bias, _inplace._write
    # The compiled kernels fuse some ops into nodes of their own (attention's scale+mask+softmax); the
    # export records the composed reference ops, which ONNX has operators for.
    saved_kernels, _kernel_switch.enabled = _kernel_switch.enabled, False
    prev = record.set_tracer(recorder)
    try:
        for m, (fn, origin) in saved_methods.items():
            wrapped = _generic_inplace(_ARITH_INPLACE[m]) if m in _ARITH_INPLACE else recorder.wrap(_METHODS[m], fn)
            _registry._attach(m, wrapped, origin)
        for m, fn in saved_funcs.items():
            wrapped = recorder.wrap(_METHODS[m], fn)
            setattr(npgrad, m, wrapped)
            setattr(ops, m, wrapped)
        _attention._bool_to_bias = recorder.wrap("bool_to_bias", saved_bias)
        _inplace._write = _recorded_write(recorder, saved_write)
        with no_grad():
            yield recorder
    finally:
        record.set_tracer(prev)
        _kernel_switch.enabled = saved_kernels
        _attention._bool_to_bias, _inplace._write = saved_bias, saved_write
        for m, fn in saved_funcs.items():
            setattr(npgrad, m, fn)
            setattr(ops, m, fn)
        for m, (fn, origin) in saved_methods.items():
            _registry._attach(m, fn, origin)
