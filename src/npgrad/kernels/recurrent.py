"""LSTM's and GRU's per-step gate arithmetic, forward and backward, in one pass over a step's rows.

Replaces (and is tested against) the NumPy chains inside ``nn/_functional/rnn.py``'s ``RecurrentLayer``: each step's
forward there runs nine ufunc calls over the (rows, 4H) gate block and the (rows, H) cell, the backward seventeen,
and at the benchmark's sizes (16 rows a thread, H = 256) those calls cost about as much as the step's product
(one thread: forward 78 us and backward 40 us against 150 and 124 for the two products; NumPy's float32 tanh alone
took 44 us of the forward). Here each element's gates, cell, tanh and output are computed in registers.

The gate block arrives as the layer lays it out: i, f, o pre-activations halved (``rnn._lstm_scales``: the NumPy
path takes all four gates from one tanh pass), g's whole. So sigmoid(u) is 1 / (1 + e**(-2v)) for the halved v,
and the block is overwritten with the activated gates, as the NumPy path leaves it for the backward. One kernel
serves both dtypes: ``_vecmath.exp``/``tanh`` are exp32 (< 1 ulp) and tanh32 (<= 1 ulp) on float32, libm's on
float64. Rows are independent and each is computed whole by one call, so the result does not depend on how the
caller splits the rows over threads.

GRU's step is the same idea (its NumPy step: ~12 ufunc calls and four temporaries forward, ~16 calls backward); its
gates are not pre-scaled, so its sigmoids take 1 / (1 + e**(-u)). The GRU training step of the lstm workload's sizes
(2 layers, H = 256, 64 steps, batch 32, Adam), in one process alternating the kernels' use: 0.616 of its time.
"""
from . import _vecmath
from ._jit import entry, kernel


@kernel(fastmath={"contract"})
def _forward(g, c, cprev, tc, y):
    one, m2 = g.dtype.type(1), g.dtype.type(-2)
    h = c.shape[1]
    for r in range(c.shape[0]):
        gr, cr, pr, tr, yr = g[r], c[r], cprev[r], tc[r], y[r]
        for j in range(h):
            i = one / (one + _vecmath.exp(m2 * gr[j]))
            f = one / (one + _vecmath.exp(m2 * gr[h + j]))
            u = _vecmath.tanh(gr[2 * h + j])
            o = one / (one + _vecmath.exp(m2 * gr[3 * h + j]))
            cp = cr[j]
            pr[j] = cp
            cn = f * cp + i * u
            cr[j] = cn
            t = _vecmath.tanh(cn)
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
    _forward(g, c, cprev, tc, y)
    return True


@entry
def lstm_backward_step(dh, gy, g, tc, cprev, dc, d):
    """One step's backward over a block of rows: from the output's gradient ``dh + gy``, the activated gates ``g``,
    tanh of the cell ``tc``, the previous cell ``cprev`` and the cell's gradient ``dc`` (updated in place to the
    previous cell's), writes ``d`` (rows, 4H), the gradient of the un-halved pre-activations. Returns True."""
    _backward(dh, gy, g, tc, cprev, dc, d)
    return True


# -- GRU: r, z, n gates; h' = n + z (h - n), n = tanh(x_n + r * (h W_hn + b_hn)) ---------------------------------

@kernel(fastmath={"contract"})
def _gru_forward(g, hw, hp, hn, y):
    one = g.dtype.type(1)
    h = hp.shape[1]
    for r in range(hp.shape[0]):
        gr, wr, pr, nr, yr = g[r], hw[r], hp[r], hn[r], y[r]
        for j in range(h):
            rg = one / (one + _vecmath.exp(-(gr[j] + wr[j])))
            zg = one / (one + _vecmath.exp(-(gr[h + j] + wr[h + j])))
            w = wr[2 * h + j]
            nn = _vecmath.tanh(gr[2 * h + j] + rg * w)
            nr[j] = w
            yr[j] = nn + zg * (pr[j] - nn)
            gr[j], gr[h + j], gr[2 * h + j] = rg, zg, nn


@kernel(fastmath={"contract"})
def _gru_backward(dh, gy, g, hp, hn, d, dhw):
    one = d.dtype.type(1)
    h = dh.shape[1]
    for r in range(dh.shape[0]):
        hr, yr, gr, pr, nr, dr, wr = dh[r], gy[r], g[r], hp[r], hn[r], d[r], dhw[r]
        for j in range(h):
            rg, zg, nn = gr[j], gr[h + j], gr[2 * h + j]
            dht = hr[j] + yr[j]
            dn = dht * (one - zg) * (one - nn * nn)
            dr_ = dn * nr[j] * (rg * (one - rg))
            dz = (pr[j] - nn) * dht * (zg * (one - zg))
            dr[j], dr[h + j], dr[2 * h + j] = dr_, dz, dn
            wr[j], wr[h + j], wr[2 * h + j] = dr_, dz, dn * rg
            hr[j] = dht * zg


@entry
def gru_forward_step(g, hw, hp, hn, y):
    """One GRU step over a block of rows: ``g`` (rows, 3H) the input projections (b_ih added), overwritten with the
    gates r, z, n; ``hw`` (rows, 3H) the hidden projection (b_hh added); ``hp`` the previous hidden state; ``hn`` gets
    hw's n block (the backward's r-gradient needs it) and ``y`` the new state n + z (hp - n). Returns True."""
    _gru_forward(g, hw, hp, hn, y)
    return True


@entry
def gru_backward_step(dh, gy, g, hp, hn, d, dhw):
    """One GRU step's backward over a block of rows: from the output's gradient ``dh + gy`` and what the forward
    kept (gates ``g``, previous state ``hp``, ``hn``), writes ``d`` (rows, 3H; the input projections' gradient),
    ``dhw`` (the hidden projection's) and, in place of ``dh``, the part of the previous state's gradient that does
    not go through the hidden product (dh z). Returns True."""
    _gru_backward(dh, gy, g, hp, hn, d, dhw)
    return True
