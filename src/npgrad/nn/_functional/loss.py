"""Loss functions.

cross_entropy (class indices), nll_loss, mse_loss, binary_cross_entropy and its logits form are fused
Ops; their backward formulas take constants (targets, masks, class weights) as arrays and everything
that depends on the input through the array-or-Tensor helpers, so they are differentiable again.
Losses that are a short composition of differentiable operators (l1, smooth_l1, huber, kl_div,
cross_entropy with class probabilities ...) are written as that composition.
"""
import warnings

import numpy as np

from ... import dtypes as _dt
from ... import kernels as _kernels
from ...autograd.function import Op
from ...kernels import softmax as _ksoftmax
from ...autograd.grad_mode import state as _grad_state
from ...ops import _poly as P
from ...ops.broadcast import broadcast_error
from ...ops.pointwise import where as _where, xlogy as _xlogy
from ...tensor import Tensor
from ._utils import clamp, clamp_min, log1p, reduce_loss, resolve_reduction, select, unsqueeze
from ...ops.softmax import softmax_poly
from .softmax import log_softmax

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

def _size_warning(input, target):
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _scale_for(g, reduction, denom, class_axis=None):
    """The upstream gradient as a factor for a per-element gradient."""
    if reduction == "none":
        return unsqueeze(g, class_axis) if class_axis is not None else g
    if reduction == "mean":
        return g / denom
    return g


# -- cross entropy and nll with class-index targets -----------------------------------------------------------

class CrossEntropy(Op):
    """log_softmax + nll (with class weights, ignore_index and label smoothing) over class axis 1."""

    __slots__ = ()
    node_name = "NllLossBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, eps, reduction):
        if x.dtype is _F16:  # PyTorch's log_softmax and sums run in float32 for half; the loss is rounded once
            w32 = None if weight is None else weight.astype(_F32)
            out = CrossEntropy.forward(ctx, x.astype(_F32), target, w32, ignore_index, eps, reduction)
            ctx.save_for_backward(x)
            return out.astype(_F16)
        ctx.save_for_backward(x)
        dt = x.dtype
        C = x.shape[1]
        valid = target != ignore_index
        t = np.where(valid, target, 0)
        got = None
        if x.ndim == 2 and not (eps and weight is not None) and _kernels.fits(x):
            got = _ksoftmax.cross_entropy(x, t)  # (compiled: softmax, log-sum-exp and the target's logit, one pass)
        if got is not None:
            p, lse, xt, srow = got
            nll = lse - xt
        else:
            shifted = x - np.max(x, axis=1, keepdims=True)
            p = np.exp(shifted)
            se = np.sum(p, axis=1, keepdims=True)
            lse = np.log(se)[:, 0]
            nll = lse - np.take_along_axis(shifted, t[:, None], axis=1)[:, 0]
            p /= se
        wt = valid.astype(dt) if weight is None else np.where(valid, weight[t], 0).astype(dt, copy=False)
        loss = nll * wt
        if eps:
            loss *= np.asarray(1 - eps, dt)
            if weight is None:
                smooth = lse * C - (srow if got is not None else np.sum(shifted, axis=1))
            else:
                wb = weight.reshape((1, C) + (1,) * (x.ndim - 2))
                smooth = lse * weight.sum() - np.sum(shifted * wb, axis=1)
            loss += np.where(valid, smooth, 0) * np.asarray(eps / C, dt)
        ctx.p, ctx.t, ctx.wt, ctx.valid = p, t, wt, valid
        ctx.weight, ctx.eps, ctx.reduction = weight, eps, reduction
        if reduction == "none":
            return loss
        total = np.sum(loss)
        if reduction == "sum":
            return np.asarray(total, dt)
        denom = np.sum(wt)
        ctx.denom = denom  # (attributes on an unrecorded ctx are dropped, so never read them back here)
        return np.asarray(total / denom, dt)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        t, wt, valid, weight, eps = ctx.t, ctx.wt, ctx.valid, ctx.weight, ctx.eps
        C = ctx.p.shape[1]
        dt = ctx.p.dtype
        # d loss_i / d x_c = p_c * A_i - B_ic, with A_i = (1-eps) w_t + eps/C * sum(w), and
        # B_ic = (1-eps) w_t [c == t] + eps/C * w_c, both zero for ignored targets.
        hit = ((1 - eps) * wt)[:, None]
        a = hit[:, 0]
        if (not eps and ctx.reduction != "none" and ctx.p.ndim == 2 and not P.is_tensor(g)
                and _kernels.fits(ctx.p)):
            scale = _scale_for(g, ctx.reduction, getattr(ctx, "denom", 1), 1)
            gx = _ksoftmax.cross_entropy_grad(ctx.p, t, a.astype(dt, copy=False), hit[:, 0].astype(dt, copy=False),
                                              dt.type(scale))
            if gx is not None:
                return gx, None, None, None, None, None
        if eps:
            wsum = C if weight is None else weight.sum()
            a = a + valid * (eps / C * wsum)
        a = a[:, None].astype(dt, copy=False)
        # Two forms of p * a - B: for arrays, B's few nonzeros are subtracted in place instead of building B
        # densely (cross_entropy backward of 256x4096 float32: 1.15 vs 1.58 ms for the dense form);
        # tests/autograd/test_two_formulas.py checks they agree.
        if P.is_tensor(g):
            b = np.zeros(ctx.p.shape, dt)
            np.put_along_axis(b, t[:, None], hit, axis=1)
            if eps:
                wb = np.ones(C, dt) if weight is None else weight.astype(dt)
                b += (eps / C) * wb.reshape((1, C) + (1,) * (b.ndim - 2)) * valid[:, None]
            gx = softmax_poly(x, 1) * a - b
        else:
            gx = ctx.p * a
            cur = np.take_along_axis(gx, t[:, None], axis=1)
            np.put_along_axis(gx, t[:, None], cur - hit, axis=1)
            if eps:
                wb = np.ones(C, dt) if weight is None else weight.astype(dt)
                gx -= (eps / C) * wb.reshape((1, C) + (1,) * (gx.ndim - 2)) * valid[:, None]
        return gx * _scale_for(g, ctx.reduction, getattr(ctx, "denom", 1), 1), None, None, None, None, None


