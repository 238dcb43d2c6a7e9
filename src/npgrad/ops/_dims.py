"""Dimension arguments as PyTorch reads them: negative dims, tuples, and its out-of-range errors."""


def canon_dim(dim, ndim):
    """One dim as a non-negative index; 0-d tensors accept dims 0 and -1, as in PyTorch."""
    n = ndim if ndim else 1
    try:
        d = int(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, got {type(dim).__name__}") from None
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d + n if d < 0 else d


def canon_dims(dim, ndim):
    """``None`` (all dims) / int / sequence -> sorted tuple of non-negative dims, rejecting repeats."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return tuple(range(ndim))
        out = []
        for d in dim:
            c = canon_dim(d, ndim)
            if c in out:
                raise RuntimeError(f"dim {c} appears multiple times in the list of dims")
            out.append(c)
        return tuple(sorted(out)) if ndim else ()
    c = canon_dim(dim, ndim)
    return (c,) if ndim else ()


def sizes_arg(args, keyword, fn, name):
    """Sizes given the way PyTorch takes them: as varargs (``t.view(2, 3)``, ``t.view((2, 3))``) or by their
    keyword (``t.view(size=(2, 3))``), not both. Returned in the varargs form."""
    if keyword is None:
        return args
    if args:
        raise TypeError(f"{fn}() got multiple values for argument '{name}'")
    return (keyword,)


def varargs_method(fn, name, keyword):
    """The Tensor method of ``fn(input, sizes)`` (torch.tile, torch.broadcast_to), which PyTorch's method lets
    take the sizes as varargs too (``x.tile(2, 1)``) or by ``keyword``, not both; the function itself does not."""
    def method_(self, *args, **kwargs):
        value = kwargs.pop(keyword, None)
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if not args and value is None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "{keyword}"')
        sizes = sizes_arg(args, value, name, keyword)
        return fn(self, sizes[0] if len(sizes) == 1 else sizes)  # fn takes one int or one sequence
    method_.__name__ = name
    return method_


def reduced_shape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)
