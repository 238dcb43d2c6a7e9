"""Random operators under vmap's ``randomness``: 'different' draws one sample per example (physical shape,
the batch dims first), 'same' one sample of the example's shape, shared by every example ('error' is
checked by vmap itself: the generator must not move)."""
from ._batched import LEVELS, make, _BatchedBase
from ._batch_rules import _b
from ._dispatch import RULES, ORIGINAL, call, _max_level

__all__ = ["SIZED", "random_dispatching"]

# factories taking a size: where the size sits in their positional arguments
SIZED = {"rand": 0, "randn": 0, "randint": -1}
LIKE = ("rand_like", "randn_like", "randint_like")


def _randomness(level):
    return next(r for lv, _, r in LEVELS if lv == level)


def _split_size(name, args, kwargs):
    """(size tuple, the other positional arguments) of a sized factory call; None when not recognised."""
    if "size" in kwargs:
        return tuple(kwargs["size"]), list(args), True
    if name == "randint":
        if args and isinstance(args[-1], (tuple, list)):
            return tuple(args[-1]), list(args[:-1]), False
        return None
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0]), [], False
    if all(isinstance(a, int) for a in args):
        return tuple(args), [], False
    return None


def random_dispatching(name, original):
    """The dispatching version of a size-taking random factory."""
    ORIGINAL[name] = original

    def dispatch(*args, **kwargs):
        different = [(lv, size) for lv, size, r in LEVELS if r == "different"]
        parsed = _split_size(name, args, kwargs) if different and not _max_level(args, kwargs) else None
        if parsed is None:
            return original(*args, **kwargs)
        size, rest, as_kw = parsed
        full = tuple(s for _, s in different) + size
        if as_kw:
            out = original(*rest, **dict(kwargs, size=full))
        else:
            out = original(*rest, full, **kwargs) if name == "randint" else original(full, **kwargs)
        for lv, _ in different:
            out = make(out, lv)
        return out
    dispatch.__name__, dispatch.__wrapped__ = name, original
    return dispatch


def _like(qname, level, args, kwargs):
    x = args[0]
    if not _b(x, level) or any(isinstance(a, _BatchedBase) for a in list(args[1:]) + list(kwargs.values())):
        return NotImplemented
    if _randomness(level) == "same":
        from ..factories import empty
        return call(qname, empty(tuple(x.shape), dtype=x.dtype), *args[1:], **kwargs)
    return make(call(qname, x._value, *args[1:], **kwargs), level)


def _dropout(qname, level, args, kwargs):
    x = args[0]
    if not _b(x, level) or any(isinstance(a, _BatchedBase) for a in list(args[1:]) + list(kwargs.values())):
        return NotImplemented
    if kwargs.get("inplace") or len(args) > 3 and args[3]:
        return NotImplemented
    if _randomness(level) == "same":
        from ..factories import ones
        return x * call(qname, ones(tuple(x.shape), dtype=x.dtype), *args[1:], **kwargs)
    return make(call(qname, x._value, *args[1:], **kwargs), level)


for _n in LIKE:
    RULES[_n] = _like
RULES["nn.functional.dropout"] = _dropout
