"""LSTM's per-step gate arithmetic, forward and backward, in one pass over a step's rows.

Replaces (and is tested against) the NumPy chains inside ``nn/_functional/rnn.py``'s ``RecurrentLayer``: each step's
forward there runs nine ufunc calls over the (rows, 4H) gate block and the (rows, H) cell, the backward seventeen,
and at the benchmark's sizes (16 rows a thread, H = 256) those calls cost about as much as the step's product
(one thread: forward 78 us and backward 40 us against 150 and 124 for the two products; NumPy's float32 tanh alone
took 44 us of the forward). Here each element's gates, cell, tanh and output are computed in registers.

The gate block arrives as the layer lays it out: i, f, o pre-activations halved (``rnn._lstm_scales``: the NumPy
path takes all four gates from one tanh pass), g's whole. So sigmoid(u) is 1 / (1 + e**(-2v)) for the halved v,
and the block is overwritten with the activated gates, as the NumPy path leaves it for the backward. float32 uses
``_vecmath``'s exp32 (< 1 ulp) and tanh32 (<= 1 ulp); float64, libm's. Rows are independent and each is computed
whole by one call, so the result does not depend on how the caller splits the rows over threads.
"""
import math

import numpy as np

from . import _vecmath
from ._jit import entry, kernel

_F = np.float32
_ONE, _M2 = _F(1.0), _F(-2.0)


@kernel(fastmath={"contract"})
def _forward32(g, c, cprev, tc, y):
    h = c.shape[1]
    for r in range(c.shape[0]):
        gr, cr, pr, tr, yr = g[r], c[r], cprev[r], tc[r], y[r]
        for j in range(h):
            i = _ONE / (_ONE + _vecmath.exp32(_M2 * gr[j]))
            f = _ONE / (_ONE + _vecmath.exp32(_M2 * gr[h + j]))
            u = _vecmath.tanh32(gr[2 * h + j])
            o = _ONE / (_ONE + _vecmath.exp32(_M2 * gr[3 * h + j]))
            cp = cr[j]
            pr[j] = cp
            cn = f * cp + i * u
            cr[j] = cn
            t = _vecmath.tanh32(cn)
            tr[j] = t
            yr[j] = o * t
            gr[j], gr[h + j], gr[2 * h + j], gr[3 * h + j] = i, f, u, o


@kernel()
def _forward64(g, c, cprev, tc, y):
    h = c.shape[1]
    for r in range(c.shape[0]):
        gr, cr, pr, tr, yr = g[r], c[r], cprev[r], tc[r], y[r]
        for j in range(h):
            i = 1.0 / (1.0 + math.exp(-2.0 * gr[j]))
            f = 1.0 / (1.0 + math.exp(-2.0 * gr[h + j]))
            u = math.tanh(gr[2 * h + j])
            o = 1.0 / (1.0 + math.exp(-2.0 * gr[3 * h + j]))
            cp = cr[j]
            pr[j] = cp
            cn = f * cp + i * u
            cr[j] = cn
            t = math.tanh(cn)
            tr[j] = t
            yr[j] = o * t
            gr[j], gr[h + j], gr[2 * h + j], gr[3 * h + j] = i, f, u, o


@kernel(fastmath={"contract"})
def _backward(dh, gy, g, tc, cprev, dc, d):
    one = d.dtype.type(1)
    h = dh.shape[1]
    for r in range(dh.shape[0]):
        hr, yr, gr, tr, pr, cr, dr = dh[r], gy[r], g[r], tc[r], cprev[r], dc[r], d[r]
        for j in range(h):
            i, f, u, o = gr[j], gr[h + j], gr[2 * h + j], gr[3 * h + j]
            t = tr[j]
            dht = hr[j] + yr[j]
            dct = dht * ((one - t * t) * o) + cr[j]
            dr[j] = dct * u * ((one - i) * i)
            dr[h + j] = dct * pr[j] * ((one - f) * f)
            dr[2 * h + j] = dct * i * (one - u * u)
            dr[3 * h + j] = dht * t * ((one - o) * o)
            cr[j] = dct * f


@entry
def lstm_forward_step(g, c, cprev, tc, y):
    """One step over a block of rows: ``g`` (rows, 4H) the gates' pre-activations (i, f, o halved), overwritten
    with the activated gates; ``c`` (rows, H) the cell, updated in place after its old value is copied to
    ``cprev``; ``tc`` gets tanh of the new cell and ``y`` the output o * tanh(c). All C-contiguous, one float dtype
    (the caller checked ``kernels.fits``). Returns True."""
    (_forward32 if g.dtype == np.float32 else _forward64)(g, c, cprev, tc, y)
    return True


@entry
def lstm_backward_step(dh, gy, g, tc, cprev, dc, d):
    """One step's backward over a block of rows: from the output's gradient ``dh + gy``, the activated gates ``g``,
    tanh of the cell ``tc``, the previous cell ``cprev`` and the cell's gradient ``dc`` (updated in place to the
    previous cell's), writes ``d`` (rows, 4H), the gradient of the un-halved pre-activations. Returns True."""
    _backward(dh, gy, g, tc, cprev, dc, d)
    return True
