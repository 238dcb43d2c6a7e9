"""The backward engine: an iterative walk of the graph in reverse creation order.

Every node has a creation number, and a node's inputs always exist before it, so running the nodes
that received a gradient in decreasing creation number (a heap) visits each node after all of its
consumers: a topological order, without recursion (graphs of 10^5+ nodes are fine) and without a
separate pass to count dependencies. Each gradient is popped from the buffer as soon as its node runs,
and a node's saved values are released after it runs unless the graph is retained.

Gradients are NumPy arrays in a plain backward and Tensors under ``create_graph=True`` (then grad mode
is on while formulas run, so the gradient computation itself is recorded). Each input's gradient is
reduced to that input's shape and cast to its dtype here, in one place, so formulas may return
broadcast-shaped gradients.
"""
import sys
import threading
import warnings
import weakref
from heapq import heappop, heappush

import numpy as np

from . import anomaly as _anomaly
from ._protocol import as_tensor as _as_tensor, cast_grad as _cast, data_of as _data_of, like_mode as _like_mode
from ._protocol import sum_to as _sum_to
from .function import Function, _new_node, _type_name
from .grad_mode import state as _grad_state
from .views import refresh_view
from .record import PROFILE_HOOK
from .. import _layout
from .._fp_quiet import QUIET as _QUIET, STATE as _FP_STATE, call_with as _call_with

Tensor = None  # bound by _protocol.register_tensor_type (npgrad.tensor registers the class at import)


class AccumulateGrad(Function):
    """The node for a leaf that requires grad: adds the incoming gradient into ``leaf.grad``."""

    __slots__ = ("_variable",)
    _array_forward = True
    _plain = False

    def name(self):
        return "torch::autograd::AccumulateGrad"

    @property
    def variable(self):
        return self._variable()


def new_accumulator(leaf):
    node = _new_node(AccumulateGrad)
    # A weak reference: the leaf owns its accumulator, not the other way round (no cycle).
    node._variable = weakref.ref(leaf)
    return node


def _needed_nodes(root_nodes, targets):
    """Nodes from which some target node can be reached (only those need to run for autograd.grad)."""
    needed = {}
    expanded = set()
    stack = [(n, False) for n in root_nodes]
    while stack:
        node, finished = stack.pop()
        if finished:
            hit = node in targets
            if not hit:
                for c in node._fns:
                    if c is not None and needed.get(c):
                        hit = True
                        break
            needed[node] = hit
            continue
        if node in needed or node in expanded:
            continue
        expanded.add(node)
        stack.append((node, True))
        for c in node._fns:
            if c is not None and c not in needed and c not in expanded:
                stack.append((c, False))
    return {n for n, hit in needed.items() if hit}


# One list per backward pass in progress (the innermost last): callables queued to run once it finishes.
_final_callbacks = []


def queue_callback(callback):
    """Run ``callback()`` once the backward pass in progress has finished, as PyTorch's
    ``Variable._execution_engine.queue_callback``: DistributedDataParallel waits for its gradient
    allreduces there, after every leaf's gradient has been accumulated."""
    if not _final_callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _final_callbacks[-1].append(callback)


# How many post-accumulate-grad hooks were ever registered: while none has been, a backward skips the
# pass that schedules hooked leaves early (_schedule_hooked_leaves).
post_accumulate_hooks = 0


def _schedule_hooked_leaves(root_nodes):
    """Give each reachable leaf accumulator that has post-accumulate-grad hooks a place in the backward
    order right after its earliest-created consumer, instead of its own (old) creation number.

    A leaf's accumulator was created with the leaf, before every node of this graph, so by creation order
    it would run last: every hook (DistributedDataParallel's, which starts its allreduces) would fire at the
    very end of backward. Its gradient is complete as soon as its earliest-created consumer has run (every
    other consumer was created later, so has run already), which is where PyTorch, counting dependencies,
    runs it. Returns ``[(node, original number)]`` to restore afterwards."""
    first = {}
    seen = set(root_nodes)
    stack = list(root_nodes)
    while stack:
        node = stack.pop()
        seq = node._seq
        for nxt in node._fns:
            if nxt is None:
                continue
            if type(nxt) is AccumulateGrad:
                if nxt._post_hooks and seq < first.get(nxt, seq + 1):
                    first[nxt] = seq
            elif nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    if not first:
        return ()
    by_consumer = {}
    for acc, seq in first.items():
        by_consumer.setdefault(seq, []).append(acc)
    moved = []
    for seq, accs in by_consumer.items():
        for j, acc in enumerate(accs, 1):  # distinct numbers in (seq - 1, seq): after seq, before seq - 1
            moved.append((acc, acc._seq))
            acc._seq = seq - 1 + j / (len(accs) + 1)
    return moved


