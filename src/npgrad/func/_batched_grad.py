"""Reverse-mode gradients of batched tensors: grad / vjp / jacrev inside vmap.

npgrad's backward formulas run on physical arrays, so the gradient with respect to an input that is not
batched would be the sum over the examples. Inside vmap, a transform therefore first materialises every
input it differentiates at every active level (``per_example``: expanded to physical copies, one per
example); the physical backward pass from per-example outputs then gives per-example gradients, since the
examples are independent. ``autograd_grad`` is ``autograd.grad`` on batched tensors: it brings outputs and
cotangents to the inputs' levels, runs the engine on the physical tensors and rewraps the gradients.
A cotangent batched at a level its inputs are not batched at is handled one example at a time.
"""
from ..autograd.engine import grad as _engine_grad
from ._batched import LEVELS, _BatchedBase, make, materialise, unwrap_all, rewrap

__all__ = ["per_example", "autograd_grad", "zeros_like_any", "physical_ids"]


def per_example(t):
    """``t`` batched at every active vmap level (an input a transform differentiates)."""
    for lv, size, _ in LEVELS:
        t = materialise(t, lv, size)
    return t


def physical_ids(t):
    """The ids of ``t`` and of every tensor under its levels."""
    ids = [id(t)]
    while isinstance(t, _BatchedBase):
        t = t._value
        ids.append(id(t))
    return ids


def zeros_like_any(x):
    from ..factories import zeros_like
    plain, levels = unwrap_all(x)
    return rewrap(zeros_like(plain), levels)


def _sizes(tensors, into):
    for t in tensors:
        while isinstance(t, _BatchedBase):
            into.setdefault(t._level, t._value.shape[0])
            t = t._value
    return into


def _levels(t):
    return unwrap_all(t)[1] if isinstance(t, _BatchedBase) else []


def _to_levels(t, levels, sizes):
    for lv in levels:
        t = materialise(t, lv, sizes[lv])
    return t


def autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    outputs, inputs = list(outputs), list(inputs)
    grad_outputs = [None] * len(outputs) if grad_outputs is None else list(grad_outputs)
    everything = outputs + inputs + grad_outputs
    if not any(isinstance(t, _BatchedBase) for t in everything):
        return _engine_grad(outputs, inputs, grad_outputs, retain_graph=retain_graph, create_graph=create_graph,
                            allow_unused=allow_unused)
    sizes = _sizes(everything, {})
    in_levels = sorted({lv for x in inputs for lv in _levels(x)})
    extra = sorted({lv for g in grad_outputs for lv in _levels(g)} - set(in_levels))
    if extra:
        return _per_cotangent_example(extra[-1], sizes[extra[-1]], outputs, inputs, grad_outputs, retain_graph,
                                      create_graph, allow_unused)
    phys_out, phys_g = [], []
    for o, g in zip(outputs, grad_outputs):
        o = _to_levels(o, in_levels, sizes)
        po, _ = unwrap_all(o)
        if g is None:
            from ..factories import ones_like
            pg = ones_like(po) if isinstance(o, _BatchedBase) else None
        else:
            pg, _ = unwrap_all(_to_levels(g, _levels(o), sizes))
        phys_out.append(po)
        phys_g.append(pg)
    phys_in = [unwrap_all(x) for x in inputs]
    got = _engine_grad(phys_out, [p for p, _ in phys_in], phys_g, retain_graph=True if retain_graph is None else
                       retain_graph, create_graph=create_graph, allow_unused=allow_unused)
    return tuple(None if g is None else rewrap(g, lv) for g, (_, lv) in zip(got, phys_in))


def _per_cotangent_example(level, size, outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    from ._dispatch import call
    rows = []
    for i in range(size):
        gs = [g._value.select(0, i) if isinstance(g, _BatchedBase) and g._level == level else g for g in grad_outputs]
        rows.append(autograd_grad(outputs, inputs, gs, True, create_graph, allow_unused))
    out = []
    for k in range(len(inputs)):
        col = [r[k] for r in rows]
        out.append(None if col[0] is None else make(call("stack", col), level))
    return tuple(out)
