"""A user ``autograd.Function`` inside vmap.

As PyTorch 2.13: the Function must use the ``setup_context`` style, and either override the ``vmap``
staticmethod or set ``generate_vmap_rule = True`` (not both); otherwise vmap raises PyTorch's errors.

* ``vmap(info, in_dims, *args)`` gets the physical tensors (batch dim ``in_dims[i]``, None where an argument
  is not batched at this level) and returns ``(output, out_dims)``.
* ``generate_vmap_rule=True``: ``forward`` runs on the batched tensors themselves, each operator through its
  batching rule, as PyTorch's generated rule does.

Both are the forward only. When an input requires grad, the Function runs once per example instead (each
example's call records a node with the Function's own ``backward``, as PyTorch differentiates through the
Function's backward rather than through its vmap rule); the results are stacked.
"""
import collections

from ..autograd import record as _record
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad, state as _grad_state
from ..tensor import Tensor
from ._batched import LEVELS, _BatchedBase, make, suspended
from ._pytree import broadcast_prefix, spec_repr, tree_flatten, tree_unflatten

__all__ = ["VmapInfo", "apply_function", "install", "uninstall"]

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"

VmapInfo = collections.namedtuple("VmapInfo", ["batch_size", "randomness"])


def install():
    _record.FUNCTION_HOOK[:] = [apply_function]


def uninstall():
    del _record.FUNCTION_HOOK[:]


def _level(args):
    lv = 0
    for a in args:
        if isinstance(a, _BatchedBase) and a._level > lv:
            lv = a._level
    return lv


def apply_function(cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` while vmap runs; NotImplemented when no argument is batched."""
    level = _level(args) if not kwargs else _level(list(args) + list(kwargs.values()))
    if not level:
        return NotImplemented
    if cls.setup_context is Function.setup_context:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
                           f"...), it must override the setup_context staticmethod. {_DOCS}")
    own = cls.vmap is not Function.vmap
    if own and cls.generate_vmap_rule:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an "
                           "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
                           f"overridden vmap staticmethod to avoid ambiguity. {_DOCS}")
    if not own and not cls.generate_vmap_rule:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override "
                           f"and implement the vmap staticmethod or set generate_vmap_rule=True. {_DOCS}")
    if kwargs:
        args = _record._bind(cls, True, args, kwargs)
    entry = next(e for e in LEVELS if e[0] == level)
    if _grad_state.enabled and any(isinstance(a, Tensor) and a.requires_grad for a in args):
        return _per_example(cls, args, level, entry[1])
    if own:
        return _own_rule(cls, args, level, VmapInfo(entry[1], entry[2]))
    with no_grad():
        return cls.forward(*args)


def _own_rule(cls, args, level, info):
    phys = [a._value if isinstance(a, _BatchedBase) and a._level == level else a for a in args]
    in_dims = tuple(0 if p is not a else None for p, a in zip(phys, args))
    with suspended(level), no_grad():
        res = cls.vmap(info, in_dims, *phys)
    if type(res) is not tuple or len(res) != 2:
        raise RuntimeError("Expected the vmap staticmethod to have two returns, an output and out_dims with pytree "
                           f"structure compatible with the output. Got a {type(res)} instead")
    out, out_dims = res
    flat, spec = tree_flatten(out)
    dims = broadcast_prefix(out_dims, out, "Expected the vmap staticmethod to return an output and out_dims with "
                            f"compatible pytree structure. out_dims has structure {spec_repr(tree_flatten(out_dims)[1])}"
                            f" but output has structure {spec_repr(spec)}.")
    got = []
    for o, d in zip(flat, dims):
        if d is None or not isinstance(o, Tensor):
            got.append(o)
        else:
            got.append(make(o if d in (0, -o.dim()) else o.movedim(d, 0), level))
    return tree_unflatten(got, spec)


def _per_example(cls, args, level, size):
    rows = []
    with suspended(level):
        for i in range(size):
            rows.append(cls.apply(*[a._value.select(0, i) if isinstance(a, _BatchedBase) and a._level == level
                                    else a for a in args]))
    from ._dispatch import call
    first = rows[0]
    if isinstance(first, tuple):
        return tuple(make(call("stack", [r[k] for r in rows]), level) if isinstance(first[k], Tensor) else first[k]
                     for k in range(len(first)))
    return make(call("stack", rows), level)
