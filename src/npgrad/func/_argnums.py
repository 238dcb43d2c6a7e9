"""argnums as torch.func reads it: an int or a non-empty tuple of distinct ints, negative counting from
the end; the differentiated arguments may themselves be pytrees of Tensors."""

__all__ = ["check_argnums", "wrap_args"]


def _one(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def check_argnums(argnums, num_args):
    if isinstance(argnums, int):
        return _one(argnums, num_args)
    if isinstance(argnums, tuple):
        out = tuple(_one(a, num_args) for a in argnums)
        if len(out) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(out)) != len(out):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return out
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def wrap_args(args, argnums, wrap):
    """``(new_args, diff)``: args with the argnums entries mapped through ``wrap`` (leaf-wise), and the
    differentiated part (the one arg for an int argnums, a tuple of them for a tuple)."""
    from ._pytree import tree_map
    argnums = check_argnums(argnums, len(args))
    nums = (argnums,) if isinstance(argnums, int) else argnums
    new = list(args)
    for i in nums:
        new[i] = tree_map(wrap, args[i])
    diff = new[argnums] if isinstance(argnums, int) else tuple(new[i] for i in nums)
    return tuple(new), diff
