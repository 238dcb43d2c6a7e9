"""torch.func.rearrange: einops-style ``"b c (h w) -> b h w c"`` as one reshape, permute, reshape.

Differentiable (it is made of view ops); a list or tuple of tensors is stacked along a new first dim first.
"""
import re

from ..tensor import Tensor

__all__ = ["rearrange"]

_ELLIPSIS = "..."
_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\S")


def _parse(side):
    """A side of the pattern as a list of groups: a parenthesised group is a tuple of names, a bare name or
    '...' a list of one (so "(...)", which merges the ellipsis dims, differs from "...", which keeps them)."""
    groups, current = [], None
    for tok in _TOKEN.findall(side):
        if tok == "(":
            if current is not None:
                raise ValueError(f"Nested parentheses are not allowed in rearrange pattern: {side!r}")
            current = []
        elif tok == ")":
            if current is None:
                raise ValueError(f"Unbalanced parentheses in rearrange pattern: {side!r}")
            groups.append(tuple(current))
            current = None
        elif tok == _ELLIPSIS or tok.isidentifier():
            (groups.append([tok]) if current is None else current.append(tok))
        else:
            raise ValueError(f"Invalid token {tok!r} in rearrange pattern: {side!r}")
    if current is not None:
        raise ValueError(f"Unbalanced parentheses in rearrange pattern: {side!r}")
    names = [n for g in groups for n in g]
    for n in names:
        if names.count(n) > 1:
            raise ValueError(f"Indexing expression contains duplicate dimension '{n}'")
    return groups


def rearrange(tensor, pattern, **axes_lengths):
    """Regroup and reorder ``tensor``'s dimensions as ``pattern`` ("left -> right") says."""
    from ..ops.movement import stack
    if isinstance(tensor, (list, tuple)):
        tensor = stack(list(tensor))
    if not isinstance(tensor, Tensor):
        raise TypeError(f"rearrange expects a Tensor or a list/tuple of Tensors, got {type(tensor)}")
    if "->" not in pattern:
        raise ValueError(f"rearrange pattern must contain '->': {pattern!r}")
    left_s, right_s = pattern.split("->")
    left, right = _parse(left_s), _parse(right_s)
    lnames = {n for g in left for n in g}
    rnames = {n for g in right for n in g}
    if lnames != rnames:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): "
                         f"{lnames ^ rnames}")
    ndim = tensor.dim()
    has_ellipsis = _ELLIPSIS in lnames
    if not has_ellipsis and len(left) != ndim:
        raise ValueError(f"Number of dimensions in pattern ({len(left)}) must be equal to the number of dimensions "
                         f"in the tensor ({ndim})")
    if has_ellipsis and len(left) - 1 > ndim:
        raise ValueError(f"Number of dimensions in pattern ({len(left) - 1}) must be less than or equal to the "
                         f"number of dimensions in the tensor ({ndim})")
    ell_len = ndim - (len(left) - 1)
    ell_names = [f"...{i}" for i in range(ell_len)]
    sizes, flat_left, pos = {}, [], 0
    for group in left:
        if isinstance(group, list) and group == [_ELLIPSIS]:
            for n in ell_names:
                sizes[n] = tensor.shape[pos]
                flat_left.append(n)
                pos += 1
            continue
        if _ELLIPSIS in group:
            raise ValueError("Ellipsis inside parentheses is not supported on the left side of rearrange")
        dim = tensor.shape[pos]
        pos += 1
        unknown = [n for n in group if n not in axes_lengths]
        known = 1
        for n in group:
            if n in axes_lengths:
                known *= int(axes_lengths[n])
                sizes[n] = int(axes_lengths[n])
        if len(unknown) > 1:
            raise ValueError(f"Could not infer sizes for {set(unknown)}")
        if unknown:
            if known == 0 or dim % known:
                raise ValueError(f"inferred dimension does not evenly fit into larger dimension: {dim} vs {known}")
            sizes[unknown[0]] = dim // known
        elif known != dim:
            raise ValueError(f"Shape mismatch, can't divide axis of length {dim} in chunks of {known}")
        flat_left.extend(group)
    flat_right = [m for g in right for n in g for m in (ell_names if n == _ELLIPSIS else [n])]
    out = tensor.reshape(tuple(sizes[n] for n in flat_left))
    out = out.permute(tuple(flat_left.index(n) for n in flat_right))
    shape = []
    for group in right:
        size = 1
        members = [m for n in group for m in (ell_names if n == _ELLIPSIS else [n])]
        if isinstance(group, list) and group == [_ELLIPSIS]:
            shape.extend(sizes[m] for m in members)
            continue
        for m in members:
            size *= sizes[m]
        shape.append(size)
    return out.reshape(tuple(shape))
