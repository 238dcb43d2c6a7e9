"""npgrad.onnx.export: record the model's forward pass, map each step to ONNX, write the file."""
import enum
import inspect
import re
import warnings

import numpy as np

from .._optional import require
from ..tensor import Tensor
from . import _ops
from ._graph import Graph, export_error
from ._trace import Recorder, recording

DEFAULT_OPSET = 20   # PyTorch 2.13's default for this exporter, and its highest
MIN_OPSET = 13       # Split/ReduceSum/Squeeze take their sizes and axes as inputs from here on
_STATE = {"exporting": False}


class TrainingMode(enum.IntEnum):
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export():
    """True while ``export`` is running the model's forward pass."""
    return _STATE["exporting"]


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, export_params=True, keep_initializers_as_inputs=False,
           dynamic_axes=None, training=TrainingMode.EVAL, do_constant_folding=True):
    """Export ``model`` (an ``nn.Module`` or a function of tensors) to the ONNX file ``f``.

    The forward pass is run once on ``args`` (and once more at other sizes when ``dynamic_axes`` names
    some) and every operator it runs is recorded and written as ONNX operators; parameters and buffers
    become initializers, and operators whose inputs are all constants are folded into initializers.
    An operator with no ONNX mapping raises, naming it. ``dynamo`` is accepted for PyTorch's signature:
    npgrad has the one exporter. Returns None, as PyTorch's TorchScript-based exporter does.
    """
    onnx = require("onnx", "npgrad.onnx.export")
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not MIN_OPSET <= opset <= DEFAULT_OPSET:
        raise ValueError(f"Unsupported ONNX opset version: {opset}. Supported opset versions are "
                         f"{MIN_OPSET} to {DEFAULT_OPSET}.")
    if f is None:
        raise ValueError("npgrad.onnx.export: f (a file name or a file object to write to) is required")
    args, kwargs = _split_args(args, kwargs)
    inputs = [a for a in args if isinstance(a, Tensor)] + [v for v in kwargs.values() if isinstance(v, Tensor)]
    in_names = _names(input_names, len(inputs), _default_input_names(model, args, kwargs))
    dynamic_axes = _normalize_dynamic(dynamic_axes)

    restore = _set_mode(model, training)
    _STATE["exporting"] = True
    try:
        steps, outputs = _record(model, args, kwargs)
        alt_args, alt_kwargs = _other_inputs(args, kwargs, inputs, in_names, dynamic_axes)
        try:
            alt_steps, alt_outputs = _record(model, alt_args, alt_kwargs)
        except Exception as e:
            if any(n in dynamic_axes for n in in_names):
                raise export_error(f"the forward pass failed at other sizes of the dynamic axes: {e!r}") from e
            warnings.warn(f"npgrad.onnx.export: the forward pass failed on other input values ({e!r}), so the "
                          "constants it uses could not be checked to be independent of the inputs", stacklevel=2)
            alt_steps, alt_outputs = steps, outputs
        _align(steps, alt_steps)
    finally:
        _STATE["exporting"] = False
        restore()

    g = Graph(onnx, opset)
    params = _named_state(model)
    g.param_names = {id(t._data): n for n, t in params}
    graph_inputs = []
    for t, name in zip(inputs, in_names):
        g.names.add(name)
        g.bind(t._data, name)
        graph_inputs.append(_value_info(onnx, name, t._data, dynamic_axes.get(name, {})))
    if not export_params or not do_constant_folding:
        # the parameters stay values of the graph (inputs, or initializers that are not folded)
        for name, t in params:
            if id(t._data) in g.live:
                continue
            g.names.add(name)
            g.bind(t._data, name)
            if export_params:
                g.inits.append(onnx.numpy_helper.from_array(t._data.copy(order="C"), name))
                if keep_initializers_as_inputs:
                    graph_inputs.append(_value_info(onnx, name, t._data, {}))
            else:
                graph_inputs.append(_value_info(onnx, name, t._data, {}))
    for step in steps:
        if not _any_live(g, step.args):
            continue   # all inputs constant: its output is a constant (folded)
        emit = _ops.TABLE.get(step.name)
        if emit is None:
            raise export_error(f"no ONNX mapping for operator '{_op_name(step.name)}' (it cannot be written as "
                               "ONNX operators by this exporter)")
        g.step = step
        names = emit(g, step)
        g.step = None
        for arr, name in zip(step.outs, names):
            if arr is not None and name:
                g.bind(arr, name)
    if export_params and keep_initializers_as_inputs and do_constant_folding:
        graph_inputs += [_value_info(onnx, i.name, onnx.numpy_helper.to_array(i), {}) for i in g.inits]

    flat_out = _flatten(outputs)
    alt_flat = _flatten(alt_outputs)
    out_names = _names(output_names, len(flat_out), [f"output_{i}" for i in range(len(flat_out))]
                       if len(flat_out) > 1 else ["output"])
    graph_outputs = []
    for t, alt, name in zip(flat_out, alt_flat, out_names):
        g.names.add(name)
        if not g.is_live(t):
            raise export_error(f"output '{name}' does not depend on the inputs through recorded operators: it was "
                               "computed outside the op registry (NumPy, .item(), .tolist()) or is a constant")
        g.nodes.append(onnx.helper.make_node("Identity", [g.val(t)], [name], name=g.fresh("Identity")))
        axes = dict(dynamic_axes.get(name, {}))
        for i, (p, q) in enumerate(zip(t.shape, alt.shape)):
            if p != q and i not in axes:
                axes[i] = f"{name}_dynamic_axes_{i + 1}"
        graph_outputs.append(_value_info(onnx, name, t._data, axes))

    graph = onnx.helper.make_graph(g.nodes, _graph_name(model), graph_inputs, graph_outputs, g.inits)
    proto = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)],
                                   producer_name="npgrad")
    proto.ir_version = min(proto.ir_version, 10)   # what onnxruntime releases of this era all read
    if verbose:
        print(onnx.helper.printable_graph(graph))
    onnx.save_model(proto, f)
    return None


