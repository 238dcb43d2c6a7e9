"""Flattening nested tuples / lists / dicts (and namedtuples) into leaves and back, as torch.func's APIs
accept them. Anything else (a Tensor, a number, None) is a leaf."""

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "broadcast_prefix"]


def tree_flatten(tree):
    """``(leaves, spec)``; ``tree_unflatten(leaves, spec)`` rebuilds ``tree``."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return (type(tree), None, [_flatten(t, leaves) for t in tree])
    if isinstance(tree, dict):
        return (dict, list(tree), [_flatten(tree[k], leaves) for k in tree])
    leaves.append(tree)
    return None


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it, spec):
    if spec is None:
        return next(it)
    kind, keys, children = spec
    values = [_unflatten(it, c) for c in children]
    if kind is dict:
        return dict(zip(keys, values))
    if kind in (tuple, list):
        return kind(values)
    if hasattr(kind, "_fields"):  # namedtuple
        return kind(*values)
    return kind(values)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def spec_str(spec):
    if spec is None:
        return "*"
    kind, keys, children = spec
    inner = ", ".join(spec_str(c) if keys is None else f"{k!r}: {spec_str(c)}" for k, c in
                      zip(keys or [None] * len(children), children))
    if kind is dict:
        return "{" + inner + "}"
    return ("[" + inner + "]") if kind is list else "(" + inner + ("," if len(children) == 1 else "") + ")"


def broadcast_prefix(prefix, tree, what):
    """One entry of ``prefix`` per leaf of ``tree``, where ``prefix`` is a tree whose leaves stand for whole
    subtrees of ``tree`` (vmap's in_dims / out_dims). Raises ValueError naming ``what`` on a mismatch."""
    out = []
    _broadcast(prefix, tree, out, what)
    return out


def _broadcast(prefix, tree, out, what):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * len(tree_flatten(tree)[0]))
        return
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            raise ValueError(what)
        for k in tree:
            _broadcast(prefix[k], tree[k], out, what)
        return
    if not isinstance(tree, (tuple, list)) or isinstance(tree, dict) or len(prefix) != len(tree):
        raise ValueError(what)
    for p, t in zip(prefix, tree):
        _broadcast(p, t, out, what)


def spec_repr(spec, indent=0):
    """The structure as PyTorch's TreeSpec prints itself (its error messages quote it)."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    sep = ",\n" + "  " * (indent + 1)
    return f"TreeSpec({kind.__name__}, {keys!r}, [{sep.join(spec_repr(c, indent + 1) for c in children)}])"
