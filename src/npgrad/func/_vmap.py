"""torch.func.vmap, run as a loop.

npgrad has no batching rules: ``vmap(func)`` calls ``func`` once per index of the mapped dimension (on
``select``-ed slices, so gradients flow back to the batched inputs) and stacks the results along
``out_dims``. Results and errors follow PyTorch's; the speed is that of the loop, and a UserWarning says so
once per process. Composes with itself (nested vmap) and with grad / vjp / jacrev / jacfwd.
"""
import functools
import warnings

from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten, broadcast_prefix, spec_repr

__all__ = ["vmap"]

_warned = []


def _warn_once():
    if not _warned:
        _warned.append(True)
        warnings.warn("npgrad runs torch.func.vmap as a Python loop over the mapped dimension (one call of the "
                      "function per example); results match PyTorch's, the speed is that of the loop.",
                      UserWarning, stacklevel=3)


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


def _stack_outputs(func_name, results, out_dims):
    from ..ops.movement import stack
    flat0, spec = tree_flatten(results[0])
    flats = [tree_flatten(r)[0] for r in results]
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and not isinstance(results[0], (tuple, list, dict)):
        out_dims = out_dims[0]  # PyTorch takes (d,) for a single output
    dims = broadcast_prefix(out_dims, results[0],
                            f"vmap({func_name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                            f"the structure of `outputs`. out_dims has structure {spec_repr(tree_flatten(out_dims)[1])} "
                            f"but outputs has structure {spec_repr(spec)}.")
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
    return tree_unflatten(out, spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over dimension ``in_dims`` of its inputs, stacking the results along ``out_dims``.

    npgrad evaluates it as a loop: one call of ``func`` per index of the mapped dimension (warned about once).
    ``randomness``: 'error' raises if ``func`` draws random numbers, 'different' lets each call draw its own,
    'same' replays the generator so every call draws the same numbers. ``chunk_size`` is accepted (the loop
    does one example at a time in any case).
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    func_name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _warn_once()
        flat, spec, dims, size = _in_dims(func_name, in_dims, args)
        if size == 0:
            raise ValueError(f"vmap({func_name}, ...): cannot map over a dimension of size 0")
        results = []
        start = _rng_state() if randomness != "different" else None
        for i in range(size):
            if randomness == "same":
                _set_rng_state(start)
            sliced = [x if d is None else x.select(d, i) for x, d in zip(flat, dims)]
            results.append(func(*tree_unflatten(sliced, spec), **kwargs))
            if randomness == "error" and _rng_state() != start:
                _set_rng_state(start)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return _stack_outputs(func_name, results, out_dims)
    return wrapper
