"""torch.func.vmap with batching rules.

``vmap(func)`` calls ``func`` once, on batched tensors (_batched.py): each mapped input is moved so its
mapped dim is the physical dim 0 and seen through a ``BatchedTensor`` of this call's level, whose shape is
one example's. Operators reach their batching rules through the dispatch of _dispatch.py; an operator
without a rule runs once per example (warned about once per operator). The outputs' batch dims are moved
to ``out_dims``. Composes with itself (nested vmap: one level per call) and with grad / vjp / jacrev
(which differentiate per example, see _grad.py), and, through the per-example loop, with the other
transforms.
"""
import functools
import warnings

from ..tensor import Tensor
from . import _batched, _dispatch
from ._pytree import tree_flatten, tree_unflatten, broadcast_prefix, spec_repr

__all__ = ["vmap"]

_counter = [0]


def _in_dims(func_name, in_dims, args):
    if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
        raise ValueError(f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({func_name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {spec_repr(tree_flatten(in_dims)[1])} but inputs "
                         f"has structure {spec_repr(tree_flatten(args)[1])}.")
    flat, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args), args,
                            f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                            "the structure of `inputs`.")
    sizes = []
    for i, (x, d) in enumerate(zip(flat, dims)):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): in_dims must be int or None "
                             f"(or nested containers of them), got {d!r}.")
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if not -x.dim() <= d < max(x.dim(), 1) or x.dim() == 0:
            raise ValueError(f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {x.dim()} so expected in_dim to satisfy "
                             f"-{x.dim()} <= in_dim < {x.dim()}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"vmap({func_name}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor "
                         "with a non-None in_dim (that is the dimension vmap maps over)")
    if len(set(sizes)) != 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat, spec, dims, sizes[0]


def _rng_state():
    from ..random import default_generator
    return default_generator.rng.bit_generator.state


def _set_rng_state(state):
    from ..random import default_generator
    default_generator.rng.bit_generator.state = state


def _out_dims(func_name, output, out_dims):
    flat, spec = tree_flatten(output)
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and not isinstance(output, (tuple, list, dict)):
        out_dims = out_dims[0]  # PyTorch takes (d,) for a single output
    dims = broadcast_prefix(out_dims, output,
                            f"vmap({func_name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                            f"the structure of `outputs`. out_dims has structure {spec_repr(tree_flatten(out_dims)[1])} "
                            f"but outputs has structure {spec_repr(spec)}.")
    return flat, spec, dims


def _unbatch(func_name, flat, dims, level, size):
    """This level's outputs with the batch dim at ``out_dims`` (an unbatched output is expanded)."""
    out = []
    for k, (o, d) in enumerate(zip(flat, dims)):
        if not isinstance(o, Tensor):
            raise ValueError(f"vmap({func_name}, ...): `{func_name}` must only return Tensors, got type "
                             f"{type(o)}. Did you mean to set out_dims= to None for output?"
                             if d is not None else
                             f"vmap({func_name}, ...): `{func_name}` must only return Tensors, got type "
                             f"{type(o)} for return {k}.")
        if d is None:
            if _batched.level_of(o) == level:
                raise ValueError(f"vmap({func_name}, ...): `{func_name}` can not return a BatchedTensor when "
                                 "out_dim is None")
            out.append(o)
            continue
        nd = o.dim() + 1
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
        phys = _batched.materialise(o, level, size)._value
        out.append(phys if d in (0, -nd) else phys.movedim(0, d))
    return out


def _call_batched(func, func_name, flat, spec, dims, size, randomness, kwargs):
    _counter[0] += 1
    level = _counter[0]
    _batched.LEVELS.append([level, size, randomness])
    try:
        with _dispatch.swapped():
            args = [x if d is None else _batched.make(x if d in (0, -x.dim()) else x.movedim(d, 0), level)
                    for x, d in zip(flat, dims)]
            return func(*tree_unflatten(args, spec), **kwargs), level
    finally:
        _batched.LEVELS.pop()


_warned_loop = set()


def _warn_loop(func_name):
    if func_name not in _warned_loop:
        _warned_loop.add(func_name)
        warnings.warn(f"There is a performance drop because vmap({func_name}) reached code that reads a batched "
                      "tensor's data without a batching rule; npgrad runs the function once per example.",
                      UserWarning, stacklevel=4)


def _call_looped(func, flat, spec, dims, size, randomness, kwargs):
    """The results of ``func`` on each example's slices (the path for code outside the dispatch)."""
    start = _rng_state()
    results = []
    for i in range(size):
        if randomness == "same":
            _set_rng_state(start)
        sliced = [x if d is None else x.select(d, i) for x, d in zip(flat, dims)]
        results.append(func(*tree_unflatten(sliced, spec), **kwargs))
    return results


def _stack_looped(func_name, results, dims):
    from ..ops.movement import stack
    flats = [tree_flatten(r)[0] for r in results]
    out = []
    for k, d in enumerate(dims):
        column = [f[k] for f in flats]
        if not isinstance(column[0], Tensor):
            raise ValueError(f"vmap({func_name}, ...): `{func_name}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for output?"
                             if d is not None else
                             f"vmap({func_name}, ...): `{func_name}` must only return Tensors, got type "
                             f"{type(column[0])} for return {k}.")
        if d is None:
            out.append(column[0])
            continue
        nd = column[0].dim() + 1
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
        out.append(stack(column, dim=d))
    return out


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over dimension ``in_dims`` of its inputs, stacking the results along ``out_dims``.

    ``func`` runs once on batched tensors (batching rules; operators without one loop over the examples,
    with a one-time warning). ``randomness``: 'error' raises if ``func`` draws random numbers, 'different'
    draws independent numbers for each example, 'same' draws one set shared by all examples.
    ``chunk_size``: at most this many examples per call of ``func`` (the outputs are concatenated).
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    func_name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        flat, spec, dims, size = _in_dims(func_name, in_dims, args)
        if size == 0:
            raise ValueError(f"vmap({func_name}, ...): cannot map over a dimension of size 0")
        step = size if chunk_size is None else min(chunk_size, size)
        start = _rng_state() if randomness != "different" else None
        chunks = []
        for lo in range(0, size, step):
            n = min(step, size - lo)
            if randomness == "same":
                _set_rng_state(start)
            part = flat if n == size else [x if d is None else x.narrow(d, lo, n) for x, d in zip(flat, dims)]
            before = _rng_state()
            try:
                output, level = _call_batched(func, func_name, part, spec, dims, n, randomness, kwargs)
            except _batched.Unbatchable:
                # code that does not go through the dispatch (a layer calling a private kernel): the loop
                _set_rng_state(before)
                _warn_loop(func_name)
                output, level = None, _call_looped(func, part, spec, dims, n, randomness, kwargs)
            if randomness == "error" and _rng_state() != start:
                _set_rng_state(start)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
            if output is None:
                flat_out, out_spec, odims = _out_dims(func_name, level[0], out_dims)
                chunks.append(_stack_looped(func_name, level, odims))
                continue
            flat_out, out_spec, odims = _out_dims(func_name, output, out_dims)
            chunks.append(_unbatch(func_name, flat_out, odims, level, n))
        if len(chunks) == 1:
            return tree_unflatten(chunks[0], out_spec)
        from ..ops.movement import cat
        return tree_unflatten([c[0] if d is None else cat(list(c), dim=d)
                               for c, d in zip(zip(*chunks), odims)], out_spec)
    return wrapper
