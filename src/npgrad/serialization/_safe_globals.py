"""``torch.serialization.add_safe_globals`` & co.: the globals a user trusts ``load(weights_only=True)`` with.

Each entry is a class or function, or an ``(object, "module.name")`` pair naming it as files spell it (for
an object whose ``__module__``/``__qualname__`` differ from the name in the file). The weights-only
unpickler (``_torch_format``) resolves a global it does not know by default through this list, then lets
the file instantiate such a class (``NEWOBJ``), call such a function (``REDUCE``) and set an instance's
state (``BUILD``). One list for the process, as PyTorch keeps it.
"""
_safe = []


def _name_of(entry):
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], str):
        return entry[1]
    return f"{getattr(entry, '__module__', None)}.{getattr(entry, '__qualname__', None)}"


def _object(entry):
    return entry[0] if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], str) else entry


def add_safe_globals(safe_globals):
    """Mark these globals safe for ``load(..., weights_only=True)``: classes the file may instantiate and
    whose state it may set, functions it may call. Only add what you trust: the file decides the arguments."""
    for e in safe_globals:  # a set, as PyTorch keeps it: adding one twice keeps one
        if e not in _safe:
            _safe.append(e)


def get_safe_globals():
    """The list added by ``add_safe_globals`` (and active ``safe_globals`` contexts)."""
    return list(_safe)


def clear_safe_globals():
    """Forget every global added by ``add_safe_globals``."""
    _safe.clear()


class safe_globals:
    """``with safe_globals([Cls, ...]):`` marks globals safe for the ``load`` calls inside the block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        for e in self.safe_globals:  # as PyTorch: the block's globals leave the set, even ones added before it
            if e in _safe:
                _safe.remove(e)


def lookup(full_name):
    """The user-allowed object a file's global ``module.name`` stands for, or None."""
    for e in _safe:
        if _name_of(e) == full_name:
            return _object(e)
    return None


def allowed(obj):
    """Whether ``obj`` (a resolved global) is on the user's list."""
    return any(_object(e) is obj for e in _safe)
