"""Margin losses over class scores: multi_margin_loss (multi-class hinge), multilabel_margin_loss, and
triplet_margin_with_distance_loss (a triplet loss over any distance function).

Each is a composition of differentiable operators: the targets only pick which score differences enter
the hinge, so they become constant masks and every gradient (and a second one) follows from the ops. As in
PyTorch's kernels a hinge term counts where the difference is positive, so a NaN difference drops out.
"""
import numpy as np

from ... import dtypes as _dt
from ...ops.pointwise import where as _where
from ...tensor import Tensor
from ._utils import reduce_loss, resolve_reduction


def _scores_and_target(input, target, fn):
    """(N, C) scores and the target array of a vector-or-matrix loss; PyTorch's shape and dtype errors."""
    if input._data.dtype.kind != "f":
        kernel = "multi_margin_loss_cpu_kernel" if fn == "multi_margin" else "multilabel_margin_loss_forward_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dt.scalar_name(input.dtype)}\'')
    nd = input.dim()
    if not (nd == 2 and input.shape[1] != 0 or nd == 1 and input.shape[0] != 0 or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dt.scalar_name(target.dtype)}")
    x = input.reshape(1, -1) if nd < 2 else input
    return x, target._data


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """sum over j != y of max(0, margin - x[y] + x[j]) ** p (times weight[y]), divided by the class count."""
    reduction = resolve_reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x, t = _scores_and_target(input, target, "multi_margin")
    N, C = x.shape
    if input.dim() < 2:
        if t.size != 1:
            raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                               f"input samples (batch size). Expected target size [1], but got {list(t.shape)}. "
                               f"Input has shape {list(input.shape)}.")
        out_shape = t.shape
    else:
        if t.shape != (N,):
            raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                               f"input samples (batch size). Expected target size [{N}], but got {list(t.shape)}. "
                               f"Input has shape {list(input.shape)}.")
        out_shape = (N,)
    t = t.reshape(N)
    dt = x._data.dtype
    factor = np.ones((N, C), dt)
    if weight is not None:
        if weight.shape[0] != C:
            raise RuntimeError(f"inconsistent weight size, expected {C} but got {list(weight.shape)}")
        if weight._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {_dt.scalar_name(input.dtype)} but found "
                               f"{_dt.scalar_name(weight.dtype)}")
    if ((t < 0) | (t >= C)).any():
        raise RuntimeError("target out of range")
    if weight is not None:
        factor *= weight._data[t][:, None]
    others = np.ones((N, C), bool)
    others[np.arange(N), t] = False  # the target's own score is no margin violation (left out, even if inf)
    z = margin - x.gather(1, Tensor._wrap(t[:, None])) + x
    # a term counts where it is positive, as PyTorch's kernel tests it: a NaN difference drops out
    z = _where(Tensor._wrap(others & (z._data > 0)), z, 0.0)
    if p == 2:
        z = z * z
    loss = (z * Tensor._wrap(factor / np.asarray(C, dt))).sum(1).reshape(out_shape)
    return reduce_loss(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each target class j (the row's leading entries up to the first -1) and each non-target class k,
    max(0, 1 - (x[j] - x[k])), summed and divided by the class count."""
    reduction = resolve_reduction(reduction, size_average, reduce)
    x, t = _scores_and_target(input, target, "multilabel_margin")
    N, C = x.shape
    if t.shape != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: {list(input.shape)}")
    t = t.reshape(N, C)
    if ((t < -1) | (t >= C)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(t != -1, axis=1).astype(bool)  # the entries before a row's first -1
    rows = np.broadcast_to(np.arange(N)[:, None], (N, C))
    count = np.zeros((N, C), np.int64)
    np.add.at(count, (rows[listed], t[listed]), 1)  # a class listed twice counts twice, as in PyTorch
    dt = x._data.dtype
    pairs = count[:, :, None] * (count == 0)[:, None, :]  # (target j, non-target k) pairs
    diff = 1 - x.unsqueeze(2) + x.unsqueeze(1)
    hinge = _where(Tensor._wrap((pairs > 0) & (diff._data > 0)), diff, 0.0)  # (NaN differences drop out)
    loss = (hinge * Tensor._wrap((pairs / np.asarray(C, dt)).astype(dt))).sum((1, 2))
    loss = loss.reshape(()) if input.dim() < 2 else loss
    return reduce_loss(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) for a distance function d (pairwise_distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        from .distance import pairwise_distance as distance_function
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:  # the positive may be nearer the negative than the anchor is: take the harder of the two
        from ...ops.pointwise import minimum
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    return reduce_loss((margin + dist_pos - dist_neg).clamp_min(0), reduction)