def run_backward(roots, root_grads, keep_graph, create_graph, capture=None, accumulate=True):
    _final_callbacks.append([])
    moved = _schedule_hooked_leaves([n for n, _ in roots]) if post_accumulate_hooks and accumulate else ()
    try:
        out = _run_backward(roots, root_grads, keep_graph, create_graph, capture, accumulate)
    finally:
        for acc, seq in reversed(moved):
            acc._seq = seq
        callbacks = _final_callbacks.pop()
    for callback in callbacks:
        callback()
    return out


def _run_backward(roots, root_grads, keep_graph, create_graph, capture=None, accumulate=True):
    """Backpropagate ``root_grads`` from ``roots`` (a list of ``(node, output_index)``).

    ``capture``: ``(node, output_index)`` pairs whose total gradient is returned (autograd.grad);
    ``accumulate``: whether leaves' ``.grad`` are written (backward) or left alone (grad).

    Nodes run in decreasing creation number (``_seq``), from a heap of the nodes that have received a
    gradient. Every consumer of a node was created after it, so by the time a node comes off the heap
    all its gradient contributions have arrived: a topological order with no dependency-counting pass.
    """
    buffers = {}
    heap = []
    for (node, idx), g in zip(roots, root_grads):
        if node not in buffers:
            heappush(heap, (-node._seq, node))
        _add_to_buffer(buffers, node, idx, g)

    captured = None
    needed = None
    if capture is not None:
        captured = {key: None for key in capture}
        targets = {n for n, _ in capture}
        if not accumulate:
            needed = _needed_nodes([n for _, n in heap], targets)

    prev_mode = _grad_state.enabled
    _grad_state.enabled = create_graph
    # The engine's sums of gradient contributions and the built-ins' kernels run with NumPy's floating-point
    # flags ignored (inf + -inf is NaN, silently, as PyTorch: npgrad._fp_quiet); hooks and custom Functions'
    # backward, the user's code, get the caller's state back (_user_code).
    prev_caller, _caller_fp.state = getattr(_caller_fp, "state", None), _FP_STATE.get()
    fp = _FP_STATE.set(_QUIET)
    check_nan = _anomaly.enabled()
    # The common case (plain backward of built-in ops, no hooks) runs inline below; anything unusual
    # goes through _run_node, which handles hooks, capture, user Functions and anomaly checks.
    # Under the profiler every node goes through _run_node, each one an event (one test per backward call).
    profiling = bool(PROFILE_HOOK)
    simple = captured is None and needed is None and not check_nan and not profiling
    take = buffers.pop
    route = _route
    try:
        while heap:
            node = heappop(heap)[1]
            buf = take(node)
            if not (simple and node._plain):
                # No stale reference to the gradient now in ``buf`` (the last routed one may be it): an
                # AccumulateGrad node counts the references to decide whether it may keep the array itself.
                out = g = old = None
                if profiling and PROFILE_HOOK:
                    PROFILE_HOOK[1](node, buf, _run_node, (node, buf, buffers, heap, keep_graph, create_graph,
                                                          captured, accumulate, needed, check_nan))
                    continue
                _run_node(node, buf, buffers, heap, keep_graph, create_graph, captured, accumulate, needed,
                          check_nan)
                continue
            out = type(node).backward(node, buf)
            if type(out) is not tuple:
                out = (out,)
            if not keep_graph:
                # node._release()'s common case inline (a built-in that saved arrays and set no ctx arrays);
                # anything else (ctx attributes to check) still goes through it.
                if node._saved is not None:
                    node._saved = node._saved_refs = node._saved_versions = None
                    node._released = True
                    if len(node.__dict__) > 1:
                        node._release()
                elif node.__dict__:
                    node._release()
            meta = node._in_meta
            k = 0
            for nxt in node._fns:
                if nxt is not None:
                    g = out[k]
                    if g is not None:
                        if nxt._n_out == 1 and g.shape == meta[k][0] and g.dtype is meta[k][1]:
                            old = buffers.get(nxt)  # _route's common case, inline (see _route)
                            if old is None:
                                buffers[nxt] = g
                                heappush(heap, (-nxt._seq, nxt))
                            else:
                                buffers[nxt] = old + g
                        else:
                            route(buffers, heap, node, k, nxt, g)
                k += 1
    finally:
        _grad_state.enabled = prev_mode
        _FP_STATE.reset(fp)
        _caller_fp.state = prev_caller
    if captured is not None:
        return [captured[key] for key in capture]
    return None


