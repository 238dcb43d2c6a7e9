"""The recurrent kernels behind nn.RNN/LSTM/GRU and their cells (torch.lstm, torch.gru_cell, ...).

A sequence is handled in PyTorch's packed layout: the time steps' rows stacked, step ``t`` holding the first
``batch_sizes[t]`` sequences (non-increasing sizes, so a sequence that has ended simply drops out of the
rows). A padded (T, B, I) input is the special case of T equal sizes; the reshape to (T*B, I) is free.

One layer and one direction over the whole sequence is one graph node (``RecurrentLayer``): the input
projection of every step is one matmul up front, each step does one ``h @ W_hh.T``, and backward runs
through time on NumPy arrays, writing each step's pre-activation gradient into one (N, gates) array so the
weight gradients are again one matmul each. Measured on the benchmark's LSTM training step (2 layers,
hidden 256, seq 64, batch 32, float32, one BLAS thread; benchmarks/models.py lstm), medians of 5: 118 ms this
way, 232 ms with per-step composite ops (about a dozen graph nodes per step), PyTorch 82 ms. That array-only
backward is the fast path; under ``create_graph=True`` the node's backward instead recomputes the layer from per-step
composite ops (``_layer_graph``, the same formulas the cells use) and differentiates that with create_graph, so
gradients of any order hold. tests/autograd/test_two_formulas.py checks that the two agree.
"""
import numpy as np

from ... import _parallel
from ... import kernels as _kernels
from ...autograd import enable_grad, grad as _autograd_grad
from ...autograd.forward_ad import make_dual, unpack_dual
from ...autograd.function import Op
from ...autograd.grad_mode import state as _grad_state
from ...ops.movement import cat, stack
from ...kernels import recurrent as _krec
from ...tensor import Tensor
from .dropout import dropout as _dropout
from .linear import linear

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "rnn_tanh", "rnn_relu", "lstm", "gru"]


# -- one step, as composite ops (the cells, and the create_graph path of the fused layer) ---------------------

def _check_cell(input, hx, w_ih, w_hh):
    if input.shape[-1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {w_ih.shape[1]}")
    for k, h in enumerate(hx):
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {h.shape[0]}")
        if h.shape[-1] != w_hh.shape[1]:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[-1]}, expected {w_hh.shape[1]}")


def _simple_step(x, h, w_ih, w_hh, b_ih, b_hh, relu):
    pre = linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    i, f, g, o = (linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)).chunk(4, 1)
    c1 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c1.tanh(), c1


