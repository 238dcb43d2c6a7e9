"""The Adam/AdamW and SGD (momentum, Nesterov, dampening) parameter updates as one pass per parameter, called once
per parameter (``adam_``, ``sgd_``: foreach=False) or once for a whole parameter group (``adam_many``,
``sgd_many``: foreach=None or True, fused=True; see ``optim.optimizer.one_call``).

``optim.adam._adam`` and ``optim.sgd._sgd``/``_sgd_momentum`` are the NumPy reference: 8-12 passes over the
parameter's arrays, each rounding to the parameter's dtype. The kernels here do the same operations in the same
order on one element at a time, in the parameter's dtype (every scalar is cast to it first, as NumPy casts a
Python float; no fastmath, so no fused multiply-adds), so their results are bit-identical to the NumPy path's,
NaN and inf included (tests/optim/test_optim_kernels.py). An entry point answers None where it does not apply
(kernels off or numba missing, a dtype other than float32/float64, arrays that are not contiguous), and the
optimizer runs its NumPy code.

Large parameters (and large groups) are split over npgrad's threads in element ranges; elementwise work, so the
split changes no bit of the result. The group kernels run the per-parameter kernel's own code on each parameter's
part of a range, so the two paths agree bit for bit too.
"""
import operator
import weakref

import numpy as np

from .. import _parallel
from ._jit import entry, kernel, ready

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_NONE = {dt: np.empty(0, dt) for dt in _FLOATS}  # stands in for an absent state array (never aliasing another)
_same = operator.is_


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


# -- a whole parameter group in one call ---------------------------------------------------------------------
#
# The group's arrays reach the kernel as a table of addresses (one row per kind: parameter, gradient, each state
# array; one column per parameter) and a list of sizes, read back into arrays inside (``_view``). The other ways
# tried cost more than the per-parameter calls they replace: a numba typed List costs ~55 us per array to build,
# a reflected Python list ~1.4 us per array to unbox, and a tuple of arrays compiles once per length (9 s for 64)
# with a per-element switch in the loop. Flat buffers holding every parameter, gradient and moment as views
# would save the table, but the gradients are new arrays after every zero_grad(set_to_none=True), and
# ``p.data = ...``, load_state_dict and add_param_group all replace arrays behind the optimizer's back; a table
# read from the arrays at each step sees every such change. Raw addresses are safe here because the caller holds
# every array for the whole call, and ``_table`` refuses what the per-parameter path would do differently:
# another dtype, non-contiguous or read-only arrays, mismatched sizes, and memory shared between parameters
# (a parameter listed twice, views of one buffer), whose updates the threads could interleave.


@kernel()
def _address(a):
    return a.ctypes.data


@kernel()
def _view(address, like, n):
    """The ``n`` elements of ``like``'s dtype at ``address``, as an array (compiled code only)."""
    return carray(address_as_pointer(address, like), n)  # noqa: F821 - both bound when numba loads (_jit)


@kernel()
def _adam_many(table, sizes, like, lo, hi, bc2s, neg_steps, amsgrad, maximize, decay_on, decay, l2_on, wd, w1,
               small1, rest1, b2, w2, eps):
    start = 0
    for j in range(sizes.size):
        n = sizes[j]
        stop = start + n
        if stop > lo and start < hi:  # the part of parameter j in elements [lo, hi) of the group
            a, b = max(lo, start) - start, min(hi, stop) - start
            vmax = _view(table[4, j], like, n)[a:b] if amsgrad else like[0:0]
            _adam_k(_view(table[0, j], like, n)[a:b], _view(table[1, j], like, n)[a:b],
                    _view(table[2, j], like, n)[a:b], _view(table[3, j], like, n)[a:b], vmax, amsgrad, maximize,
                    decay_on, decay, l2_on, wd, w1, small1, rest1, b2, w2, bc2s[j], eps, neg_steps[j])
        start = stop


@kernel()
def _sgd_many(table, sizes, like, lo, hi, firsts, maximize, l2_on, wd, has_buf, mom, damp_on, keep, nesterov, lr_on,
              neg_lr):
    start = 0
    for j in range(sizes.size):
        n = sizes[j]
        stop = start + n
        if stop > lo and start < hi:
            a, b = max(lo, start) - start, min(hi, stop) - start
            buf = _view(table[2, j], like, n)[a:b] if has_buf else like[0:0]
            _sgd_k(_view(table[0, j], like, n)[a:b], _view(table[1, j], like, n)[a:b], buf, maximize, l2_on, wd,
                   has_buf, firsts[j] != 0, mom, damp_on, keep, nesterov, lr_on, neg_lr)
        start = stop


def _fit(arrays, dt, sizes, writes):
    """The addresses of ``arrays`` (``arrays[j]`` parameter j's), or None if one is not a plain C-contiguous
    array of dtype ``dt`` and size ``sizes[j]`` (and writeable when ``writes``)."""
    out = []
    for a, n in zip(arrays, sizes):
        if (type(a) is not np.ndarray or a.dtype != dt or a.size != n or not a.flags.c_contiguous
                or (writes and not a.flags.writeable)):
            return None
        out.append(_address(a))
    return out


