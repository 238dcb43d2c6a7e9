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