class NLLLossOp(Op):
    __slots__ = ()
    node_name = "NllLossBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, reduction):
        dt = x.dtype
        valid = target != ignore_index
        t = np.where(valid, target, 0)
        wt = valid.astype(dt) if weight is None else np.where(valid, weight[t], 0).astype(dt, copy=False)
        loss = -np.take_along_axis(x, t[:, None], axis=1)[:, 0] * wt
        ctx.shape, ctx.t, ctx.wt, ctx.reduction = x.shape, t, wt, reduction
        if reduction == "none":
            return loss
        total = np.sum(loss)
        if reduction == "sum":
            return np.asarray(total, dt)
        denom = np.sum(wt)
        ctx.denom = denom  # (attributes on an unrecorded ctx are dropped, so never read them back here)
        return np.asarray(total / denom, dt)

    @staticmethod
    def backward(ctx, g):
        dt = P.data_of(g).dtype
        d = np.zeros(ctx.shape, dt)
        np.put_along_axis(d, ctx.t[:, None], -ctx.wt[:, None], axis=1)
        return d * _scale_for(g, ctx.reduction, getattr(ctx, "denom", 1), 1), None, None, None, None


def _class_index_checks(input, target, weight, fn):
    """Validate (input, target, weight) for class-index targets; returns (x, target array, weight array,
    unbatched flag) with the class axis at 1."""
    nd = input.dim()
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if target.dim() > 1 and nd <= 2:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    tdt = target._data.dtype
    if tdt != np.int64 and tdt != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_dt.scalar_name(target.dtype)}")
    unbatched = nd == 1
    x = input.unsqueeze(0) if unbatched else input
    t = target._data.reshape(1) if unbatched else target._data
    if unbatched and target.dim() != 0:
        if target.dim() != 1 or target.shape[0] != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        t = target._data
    if not unbatched and x.shape[0] != t.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]}).")
    if x.dim() > 2 and t.shape != x.shape[:1] + x.shape[2:]:
        raise RuntimeError(f"Expected target size {list(x.shape[:1] + x.shape[2:])}, got {list(t.shape)}")
    C = x.shape[1]
    w = None
    if weight is not None:
        w = weight._data
        if w.shape != (C,):
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                               f"weight tensor of shape: {list(w.shape)}")
        w = w.astype(x._data.dtype, copy=False)
    return x, t.astype(np.int64, copy=False), w, unbatched