def _gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    xr, xz, xn = linear(x, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = linear(h, w_hh, b_hh).chunk(3, 1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (h - n)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN: tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)."""
    _check_cell(input, (hx,), w_ih, w_hh)
    return _simple_step(input, hx, w_ih, w_hh, b_ih, b_hh, False)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN with ReLU."""
    _check_cell(input, (hx,), w_ih, w_hh)
    return _simple_step(input, hx, w_ih, w_hh, b_ih, b_hh, True)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step; ``hx`` is ``(h, c)``; returns ``(h', c')``. Gates in PyTorch's order i, f, g, o."""
    _check_cell(input, tuple(hx), w_ih, w_hh)
    return _lstm_step(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step, gates r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn))."""
    _check_cell(input, (hx,), w_ih, w_hh)
    return _gru_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def _layer_graph(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """One layer and direction over packed rows, step by step in composite ops (differentiable to any order)."""
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)]).tolist()
    steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    h, c, outs = h0, c0, [None] * len(batch_sizes)
    for t in steps:
        bs, s = batch_sizes[t], offsets[t]
        xt = x[s:s + bs]
        hp = h[:bs] if bs < h.shape[0] else h
        if mode == "LSTM":
            cp = c[:bs] if bs < c.shape[0] else c
            h1, c1 = _lstm_step(xt, hp, cp, w_ih, w_hh, b_ih, b_hh)
            if w_hr is not None:
                h1 = linear(h1, w_hr)
            c = cat([c1, c[bs:]]) if bs < c.shape[0] else c1
        elif mode == "GRU":
            h1 = _gru_step(xt, hp, w_ih, w_hh, b_ih, b_hh)
        else:
            h1 = _simple_step(xt, hp, w_ih, w_hh, b_ih, b_hh, mode == "RNN_RELU")
        outs[t] = h1
        h = cat([h1, h[bs:]]) if bs < h.shape[0] else h1
    y = cat(outs) if outs else x.new_zeros((0, h0.shape[1]))
    return (y, h, c) if mode == "LSTM" else (y, h)


# -- the fused layer: forward and backward through time on arrays ------------------------------------------------

def _lstm_scales(H, dtype):
    # All four LSTM gates from one tanh pass: sigmoid(u) = 0.5 * tanh(u / 2) + 0.5 for i, f, o (g is tanh(u)).
    # The weights' i, f, o rows are halved up front (exact in floating point), so the GEMM gives tanh's argument
    # directly; after the tanh, ``gates * sc + off`` finishes the sigmoids. (One tanh over the (B, 4H) block and
    # two passes measured ~30% faster than exp, add, reciprocal and a fix-up of the g block.)
    sc = np.full(4 * H, 0.5, dtype)
    sc[2 * H:3 * H] = 1.0
    off = np.full(4 * H, 0.5, dtype)
    off[2 * H:3 * H] = 0.0
    return sc, off


def _step_rows(steps, offsets, batch_sizes, lo, hi):
    """For each step that holds any of batch rows lo..hi: that step's packed rows (a, e) and the end row bs."""
    for t in steps:
        bs = min(batch_sizes[t], hi)
        if bs > lo:
            yield offsets[t] + lo, offsets[t] + bs, bs


def _by_rows(fn, rows, per_row_step):
    """``fn(lo, hi)`` over pieces of the batch rows, one per thread. A recurrence never mixes rows: each
    sequence's steps read only its own row of h and c, so each thread can take its rows through the whole
    sequence with no hand-off between steps (one per layer, where a split of each step's product would take one
    per step). ``per_row_step`` is the multiply-adds of one row through all the steps; pieces hold whole 8-row
    blocks, so each step's product keeps a few rows to work on."""
    _parallel.split(fn, rows, grain=8, per=per_row_step, piece_min=_parallel.GEMM_MIN)


def _recurrent_operand(w_hh, sc):
    """w_hh.T (times the gate scales), as the right operand of every step's ``h @ w``: row-major (the per-step GEMM
    ran ~1.8x faster than on the transposed view), with each row 16 elements longer than it holds. An unpadded
    row of 4H floats is a power-of-two stride for the usual hidden sizes (4 KiB at H=256), and OpenBLAS's packing
    of such an operand thrashes a few cache sets: a 16-row step with H=256 took 175 us against 121 padded, 8 rows
    145 against 70, H=128 35 against 28 (1 BLAS thread; H=192, no power of two, the same either way). The product
    is bit-identical: only the leading dimension differs."""
    rows, cols = w_hh.shape[1], w_hh.shape[0]
    buf = np.empty((rows, cols + 16), w_hh.dtype)
    out = buf[:, :cols]
    np.multiply(w_hh.T, 1 if sc is None else sc, out=out)
    return out


def _sigmoid_(a):
    """sigmoid in place, as 0.5 * tanh(a / 2) + 0.5 (no overflow at any |a|)."""
    a *= 0.5
    np.tanh(a, out=a)
    a *= 0.5
    a += 0.5
    return a


