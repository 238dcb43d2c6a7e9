"""EmbeddingOp lookup and one_hot.

The embedding gradient adds rows of the upstream gradient into the rows of the weight they came from:
sorted once, then np.add.reduceat per distinct index (no np.add.at, and the sums keep the weight's
dtype and the order of repeated indices).
"""
import numpy as np

from ...autograd.function import Op
from ...autograd.grad_mode import no_grad
from ...ops import _poly as P
from ...tensor import Tensor


def _embedding_grad_np(g, idx, num_rows, padding_idx, scale_grad_by_freq):
    """Sum the rows of ``g`` into ``num_rows`` rows by index, in index order (no np.add.at)."""
    D = g.shape[-1]
    flat = idx.reshape(-1)
    g2 = np.reshape(g, (-1, D))
    out = np.zeros((num_rows, D), g2.dtype)
    if flat.size == 0:
        return out
    order = np.argsort(flat, kind="stable")
    sidx = flat[order]
    starts = np.flatnonzero(np.r_[True, sidx[1:] != sidx[:-1]])
    rows = sidx[starts]
    counts = np.diff(np.r_[starts, sidx.size])
    most = int(counts.max())
    if most <= 32:
        # Few repeats (a large vocabulary): the k-th occurrences of all rows form one conflict-free
        # fancy-index add, so there are only as many passes as the largest repeat count.
        out[rows] = g2[order[starts]]
        for k in range(1, most):
            active = counts > k
            out[rows[active]] += g2[order[starts[active] + k]]
    else:
        # Long runs of the same row (a small vocabulary): one segmented sum over the sorted rows.
        out[rows] = np.add.reduceat(g2[order], starts, axis=0)
    if scale_grad_by_freq:
        out[rows] /= counts[:, None].astype(out.dtype)
    if padding_idx is not None:
        out[padding_idx] = 0
    return out


class EmbeddingBackward(Op):
    """The weight gradient as an op of its own (linear in g), so it can be differentiated again."""

    __slots__ = ()

    kernel = staticmethod(_embedding_grad_np)

    @staticmethod
    def forward(ctx, g, idx, num_rows, padding_idx, scale):
        ctx.idx, ctx.padding_idx, ctx.scale = idx, padding_idx, scale
        return _embedding_grad_np(g, idx, num_rows, padding_idx, scale)

    @staticmethod
    def backward(ctx, gg):
        rows = gg[ctx.idx]
        mask = np.ones(ctx.idx.shape + (1,), P.data_of(rows).dtype)
        if ctx.padding_idx is not None:
            mask[ctx.idx == ctx.padding_idx] = 0
        if ctx.scale:
            _, inv, counts = np.unique(ctx.idx.reshape(-1), return_inverse=True, return_counts=True)
            mask = mask / counts[inv].reshape(ctx.idx.shape + (1,)).astype(mask.dtype)
        return rows * mask, None, None, None, None


class EmbeddingOp(Op):
    node_name = "EmbeddingBackward0"
    __slots__ = ()

    @staticmethod
    def forward(ctx, w, idx, padding_idx, scale):
        ctx.idx, ctx.rows, ctx.padding_idx, ctx.scale = idx, w.shape[0], padding_idx, scale
        return np.take(w, idx, axis=0)

    @staticmethod
    def backward(ctx, g):
        return P.kernel_call(EmbeddingBackward, g, ctx.idx, ctx.rows, ctx.padding_idx, ctx.scale), None, None, None


class SparseEmbeddingOp(EmbeddingOp):
    """``sparse=True``: the weight's gradient is a sparse COO tensor of the looked-up rows (one entry per
    lookup, uncoalesced, padding lookups left out), as PyTorch gives it."""
    __slots__ = ()

    @staticmethod
    def backward(ctx, g):
        from ...sparse._tensor import SparseTensor
        idx = ctx.idx.reshape(-1)
        rows = np.reshape(g, (-1, g.shape[-1]))
        if ctx.padding_idx is not None:
            keep = idx != ctx.padding_idx
            idx, rows = idx[keep], rows[keep]
        grad = SparseTensor._make(idx.astype(np.int64)[None], Tensor._wrap(np.ascontiguousarray(rows)),
                                  (ctx.rows, g.shape[-1]), idx.size <= 1)
        return grad, None, None, None


def _renorm_rows(weight, idx, max_norm, norm_type):
    with no_grad():
        rows = np.unique(idx.reshape(-1))
        w = weight._data
        sel = w[rows]
        norms = (np.sum(np.abs(sel) ** norm_type, axis=1) ** (1.0 / norm_type)) if norm_type != 2 else \
            np.sqrt(np.sum(sel * sel, axis=1))
        big = norms > max_norm
        if big.any():
            scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
            w[rows[big]] = sel[big] * scale[:, None]
            from ...ops.inplace import bump_version
            bump_version(weight)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer tensor ``input``: shape ``input.shape + (embedding_dim,)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not {type(input).__name__}")
    idx = input._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    n = weight.shape[0]
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    if sparse:
        if scale_grad_by_freq and weight.requires_grad:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
        return SparseEmbeddingOp.apply(weight, idx.astype(np.intp, copy=False), padding_idx, False)
    return EmbeddingOp.apply(weight, idx.astype(np.intp, copy=False), padding_idx, bool(scale_grad_by_freq))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if input.dim() == 2:  # fixed-size bags: the 1-d form with an offset every row
        n, length = input.shape
        return embedding_bag(input.reshape(-1), weight, Tensor._wrap(np.arange(n) * length), max_norm, norm_type,
                             scale_grad_by_freq, mode, sparse,
                             None if per_sample_weights is None else per_sample_weights.reshape(-1),
                             False, padding_idx)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    off = offsets._data.tolist() + ([] if include_last_offset else [input.shape[0]])
    from ...ops.movement import stack
    bags = []
    for a, b in zip(off[:-1], off[1:]):
        idx = input[a:b]
        psw = None if per_sample_weights is None else per_sample_weights[a:b]
        if padding_idx is not None:  # the padding entries are left out of the bag (and of its mean's count)
            keep = Tensor._wrap(idx._data != padding_idx)
            idx = idx[keep]
            psw = None if psw is None else psw[keep]
        if idx.shape[0] == 0:  # an empty bag is zeros, whatever the mode
            bags.append(Tensor._wrap(np.zeros(weight.shape[1], weight._data.dtype)))
            continue
        e = embedding(idx, weight, None, max_norm, norm_type, scale_grad_by_freq)
        if psw is not None:
            e = e * psw.unsqueeze(-1)
        bags.append(e.sum(0) if mode == "sum" else e.amax(0) if mode == "max" else e.mean(0))
    return stack(bags) if bags else weight[:0] * 0


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with a trailing class dimension: 1 at each value, 0 elsewhere."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'self' (position 1) must be Tensor, not {type(tensor).__name__}")
    a = tensor._data
    if a.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros(a.shape + (num_classes,), np.int64)
    np.put_along_axis(out, a[..., None].astype(np.intp), 1, axis=-1)
    return Tensor._wrap(out)
