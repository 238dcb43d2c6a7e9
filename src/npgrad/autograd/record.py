"""Recording: what ``Function.apply`` runs. Forward, then (only when grad mode is on and some input
requires grad) the graph node: its edges to the inputs' nodes, its output Tensors, and what forward
saved turned into references that outlive the call.

``_apply_op`` is a built-in Op's path (forward on arrays; this is the per-op hot path, unrolled for one
and two inputs); ``_apply_function`` is a user Function's (forward on Tensors under no_grad). Both fix
saved values through ``_fix_saved``.
"""
import numpy as np

from . import anomaly as _anomaly
from .function import (INPLACE_EPOCH, NO_CTX, Function, _OutputRef, _new_node, _next_seq)
from .grad_mode import state as _grad_state
from .views import refresh_view as _refresh_view
from .._fp_quiet import QUIET as _QUIET, STATE as _FP_STATE
from ..dtypes import LOW_PRECISION_NP as _LOWP_NP

Tensor = None  # bound by _protocol.register_tensor_type (npgrad.tensor registers the class at import)
_tracer = None  # set_tracer's function while a forward pass is being recorded (npgrad.onnx), else None


def set_tracer(fn):
    """Route every Op run without a graph node through ``fn(cls, args, out)``, which returns the op's
    result; None turns recording off. Returns the previous tracer (so recordings can nest)."""
    global _tracer
    prev, _tracer = _tracer, fn
    return prev


# Forward-mode AD (forward_ad.py) fills this while a dual level is open: [0] takes over ``_apply_op``,
# [1] carries a tangent through an in-place write, [2] tells whether any argument has a tangent, [3] and
# [4] carry tangents for in-place copies and item writes, [5] runs a user Function whose arguments carry
# tangents (its jvp). Empty otherwise, so outside ``dual_level`` an op pays one truth test of a module global
# (measured: a default argument holding it cost more).
DUAL_HOOK = []
# vmap (func/_function_vmap.py) fills this while it runs: [0] takes a user Function's apply and answers
# NotImplemented when no argument is batched. Empty otherwise: a user Function pays one truth test.
FUNCTION_HOOK = []
# The profiler (autograd/profiler.py) fills this while it records: [0] takes over ``_apply_op`` to time the
# op as an event, [1] runs an engine node as one. Empty otherwise: an op pays one truth test, as for DUAL_HOOK.
PROFILE_HOOK = []
# ops/_lowp.py fills this once a bfloat16/float8 dtype is used or while autocast is on: [0] returns the Op class
# to run instead of ``cls`` (its float32-computing form). Empty otherwise: an op pays one truth test.
LOWP_HOOK = []


