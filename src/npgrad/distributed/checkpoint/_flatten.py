"""A nested state dict as flat items: dicts and lists are walked, every other value is a leaf keyed by
its path joined with dots (``{"model": {"w": t}}`` -> ``"model.w"``), as PyTorch's checkpoints key them."""
from collections.abc import Mapping

from ...tensor import Tensor


class Leaf:
    __slots__ = ("key", "path", "container", "slot", "value")

    def __init__(self, key, path, container, slot, value):
        self.key, self.path, self.container, self.slot, self.value = key, path, container, slot, value

    def replace(self, value):
        self.container[self.slot] = value


def is_shard(value):
    """A piece of a global tensor: anything with ``.tensor``, ``.global_shape`` and ``.offsets``."""
    return all(hasattr(value, a) for a in ("tensor", "global_shape", "offsets")) and isinstance(value.tensor, Tensor)


def flatten(state_dict):
    """The leaves of ``state_dict`` in order; two leaves with one flattened key are an error."""
    out, seen = [], set()

    def walk(container, path):
        slots = container.items() if isinstance(container, Mapping) else enumerate(container)
        for slot, value in slots:
            sub = (*path, slot if isinstance(container, list) else str(slot))
            if isinstance(value, (Mapping, list)) and not is_shard(value):
                walk(value, sub)
                continue
            key = ".".join(str(p) for p in sub)
            if key in seen:
                raise ValueError(f"torch.distributed.checkpoint: two entries of the state_dict flatten to the key "
                                 f"{key!r}")
            seen.add(key)
            out.append(Leaf(key, sub, container, slot, value))

    if not isinstance(state_dict, Mapping):
        raise TypeError(f"state_dict must be a dict, not {type(state_dict).__name__}")
    walk(state_dict, ())
    return out


def unflatten(pairs):
    """A nested state dict rebuilt from (path, value) pairs: int path elements index lists."""
    root = {}
    for path, value in pairs:
        node = root
        for here, nxt in zip(path[:-1], path[1:]):
            if isinstance(node, list):
                while len(node) <= here:
                    node.append(None)
                if node[here] is None:
                    node[here] = [] if isinstance(nxt, int) else {}
                node = node[here]
            else:
                node = node.setdefault(here, [] if isinstance(nxt, int) else {})
        last = path[-1]
        if isinstance(node, list):
            while len(node) <= last:
                node.append(None)
        node[last] = value
    return root


def is_stateful(value):
    from .stateful import Stateful
    return isinstance(value, Stateful)