def _check_targets(t, C, ignore_index):
    bad = (t != ignore_index) & ((t < 0) | (t >= C))
    if bad.any():
        raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy between logits and class indices (any K-dim layout) or class probabilities."""
    reduction = resolve_reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if target.shape == input.shape:  # PyTorch tells the two target kinds apart by shape
        if target._data.dtype.kind != "f" and target._data.dtype not in _dt.LOW_PRECISION_NP:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_dt.scalar_name(target.dtype)}")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    x, t, w, unbatched = _class_index_checks(input, target, weight, "cross_entropy")
    if x._data.dtype.kind != "f" and x._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError(f'"log_softmax_lastdim_kernel_impl" not implemented for '
                           f"'{_dt.scalar_name(x.dtype)}'")
    _check_targets(t, x.shape[1], ignore_index)
    out = CrossEntropy.apply(x, t, w, int(ignore_index), float(label_smoothing), reduction)
    return out.reshape(()) if unbatched and reduction == "none" else out


def _cross_entropy_probs(input, target, weight, reduction, eps):
    cdim = 0 if input.dim() == 1 else 1
    C = input.shape[cdim]
    q = target * (1 - eps) + eps / C if eps else target
    logp = log_softmax(input, cdim)
    terms = logp * q
    if weight is not None:
        if weight.shape != (C,):
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                               f"weight tensor of shape: {list(weight.shape)}")
        terms = terms * weight.reshape((C,) + (1,) * (input.dim() - cdim - 1))
    loss = -terms.sum(cdim)
    if reduction == "mean":
        n = input.numel() // C if input.numel() else 0
        return loss.sum() / n
    return reduce_loss(loss, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = resolve_reduction(reduction, size_average, reduce)
    x, t, w, unbatched = _class_index_checks(input, target, weight, "nll_loss")
    _check_targets(t, x.shape[1], ignore_index)
    out = NLLLossOp.apply(x, t, w, int(ignore_index), reduction)
    return out.reshape(()) if unbatched and reduction == "none" else out


# -- regression losses ---------------------------------------------------------------------------------------------

class MSELossOp(Op):
    __slots__ = ()
    node_name = "MseLossBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, y, reduction):
        ctx.save_for_backward(x, y)
        d = x - y
        ctx.reduction, ctx.n = reduction, d.size
        np.square(d, out=d)
        if reduction == "none":
            return d
        if reduction == "sum":
            return np.asarray(np.sum(d), d.dtype)
        return np.asarray(np.mean(d), d.dtype)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        gd = (x - y) * (_scale_for(g, ctx.reduction, ctx.n) * 2.0)
        return (gd if need_x else None), (-gd if need_y else None), None


def _weighted(loss, weight, reduction, mean_by_weight):
    if weight.shape != loss.shape:
        raise ValueError("Weights and input must have the same size.")
    wl = loss * weight
    if reduction == "mean":
        return wl.sum() / weight.sum() if mean_by_weight else wl.mean()
    return reduce_loss(wl, reduction)


def _regression_args(input, target, size_average, reduce, reduction):
    reduction = resolve_reduction(reduction, size_average, reduce)
    if not isinstance(target, Tensor):
        raise TypeError(f"expected Tensor as element 1 in argument 0, but got {type(target).__name__}")
    _size_warning(input, target)
    if input.shape != target.shape:  # PyTorch broadcasts the pair first (fused losses would fail inside NumPy)
        err = broadcast_error(input.shape, target.shape)
        if err is not None:
            raise err
    if input._data.dtype != target._data.dtype:
        from ...ops.arith import promote
        input, target = promote(input, target)
    return input, target, reduction


def _no_complex(kernel, x):
    if x._data.dtype.kind == "c":  # PyTorch has no complex kernel for these losses
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dt.scalar_name(x._data.dtype)}'")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    input, target, reduction = _regression_args(input, target, size_average, reduce, reduction)
    _no_complex("mse_cpu", input)
    if weight is not None:
        return _weighted(MSELossOp.apply(input, target, "none"), weight, reduction, True)
    return MSELossOp.apply(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    input, target, reduction = _regression_args(input, target, size_average, reduce, reduction)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted(loss, weight, reduction, True)
    return reduce_loss(loss, reduction)


class _PiecewiseLoss(Op):
    """smooth_l1 and huber: quadratic for |x - y| < beta, linear beyond, one op with PyTorch's formulas
    (huber's is beta times smooth_l1's, but each rounds as PyTorch's own).

    The gradient is the difference clipped to [-beta, beta] (huber; divided by beta for smooth_l1): the
    constant slope outside, and an infinite difference gets that slope rather than inf * 0 from the
    quadratic branch. Under create_graph the clamp differentiates to PyTorch's second derivative."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, y, reduction, beta, huber):
        ctx.save_for_backward(x, y)
        z = np.abs(x - y)
        ctx.reduction, ctx.beta, ctx.huber, ctx.n = reduction, beta, huber, z.size
        quad = np.multiply(z, 0.5)
        quad *= z
        lin = z - 0.5 * beta
        if huber:  # 0.5 z^2 inside, delta (z - delta / 2) outside
            lin *= beta
        else:  # 0.5 z^2 / beta inside, z - beta / 2 outside
            quad /= beta
        return _reduce_array(select(z < beta, quad, lin, overwrite=True), reduction)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        beta = ctx.beta
        d = x - y
        if ctx.huber:  # PyTorch: d <= -delta -> -delta, d >= delta -> delta, else d
            slope = clamp(d, -beta, beta)
        else:  # PyTorch: d < -beta -> -1, d > beta -> 1, else d / beta
            slope = clamp(d / beta, -1.0, 1.0)
        gd = slope * _scale_for(g, ctx.reduction, ctx.n)
        return (gd if need_x else None), (-gd if need_y else None), None, None, None


class SmoothL1LossOp(_PiecewiseLoss):
    __slots__ = ()
    node_name = "SmoothL1LossBackward0"  # PyTorch's name for this node


class HuberLossOp(_PiecewiseLoss):
    __slots__ = ()
    node_name = "HuberLossBackward0"  # PyTorch's name for this node


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    input, target, reduction = _regression_args(input, target, size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:  # PyTorch's l1_loss then
        return reduce_loss((input - target).abs(), reduction)
    _no_complex("smooth_l1_cpu", input)
    return SmoothL1LossOp.apply(input, target, reduction, float(beta), False)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    input, target, reduction = _regression_args(input, target, None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _no_complex("huber_cpu", input)
    if weight is not None:
        return _weighted(HuberLossOp.apply(input, target, "none", float(delta), True), weight, reduction, False)
    return HuberLossOp.apply(input, target, reduction, float(delta), True)


# -- binary cross entropy -------------------------------------------------------------------------------------------

def _reduce_array(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(np.sum(loss), loss.dtype)
    return np.asarray(np.mean(loss), loss.dtype)


_BCE_EPS = float(np.float32(1e-12))  # PyTorch's EPSILON is a float constant, also in double arithmetic


class BinaryCrossEntropy(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, y, weight, reduction):
        ctx.save_for_backward(x, y)
        ctx.weight, ctx.reduction, ctx.n = weight, reduction, x.size
        # PyTorch clamps each log at -100 so that 0 * log(0) stays finite.
        lx = np.maximum(np.log(x), -100)
        l1x = np.maximum(np.log1p(-x), -100)
        loss = -(y * lx + (1 - y) * l1x)
        if weight is not None:
            loss = loss * weight
        return _reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        s = _scale_for(g, ctx.reduction, ctx.n)
        if ctx.weight is not None:
            s = s * ctx.weight
        gx = gy = None
        if need_x:
            gx = s * (x - y) / clamp_min((1 - x) * x, _BCE_EPS)
        if need_y:  # PyTorch's -logit(x), unclamped: +inf at x = 0, -inf at x = 1
            if P.is_tensor(x):
                gy = s * (log1p(-x) - P.log(x))
            else:
                with np.errstate(divide="ignore"):
                    gy = s * (np.log1p(-x) - np.log(x))
        return gx, gy, None, None


def _no_grad_for(name, **args):
    """PyTorch refuses, while recording, a requires-grad tensor for an argument it has no derivative for."""
    if _grad_state.enabled:
        for arg, t in args.items():
            if t is not None and t.requires_grad:
                raise RuntimeError(f"The function '{name}' is not differentiable with respect to argument '{arg}'. "
                                   "This input cannot have requires_grad True.")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = resolve_reduction(reduction, size_average, reduce)
    _no_grad_for("binary_cross_entropy", weight=weight)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    xd = input._data
    if not np.all((xd >= 0) & (xd <= 1)):  # (written so a NaN fails the range check, as in PyTorch)
        raise RuntimeError("all elements of input should be between 0 and 1")
    w = None
    if weight is not None:
        w = np.broadcast_to(weight._data, input.shape).astype(xd.dtype, copy=False)
    if target._data.dtype != xd.dtype:
        target = target._cast(input.dtype)
    return BinaryCrossEntropy.apply(input, target, w, reduction)


class BCEWithLogits(Op):
    __slots__ = ()
    node_name = "BinaryCrossEntropyWithLogitsBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, y, weight, pos_weight, reduction):
        ctx.save_for_backward(x, y)
        ctx.weight, ctx.pos_weight, ctx.reduction, ctx.n = weight, pos_weight, reduction, np.broadcast(x, y).size
        sp = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))  # softplus(-x) = -log(sigmoid(x)), stable
        if pos_weight is not None:
            sp = sp * (1 + (pos_weight - 1) * y)
        loss = (1 - y) * x + sp
        if weight is not None:
            loss = loss * weight
        return _reduce_array(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        pw, w = ctx.pos_weight, ctx.weight
        s = _scale_for(g, ctx.reduction, ctx.n)
        if w is not None:
            s = s * w
        gx = gy = None
        if need_x:
            sig = P.sigmoid(x)
            gx = s * (sig - y) if pw is None else s * ((1 + (pw - 1) * y) * sig - pw * y)
        if need_y:
            if pw is None:
                gy = s * -x
            else:
                gy = s * ((pw - 1) * _softplus_neg(x) - x)
        return gx, gy, None, None, None


def _softplus_neg(x):
    if isinstance(x, Tensor):
        return (-x).relu() + (-(x.abs())).exp().log1p()
    return np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = resolve_reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    _no_grad_for("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    dt = input._data.dtype
    w = None if weight is None else np.asarray(weight._data, dt)
    pw = None if pos_weight is None else np.asarray(pos_weight._data, dt)
    if target._data.dtype != dt:
        target = target._cast(input.dtype)
    return BCEWithLogits.apply(input, target, w, pw, reduction)


# -- divergences and similarities -------------------------------------------------------------------------------------

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        from ._utils import legacy_reduction
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return reduce_loss(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = resolve_reduction(reduction, size_average, reduce)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        td = target._data
        approx = td * np.log(np.where(td > 1, td, 1)) - td + 0.5 * np.log(2 * np.pi * np.where(td > 1, td, 1))
        loss = loss + Tensor._wrap(np.where(td > 1, approx, 0).astype(loss._data.dtype))
    return reduce_loss(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = resolve_reduction(reduction, size_average, reduce)
    return reduce_loss((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = resolve_reduction(reduction, size_average, reduce)
    td = target._data
    margin_clamp = (margin - input).clamp_min(0)
    # PyTorch's definition for any target, not only +-1: x where y != -1, plus max(0, margin - x) where y != 1
    loss = _where(Tensor._wrap(td != -1), input, 0.0) + _where(Tensor._wrap(td != 1), margin_clamp, 0.0)
    return reduce_loss(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = resolve_reduction(reduction, size_average, reduce)
    z = -target * input
    return reduce_loss(z.relu() + (-(z.abs())).exp().log1p(), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    from .distance import cosine_similarity
    reduction = resolve_reduction(reduction, size_average, reduce)
    cos = cosine_similarity(input1, input2, dim=-1, eps=1e-12) if input1.dim() > 1 else \
        cosine_similarity(input1, input2, dim=0, eps=1e-12)
    td = target._data
    loss = _where(Tensor._wrap(td == 1), 1 - cos, 0.0) + _where(Tensor._wrap(td == -1), (cos - margin).clamp_min(0),
                                                               0.0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    import math
    if var.dim() == input.dim() - 1 and var.shape == input.shape[:-1]:
        var = var.unsqueeze(-1)
    if np.any(var._data < 0):
        raise ValueError("var has negative entry/entries")
    from ...autograd.grad_mode import no_grad
    with no_grad():
        clamped = Tensor._wrap(np.maximum(var._data, eps))
    v = var + (clamped - var).detach()
    loss = 0.5 * (v.log() + (input - target) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    from .distance import pairwise_distance
    reduction = resolve_reduction(reduction, size_average, reduce)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        from ...ops.pointwise import minimum
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return reduce_loss((d_pos - d_neg + margin).clamp_min(0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    from .activation import logsigmoid
    reduction = resolve_reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1] if input.dim() else loss
    return reduce_loss(loss, reduction)