def _apply_op(cls, args):
    """Run an Op: forward on arrays, and record a node when some Tensor input requires grad."""
    if PROFILE_HOOK:
        return PROFILE_HOOK[0](cls, args)
    if DUAL_HOOK:
        return DUAL_HOOK[0](cls, args)
    if LOWP_HOOK:
        cls = LOWP_HOOK[0](cls, args)
    T = Tensor
    record = False
    n = len(args)
    # Unrolled for the one- and two-input cases: this is the per-op hot path.
    if n == 1:
        a = args[0]
        if isinstance(a, T):
            vals = (a._data,)
            record = a._requires_grad
        else:
            vals = args
    elif n == 2:
        a, b = args
        ta, tb = isinstance(a, T), isinstance(b, T)
        vals = (a._data if ta else a, b._data if tb else b)
        record = (ta and a._requires_grad) or (tb and b._requires_grad)
    elif n == 3:  # linear's (input, weight, bias), addmm, where: unrolled too (no comprehension frame)
        a, b, c = args
        ta, tb, tc = isinstance(a, T), isinstance(b, T), isinstance(c, T)
        vals = (a._data if ta else a, b._data if tb else b, c._data if tc else c)
        record = (ta and a._requires_grad) or (tb and b._requires_grad) or (tc and c._requires_grad)
    else:
        vals = tuple([x._data if isinstance(x, T) else x for x in args])
        if _grad_state.enabled:  # under no_grad (inference: linear's input, weight, bias) the scan is moot
            for x in args:
                if isinstance(x, T) and x._requires_grad:
                    record = True
                    break
    if not record or not _grad_state.enabled:
        fp = _FP_STATE.set(_QUIET)  # inf and NaN silently, as PyTorch (see npgrad._fp_quiet)
        try:
            out = cls.forward(NO_CTX, *vals)
        finally:
            _FP_STATE.reset(fp)
        if _tracer is not None:  # an ONNX export is recording the forward pass (it runs under no_grad)
            return _tracer(cls, args, out)
        if type(out) is np.ndarray:  # T._wrap(out), inlined: the no_grad (inference) path of every op
            result = object.__new__(T)
            result._data = out
            result._requires_grad = False
            result._grad_fn = result._grad = result._vc = result._view_of = None
            result._out_idx = 0
            return result
        if type(out) is tuple:
            return tuple([T._wrap(o) for o in out])
        return T._wrap(out)

    node = object.__new__(cls)
    node._saved = node._saved_refs = node._saved_versions = None
    node._epoch = -1
    if n == 1:
        fn = a._grad_fn
        if fn is None or a._view_of is not None:
            fn = _input_node(a)
        node._fns = (fn,)
        i = a._out_idx
        node._idxs = _IDX[i] if i < 4 else (i,)
        node.needs_input_grad = _NEEDS1
        d = a._data
        node._in_meta = ((d.shape, d.dtype),)
    elif n == 2 and ta and tb:
        ga, gb = a._requires_grad, b._requires_grad
        da, db = a._data, b._data
        fa = fb = None
        ia = ib = 0
        if ga:
            fa = a._grad_fn
            if fa is None and a._view_of is None:  # a leaf (a weight) whose accumulator exists: no call
                fa = a._accum
            if fa is None or a._view_of is not None:
                fa = _input_node(a)
            ia = a._out_idx
        if gb:
            fb = b._grad_fn
            if fb is None and b._view_of is None:
                fb = b._accum
            if fb is None or b._view_of is not None:
                fb = _input_node(b)
            ib = b._out_idx
        node._fns = (fa, fb)
        node._idxs = _IDX00 if not (ia or ib) else (ia, ib)
        node.needs_input_grad = _NEEDS_TT if ga and gb else _NEEDS2[ga, gb]
        node._in_meta = ((da.shape, da.dtype) if ga else None, (db.shape, db.dtype) if gb else None)
    elif n == 2 and ta:  # tensor <op> Python number
        fn = a._grad_fn
        if fn is None or a._view_of is not None:
            fn = _input_node(a)
        node._fns = (fn, None)
        node._idxs = _IDX0_SCALAR if a._out_idx == 0 else (a._out_idx, -1)
        node.needs_input_grad = _NEEDS_T_SCALAR
        d = a._data
        node._in_meta = ((d.shape, d.dtype), None)
    else:
        fns = []
        idxs = []
        meta = []
        for x in args:
            if isinstance(x, T) and x._requires_grad:
                fns.append(_input_node(x))
                idxs.append(x._out_idx)
                d = x._data
                meta.append((d.shape, d.dtype))
            else:
                fns.append(None)
                idxs.append(0 if isinstance(x, T) else -1)
                meta.append(None)
        node._fns = tuple(fns)
        node._idxs = tuple(idxs)
        node.needs_input_grad = tuple([m is not None for m in meta])
        node._in_meta = tuple(meta)
    # Numbered after its inputs' edges exist (a leaf's accumulator may have just been made): the
    # engine relies on every node being newer than the nodes it points to.
    node._seq = _next_seq()
    fp = _FP_STATE.set(_QUIET)
    try:
        out = cls.forward(node, *vals)
    finally:
        _FP_STATE.reset(fp)
    if type(out) is not tuple:
        if type(out) is not np.ndarray:
            out = _as_array_output(node, out)
        if out.dtype.kind == "f":
            result = object.__new__(T)  # T._wrap(out, node), inlined: this runs for every recorded op
            result._data = out
            result._grad_fn = node
            result._requires_grad = True
            result._grad = result._vc = result._view_of = None
            result._out_idx = 0
        elif out.dtype.kind == "c":
            result = T._wrap(out, node)
            _mark_complex(node)
        else:
            result = T._wrap(out, node) if out.dtype in _LOWP_NP else T._wrap(out)
        saved = node._saved
        if saved is not None:
            # _fix_saved's commonest single-output cases, inlined (one frame fewer per op): a unary op that
            # kept its output (exp, tanh, sigmoid ...) or its one input (sin, gelu ...), and an op that kept
            # only Python numbers or None (x * 0.5, x / 1.5 where the scalar needs no gradient).
            if (len(saved) == 1 and saved[0] is out and result._grad_fn is node and n <= 2 and out is not vals[0]
                    and (n == 1 or out is not vals[1])):  # (an input's own array is matched as the input)
                vc = result._vc = [0]
                ref = _OutputRef(out, 0, vc, 0)
                node._saved_refs = [ref]
                node._saved_versions = [(ref, 0, None, 0)]
                node._epoch = INPLACE_EPOCH[0]
            elif n == 1 and len(saved) == 1 and saved[0] is vals[0] and type(a) is T:
                vc = a._vc
                node._saved_refs = [a]
                node._saved_versions = [(a, vc[0] if vc is not None else 0, a._grad_fn, a._out_idx)]
                node._epoch = INPLACE_EPOCH[0]
            elif n == 2 and len(saved) == 2 and saved[0] is vals[0] and saved[1] is vals[1] and type(a) is T \
                    and type(b) is T:  # both inputs kept, in order (mul, div, matmul ...)
                va, vb = a._vc, b._vc
                node._saved_refs = args
                node._saved_versions = ((a, va[0] if va is not None else 0, a._grad_fn, a._out_idx),
                                        (b, vb[0] if vb is not None else 0, b._grad_fn, b._out_idx))
                node._epoch = INPLACE_EPOCH[0]
            elif len(saved) == 2 and type(saved[0]) is not np.ndarray and type(saved[1]) is not np.ndarray:
                node._saved_refs = saved
                node._epoch = INPLACE_EPOCH[0]
            else:
                _fix_saved(node, args, vals, (result,))
        if _anomaly.any_enabled[0] and _anomaly.enabled():
            node._trace = _anomaly.creation_trace()
        return result
    outputs = _wrap_outputs(node, out)
    if node._saved is not None:
        _fix_saved(node, args, vals, outputs)
    if _anomaly.any_enabled[0] and _anomaly.enabled():
        node._trace = _anomaly.creation_trace()
    return outputs


