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
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from ._batched import LEVELS
from ._batched_grad import per_example, physical_ids

__all__ = ["make_differentiable", "reaches_outer", "release"]


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
    return x


def reaches_outer(tensors, fresh):
    """Whether the graph of any of ``tensors`` leads to a leaf other than the ``fresh`` ones."""
    if not is_grad_enabled():
        return False
    seen = set()
    stack = []
    for t in tensors:
        if not isinstance(t, Tensor) or not t.requires_grad:
            continue
        if t.grad_fn is None:
            if id(t) not in fresh:
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
            if v is not None and id(v) not in fresh:
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
