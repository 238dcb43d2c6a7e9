"""torch.autograd.forward_ad: forward-mode AD with dual tensors.

Inside ``dual_level()``, ``make_dual(x, t)`` gives a tensor carrying a tangent ``t`` (the direction of
the derivative); every operation on it computes, next to its value, the tangent of its result, the
Jacobian-vector product ``J t``; ``unpack_dual(y)`` reads ``(primal, tangent)``. One level at a time, as
PyTorch 2.13 (a second ``enter_dual_level`` raises); tangents vanish when their level is exited.

How it hooks in: ``record._apply_op`` runs every built-in Op. While a level is open, ``record.DUAL_HOOK``
holds ``_dual_apply``, which looks for tangents among the arguments; without any it runs the op as
usual, otherwise it runs the op on the primals and computes the output tangents with the op's rule
(``_jvp_rules``). Outside a level the hook list is empty and an op pays one truth test. A dual tensor
need not require grad: the hook looks at the tangents themselves, so its ops reach it regardless, and
``requires_grad`` stays what the user set. Tangents live in the tensor's ``__dict__`` as
``(level, tangent)``: a stale level's entry is simply ignored.

Rules (``_jvp_rules.py``): linear ops apply themselves to the tangents, multilinear ones sum one term
per factor, elementwise ones reuse their backward (a diagonal Jacobian is its own transpose). Every other
op uses the double-VJP trick (``_double_vjp``): the op's backward is linear in the output cotangent
``u``, ``g(u) = J^T u``; building ``g`` with ``u`` a tensor that requires grad and differentiating
``<g(u), t>`` with respect to ``u`` gives ``J t`` (linear in ``u``, so any ``u`` works; ones, as a
formula may be linear without being differentiable at 0). It costs one
backward of the op and one reverse pass through that backward, and is exact (the same formulas as
reverse mode).

Forward and reverse mode compose: a dual whose primal requires grad records the reverse-mode graph as
usual, and tangent computations are themselves recorded when grad mode is on and something requires
grad, so a tangent can be differentiated by reverse mode. In-place ops write the new tangent into the
tensor's tangent in place, so views of a dual (whose tangents are views of its tangent) see it.
"""
import collections
import functools

import numpy as np

from . import record as _record
from ._jvp_rules import RULES, diagonal as _diagonal, kind_of, needs_node
from .engine import grad as _grad
from .grad_mode import state as _grad_state
from .views import refresh_view as _refresh_view, replay as _replay

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


class _Level:
    """An open dual level; tangents are tagged with it, so exiting the level orphans them."""
    __slots__ = ()


_current = [None]  # the open _Level, or None


def _index():
    return -1 if _current[0] is None else 0