_caller_fp = threading.local()  # .state: NumPy's error state where the running backward was called


def _user_code(fn, *args):
    """``fn(*args)``, user code called from inside the engine (a hook, a custom Function's backward), with the
    NumPy floating-point state of the backward's caller rather than the engine's quiet one."""
    state = getattr(_caller_fp, "state", None)
    if state is None:  # (outside a backward: the state is the caller's already)
        return fn(*args)
    return _call_with(state, fn, *args)


def _route(buffers, heap, node, k, nxt, g):
    """Send gradient ``g`` of ``node``'s input ``k`` on to ``nxt``, the node that input came from: reduce it
    to the input's shape and dtype, add it into ``nxt``'s buffer, and queue ``nxt`` the first time.

    run_backward's inline loop does the buffer add itself when there is nothing to reduce or cast and
    ``nxt`` has one output: one call fewer per edge measured ~3% of a small-op backward."""
    shape, dt = node._in_meta[k]
    if g.shape != shape:
        g = _sum_to(g, shape, node, k)
    if g.dtype is not dt and g.dtype != dt:
        g = _cast(g, dt)
    if nxt._n_out == 1:
        old = buffers.get(nxt)
        if old is None:
            buffers[nxt] = g
            heappush(heap, (-nxt._seq, nxt))
        else:
            buffers[nxt] = old + g
        return
    if nxt not in buffers:
        heappush(heap, (-nxt._seq, nxt))
    _add_to_buffer(buffers, nxt, node._idxs[k], g)


def _add_to_buffer(buffers, node, idx, g):
    n_out = node._n_out
    if n_out == 1:
        old = buffers.get(node)
        buffers[node] = g if old is None else old + g
    else:
        slots = buffers.get(node)
        if slots is None:
            slots = buffers[node] = [None] * n_out
        old = slots[idx]
        slots[idx] = g if old is None else old + g


def _run_node(node, buf, buffers, heap, keep_graph, create_graph, captured, accumulate, needed, check_nan):
    multi = node._n_out != 1
    grads = buf if multi else [buf]
    if node._pre_hooks:
        grads = _run_pre_hooks(node, grads, create_graph)
    if captured is not None:
        for i, g in enumerate(grads):
            if (node, i) in captured:
                captured[(node, i)] = g
    if type(node) is AccumulateGrad:
        if accumulate:
            # (a pre-hook's result may be held by the user: .grad then always takes a copy)
            _accumulate(node, grads[0], create_graph, not node._pre_hooks)
            if node._post_hooks:  # register_post_accumulate_grad_hook
                _run_post_hooks(node, (), grads, create_graph)
        return
    if needed is not None and not any(n in needed for n in node._fns):
        return  # only captured, nothing below it is wanted

    if check_nan:  # anomaly mode: any failure here is reported with the node's forward traceback
        try:
            in_grads = _call_backward(node, grads, create_graph)
            if node._post_hooks:
                in_grads = _run_post_hooks(node, in_grads, grads, create_graph)
            _anomaly.check_nan(node, in_grads, _data_of)
        except Exception:
            _anomaly.warn_error_in(node)
            raise
    else:
        in_grads = _call_backward(node, grads, create_graph)
        if node._post_hooks:
            in_grads = _run_post_hooks(node, in_grads, grads, create_graph)
    if not keep_graph:
        node._release()

    for k, nxt in enumerate(node._fns):
        if nxt is None or (needed is not None and nxt not in needed):
            continue
        g = in_grads[k] if k < len(in_grads) else None
        if g is not None:
            _route(buffers, heap, node, k, nxt, g)


