"""Distances and similarities, composed from differentiable operators."""
import numpy as np

from ...ops.broadcast import broadcast_tensors
from ...tensor import Tensor


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along ``dim``."""
    if x1.shape != x2.shape:
        x1, x2 = broadcast_tensors(x1, x2)
    n1 = x1.norm(2, dim=dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim=dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = x1 - x2 + eps
    dim = -1 if d.dim() else 0
    return d.norm(p, dim=dim, keepdim=keepdim) if d.dim() else d.abs()


def pdist(input, p=2.0):
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    diff = input[Tensor._wrap(i)] - input[Tensor._wrap(j)]
    return diff.norm(p, dim=-1)