_NEEDS1 = (True,)
_NEEDS_T_SCALAR = (True, False)
_NEEDS_TT = (True, True)
_NEEDS2 = {(True, True): _NEEDS_TT, (True, False): (True, False), (False, True): (False, True)}


def _input_node(x):
    """The node the gradient of input ``x`` (which requires grad) flows to: its grad_fn, re-derived
    first if ``x`` is a view whose base changed in place, or a leaf's AccumulateGrad. The output
    index is then ``x._out_idx`` (0 for a leaf)."""
    if x._view_of is not None:
        _refresh_view(x)  # its base may have changed in place since the view was taken
    fn = x._grad_fn
    if fn is None:
        fn = x._accum  # a leaf's accumulator once made (_grad_accumulator's fast case, one call fewer)
        if fn is None:
            fn = x._grad_accumulator()
    return fn


# Output-index tuples shared by every node whose inputs are outputs 0 (the usual case): no allocation.
_IDX = [(0,), (1,), (2,), (3,)]
_IDX00 = (0, 0)
_IDX0_SCALAR = (0, -1)  # -1 marks a non-Tensor argument (hidden from next_functions)


def _wrap_outputs(node, out):
    T = Tensor
    node._n_out = len(out)
    node._plain = False
    non_diff = node._non_diff
    res = []
    for i, o in enumerate(out):
        if o is None:
            res.append(None)
            continue
        if type(o) is not np.ndarray:
            o = _as_array_output(node, o)
        kind = o.dtype.kind
        diff = (kind in "fc" or o.dtype in _LOWP_NP) and not any(o is nd for nd in non_diff)
        if diff and kind == "c":
            _mark_complex(node)
        res.append(T._wrap(o, node, i) if diff else T._wrap(o))
    return tuple(res)