def _any_live(g, args):
    # an index tensor travels inside GetItem's index tuple
    return any(_any_live(g, a) if isinstance(a, (tuple, list)) else g.is_live(a) for a in args)


# -- running the model ---------------------------------------------------------------------------------------

def _split_args(args, kwargs):
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):   # PyTorch's convention: a trailing dict holds keyword arguments
        kwargs = {**args[-1], **kwargs}
        args = args[:-1]
    return args, kwargs


def _record(model, args, kwargs):
    rec = Recorder()
    with recording(rec):
        out = model(*args, **kwargs)
    return rec.steps, out


def _align(steps, alt_steps):
    if len(steps) != len(alt_steps) or any(a.name != b.name for a, b in zip(steps, alt_steps)):
        raise export_error("the model runs different operators for other input values or sizes (control flow on "
                           "a tensor's values or size); it cannot be exported as one graph")
    for a, b in zip(steps, alt_steps):
        a.alt = b


def _other_inputs(args, kwargs, inputs, names, dynamic_axes):
    """The inputs with other values (each array's elements rolled by one place, floats moved toward their
    minimum, so that a [0, 1] input stays in [0, 1]) and grown along their dynamic axes (the last slice
    repeated): a second recording on them shows which constants really are constant and which sizes follow
    the dynamic axes."""
    by_id = {}
    for t, name in zip(inputs, names):
        a = t._data
        for ax in dynamic_axes.get(name, {}):
            a = np.concatenate([a] + [np.take(a, [-1], axis=ax)] * 3, axis=ax)
        if a.dtype.kind == "f" and a.size and np.isfinite(a).all():
            # toward the minimum: a sum and a maximum change too, and a value stays in [min, max]
            a = a * np.asarray(0.75, a.dtype) + np.asarray(0.25, a.dtype) * a.min()
        a = np.roll(a.reshape(-1), 1).reshape(a.shape)
        by_id[id(t)] = Tensor._wrap(a)

    def swap(v):
        return by_id.get(id(v), v) if isinstance(v, Tensor) else v
    return tuple(swap(a) for a in args), {k: swap(v) for k, v in kwargs.items()}


def _set_mode(model, training):
    if not hasattr(model, "train") or training == TrainingMode.PRESERVE:
        return lambda: None
    modes = [(m, m.training) for m in model.modules()]
    model.train(training == TrainingMode.TRAINING)

    def restore():
        for m, was in modes:
            m.training = was
    return restore


# -- names and shapes ----------------------------------------------------------------------------------------

def _named_state(model):
    if not hasattr(model, "named_parameters"):
        return []
    seen, out = set(), []
    for n, t in list(model.named_parameters()) + list(model.named_buffers()):
        if t is not None and id(t._data) not in seen:
            seen.add(id(t._data))
            out.append((n, t))
    return out


def _default_input_names(model, args, kwargs):
    fn = getattr(model, "forward", model)
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [params[i] if i < len(params) else f"input_{i}" for i, a in enumerate(args) if isinstance(a, Tensor)]
    return names + [k for k, v in kwargs.items() if isinstance(v, Tensor)]


def _names(given, n, default):
    if given is None:
        return list(default)
    given = list(given)
    if len(given) > n:
        raise ValueError(f"npgrad.onnx.export: {len(given)} names given for {n} values")
    return given + list(default[len(given):])


def _normalize_dynamic(dynamic_axes):
    out = {}
    for name, axes in (dynamic_axes or {}).items():
        if isinstance(axes, dict):
            out[name] = {int(k): str(v) for k, v in axes.items()}
        else:
            out[name] = {int(k): f"{name}_dynamic_axes_{i + 1}" for i, k in enumerate(axes)}
    return out


def _value_info(onnx, name, arr, dyn):
    dims = [dyn.get(i, d) for i, d in enumerate(arr.shape)]
    return onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(arr.dtype), dims)


def _flatten(out):
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flatten(o)]
    if out is None:
        return []
    raise export_error(f"the model returned a {type(out).__name__}; only tensors (in tuples, lists or dicts) can "
                       "be graph outputs")


def _graph_name(model):
    return type(model).__name__ if hasattr(model, "forward") else getattr(model, "__name__", "graph")


def _op_name(step_name):
    """'LogSoftmaxOp' -> 'log_softmax', 'Cummax' -> 'cummax': the operator's name as users call it."""
    base = step_name[:-2] if step_name.endswith("Op") and len(step_name) > 2 else step_name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()
