"""torch.utils.checkpoint: trade compute for memory by recomputing a function's forward during backward.

A checkpointed call keeps only its inputs; the intermediate values its backward would need are dropped
after the forward and rebuilt by running the function again when the gradient reaches it.

* ``use_reentrant=True`` (PyTorch 2.13's default, with a warning when not passed) runs the forward under
  no_grad inside an autograd Function; its backward reruns the function on detached copies of the inputs
  and calls ``autograd.backward`` there, so gradients reach parameters through that inner backward.
* ``use_reentrant=False`` runs the forward with grad recording, then replaces the recorded sub-graph by one
  node whose edges are where the sub-graph met the rest of the graph (the inputs, and the leaves such as
  parameters the function read). The sub-graph, and with it every saved intermediate, is released as soon
  as the call returns; backward reruns the function and takes the gradients at those edges with
  ``autograd.grad``, so ``torch.autograd.grad`` and higher-order gradients work through it.

Both restore the random state of the forward before recomputing (``preserve_rng_state=True``), so dropout
drops the same elements both times.
"""
import contextlib
import warnings

import numpy as np

from .. import random as _random
from ..autograd import Function, enable_grad, grad as _autograd_grad, backward as _autograd_backward
from ..autograd.engine import AccumulateGrad
from ..autograd.function import _next_seq
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor, _rebuild

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn"]


