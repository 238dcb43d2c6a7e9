"""In-place array kernels shared by the optimizers, written to round like PyTorch's CPU ops.

Every scalar arrives as a Python float, which NumPy casts to the array's dtype (a float32 parameter is
updated in float32, as in PyTorch); ``tmp`` arrays come from the optimizer's scratch buffers. The
operand order follows PyTorch's kernels, e.g. ``addcdiv`` is ``self + (value * t1) / t2``.
"""
import numpy as np


def grad_for_update(grad, param, maximize, weight_decay, tmp):
    """``-grad`` when maximizing, plus ``weight_decay * param`` (L2 penalty); ``grad`` itself otherwise.

    ``tmp(slot)`` gives scratch arrays; this uses slots 0 and 1.
    """
    if maximize:
        grad = np.negative(grad, out=tmp(0))
    if weight_decay != 0:
        out = tmp(1)
        np.multiply(param, weight_decay, out=out)
        np.add(grad, out, out=out)
        grad = out
    return grad


def lerp_(target, end, weight, tmp):
    """``target.lerp_(end, weight)``: PyTorch picks the formula by |weight| to stay exact at both ends."""
    w = target.dtype.type(weight)
    np.subtract(end, target, out=tmp)
    if abs(w) < 0.5:
        tmp *= w
        target += tmp
    else:
        tmp *= target.dtype.type(1) - w
        np.subtract(end, tmp, out=target)


def addcmul_(target, t1, t2, value, tmp):
    """``target += value * t1 * t2``."""
    np.multiply(t1, value, out=tmp)
    tmp *= t2
    target += tmp


def addcdiv_(target, t1, t2, value, tmp):
    """``target += value * t1 / t2``."""
    np.multiply(t1, value, out=tmp)
    tmp /= t2
    target += tmp


def add_scaled_(target, other, alpha, tmp):
    """``target.add_(other, alpha=alpha)``."""
    if alpha == 1:
        target += other
    else:
        np.multiply(other, alpha, out=tmp)
        target += tmp


_WIDER = {np.dtype(np.float32): np.float64, np.dtype(np.float64): np.longdouble}


def lerp_fused(target, end, weight):
    """``target.lerp_(end, weight)`` rounded once, as PyTorch's CPU kernel does with a fused multiply-add:
    ``target + w (end - target)`` for |w| < 0.5, else ``end + (w - 1) (end - target)``. The product and sum
    are formed in a wider type (exact for float32; for float64 np.longdouble, 64-bit on x86, plain double
    elsewhere) and rounded to the dtype.

    Only for updates whose results are rounded further (Muon's bfloat16 iteration), where a one-ulp
    difference would be magnified; the other optimizers use ``lerp_``, which is faster."""
    wide = _WIDER.get(target.dtype)
    w = target.dtype.type(weight)
    diff = np.subtract(end, target)
    if wide is None:
        lerp_(target, end, weight, diff.copy())
        return
    if abs(w) < 0.5:
        out = diff.astype(wide) * wide(w) + target
    else:
        out = diff.astype(wide) * wide(w - target.dtype.type(1)) + end
    target[...] = out


def add_scaled_fused(target, other, alpha):
    """``target.add_(other, alpha=alpha)`` rounded once (PyTorch's CPU kernel fuses the multiply-add)."""
    wide = _WIDER.get(target.dtype)
    if wide is None:
        target += other * alpha
        return
    target[...] = other.astype(wide) * wide(target.dtype.type(alpha)) + target