def _call_backward(node, grads, create_graph):
    cls = type(node)
    if cls._array_forward:
        if node._complex and not cls._complex_native:
            return _conjugated_backward(cls, node, grads)
        out = cls.backward(node, *grads)  # built-ins handle a None gradient for an unused output
        if type(out) is not tuple:
            out = (out,)
        return out
    # A user Function always sees Tensors.
    T = Tensor
    if not create_graph:
        grads = [g if g is None else T._wrap(np.asarray(g)) for g in grads]
    if node._materialize and None in grads:
        grads = _materialize(node, grads, True)
    out = _user_code(cls.backward, node, *grads)
    if type(out) is not tuple:
        out = (out,)
    n_in = len(node._fns)
    if len(out) != n_in:
        if len(out) > n_in and all(o is None for o in out[n_in:]):
            out = out[:n_in]
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(out)})")
    is_tensor_arg = node.__dict__.get("_tensor_args")
    res = []
    for k, o in enumerate(out):
        if o is None:
            res.append(None)
            continue
        if is_tensor_arg is not None and not is_tensor_arg[k]:
            raise RuntimeError(f"function {node.name()} returned a gradient different than None at position "
                               f"{k + 1}, but the corresponding forward input was not a Variable")
        if node._fns[k] is None:
            res.append(None)  # the input does not require grad: its gradient is dropped
        elif isinstance(o, T):
            res.append(o if create_graph else o._data)
        else:
            raise TypeError(f"function {node.name()} returned a gradient of type {type(o).__name__} at "
                            f"index {k}; expected a Tensor or None")
    return tuple(res)


def _conj(g):
    if g is None:
        return None
    if isinstance(g, Tensor):
        return g.conj_physical() if g._data.dtype.kind == "c" else g
    return np.conj(g) if g.dtype.kind == "c" else g


def _conjugated_backward(cls, node, grads):
    """A built-in formula on a complex node computes ``g * f'(z)`` (the real-analytic chain rule); PyTorch's
    convention is ``g * conj(f'(z))``. For a formula linear in g that is conj(formula(conj(g))), which also
    gives a real input the real part of its gradient (the engine's cast), as PyTorch does."""
    out = cls.backward(node, *[_conj(g) for g in grads])
    if type(out) is not tuple:
        out = (out,)
    return tuple([_conj(o) for o in out])


def _materialize(node, grads, as_tensor):
    # Outputs that received no gradient get zeros, which is what a user backward expects to see.
    shapes = node.__dict__.get("_out_shapes")
    out = []
    for i, g in enumerate(grads):
        if g is None and shapes is not None:
            shape, dt = shapes[i]
            z = np.zeros(shape, dt)
            g = Tensor._wrap(z) if as_tensor else z
        out.append(g)
    return out


def _accumulate(node, g, create_graph, may_keep=False):
    leaf = node._variable()
    if leaf is not None:
        _accumulate_into(leaf, g, create_graph, may_keep)