class CheckpointError(RuntimeError):
    """The recomputed forward did not match the original one."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or its recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Detached copies of a tuple's tensors, each requiring grad as its original does."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for x in inputs:
        if not isinstance(x, Tensor):
            out.append(x)
            continue
        d = x.detach()
        d.requires_grad = x.requires_grad
        out.append(d)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


@contextlib.contextmanager
def _rng_replayed(state):
    """Run the block with the random state ``state`` (the forward's), then put the current state back."""
    if state is None:
        yield
        return
    now = _random.get_rng_state()
    _random.set_rng_state(state)
    try:
        yield
    finally:
        _random.set_rng_state(now)


# -- use_reentrant=True --------------------------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant checkpoint: ``apply(run_function, preserve_rng_state, *args)``."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.inputs = args  # the tensors are kept as they are (no copy): only the inputs are held
        return run_function(*args)  # Function.forward runs under no_grad: nothing is recorded

    @staticmethod
    def backward(ctx, *grads):
        inputs = detach_variable(tuple(ctx.inputs))
        with _rng_replayed(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


# -- use_reentrant=False -------------------------------------------------------------------------------------
def _flatten(obj, out):
    """The tensors of a (nested tuple / list / dict) result, in a fixed order."""
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            _flatten(obj=x, out=out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _flatten(obj=x, out=out)
    return out


def _rebuild_like(obj, it):
    if isinstance(obj, Tensor):
        return next(it)
    if isinstance(obj, (tuple, list)):
        items = [_rebuild_like(x, it) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return type(obj)((k, _rebuild_like(v, it)) for k, v in obj.items())
    return obj


def _boundary_edges(outputs, start):
    """Walk the nodes recorded since creation number ``start`` back from ``outputs``; return the edges
    (node, output index, (shape, dtype)) leading out of them: leaves' accumulators and older nodes."""
    edges = {}
    seen = set()
    stack = [t._grad_fn for t in outputs]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for k, (nxt, idx) in enumerate(zip(node._fns, node._idxs)):
            if nxt is None:
                continue
            if type(nxt) is AccumulateGrad or nxt._seq < start:
                edges.setdefault((nxt, idx), node._in_meta[k])
            else:
                stack.append(nxt)
    return edges


class _Recompute(Function):
    """One node standing for a checkpointed call's recorded sub-graph: forward returns the call's outputs
    (already computed), backward reruns the call and takes the gradients at the sub-graph's edges."""

    @staticmethod
    def forward(ctx, plan, *boundary):
        ctx.plan = plan
        return tuple(Tensor._wrap(d) for d in plan.pop("out_data"))

    @staticmethod
    def backward(ctx, *grads):
        plan = ctx.plan
        args = list(plan["args"])
        fresh = {}
        higher = is_grad_enabled()  # create_graph: the gradients must stay functions of the real inputs
        for i in plan["arg_slots"]:
            # The recomputation starts from a new node per argument, so its gradient is taken there and
            # goes no further: a detached copy, or under create_graph a clone still linked to the argument.
            if higher:
                d = args[i].clone()
            else:
                d = args[i].detach()
                d.requires_grad_(True)
            fresh[i] = args[i] = d
        with _rng_replayed(plan["rng"]), enable_grad(), plan["recompute_ctx"]:
            result = plan["fn"](*args, **plan["kwargs"])
        flat = _flatten(result, [])
        outs = [flat[i] for i in plan["out_slots"]]
        if plan["check"]:
            for i, (o, (shape, dtype)) in enumerate(zip(outs, plan["out_meta"])):
                if tuple(o.shape) != shape or o.dtype != dtype:
                    raise CheckpointError(
                        "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                        f"than during the forward pass.\ntensor at position {i}:\nsaved metadata: "
                        f"{{'shape': torch.Size({list(shape)}), 'dtype': {dtype}}}\nrecomputed metadata: "
                        f"{{'shape': torch.Size({list(o.shape)}), 'dtype': {o.dtype}}}\n")
        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and o.requires_grad]
        targets = [fresh[i] if i is not None else t for i, t in plan["targets"]]
        if not pairs:
            return (None,) + (None,) * len(targets)
        got = _autograd_grad([o for o, _ in pairs], targets, [g for _, g in pairs], create_graph=higher,
                             allow_unused=True)
        return (None,) + tuple(got)


def _edge_tensor(node, idx, meta):
    """A Tensor standing for an edge into the outer graph that no argument of the call carries (a non-leaf
    tensor the function read from its closure): its gradient is routed to (node, idx)."""
    shape, dtype = meta
    t = _rebuild(np.broadcast_to(np.zeros((), dtype), shape), True)
    t._grad_fn = node
    t._out_idx = idx
    return t


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, args, kwargs):
    forward_ctx, recompute_ctx = context_fn()
    rng = _random.get_rng_state() if preserve else None
    if not is_grad_enabled():
        with forward_ctx:
            return function(*args, **kwargs)
    start = _next_seq()
    with forward_ctx:
        result = function(*args, **kwargs)
    flat = _flatten(result, [])
    out_slots = [i for i, t in enumerate(flat) if t.grad_fn is not None and t.grad_fn._seq > start]
    if not out_slots:
        return result
    outs = [flat[i] for i in out_slots]
    edges = _boundary_edges(outs, start)
    # Each edge is reached through the call's own argument when one carries it (recomputation then starts
    # from a detached copy of it), else through the leaf itself, else through a stand-in Tensor.
    by_edge = {}
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a.requires_grad:
            by_edge.setdefault((a.grad_fn if a.grad_fn is not None else a._grad_accumulator(), a._out_idx), i)
    boundary, targets, arg_slots = [], [], set()
    for (node, idx), meta in edges.items():
        i = by_edge.get((node, idx))
        if i is not None:
            boundary.append(args[i])
            targets.append((i, None))
            arg_slots.add(i)
        elif type(node) is AccumulateGrad:
            leaf = node.variable
            boundary.append(leaf)
            targets.append((None, leaf))
        else:
            t = _edge_tensor(node, idx, meta)
            boundary.append(t)
            targets.append((None, t))
    plan = {"fn": function, "args": args, "kwargs": kwargs, "rng": rng, "recompute_ctx": recompute_ctx,
            "arg_slots": sorted(arg_slots), "targets": targets, "out_slots": out_slots,
            "out_meta": [(tuple(o.shape), o.dtype) for o in outs], "check": determinism_check != "none",
            "out_data": [o._data for o in outs]}
    new = _Recompute.apply(plan, *boundary)
    del outs, edges  # the recorded sub-graph now has no owner and is freed with its saved values
    replaced = dict(zip(out_slots, new))
    return _rebuild_like(result, iter([replaced.get(i, t) for i, t in enumerate(flat)]))


# -- public entry points -------------------------------------------------------------------------------------
def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=None, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate values; backward recomputes them."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a Sequential (or list of modules) in ``segments`` chunks, checkpointing every chunk but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
