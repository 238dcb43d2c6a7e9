"""The transforms without a batched path (jvp, jacfwd, hessian, jacrev) inside vmap: once per example.

Their code builds basis vectors and stacks rows with the plain operators, which cannot take batched tensors;
called with batched arguments, they run on each example's slices of the innermost batched level and the
results are stacked (the per-example loop of any operator without a batching rule)."""
import functools

from ._batched import _BatchedBase, make, suspended
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["per_example_call", "per_example_factory"]


def _level(flat):
    return max((t._level for t in flat if isinstance(t, _BatchedBase)), default=0)


def per_example_call(fn):
    """``fn`` that, given batched arguments, runs once per example of their innermost level."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        flat, spec = tree_flatten((args, kwargs))
        level = _level(flat)
        if not level:
            return fn(*args, **kwargs)
        size = next(t._value.shape[0] for t in flat if isinstance(t, _BatchedBase) and t._level == level)
        rows = []
        with suspended(level):
            for i in range(size):
                sliced = [t._value.select(0, i) if isinstance(t, _BatchedBase) and t._level == level else t
                          for t in flat]
                a, k = tree_unflatten(sliced, spec)
                rows.append(call(*a, **k))
        from ._dispatch import call as dispatch
        flat_rows = [tree_flatten(r) for r in rows]
        out_spec = flat_rows[0][1]
        cols = zip(*[f for f, _ in flat_rows])
        return tree_unflatten([make(dispatch("stack", list(c)), level) if hasattr(c[0], "dim") else c[0]
                               for c in cols], out_spec)
    return call


def per_example_factory(transform):
    """``transform(func, ...)`` whose result runs once per example when given batched arguments."""
    @functools.wraps(transform)
    def make_transform(*args, **kwargs):
        return per_example_call(transform(*args, **kwargs))
    return make_transform