def _accumulate_into(leaf, g, create_graph, may_keep=False):
    """Add gradient ``g`` into ``leaf.grad`` (an array in a plain backward, a Tensor under create_graph).
    ``may_keep``: ``g`` came straight from the engine's buffers, so .grad may take the array itself when
    nothing else references it."""
    if "_grad_dtype" in leaf.__dict__:  # a leaf whose grad_dtype was set (ops/tensor_attrs.py)
        g = _to_grad_dtype(g, leaf.__dict__["_grad_dtype"])
    if create_graph:
        if type(g) is np.ndarray:
            g = Tensor._wrap(g)
        old = leaf._grad
        leaf._grad = g if old is None else old + g
        return
    if type(g) is not np.ndarray:
        try:
            g = np.asarray(g._data if isinstance(g, Tensor) else g)
        except _layout.SparseOperand:  # a sparse gradient (nn.Embedding(sparse=True)) stays sparse in .grad
            old = leaf._grad
            leaf._grad = g if old is None else old + g
            return
    old = leaf._grad
    if old is None:
        # The incoming array may be shared (an add passes one gradient to both inputs): .grad takes it as it is
        # only when nothing else can see it (PyTorch's AccumulateGrad steals a gradient whose use count is 1),
        # else a copy. Saves a full copy of every parameter's gradient per step (the mlp: ~0.3 of ~6 ms).
        if may_keep:
            refs = _getrefcount(g)
            if _PROBE:
                _PROBE.append(refs)
                return
            may_keep = _sole_owner(g, refs)
        leaf._grad = Tensor._wrap(g if may_keep else _owned_copy(g))
    else:
        try:
            in_place = old._grad_fn is None and old._data.shape == g.shape and old._data.flags.writeable
        except _layout.SparseOperand:  # a sparse .grad from an earlier backward, and now a dense gradient
            leaf._grad = Tensor._wrap(g) + old
            return
        if in_place:
            np.add(old._data, g, out=old._data, casting="unsafe")
        else:
            leaf._grad = old + Tensor._wrap(g)


def _owned_copy(g):
    """.grad's own copy of an incoming gradient (one function, so the tests can count the copies)."""
    return np.array(g, copy=True)


# The reference count an array has in _accumulate_into when nothing but the engine's call chain holds it,
# measured once on this interpreter (_calibrate) rather than assumed: the count per call level is an
# implementation detail of CPython's calling convention. _PROBE is non-empty only while measuring.
_FRESH_REFS = []
_PROBE = []
_getrefcount = getattr(sys, "getrefcount", lambda obj: -1)  # (no reference counts, e.g. PyPy: always a copy)


def _calibrate():
    """Run _run_node's accumulate path on an array held only by a local (as _run_backward holds ``buf``) and
    record the count _accumulate_into sees."""
    leaf = Tensor._wrap(np.zeros(1))
    leaf._requires_grad = True
    node = new_accumulator(leaf)
    buf = np.zeros(1)
    _PROBE.append(None)
    try:
        _run_node(node, buf, {}, [], False, False, None, True, None, False)
        _FRESH_REFS.append(_PROBE[-1])
    finally:
        _PROBE.clear()


def _sole_owner(g, refs):
    """Whether ``g`` (seen with ``refs`` references in _accumulate_into) is referenced by nothing but the engine
    and owns its memory: a view's base may be held elsewhere, so views are always copied."""
    if g.base is not None or not g.flags.writeable:
        return False
    if not _FRESH_REFS:
        _calibrate()
    return refs > 0 and refs == _FRESH_REFS[0]


def _to_grad_dtype(g, dtype):
    if dtype is None:
        return g  # None: the gradient keeps whatever dtype it arrives in
    if isinstance(g, Tensor):
        return g if g._data.dtype == dtype.np else g._cast(dtype)
    g = np.asarray(g)
    return g if g.dtype == dtype.np else g.astype(dtype.np)


def _run_pre_hooks(node, grads, create_graph):
    grads = list(grads)
    retains = []
    for index, fn in list(node._pre_hooks.values()):
        if index is None:
            res = _user_code(fn, tuple(None if g is None else _as_tensor(g) for g in grads))
            if res is not None:
                grads = [None if r is None else _like_mode(r, create_graph) for r in res]
            continue
        if getattr(fn, "_retains_grad", False):
            retains.append((index, fn))
            continue
        g = grads[index]
        if g is None:
            continue
        res = _user_code(fn, _as_tensor(g))
        if res is not None:
            res = _like_mode(res, create_graph)
            _check_hook_result(fn, g, res)
            grads[index] = res
    for index, fn in retains:  # retain_grad sees the gradient after every other hook, as in PyTorch
        if grads[index] is not None:
            _user_code(fn, _as_tensor(grads[index]))
    return grads