def _intervals(table, sizes, itemsize):
    """The non-empty arrays' byte ranges (starts, ends), sorted by start."""
    k = table.shape[0]
    keep = np.tile(sizes > 0, k)
    starts = table.reshape(-1)[keep]
    ends = starts + np.tile(sizes * itemsize, k)[keep]
    order = np.argsort(starts)
    return starts[order], ends[order]


def _table(rows, cache):
    """The address table (one row per kind of array, one column per parameter), sizes, total size and dtype of a
    group's arrays: ``rows[j]`` holds parameter j's, the parameter first and its gradient second; all but the gradient
    are written. None where the one-call kernels do not apply.

    ``cache`` (a dict the optimizer keeps per group, or None) keeps the checked addresses of the parameters and
    state arrays from one step to the next, with weak references to the arrays: they are used again only while
    the group holds the very same, live array objects (``p.data = ...``, load_state_dict, a new parameter all give
    new ones), so an address is never read from memory that was freed or moved, and the cache keeps no replaced
    array alive. The gradients are checked at every step."""
    dt = rows[0][0].dtype
    if dt not in _FLOATS or not ready():
        return None
    kinds = list(zip(*rows))
    held = [a for i, kind in enumerate(kinds) if i != 1 for a in kind]
    plan = None if cache is None else cache.get("plan")
    if (plan is None or plan[0] != dt or plan[2].shape != (len(kinds), len(rows)) or len(plan[1]) != len(held)
            or not all(map(_same, held, [ref() for ref in plan[1]]))):
        sizes = [a.size for a in kinds[0]]
        table = []
        for i, kind in enumerate(kinds):
            addresses = [0] * len(sizes) if i == 1 else _fit(kind, dt, sizes, True)
            if addresses is None:
                return None
            table.append(addresses)
        table, sizes = np.array(table, np.int64), np.array(sizes, np.int64)
        starts, ends = _intervals(np.delete(table, 1, 0), sizes, dt.itemsize)
        if np.any(starts[1:] < ends[:-1]):  # memory shared between two written arrays
            return None
        plan = (dt, [weakref.ref(a) for a in held], table, sizes, int(sizes.sum()), starts, ends)
        if cache is not None:
            cache["plan"] = plan
    _, _, table, sizes, total, starts, ends = plan
    grads = _fit(kinds[1], dt, sizes.tolist(), False)
    if grads is None:
        return None
    table = table.copy()  # the cached one stays the optimizer's, whatever thread steps it
    table[1] = grads
    # A gradient may share memory with other gradients (both only read), never with a written array.
    g_starts, g_ends = _intervals(table[1:2], sizes, dt.itemsize)
    below = np.searchsorted(starts, g_ends) - 1  # the last written range that starts before each gradient ends
    if np.any((below >= 0) & (ends[np.maximum(below, 0)] > g_starts)):
        return None
    return table, sizes, total, dt


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


@entry
def adam_many(rows, step_sizes, bias_correction2_sqrts, lr, beta1, beta2, eps, weight_decay, decoupled, maximize,
              cache=None):
    """``adam_`` for a whole group in one compiled call: ``rows[j]`` holds parameter j's arrays as ``adam_`` takes
    them (five with AMSGrad, else four), the last two arguments one number per parameter (their step counts may
    differ); ``cache`` as ``_table``'s. None where the kernels do not apply, with nothing changed."""
    planned = _table(rows, cache)
    if planned is None:
        return None
    table, sizes, total, dt = planned
    t = dt.type
    amsgrad = len(rows[0]) == 5
    neg_steps = np.array([-s for s in step_sizes], dt)  # each rounded from the Python float, as adam_'s t(...)
    bc2s = np.array(bias_correction2_sqrts, dt)
    w1 = t(1 - beta1)
    like = _NONE[dt]
    scalars = (amsgrad, bool(maximize), bool(decoupled and weight_decay != 0), t(1 - lr * weight_decay),
               bool(not decoupled and weight_decay != 0), t(weight_decay), w1, bool(abs(w1) < 0.5), t(1) - w1,
               t(beta2), t(1 - beta2), t(eps))
    _parallel.split(lambda lo, hi: _adam_many(table, sizes, like, lo, hi, bc2s, neg_steps, *scalars), total, 1024)
    return True


@entry
def sgd_many(rows, firsts, lr, weight_decay, maximize, momentum=0.0, dampening=0.0, nesterov=False, cache=None):
    """``sgd_`` for a whole group in one compiled call: ``rows[j]`` is parameter j's (data, grad) or (data, grad,
    momentum buffer), ``firsts[j]`` whether its buffer starts now; ``cache`` as ``_table``'s. None where the
    kernels do not apply."""
    has_buf = len(rows[0]) == 3
    planned = _table(rows, cache)
    if planned is None:
        return None
    table, sizes, total, dt = planned
    t = dt.type
    like = _NONE[dt]
    first = np.array(firsts, np.uint8) if has_buf else np.zeros(len(rows), np.uint8)
    scalars = (bool(maximize), weight_decay != 0, t(weight_decay), has_buf, t(momentum), (1 - dampening) != 1,
               t(1 - dampening), bool(nesterov), -lr != 1, t(-lr))
    _parallel.split(lambda lo, hi: _sgd_many(table, sizes, like, lo, hi, first, *scalars), total, 1024)
    return True
