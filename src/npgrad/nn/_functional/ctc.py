"""ctc_loss: Connectionist Temporal Classification, the forward-backward recursion in log space.

The batch is one array axis: each time step updates every sample's alpha (forward) or beta (backward)
variables at once, over the targets extended with blanks (blank, l1, blank, l2, ..., blank), with masks
for each sample's own input and target length.

The gradient with respect to ``log_probs`` is PyTorch's: ``exp(log_probs) - gamma``, gamma being the
posterior of each class at each step. That is the gradient of the loss through a log_softmax, with the
log_softmax's own backward folded in (the two agree once the caller's log_softmax differentiates it, since
both sides sum to one over the classes); it is what PyTorch returns, so it is what npgrad returns.
PyTorch has no derivative of that gradient, so neither has npgrad (the same error).
"""
import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...ops import _poly as P
from ...tensor import Tensor
from ._utils import resolve_reduction

_NEG_INF = -np.inf


def _logsumexp(*terms):
    """Elementwise log(sum(exp(t))) of equal-shape arrays, -inf where every term is -inf."""
    m = terms[0]
    for t in terms[1:]:
        m = np.maximum(m, t)
    safe = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = sum(np.exp(t - safe) for t in terms)
        return np.where(m == _NEG_INF, _NEG_INF, np.log(s) + safe)


def _shifted(a, k):
    """``a`` moved ``k`` places to the right along the last axis, -inf filling the start."""
    out = np.full_like(a, _NEG_INF)
    if a.shape[-1] > k:
        out[..., k:] = a[..., :-k]
    return out


