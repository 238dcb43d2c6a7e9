"""How npgrad.func nests its transforms on one reverse-mode tape.

torch.func gives each transform a level of its own. npgrad has a single tape, so a transform marks the
inputs it differentiates with respect to by giving them a node of their own: a fresh leaf (``detach`` +
``requires_grad_``) when the caller's graph does not track the input, else a ``clone`` (so its gradient is
with respect to this use, and the caller's graph still reaches the input). After the forward pass the
transform walks the output's graph: if it reaches a leaf that is not one of its own fresh leaves, an
enclosing transform (or the caller's plain autograd) differentiates through this one, and the gradients are
built with ``create_graph=True``; otherwise they are computed once, without graph, and the results are
detached. That is what lets ``grad(grad(f))`` and ``jacrev(grad(f))`` compose.
"""
import itertools

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.record import DUAL_HOOK
from ..tensor import Tensor
from ._batched import LEVELS
from ._batched_grad import per_example, physical_ids

__all__ = ["make_differentiable", "reaches_outer", "release", "leaf_mark"]

# Every fresh leaf gets the next number: a forward-AD jvp/jacfwd, which makes no leaves of its own, tells
# the leaves of transforms nested inside it (numbered after its start) from the caller's.
_leaf_numbers = itertools.count()


def leaf_mark():
    """The number the next fresh leaf will get."""
    return next(_leaf_numbers)


def make_differentiable(t, fresh, tracked):
    """This transform's handle on input ``t``; records fresh leaves' ids in ``fresh``."""
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if LEVELS:
        t = per_example(t)   # inside vmap: one gradient per example (see _batched_grad)
    if tracked and t.requires_grad:
        return t.clone()
    x = t.detach().requires_grad_()
    fresh.update(physical_ids(x))
    x.__dict__["_func_leaf"] = next(_leaf_numbers)
    if DUAL_HOOK and DUAL_HOOK[2](t):  # under forward AD (func.jvp/jacfwd of this transform): keep the tangent
        from ..autograd.forward_ad import _carry
        _carry(t, x, False)
    return x


def reaches_outer(tensors, fresh, since=None):
    """Whether the graph of any of ``tensors`` leads to a leaf other than the ``fresh`` ones (and, with
    ``since``, other than the fresh leaves transforms made after ``leaf_mark()`` returned ``since``)."""
    def is_fresh(v):
        return id(v) in fresh or (since is not None and v.__dict__.get("_func_leaf", -1) >= since)

    if not is_grad_enabled():
        return False
    if DUAL_HOOK and DUAL_HOOK[2](*tensors):
        return True  # forward AD through this transform: its gradients must be built on the duals, with graph
    seen = set()
    stack = []
    for t in tensors:
        if not isinstance(t, Tensor) or not t.requires_grad:
            continue
        if t.grad_fn is None:
            if not is_fresh(t):
                return True
            continue
        stack.append(t.grad_fn)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == "AccumulateGrad":
            v = node.variable
            if v is not None and not is_fresh(v):
                return True
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return False


def release(x, keep):
    """``x`` as the transform returns it: detached unless an enclosing graph differentiates through it."""
    if keep or not isinstance(x, Tensor):
        return x
    return x.detach()