def enter_dual_level():
    """Open a new forward-AD level and return its index (0: PyTorch allows one level at a time)."""
    if _current[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current[0] = _Level()
    from ._function_jvp import apply_function  # a user Function's jvp: loaded with the first level
    _record.DUAL_HOOK[:] = [_dual_apply, _inplace, _any_dual, _carry, _setitem, apply_function]
    return 0


def exit_dual_level(*, level=None):
    """Close the current level; every tangent made inside it is gone."""
    cur = _index()
    if level is None:
        level = cur
    if level != cur:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _current[0] = None
    del _record.DUAL_HOOK[:]


def _check_level(level, what):
    cur = _index()
    if level is None:
        level = cur
    if level < 0:
        return None
    if cur < 0:
        raise RuntimeError("Trying to access a forward AD level with an invalid index. This index was either not "
                           "created or is already deleted.")
    if level != cur:
        raise RuntimeError(f"Invalid level given to {what}")
    return _current[0]


def _is_float(t):
    return t._data.dtype.kind in "fc"


def _dtype_name(t):
    return "torch." + str(t.dtype).rsplit(".", 1)[-1]  # PyTorch's spelling, as in its message


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` at ``level`` (the current one by default)."""
    if level is None and _current[0] is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if level is not None and level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not _is_float(tensor):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {_dtype_name(tensor)}")
    if not _is_float(tangent):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {_dtype_name(tangent)}")
    lvl = _check_level(level, "_make_dual")
    if tuple(tensor._data.shape) != tuple(tangent._data.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor._data.shape)} while the "
                           f"given forward gradient is of size {list(tangent._data.shape)}.")
    if _get(tensor, lvl) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           "level 0 is not supported.")
    out = _strip(tensor)  # PyTorch's is a view: the same data and autograd history
    out.__dict__["_fw"] = (lvl, tangent)
    return out


_UnpackedDualTensor = collections.namedtuple("_UnpackedDualTensor", ["primal", "tangent"])


class UnpackedDualTensor(_UnpackedDualTensor):
    """``(primal, tangent)`` of a dual tensor: what ``unpack_dual`` returns (tangent None where there is none)."""


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)``: the primal is a view of ``tensor`` without the tangent."""
    if level is None and _current[0] is None:
        return UnpackedDualTensor(tensor, None)
    T = _record.Tensor
    if not isinstance(tensor, T):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    if level is not None and level != _index():
        return UnpackedDualTensor(tensor, None)
    lvl = _current[0]
    t = _get(tensor, lvl)
    if t is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_strip(tensor), t)


class dual_level:
    """Context manager (and decorator) opening a forward-AD level for its body:

    >>> with dual_level():
    ...     y = f(make_dual(x, t))
    ...     jvp = unpack_dual(y).tangent
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


# -- the hook: tangents through every op -------------------------------------------------------------

def _get(x, lvl):
    fw = x.__dict__.get("_fw")
    if fw is not None and fw[0] is lvl and lvl is not None:
        return fw[1]
    return None


def _set(x, lvl, tangent):
    x.__dict__["_fw"] = (lvl, tangent)


def _any_dual(*xs):
    T = _record.Tensor
    lvl = _current[0]
    for x in xs:
        if isinstance(x, T) and _get(x, lvl) is not None:
            return True
    return False


def _strip(a):
    """A tensor with ``a``'s data and autograd history but no tangent (the primal)."""
    if a._view_of is not None:
        _refresh_view(a)
    p = a._alias()
    if a._grad_fn is None and a._requires_grad:
        p._accum = a._grad_accumulator()  # a leaf: gradients through the alias reach the leaf's .grad
    return p


def _dual_apply(cls, args):
    lvl = _current[0]
    T = _record.Tensor
    tans = None
    for k, a in enumerate(args):
        if isinstance(a, T):
            fw = a.__dict__.get("_fw")
            if fw is not None and fw[0] is lvl:
                if tans is None:
                    tans = [None] * len(args)
                tans[k] = fw[1]
    if tans is None:
        return _plain(cls, args)
    return _propagate(cls, args, tans, lvl)


def _plain(cls, args):
    """The op itself, recorded as usual: the hook steps aside for the call."""
    hook = _record.DUAL_HOOK
    saved = hook[:]
    hook.clear()
    try:
        return _record._apply_op(cls, args)
    finally:
        hook[:] = saved


def _propagate(cls, args, tans, lvl):
    T = _record.Tensor
    kind = kind_of(cls)
    grad_on = _grad_state.enabled
    primals = list(args)
    for k, t in enumerate(tans):
        if t is not None:
            primals[k] = _strip(args[k])
    real = grad_on and any(isinstance(a, T) and a._requires_grad for a in args)
    tracked = real or (grad_on and any(t is not None and t._requires_grad for t in tans))
    node = None
    if needs_node(kind):
        # The rule calls the op's backward: record a node in which every input with a tangent needs grad.
        forced = []
        for k, t in enumerate(tans):
            p = primals[k]
            if t is not None and not p._requires_grad and _is_float(p):
                p._requires_grad = True
                forced.append(p)
        _grad_state.enabled = True
        try:
            out = _plain(cls, tuple(primals))
        finally:
            _grad_state.enabled = grad_on
        for p in forced:
            p._requires_grad = False  # constants again for the backward formulas that read them
        outs = out if type(out) is tuple else (out,)
        for o in outs:
            if isinstance(o, T) and o._grad_fn is not None and type(o._grad_fn) is cls:
                node = o._grad_fn
                break
        mask = [isinstance(o, T) and o._grad_fn is node and node is not None for o in outs]
        if not real:
            for o in outs:
                if isinstance(o, T) and o._grad_fn is not None:
                    o._grad_fn, o._requires_grad, o._out_idx = None, False, 0
        if node is None:
            return out  # no differentiable output
    else:
        out = _plain(cls, tuple(primals))
        outs = out if type(out) is tuple else (out,)
        mask = None
    _grad_state.enabled = tracked
    try:
        res = None
        if kind == "diagonal" and len(outs) == 1:
            res = _diagonal(cls, primals, tans, outs, node, tracked)
        elif kind in RULES:
            res = RULES[kind](cls, primals, tans, outs, node)
        if res is None:
            try:
                res = _double_vjp(cls, node, tans, outs, mask, tracked)
            except (RuntimeError, NotImplementedError) as e:
                if "not implemented" not in str(e) and "twice" not in str(e):
                    raise
                # the op's backward is not differentiable: PyTorch's error for an op without forward AD
                name = node.name().replace("torch::autograd::", "")
                name = name[:-9] if name.endswith("Backward0") else name
                raise NotImplementedError(f"Trying to use forward AD with {name} that does not support it because "
                                          "it has not been implemented yet.") from e
    finally:
        _grad_state.enabled = grad_on
    rec = None  # the node reverse mode keeps, if any: its saved values get their tangents back
    if real:
        for o in outs:
            if isinstance(o, T) and o._grad_fn is not None and type(o._grad_fn) is cls:
                rec = o._grad_fn
                break
        if rec is not None:
            _relink(rec, primals, args)
    for i, (o, r) in enumerate(zip(outs, res)):
        if not isinstance(o, T) or not _is_float(o) or (mask is not None and not mask[i]):
            continue  # not differentiable (an index, or an output the op marks non-differentiable)
        d = o._data
        if r is None:
            r = T._wrap(np.zeros(d.shape, d.dtype))
        else:
            if r._data.dtype != d.dtype:
                r = r.to(o.dtype)
            if r._data.shape != d.shape:
                r = r.expand(d.shape)
            if not tracked and r._grad_fn is not None:
                r = r.detach()
        _set(o, lvl, r)
        if rec is not None and o._grad_fn is rec:
            fw = rec.__dict__.get("_fw_out")
            if fw is None:
                fw = rec.__dict__["_fw_out"] = {}
            fw[o._out_idx] = (lvl, r)
    return out


def _relink(node, primals, args):
    """The node saved the tangent-free primals; a backward built on it under create_graph inside this level
    (forward-over-reverse: ``jvp(grad(f))``, ``jacfwd(jacrev(f))``) must see the duals, so that its formulas
    carry tangents as well."""
    refs = node._saved_refs
    if refs is None:
        return
    swap = {id(p): a for p, a in zip(primals, args) if p is not a}
    if not swap:
        return
    new = [swap.get(id(r), r) for r in refs]
    node._saved_refs = tuple(new) if type(refs) is tuple else new
    versions = node._saved_versions
    if versions:
        node._saved_versions = [(swap.get(id(v[0]), v[0]),) + tuple(v[1:]) for v in versions]


def _double_vjp(cls, node, tans, outs, mask, tracked):
    """J t for an op without a rule, by the double-VJP trick: ``g(u) = backward(node, u)`` is J^T u, linear
    in the cotangent u; with u a tensor of ones requiring grad, d<g(u), t>/du = J t. Ones rather than
    zeros: a formula may be linear in u without being differentiable at 0 (logcumsumexp's takes log|u|).
    Returns one tangent per output (None for outputs the node does not produce: ``mask`` says which)."""
    T = _record.Tensor
    us = []
    for o, m in zip(outs, mask):
        if m and _is_float(o):
            u = T._wrap(np.ones(o._data.shape, o._data.dtype))
            u._requires_grad = True
            us.append(u)
        else:
            us.append(None)
    prev = _grad_state.enabled
    _grad_state.enabled = True
    try:
        gs = cls.backward(node, *us)
        if type(gs) is not tuple:
            gs = (gs,)
        total = None
        for k, t in enumerate(tans):
            if t is None or k >= len(gs):
                continue
            g = gs[k]
            if not isinstance(g, T) or not g._requires_grad:
                continue  # independent of u: this input does not reach the outputs
            term = (g * t).sum()
            total = term if total is None else total + term
        live = [u for u in us if u is not None]
        if total is None:
            return [None] * len(outs)
        got = list(_grad(total, live, create_graph=tracked, allow_unused=True, materialize_grads=True))
    finally:
        _grad_state.enabled = prev
    return [None if u is None else got.pop(0) for u in us]


# -- in-place writes ---------------------------------------------------------------------------------------

def _tangent_slot(t, lvl):
    """``t``'s tangent, made (zeros) if it has none; a view of a base gets a view of the base's tangent."""
    T = _record.Tensor
    tt = _get(t, lvl)
    if tt is not None:
        return tt
    info = t._view_of
    arr = None
    if info is not None:
        base, chain = info[0], info[1]
        bt = _get(base, lvl)
        if bt is None:
            bt = T._wrap(np.zeros(base._data.shape, base._data.dtype))
            _set(base, lvl, bt)
        arr = _replay(chain, bt._data)
        if not (isinstance(arr, np.ndarray) and np.shares_memory(arr, bt._data) and arr.flags.writeable):
            arr = None
    if arr is None:
        arr = np.zeros(t._data.shape, t._data.dtype)
    tt = T._wrap(arr)
    _set(t, lvl, tt)
    return tt


def _write_tangent(t, lvl, value):
    """Write ``value`` (an array or scalar) into ``t``'s tangent in place (views of it see the change)."""
    T = _record.Tensor
    tt = _tangent_slot(t, lvl)
    if not tt._data.flags.writeable or tt._requires_grad:
        tt = T._wrap(np.array(np.broadcast_to(tt._data, t._data.shape), dtype=t._data.dtype))
        _set(t, lvl, tt)
    tt._data[...] = value


def _inplace(t, r):
    """``t`` now holds result ``r`` of an in-place op: its tangent becomes r's."""
    lvl = _current[0]
    tr = _get(r, lvl)
    if tr is None and _get(t, lvl) is None:
        return
    if tr is not None and tr._requires_grad:
        _set(t, lvl, tr if tuple(tr.shape) == tuple(t.shape) else tr.expand(t.shape))  # keep its graph
        return
    _write_tangent(t, lvl, 0 if tr is None else tr._data)


def _carry(src, dst, copy=True):
    """``dst`` takes ``src``'s tangent: a copy where dst stands for src's old value in an in-place op's
    recording (the write changes the tangent afterwards), or a copy of a view (``<view>_copy``); the
    tangent itself where dst becomes src (``squeeze_`` and the other in-place reshapes)."""
    fw = src.__dict__.get("_fw")
    if fw is not None and fw[0] is _current[0]:
        dst.__dict__["_fw"] = (fw[0], fw[1].clone() if copy else fw[1])


def _setitem(t, idx, v):
    """``t[idx] = v`` outside the graph: the tangent's region takes v's tangent (zeros without one)."""
    lvl = _current[0]
    T = _record.Tensor
    tv = _get(v, lvl) if isinstance(v, T) else None
    tt = _tangent_slot(t, lvl)
    if not tt._data.flags.writeable:
        _write_tangent(t, lvl, tt._data)
        tt = _get(t, lvl)
    value = 0 if tv is None else tv._data
    if hasattr(idx, "write"):  # an index applied in two steps (ops/indexing.py's IntsFirst)
        idx.write(tt._data, value)
    else:
        tt._data[idx] = value
