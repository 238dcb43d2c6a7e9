"""Handles returned by register_hook, removable as in PyTorch."""
import itertools

_ids = itertools.count()


class RemovableHandle:
    """Holds one hook in a registry dict; ``remove()`` takes it out (also as a context manager)."""

    __slots__ = ("_registry", "id")

    def __init__(self, registry, hook):
        self.id = next(_ids)
        self._registry = registry
        registry[self.id] = hook

    def remove(self):
        if self._registry is not None:
            self._registry.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
