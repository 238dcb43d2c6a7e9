"""add_graph's GraphDef, read off npgrad's autograd graph of one forward pass.

PyTorch traces the model with TorchScript; npgrad has the tape instead. Every backward node reachable
from the outputs becomes a graph node whose op is its grad_fn name (``AddmmBackward0``), placed in the
scope of the innermost module whose forward created it (``Net/Linear[fc1]/AddmmBackward0``) so
TensorBoard folds nodes into one box per module. Parameters, inputs and outputs become their own nodes.
"""
from collections import deque

from tensorboard.compat.proto.attr_value_pb2 import AttrValue  # optional
from tensorboard.compat.proto.config_pb2 import RunMetadata  # optional
from tensorboard.compat.proto.graph_pb2 import GraphDef  # optional
from tensorboard.compat.proto.node_def_pb2 import NodeDef  # optional
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats  # optional
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto  # optional
from tensorboard.compat.proto.versions_pb2 import VersionDef  # optional

from ...autograd.grad_mode import enable_grad
from ...tensor import Tensor


def _tensors(obj):
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors(o)]
    return []


def _is_leaf_node(fn):
    return not fn.next_functions and hasattr(fn, "variable")


def _upstream(starts, stop):
    """Backward nodes reachable from ``starts`` without passing a node in ``stop`` (nodes by id)."""
    seen, order, todo = set(), [], deque(f for f in starts if f is not None and id(f) not in stop)
    while todo:
        fn = todo.popleft()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        for nxt, _ in fn.next_functions:
            if nxt is not None and id(nxt) not in stop and id(nxt) not in seen:
                todo.append(nxt)
    return order


def _topological(starts):
    """Every backward node reachable from ``starts``, each after the nodes it takes input from."""
    done, order = set(), []
    for start in starts:
        if start is None or id(start) in done:
            continue
        stack = [(start, iter(start.next_functions))]
        done.add(id(start))
        while stack:
            fn, it = stack[-1]
            for nxt, _ in it:
                if nxt is not None and id(nxt) not in done:
                    done.add(id(nxt))
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                order.append(fn)
    return order


def _scopes(model):
    scopes = {}
    for path, mod in model.named_modules():
        if not path:
            scopes[id(mod)] = type(mod).__name__
        else:
            parent, _, attr = path.rpartition(".")
            owner = model.get_submodule(parent) if parent else model
            scopes[id(mod)] = f"{scopes[id(owner)]}/{type(mod).__name__}[{attr}]"
    return scopes


def _node(name, op, inputs=(), shape=None):
    attr = {}
    if shape is not None:
        dims = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in shape])
        attr["_output_shapes"] = AttrValue(list=AttrValue.ListValue(shape=[dims]))
    return NodeDef(name=name, op=op, input=list(inputs), attr=attr)


def build_graph(model, input_to_model=None, verbose=False):
    """(GraphDef, RunMetadata) of ``model(*input_to_model)``."""
    args = () if input_to_model is None else (
        tuple(input_to_model) if isinstance(input_to_model, (list, tuple)) else (input_to_model,))
    # Floating inputs are traced as leaves that require grad, so the tape reaches back to them.
    args = tuple(a.detach().requires_grad_(True) if isinstance(a, Tensor) and a.is_floating_point() else a
                 for a in args)
    scopes = _scopes(model)
    owner_of = {}    # id(backward node) -> (node, scope)
    shape_of = {}    # id(backward node) -> shape of the tensor it produced, where a module output says it
    entered = {}     # id(module) -> stack of backward nodes of its inputs, set in the pre-hook

    def pre_hook(mod, mod_args):
        entered.setdefault(id(mod), []).append({id(t.grad_fn) for t in _tensors(mod_args) if t.grad_fn is not None})

    def post_hook(mod, mod_args, output):
        stop = entered[id(mod)].pop()
        outs = _tensors(output)
        for t in outs:
            if t.grad_fn is not None:
                shape_of.setdefault(id(t.grad_fn), tuple(t.shape))
        # Hooks fire innermost first, so a node already owned belongs to a submodule: walk through it
        # (this module may have worked before calling that submodule) without taking it over.
        for fn in _upstream([t.grad_fn for t in outs], stop):
            if not _is_leaf_node(fn):
                owner_of.setdefault(id(fn), (fn, scopes[id(mod)]))

    handles = []
    for mod in model.modules():
        handles.append(mod.register_forward_pre_hook(pre_hook))
        handles.append(mod.register_forward_hook(post_hook))
    try:
        with enable_grad():
            output = model(*args)
    finally:
        for h in handles:
            h.remove()

    root = scopes[id(model)]
    outputs = _tensors(output)
    names, nodes, used = {}, [], {}

    def unique(name):
        k = used.get(name, 0)
        used[name] = k + 1
        return name if k == 0 else f"{name}_{k}"

    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            names[id(a)] = f"input/input.{i}"
            nodes.append(_node(names[id(a)], "IO Node", shape=tuple(a.shape)))
    for path, p in model.named_parameters():
        mod_path, _, short = path.rpartition(".")
        mod = model.get_submodule(mod_path) if mod_path else model
        names[id(p)] = unique(f"{scopes[id(mod)]}/{short}")
        nodes.append(_node(names[id(p)], "Parameter", shape=tuple(p.shape)))

    for fn in _topological([t.grad_fn for t in outputs]):
        if _is_leaf_node(fn):
            var = fn.variable
            if id(var) not in names:  # a tensor requiring grad that is neither an input nor a parameter
                names[id(var)] = unique(f"{root}/tensor")
                nodes.append(_node(names[id(var)], "Constant", shape=tuple(var.shape)))
            names[id(fn)] = names[id(var)]
            continue
        scope = owner_of.get(id(fn), (fn, root))[1]
        names[id(fn)] = unique(f"{scope}/{fn.name()}")
        inputs = [names[id(nxt)] for nxt, _ in fn.next_functions if nxt is not None and id(nxt) in names]
        nodes.append(_node(names[id(fn)], fn.name(), inputs, shape_of.get(id(fn))))
    for i, t in enumerate(outputs):
        src = names.get(id(t.grad_fn)) if t.grad_fn is not None else names.get(id(t))
        nodes.append(_node(f"output/output.{i}", "IO Node", [src] if src else [], shape=tuple(t.shape)))
    if verbose:
        for n in nodes:
            print(f"{n.name} = {n.op}({', '.join(n.input)})")
    stats = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")]))
    return GraphDef(node=nodes, versions=VersionDef(producer=22)), stats
