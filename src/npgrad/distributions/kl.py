"""kl_divergence(p, q) and the registry behind it (register_kl).

The closed forms live in _kl_same_family.py (pairs within a family) and _kl_cross_family.py (pairs across
families); both fill this registry on import.
"""
import warnings

from .distribution import Distribution

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}   # (type(p), type(q)) -> the registered function chosen for them, or NotImplemented


def _is_distribution_class(t):
    return isinstance(t, type) and issubclass(t, Distribution)


def register_kl(type_p, type_q):
    """Decorator registering ``fun(p, q)`` as KL(p || q) for instances of these Distribution subclasses."""
    if not _is_distribution_class(type_p):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not _is_distribution_class(type_q):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new registration can change which match is the most specific
        return fun

    return decorator


def _choose(type_p, type_q):
    """The most specific registered pair: closest along p's MRO first (then q's), and closest along q's
    first (then p's); when the two orders pick different functions the choice is ambiguous."""
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    matches = [(mro_p.index(a), mro_q.index(b), (a, b)) for a, b in _KL_REGISTRY if a in mro_p and b in mro_q]
    if not matches:
        return NotImplemented
    by_p = min(matches, key=lambda m: (m[0], m[1]))[2]
    by_q = min(matches, key=lambda m: (m[1], m[0]))[2]
    if _KL_REGISTRY[by_p] is not _KL_REGISTRY[by_q]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({by_p[0].__name__}, {by_q[1].__name__})", RuntimeWarning, stacklevel=3)
    return _KL_REGISTRY[by_p]


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the distributions' batch_shape."""
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _choose(*key)
    fun = _KL_MEMOIZE[key]
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)
