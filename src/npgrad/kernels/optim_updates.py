"""The Adam/AdamW and SGD (momentum, Nesterov, dampening) parameter updates as one pass per parameter.

``optim.adam._adam`` and ``optim.sgd._sgd``/``_sgd_momentum`` are the NumPy reference: 8-12 passes over the
parameter's arrays, each rounding to the parameter's dtype. The kernels here do the same operations in the same
order on one element at a time, in the parameter's dtype (every scalar is cast to it first, as NumPy casts a
Python float; no fastmath, so no fused multiply-adds), so their results are bit-identical to the NumPy path's,
NaN and inf included (tests/optim/test_optim_kernels.py). An entry point answers None where it does not apply
(kernels off or numba missing, a dtype other than float32/float64, arrays that are not contiguous), and the
optimizer runs its NumPy code.

Large parameters are split over npgrad's threads in element ranges; elementwise work, so the split changes no
bit of the result.
"""
import numpy as np

from .. import _parallel
from ._jit import entry, kernel, ready

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_NONE = {dt: np.empty(0, dt) for dt in _FLOATS}  # stands in for an absent state array (never aliasing another)


def fits(*arrays):
    """Plain C-contiguous NumPy arrays of one float32/float64 dtype and size, and the kernels on."""
    a = arrays[0]
    dt, n = a.dtype, a.size
    if dt not in _FLOATS:
        return False
    for b in arrays:
        if type(b) is not np.ndarray or b.dtype != dt or b.size != n or not b.flags.c_contiguous:
            return False
    return ready()


@kernel()
def _adam_k(p, g, m, v, vmax, amsgrad, maximize, decay_on, decay, l2_on, wd, w1, small1, rest1, b2, w2, bc2s, eps,
            neg_step):
    for i in range(p.size):
        pi = p[i]
        if decay_on:
            pi = pi * decay
        gi = g[i]
        if maximize:
            gi = -gi
        if l2_on:
            gi = gi + pi * wd
        mi = m[i]
        d = gi - mi
        if small1:  # lerp, PyTorch's formula choice by |weight| (optim._ops.lerp_)
            mi = mi + d * w1
        else:
            mi = gi - d * rest1
        m[i] = mi
        vi = v[i] * b2
        vi = vi + (gi * w2) * gi
        v[i] = vi
        if amsgrad:
            top = vmax[i]
            if not (top > vi or top != top):  # np.maximum: the larger, NaN if either is NaN
                top = vi
            vmax[i] = top
            vi = top
        den = np.sqrt(vi) / bc2s + eps
        p[i] = pi + (mi * neg_step) / den


@kernel()
def _sgd_k(p, g, buf, maximize, l2_on, wd, has_buf, first, mom, damp_on, keep, nesterov, lr_on, neg_lr):
    for i in range(p.size):
        gi = g[i]
        if maximize:
            gi = -gi
        if l2_on:
            gi = gi + p[i] * wd
        if has_buf:
            if first:
                b = gi
            elif damp_on:
                b = buf[i] * mom + gi * keep
            else:
                b = buf[i] * mom + gi
            buf[i] = b
            if nesterov:
                gi = gi + b * mom
            else:
                gi = b
        if lr_on:
            p[i] = p[i] + gi * neg_lr
        else:
            p[i] = p[i] + gi


def _run(fn, flats, *scalars):
    n = flats[0].size
    _parallel.split(lambda lo, hi: fn(*[f[lo:hi] if f.size else f for f in flats], *scalars), n, 1024)


@entry
def adam_(data, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, lr, beta1, beta2, eps, weight_decay, decoupled, maximize,
          step_size, bias_correction2_sqrt):
    """One Adam/AdamW step in place (``optim.adam._adam``'s arguments); None where the kernels do not apply."""
    arrays = (data, grad, exp_avg, exp_avg_sq) + (() if max_exp_avg_sq is None else (max_exp_avg_sq,))
    if not fits(*arrays):
        return None
    t = data.dtype.type
    vmax = _NONE[data.dtype] if max_exp_avg_sq is None else max_exp_avg_sq.reshape(-1)
    w1 = t(1 - beta1)
    _run(_adam_k, [a.reshape(-1) for a in arrays[:4]] + [vmax], max_exp_avg_sq is not None, bool(maximize),
         bool(decoupled and weight_decay != 0), t(1 - lr * weight_decay), bool(not decoupled and weight_decay != 0),
         t(weight_decay), w1, bool(abs(w1) < 0.5), t(1) - w1, t(beta2), t(1 - beta2), t(bias_correction2_sqrt),
         t(eps), t(-step_size))
    return True


@entry
def sgd_(data, grad, buf, lr, weight_decay, maximize, momentum=0.0, dampening=0.0, nesterov=False, first=False):
    """One SGD step in place (``optim.sgd._sgd`` when ``buf`` is None, else ``_sgd_momentum``); None where the
    kernels do not apply."""
    arrays = (data, grad) + (() if buf is None else (buf,))
    if not fits(*arrays):
        return None
    t = data.dtype.type
    b = _NONE[data.dtype] if buf is None else buf.reshape(-1)
    _run(_sgd_k, [data.reshape(-1), grad.reshape(-1), b], bool(maximize), weight_decay != 0, t(weight_decay),
         buf is not None, bool(first), t(momentum), (1 - dampening) != 1, t(1 - dampening), bool(nesterov),
         -lr != 1, t(-lr))
    return True