class _Lattice:
    """The extended targets of a batch and their per-step log-probabilities."""

    def __init__(self, lp, targets, input_lengths, target_lengths, blank):
        T, N, _ = lp.shape
        self.T, self.N = T, N
        self.il, self.tl = input_lengths, target_lengths
        L = 2 * (int(target_lengths.max()) if N else 0) + 1
        ext = np.full((N, L), blank, np.int64)
        ext[:, 1::2] = targets[:, :(L - 1) // 2]
        s = np.arange(L)
        self.valid = s[None, :] < (2 * target_lengths[:, None] + 1)  # (N, L)
        ext[~self.valid] = blank  # (whatever pads a target row past its length is never read)
        self.ext, self.L = ext, L
        # a label may be reached from two places back unless it repeats the label there (or is a blank)
        same = np.zeros((N, L), bool)
        same[:, 2:] = ext[:, 2:] == ext[:, :-2]
        self.skip = (s[None, :] % 2 == 1) & ~same
        self.lp_ext = np.take_along_axis(lp, np.broadcast_to(ext[None], (T, N, L)), axis=2)  # (T, N, L)
        self.lp_ext[:, ~self.valid] = _NEG_INF

    def alpha(self):
        """log alpha (T, N, L): every path prefix through step t ending at extended label s."""
        a = np.full((self.T, self.N, self.L), _NEG_INF, self.lp_ext.dtype)
        if self.T == 0:
            return a
        a[0, :, 0] = self.lp_ext[0, :, 0]
        if self.L > 1:
            a[0, :, 1] = self.lp_ext[0, :, 1]
        skip = np.where(self.skip, 0, _NEG_INF)
        for t in range(1, self.T):
            prev = a[t - 1]
            a[t] = _logsumexp(prev, _shifted(prev, 1), _shifted(prev, 2) + skip)
            a[t] += self.lp_ext[t]
        return a

    def nll(self, a):
        """-log p(target | input) per sample: the two admissible end labels at each sample's last step."""
        N = self.N
        n = np.arange(N)
        last = np.maximum(self.il - 1, 0)
        end = 2 * self.tl
        at_end = a[last, n, end] if self.T else np.full(N, _NEG_INF, a.dtype)
        before = np.where(self.tl > 0, a[last, n, np.maximum(end - 1, 0)], _NEG_INF) if self.T else at_end
        ll = _logsumexp(at_end, before)
        # no input steps: the empty target has probability one, any other none
        ll = np.where(self.il == 0, np.where(self.tl == 0, 0.0, _NEG_INF), ll)
        return -ll.astype(a.dtype, copy=False)

    def beta(self):
        """log beta (T, N, L): every path suffix from step t at extended label s to the sample's end."""
        T, N, L = self.T, self.N, self.L
        b = np.full((T, N, L), _NEG_INF, self.lp_ext.dtype)
        n = np.arange(N)
        end = 2 * self.tl
        skip_next = np.full((N, L), _NEG_INF, b.dtype)  # s -> s + 2 allowed where label s + 2 may skip
        skip_next[:, :-2] = np.where(self.skip[:, 2:], 0, _NEG_INF)
        for t in range(T - 1, -1, -1):
            if t + 1 < T:
                nxt = b[t + 1]
                up1 = np.full_like(nxt, _NEG_INF)
                up1[:, :-1] = nxt[:, 1:]
                up2 = np.full_like(nxt, _NEG_INF)
                up2[:, :-2] = nxt[:, 2:]
                b[t] = _logsumexp(nxt, up1, up2 + skip_next) + self.lp_ext[t]
            starts = self.il - 1 == t  # each sample's recursion starts at its own last step
            if starts.any():
                ns = n[starts]
                b[t, ns] = _NEG_INF
                b[t, ns, end[starts]] = self.lp_ext[t, ns, end[starts]]
                has = starts & (self.tl > 0)
                b[t, n[has], end[has] - 1] = self.lp_ext[t, n[has], end[has] - 1]
        return b


def _gradient(lp, targets, input_lengths, target_lengths, blank, zero_infinity, nll, scale):
    """PyTorch's d loss / d log_probs, (T, N, C), for per-sample upstream gradients ``scale`` (N,)."""
    lat = _Lattice(lp, targets, input_lengths, target_lengths, blank)
    T, N, C = lp.shape
    log_ab = lat.alpha() + lat.beta()  # log(alpha * beta): both count step t's probability, divided out below
    m = np.max(log_ab, axis=2, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    onehot = np.zeros((N, lat.L, C), lp.dtype)
    np.put_along_axis(onehot, lat.ext[:, :, None], 1, axis=2)
    onehot[~lat.valid] = 0
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        mass = np.einsum("tnl,nlc->tnc", np.exp(log_ab - m), onehot)
        gamma = mass * np.exp(m + nll[None, :, None] - lp)
        grad = (np.exp(lp) - gamma) * scale[None, :, None]
    live = np.arange(T)[:, None] < input_lengths[None, :]  # steps past a sample's input length: zero
    grad = np.where(live[:, :, None], grad, 0)
    if zero_infinity:
        grad = np.where(np.isinf(nll)[None, :, None], 0, grad)
    return grad.astype(lp.dtype, copy=False)


class CtcGradient(Op):
    """The gradient of ctc_loss as an Op of (upstream, log_probs), recorded under create_graph; as in
    PyTorch it has no derivative of its own."""

    __slots__ = ()
    node_name = "NotImplemented"  # PyTorch's name for this node (its backward raises there too)

    @staticmethod
    def forward(ctx, g, lp, targets, input_lengths, target_lengths, blank, zero_infinity, nll):
        return _gradient(lp, targets, input_lengths, target_lengths, blank, zero_infinity, nll, g)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


class CtcLoss(Op):
    """Per-sample negative log-likelihood (N,) of (T, N, C) log-probabilities and padded targets (N, S)."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, lp, targets, input_lengths, target_lengths, blank, zero_infinity):
        lat = _Lattice(lp, targets, input_lengths, target_lengths, blank)
        nll = lat.nll(lat.alpha())
        ctx.save_for_backward(lp)
        ctx.args = (targets, input_lengths, target_lengths, blank, zero_infinity, nll)
        return nll

    @staticmethod
    def backward(ctx, g):
        (lp,) = ctx.saved_tensors
        if P.is_tensor(g):
            return (CtcGradient.apply(g, lp, *ctx.args),) + (None,) * 5
        return (_gradient(lp, *ctx.args[:-1], ctx.args[-1], g),) + (None,) * 5


def _lengths(value, name):
    if isinstance(value, Tensor):
        if value._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return value._data.reshape(-1).astype(np.int64)
    if not isinstance(value, (tuple, list)):  # PyTorch takes a Tensor or a tuple of ints, nothing else
        raise TypeError(f"ctc_loss(): {name} must be a Tensor or a tuple of ints, not {type(value).__name__}")
    return np.asarray(value, np.int64).reshape(-1)


def _size_error(size, dim, got, at_least=False):
    return RuntimeError(f"Expected tensor to have size {'at least ' if at_least else ''}{size} at dimension {dim}, but "
                        f"got size {got} for argument #2 'targets' (while checking arguments for "
                        f"ctc_loss_allocate_outputs)")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of (T, N, C) (or unbatched (T, C)) log-probabilities against targets given padded
    (N, S) or concatenated (sum(target_lengths),); the lengths as tensors or sequences of ints."""
    reduction = resolve_reduction(reduction)
    if log_probs._data.dtype.kind != "f" or log_probs._data.dtype == np.float16:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for \'{_dt.scalar_name(log_probs.dtype)}\'')
    unbatched = log_probs.dim() != 3  # (as PyTorch: any other rank is taken for an unbatched (T, C))
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for argument #1 "
                           f"'log_probs' (while checking arguments for ctc_loss_allocate_outputs)")
    if lp.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    T, N, C = lp.shape
    if blank < 0 or blank >= C:
        raise RuntimeError("blank must be in label range")
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if il.shape[0] != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.shape[0] != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    tg = targets._data.astype(np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    if tg.ndim == 1:  # concatenated: each sample's targets follow the previous one's
        total = int(tl.sum())
        if tg.shape[0] != total:
            raise _size_error(total, 0, tg.shape[0])
        S = int(tl.max()) if N else 0
        padded = np.full((N, S), blank, np.int64)
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]) if N else tl
        for n in range(N):
            padded[n, :tl[n]] = tg[starts[n]:starts[n] + tl[n]]
        tg = padded
    else:
        need = int(tl.max()) if N else 0
        if tg.shape[1] < need:
            raise _size_error(need, 1, tg.shape[1], at_least=True)
    for name, v, hi in (("input_lengths", il, T), ("target_lengths", tl, None)):
        if N and v.min() < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value {int(v.min())} (while "
                               f"checking arguments for ctc_loss_allocate_outputs)")
        if hi is not None and N and v.max() > hi:
            raise RuntimeError(f"Expected {name} to have value at most {hi}, but got value {int(v.max())} (while "
                               f"checking arguments for ctc_loss_allocate_outputs)")
    loss = CtcLoss.apply(lp, tg, il, tl, int(blank), bool(zero_infinity))
    if zero_infinity:
        from ...ops.pointwise import where
        loss = where(Tensor._wrap(np.isinf(loss._data)), Tensor._wrap(np.zeros((), loss._data.dtype)), loss)
    if reduction == "mean":
        loss = (loss / Tensor._wrap(np.maximum(tl, 1).astype(loss._data.dtype))).mean()
    elif reduction == "sum":
        loss = loss.sum()
    elif unbatched:
        loss = loss.reshape(())
    return loss