def _mark_complex(node):
    """A node with a complex output runs through the engine's general path, which applies PyTorch's
    conjugate-Wirtinger convention around formulas written as ``g * f'(z)`` (see engine._call_backward).
    Decided here, where the output's dtype is already known, so real graphs pay nothing for it."""
    node._plain = False
    node._complex = True


def _as_array_output(node, out):
    """An output that forward returned as a NumPy scalar (a 0-d reduction does) becomes an array; if
    forward also saved it, the saved value must be that same array to be recognised as the output."""
    arr = np.asarray(out)
    saved = node._saved
    if saved is not None and any(s is out for s in saved):
        node._saved = tuple([arr if s is out else s for s in saved])
    return arr


def _fix_saved(node, args, vals, outputs, returned=None):
    """Turn what forward saved into references that survive the call: input Tensors, output refs
    (no cycle), or constants; remember the version of each saved Tensor for the in-place check.

    An Op (``returned`` None) saved arrays: each is matched by identity with an input's array (the ref
    is that input Tensor) or an output's array. A user Function saved Tensors: each is matched with what
    its forward ``returned`` (the ref is then the output), else it is kept as it is.
    """
    T = Tensor
    saved = node._saved
    op = returned is None
    if op and len(saved) == 2 and len(vals) == 2 and saved[0] is vals[0] and saved[1] is vals[1]:
        # The common case (Mul, Div, MatMul ...): both inputs saved, in order.
        a, b = args
        if type(a) is T and type(b) is T:
            va, vb = a._vc, b._vc
            node._saved_refs = args
            node._saved_versions = ((a, va[0] if va is not None else 0, a._grad_fn, a._out_idx),
                                    (b, vb[0] if vb is not None else 0, b._grad_fn, b._out_idx))
            node._epoch = INPLACE_EPOCH[0]
            return
    refs = None
    versions = []
    n = len(vals)
    for k, s in enumerate(saved):
        hit = None
        if op:
            if type(s) is not np.ndarray:
                continue
            # Prefer the input at the same position: `x * x.detach()` shares one array between two inputs.
            src = args[k] if k < n and vals[k] is s else None
            if src is None or not isinstance(src, T):
                src = None
                for a, v in zip(args, vals):
                    if v is s and isinstance(a, T):
                        src = a
                        break
            if src is None:
                for i, o in enumerate(outputs):
                    if o is not None and o._data is s:
                        hit = i
                        break
                if hit is None:
                    continue
        else:
            if not isinstance(s, T):
                continue
            for i, o in enumerate(returned):
                if o is s:
                    hit = i
                    break
            src = s if hit is None else None
        if refs is None:
            refs = list(saved)
        if src is not None:
            refs[k] = src
            vc = src._vc
            versions.append((src, vc[0] if vc is not None else 0, src._grad_fn, src._out_idx))
            continue
        o = outputs[hit]
        if not op and o._grad_fn is not node:
            refs[k] = o  # a non-differentiable output: no cycle to avoid
            continue
        vc = o._vc
        if vc is None:
            vc = o._vc = [0]
        ref = refs[k] = _OutputRef(o._data, hit, vc, vc[0])
        versions.append((ref, vc[0], None, hit))  # not the node itself: no cycle
    if op:
        node._epoch = INPLACE_EPOCH[0]
    if refs is None:
        node._saved_refs = saved  # nothing but constants
        return
    node._saved_refs = refs
    if not op:
        node._saved = tuple(refs)
    if versions:
        node._saved_versions = versions


def relink_saved_output(node, index, vc):
    """Output ``index`` of ``node`` was written into an existing tensor by an in-place op (``y.exp_()``
    computes ``exp`` out of place, then copies into ``y``). PyTorch saves that tensor itself, so a later
    in-place change to it invalidates this node's backward: the saved reference now follows the
    tensor's version counter ``vc`` (the saved array stays npgrad's own copy)."""
    versions = node._saved_versions
    if versions is None:
        return
    for k, (ref, version, fn, idx) in enumerate(versions):
        if isinstance(ref, _OutputRef) and ref.index == index:
            ref.vc, ref.version = vc, vc[0]
            versions[k] = (ref, vc[0], fn, idx)