def _check_hook_result(fn, old, new):
    # A tensor hook may replace the gradient, but not change its shape or dtype (PyTorch's checks).
    name = getattr(fn, "__name__", type(fn).__name__)
    if new.dtype != old.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {_type_name(_data_of(old).dtype)} "
                           f"got {_type_name(_data_of(new).dtype)})")
    if tuple(new.shape) != tuple(old.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _run_post_hooks(node, in_grads, out_grads, create_graph):
    as_t = _as_tensor
    for fn in list(node._post_hooks.values()):
        res = _user_code(fn, tuple(None if g is None else as_t(g) for g in in_grads),
                         tuple(None if g is None else as_t(g) for g in out_grads))
        if res is not None:
            in_grads = tuple(None if r is None else _like_mode(r, create_graph) for r in res)
    return in_grads


# -- the public entry points: torch.autograd.backward and torch.autograd.grad ---------------------

def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _root_grads(outputs, grad_outputs, create_graph):
    grads = []
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a Tensor at outputs[{i}], got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        g = None if grad_outputs is None else grad_outputs[i]
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t._data.dtype.kind == "c":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got torch.{t._data.dtype.name}")
            arr = np.ones(t._data.shape, t._data.dtype)
            grads.append(Tensor._wrap(arr) if create_graph else arr)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g, dtype=t._data.dtype))
        if g._data.shape != t._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {_size(g)} and output[{i}] "
                               f"has a shape of {_size(t)}.")
        if create_graph:
            grads.append(g if g._data.dtype == t._data.dtype else g.to(t.dtype))
        else:
            arr = g._data
            grads.append(arr if arr.dtype == t._data.dtype else arr.astype(t._data.dtype))
    return grads


def _size(t):
    return "torch.Size([" + ", ".join(str(s) for s in t._data.shape) + "])"


def _edge_of(t):
    if t._view_of is not None:
        refresh_view(t)
    if t._grad_fn is not None:
        return (t._grad_fn, t._out_idx)
    return (t._grad_accumulator(), 0)


_CYCLE_WARNING = ("Using backward() with create_graph=True will create a reference cycle between the parameter and its "
                  "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
                  "avoid this. If you have to use this function, make sure to reset the .grad fields of your "
                  "parameters to None after use to break the cycle and avoid the leak.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaf) into each leaf's ``.grad`` (``torch.autograd.backward``)."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors)
    if grad_tensors is not None and len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(grad_tensors)} gradients for {len(tensors)} tensors")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(tensors, grad_tensors, create_graph)
    roots = [_edge_of(t) for t in tensors]
    if create_graph:
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=3)
    if inputs is None:
        run_backward(roots, grads, retain_graph, create_graph)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    capture = [_edge_of(t) for t in inputs]
    got = run_backward(roots, grads, retain_graph, create_graph, capture=capture, accumulate=False)
    for t, g in zip(inputs, got):
        if g is None:
            continue
        _call_with(_QUIET, _accumulate_into, t, g, create_graph)  # (inf + -inf: NaN silently, as in a backward)
        if t._grad_fn is None:  # a leaf: its post-accumulate hooks run as in a full backward
            acc = t._grad_accumulator()
            if acc._post_hooks:
                _run_post_hooks(acc, (), [g], create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad`` (``torch.autograd.grad``).

    ``inputs`` may be a Tensor, a sequence of Tensors, or a dict of them (the result is then a dict
    with the same keys). An input the outputs do not depend on is an error unless ``allow_unused``
    (its gradient is then None) or ``materialize_grads`` (zeros).
    """
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by npgrad")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    keys = None
    if isinstance(inputs, dict):
        keys = list(inputs)
        inputs = [inputs[k] for k in keys]
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grad_outputs)} "
                           f"grad_outputs for {len(outputs)} outputs")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(outputs, grad_outputs, create_graph)
    roots = [_edge_of(t) for t in outputs]
    capture = [_edge_of(t) for t in inputs]
    got = run_backward(roots, grads, retain_graph, create_graph, capture=capture, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, got)):
        if g is None:
            if materialize_grads:
                result.append(Tensor._wrap(np.zeros(t._data.shape, t._data.dtype)))
                continue
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            result.append(None)
            continue
        if "_grad_dtype" in t.__dict__:
            g = _to_grad_dtype(g, t.__dict__["_grad_dtype"])
        if isinstance(g, Tensor):
            result.append(g)
        else:
            result.append(Tensor._wrap(np.asarray(g)))
    if keys is not None:
        return dict(zip(keys, result))
    return tuple(result)