class RecurrentLayer(Op):
    """One layer, one direction of an RNN/LSTM/GRU over a whole packed sequence: outputs (y, h_n[, c_n])."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, batch_sizes, reverse):
        ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
        ctx.mode, ctx.batch_sizes, ctx.reverse = mode, batch_sizes, reverse
        offsets = np.concatenate([[0], np.cumsum(batch_sizes)]).astype(int).tolist()
        T = len(batch_sizes)
        steps = range(T - 1, -1, -1) if reverse else range(T)
        N, dt = x.shape[0], x.dtype
        # LSTM: the weights' i, f, o rows are halved, which is exact in floating point, so the GEMMs give the
        # argument of the gates' one tanh pass directly (see _lstm_scales).
        sc, off = _lstm_scales(c0.shape[1], dt) if mode == "LSTM" else (None, None)
        xw = _parallel.matmul(x, w_ih.T if sc is None else w_ih.T * sc)
        if b_ih is not None:
            if mode == "GRU":
                xw += b_ih  # GRU's b_hn sits inside r * (...)
            else:
                xw += b_ih + b_hh if sc is None else (b_ih + b_hh) * sc
        h = h0.copy()
        hprev = np.empty((N, h.shape[1]), dt)
        whT = _recurrent_operand(w_hh, sc)
        if mode == "LSTM":
            H = c0.shape[1]
            c = c0.copy()
            cprev = np.empty((N, H), dt)
            tc_all = np.empty((N, H), dt)
            hpre = np.empty((N, H), dt) if w_hr is not None else None
            y = np.empty((N, h.shape[1]), dt)
            compiled = _kernels.fits(xw, c, cprev, tc_all, y)  # (the gate arithmetic in one pass: kernels/recurrent)

            def rows(lo, hi):  # batch rows lo..hi through every step (rows never meet: see _by_rows)
                for a, e, bs in _step_rows(steps, offsets, batch_sizes, lo, hi):
                    hp = h[lo:bs]
                    hprev[a:e] = hp
                    g = xw[a:e]
                    g += hp @ whT  # u / 2 for i, f, o; u for g
                    if compiled and _krec.lstm_forward_step(g, c[lo:bs], cprev[a:e], tc_all[a:e],
                                                            y[a:e] if hpre is None else hpre[a:e]):
                        if hpre is not None:
                            np.matmul(hpre[a:e], w_hr.T, out=y[a:e])
                        h[lo:bs] = y[a:e]
                        continue
                    np.tanh(g, out=g)
                    g *= sc
                    g += off
                    cp = c[lo:bs]
                    cprev[a:e] = cp
                    np.multiply(g[:, H:2 * H], cp, out=cp)
                    cp += g[:, :H] * g[:, 2 * H:3 * H]
                    tc = np.tanh(cp, out=tc_all[a:e])
                    if hpre is None:
                        np.multiply(g[:, 3 * H:], tc, out=y[a:e])
                    else:
                        np.multiply(g[:, 3 * H:], tc, out=hpre[a:e])
                        np.matmul(hpre[a:e], w_hr.T, out=y[a:e])
                    h[lo:bs] = y[a:e]
            _by_rows(rows, h.shape[0], len(batch_sizes) * 4 * H * w_hh.shape[1])
            ctx.gates, ctx.hprev, ctx.cprev, ctx.tc = xw, hprev, cprev, tc_all
            if hpre is not None:
                ctx.hpre = hpre
            return y, h, c
        if mode == "GRU":
            H = h.shape[1]
            hn_all = np.empty((N, H), dt)
            y = np.empty((N, H), dt)
            compiled = _kernels.fits(xw, h, hn_all, y)  # (the gate arithmetic in one pass: kernels/recurrent)

            def rows(lo, hi):
                for a, e, bs in _step_rows(steps, offsets, batch_sizes, lo, hi):
                    hp = h[lo:bs]
                    hprev[a:e] = hp
                    hw = hp @ whT
                    if b_hh is not None:
                        hw += b_hh
                    g = xw[a:e]
                    if compiled and _krec.gru_forward_step(g, hw, hp, hn_all[a:e], y[a:e]):
                        h[lo:bs] = y[a:e]
                        continue
                    rz = g[:, :2 * H]
                    rz += hw[:, :2 * H]
                    _sigmoid_(rz)
                    hn_all[a:e] = hw[:, 2 * H:]
                    n = g[:, 2 * H:]
                    n += g[:, :H] * hw[:, 2 * H:]
                    np.tanh(n, out=n)
                    hn = hp - n
                    hn *= g[:, H:2 * H]
                    hn += n
                    y[a:e] = hn
                    h[lo:bs] = hn
            _by_rows(rows, h.shape[0], len(batch_sizes) * 3 * H * H)
            ctx.gates, ctx.hprev, ctx.hn = xw, hprev, hn_all
            return y, h
        relu = mode == "RNN_RELU"

        def rows(lo, hi):
            for a, e, bs in _step_rows(steps, offsets, batch_sizes, lo, hi):
                hp = h[lo:bs]
                hprev[a:e] = hp
                g = xw[a:e]
                g += hp @ whT
                if relu:
                    np.maximum(g, 0, out=g)
                else:
                    np.tanh(g, out=g)
                h[lo:bs] = g
        _by_rows(rows, h.shape[0], len(batch_sizes) * h.shape[1] * h.shape[1])
        ctx.gates, ctx.hprev = xw, hprev
        return xw.copy(), h

    @staticmethod
    def _jvp_rule(primals, tangents, outs):
        """Forward-mode AD: the tangents through ``_layer_graph`` (the same formulas), one pass. The double-VJP
        fallback would take three (recompute, its create_graph backward, a pass back through that), and its
        backward differentiates the saved inputs, which under forward AD need not require grad."""
        xs = [p if t is None else make_dual(p, t) for p, t in zip(primals[:8], tangents[:8])]
        return tuple(unpack_dual(o).tangent for o in _layer_graph(primals[8], *xs, *primals[9:]))

    @staticmethod
    def backward(ctx, gy, gh, gc=None):
        if _grad_state.enabled:  # create_graph=True
            return _graph_backward(ctx, gy, gh, gc)
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr = ctx.saved_tensors
        mode, batch_sizes = ctx.mode, ctx.batch_sizes
        offsets = np.concatenate([[0], np.cumsum(batch_sizes)]).astype(int).tolist()
        T = len(batch_sizes)
        steps = range(T) if ctx.reverse else range(T - 1, -1, -1)  # forward's order, reversed
        G, hprev = ctx.gates, ctx.hprev
        N, dt = x.shape[0], x.dtype
        dh = np.zeros(h0.shape, dt) if gh is None else np.array(gh, dt, copy=True)
        if gy is None:
            gy = np.zeros((N, dh.shape[1]), dt)
        dG = np.empty(G.shape, dt)  # gradient of each step's pre-activation gates
        dW_hr = None
        dHW = None
        if mode == "LSTM":
            H = c0.shape[1]
            tc = ctx.tc
            cprev = ctx.cprev
            hpre = ctx.hpre if w_hr is not None else None
            dc = np.zeros(c0.shape, dt) if gc is None else np.array(gc, dt, copy=True)
            # Each step's activation derivatives are computed from its own gate rows while they are in cache
            # (whole-sequence passes over G cost ~3x more: they stream 8 MiB arrays through memory).
            Dt_buf = np.empty((dh.shape[0], 4 * H), dt)
            ot_buf = np.empty((dh.shape[0], H), dt)
            if hpre is not None:
                dW_hr = np.zeros(w_hr.shape, dt)
            elif not gy.flags.c_contiguous:
                gy = np.ascontiguousarray(gy)
            compiled = hpre is None and _kernels.fits(dh, gy, G, tc, cprev, dc, dG)

            def rows(lo, hi):
                for a, e, bs in _step_rows(steps, offsets, batch_sizes, lo, hi):
                    if compiled and _krec.lstm_backward_step(dh[lo:bs], gy[a:e], G[a:e], tc[a:e], cprev[a:e],
                                                             dc[lo:bs], dG[a:e]):
                        np.matmul(dG[a:e], w_hh, out=dh[lo:bs])
                        continue
                    dht = dh[lo:bs] + gy[a:e]
                    if hpre is not None:
                        dW_hr[...] += dht.T @ hpre[a:e]  # (a sum over rows: run on one piece, see below)
                        dht = dht @ w_hr
                    gt = G[a:e]
                    tct = tc[a:e]
                    ot = ot_buf[lo:bs]
                    np.multiply(tct, tct, out=ot)
                    np.subtract(1, ot, out=ot)
                    ot *= gt[:, 3 * H:]  # dh -> dc through h = o * tanh(c)
                    dct = dht * ot
                    dct += dc[lo:bs]
                    Dt = Dt_buf[lo:bs]
                    np.subtract(1, gt, out=Dt)
                    Dt *= gt  # sigmoid' = s (1 - s); the g gate's tanh' = 1 - g^2 below
                    Dg = Dt[:, 2 * H:3 * H]
                    np.multiply(gt[:, 2 * H:3 * H], gt[:, 2 * H:3 * H], out=Dg)
                    np.subtract(1, Dg, out=Dg)
                    d = dG[a:e]
                    np.multiply(dct, gt[:, 2 * H:3 * H], out=d[:, :H])
                    np.multiply(dct, cprev[a:e], out=d[:, H:2 * H])
                    np.multiply(dct, gt[:, :H], out=d[:, 2 * H:3 * H])
                    np.multiply(dht, tct, out=d[:, 3 * H:])
                    d *= Dt
                    np.multiply(dct, gt[:, H:2 * H], out=dc[lo:bs])
                    np.matmul(d, w_hh, out=dh[lo:bs])
            if hpre is None:
                _by_rows(rows, dh.shape[0], T * 4 * H * w_hh.shape[1])
            else:
                rows(0, dh.shape[0])
            dc0 = dc
        elif mode == "GRU":
            H = h0.shape[1]
            hn_all = ctx.hn
            dHW = np.empty(G.shape, dt)
            if not gy.flags.c_contiguous:
                gy = np.ascontiguousarray(gy)
            compiled = _kernels.fits(dh, gy, G, hprev, hn_all, dG, dHW)

            def rows(lo, hi):
                for a, e, bs in _step_rows(steps, offsets, batch_sizes, lo, hi):
                    if compiled and _krec.gru_backward_step(dh[lo:bs], gy[a:e], G[a:e], hprev[a:e], hn_all[a:e],
                                                            dG[a:e], dHW[a:e]):
                        dh[lo:bs] += dHW[a:e] @ w_hh
                        continue
                    dht = dh[lo:bs] + gy[a:e]
                    gt = G[a:e]
                    r, z, n = gt[:, :H], gt[:, H:2 * H], gt[:, 2 * H:]
                    d = dG[a:e]
                    dn = d[:, 2 * H:]
                    np.multiply(dht, 1 - z, out=dn)
                    dn *= 1 - n * n
                    dz = d[:, H:2 * H]
                    np.subtract(hprev[a:e], n, out=dz)
                    dz *= dht
                    dz *= z * (1 - z)
                    dr = d[:, :H]
                    np.multiply(dn, hn_all[a:e], out=dr)
                    dr *= r * (1 - r)
                    dhw = dHW[a:e]
                    dhw[:, :2 * H] = d[:, :2 * H]
                    np.multiply(dn, r, out=dhw[:, 2 * H:])
                    dht *= z
                    dht += dhw @ w_hh
                    dh[lo:bs] = dht
            _by_rows(rows, dh.shape[0], T * 3 * H * H)
            dc0 = None
        else:
            relu = mode == "RNN_RELU"

            def rows(lo, hi):
                for a, e, bs in _step_rows(steps, offsets, batch_sizes, lo, hi):
                    d = dG[a:e]
                    np.add(dh[lo:bs], gy[a:e], out=d)
                    if relu:
                        d *= G[a:e] > 0
                    else:
                        d *= 1 - G[a:e] * G[a:e]
                    np.matmul(d, w_hh, out=dh[lo:bs])
            _by_rows(rows, dh.shape[0], T * dh.shape[1] * dh.shape[1])
            dc0 = None
        need = ctx.needs_input_grad
        dHW = dG if dHW is None else dHW
        dx = _parallel.matmul(dG, w_ih) if need[0] else None
        dW_ih = _parallel.matmul(dG.T, x) if need[3] else None
        dW_hh = _parallel.matmul(dHW.T, hprev) if need[4] else None
        db_ih = dG.sum(0) if b_ih is not None and need[5] else None
        db_hh = dHW.sum(0) if b_hh is not None and need[6] else None
        return (dx, dh if need[1] else None, dc0 if need[2] else None, dW_ih, dW_hh, db_ih, db_hh, dW_hr,
                None, None, None)


def _graph_backward(ctx, gy, gh, gc):
    """create_graph: differentiate the step-by-step composite recomputation, keeping the graph."""
    saved = ctx.saved_tensors
    need = ctx.needs_input_grad[:8]
    with enable_grad():
        outs = _layer_graph(ctx.mode, *saved, ctx.batch_sizes, ctx.reverse)
    inputs = [v for v, n in zip(saved, need) if n]
    pairs = [(o, g if isinstance(g, Tensor) else Tensor._wrap(np.asarray(g)))
             for o, g in zip(outs, (gy, gh, gc)) if g is not None]
    res = iter(_autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=True,
                              allow_unused=True))
    return tuple(next(res) if n else None for n in need) + (None, None, None)


# -- the multi-layer drivers (torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu) --------------------------

def _run(mode, data, batch_sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional):
    D = 2 if bidirectional else 1
    G = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    proj = params[1].shape[1] != params[1].shape[0] // G  # w_hh is (G*H, proj_size) with projections
    per = (4 if has_biases else 2) + proj
    if bidirectional and ((len(params) // per) % 2 or hx.shape[0] % 2):
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    layer_in, hs, cs = data, [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            w = params[k * per:(k + 1) * per]
            w_ih, w_hh = w[0], w[1]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if proj else None
            res = RecurrentLayer.apply(layer_in, hx[k], cx[k] if cx is not None else None, w_ih, w_hh, b_ih,
                                       b_hh, w_hr, mode, batch_sizes, d == 1)
            outs.append(res[0])
            hs.append(res[1])
            if cx is not None:
                cs.append(res[2])
        layer_in = outs[0] if D == 1 else cat(outs, 1)
        if dropout and train and layer < num_layers - 1:
            layer_in = _dropout(layer_in, dropout, True)
    return layer_in, stack(hs), (stack(cs) if cx is not None else None)


def _dispatch(mode, input, args):
    """Both of PyTorch's overloads: (input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first) and the packed one (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
    bidirectional)."""
    packed = not isinstance(args[2], bool)  # has_biases sits third in the padded overload, params in the packed
    if packed:
        batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        bsz = tuple(int(b) for b in np.asarray(batch_sizes.detach().numpy() if isinstance(batch_sizes, Tensor)
                                                 else batch_sizes).tolist())
        data = input
        batch_first = False
    else:
        hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
        x = input.transpose(0, 1) if batch_first else input
        T, B = x.shape[0], x.shape[1]
        if T == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        bsz = (B,) * T
        data = x.reshape(T * B, x.shape[2])
    if mode == "LSTM":
        h0, c0 = hx
    else:
        h0, c0 = hx, None
    y, h_n, c_n = _run(mode, data, bsz, h0, c0, list(params), has_biases, num_layers, dropout, train,
                       bidirectional)
    if not packed:
        y = y.reshape(T, B, y.shape[1])
        if batch_first:
            y = y.transpose(0, 1)
    return (y, h_n, c_n) if mode == "LSTM" else (y, h_n)


def lstm(input, *args):
    """torch.lstm: a multi-layer LSTM over a padded or packed sequence; returns (output, h_n, c_n)."""
    return _dispatch("LSTM", input, args)


def gru(input, *args):
    """torch.gru: a multi-layer GRU; returns (output, h_n)."""
    return _dispatch("GRU", input, args)


def rnn_tanh(input, *args):
    """torch.rnn_tanh: a multi-layer Elman RNN with tanh; returns (output, h_n)."""
    return _dispatch("RNN_TANH", input, args)


def rnn_relu(input, *args):
    """torch.rnn_relu: a multi-layer Elman RNN with ReLU; returns (output, h_n)."""
    return _dispatch("RNN_RELU", input, args)