def _apply_function(cls, args, kwargs, ctx_sink=None):
    """Run a user Function: forward on the Tensors themselves under no_grad, then record. ``ctx_sink``, a
    list, receives the ctx (forward AD calls the Function's jvp with it afterwards)."""
    T = Tensor
    if FUNCTION_HOOK:
        out = FUNCTION_HOOK[0](cls, args, kwargs)
        if out is not NotImplemented:
            return out
    if DUAL_HOOK and ctx_sink is None and DUAL_HOOK[2](*args, *kwargs.values()):
        return DUAL_HOOK[5](cls, args, kwargs)
    record = _grad_state.enabled and any(isinstance(a, T) and a._requires_grad for a in args)
    node = _new_node(cls)  # forward may set attributes on ctx whether or not anything is recorded
    if ctx_sink is not None:
        ctx_sink.append(node)
    node.needs_input_grad = tuple(isinstance(a, T) and a._requires_grad for a in args)
    node._fns = node._idxs = ()
    node._in_meta = ()
    new_style = cls.setup_context is not Function.setup_context
    if kwargs:
        # Keyword arguments count as inputs in forward's parameter order (needs_input_grad, backward).
        args = _bind(cls, new_style, args, kwargs)
        kwargs = {}
        node.needs_input_grad = tuple(isinstance(a, T) and a._requires_grad for a in args)
        record = _grad_state.enabled and any(node.needs_input_grad)
    prev = _grad_state.enabled
    _grad_state.enabled = False
    try:
        if new_style:
            out = cls.forward(*args, **kwargs)
            cls.setup_context(node, args, out)
        else:
            out = cls.forward(node, *args, **kwargs)
    finally:
        _grad_state.enabled = prev
    is_tuple = type(out) is tuple
    outs = out if is_tuple else (out,)
    if not record:
        return out
    node._fns = tuple([_input_node(a) if isinstance(a, T) and a._requires_grad else None for a in args])
    node._idxs = tuple([(a._out_idx if a._requires_grad else 0) if isinstance(a, T) else -1 for a in args])
    node._seq = _next_seq()  # after the edges: newer than every node it points to
    node._in_meta = [(a._data.shape, a._data.dtype) if isinstance(a, T) and a._requires_grad else None
                     for a in args]
    node._tensor_args = tuple(isinstance(a, T) for a in args)
    node._n_out = len(outs)
    non_diff = node._non_diff
    dirty = node._dirty
    res = []
    shapes = []
    for i, o in enumerate(outs):
        if not isinstance(o, T):
            res.append(o)
            shapes.append(None)
            continue
        if any(o is d for d in dirty):
            _rebase_dirty(o)  # the input itself becomes this output, as PyTorch does for in-place Functions
        elif any(o is a for a in args) or o._grad_fn is not None or o._requires_grad:
            o = o._alias()  # an input returned as-is gets a new identity, as PyTorch makes a view
        if o._data.dtype.kind in "fc" and not any(o is nd for nd in non_diff):
            o._grad_fn, o._out_idx, o._requires_grad = node, i, True
        res.append(o)
        shapes.append((o._data.shape, o._data.dtype))
    node._out_shapes = shapes
    if node._saved is not None:
        # Saved outputs are matched by identity against what forward returned.
        _fix_saved(node, args, args, res, outs)
    if _anomaly.enabled():
        node._trace = _anomaly.creation_trace()
    return tuple(res) if is_tuple else res[0]


def _bind(cls, new_style, args, kwargs):
    import inspect
    sig = inspect.signature(cls.forward)
    bound = sig.bind(*args, **kwargs) if new_style else sig.bind(None, *args, **kwargs)
    return tuple(bound.args if new_style else bound.args[1:])


def _rebase_dirty(t):
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    vc = t._version_counter()
    vc[0] += 1
    INPLACE_EPOCH[0] += 1
