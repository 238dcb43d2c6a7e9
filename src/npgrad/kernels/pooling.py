"""2-D max pooling, forward (each window's maximum and the offset that won) and backward (the scatter to winners).

Replaces (and is tested against, bit for bit) ``nn._functional.pooling``'s NumPy passes (``_max_pool_np``,
``_scatter_np``), which walk the kernel offsets as whole-array slices: a 2x2 pool is 4 passes for the maximum and
~12 more for the winners, and the scatter 4-8 more; here each window is read once and each gradient written
once. Same results: the maximum propagates NaN and the winner is then the window's last NaN (as PyTorch reports
it), else the first offset holding the maximum; padding and ceil-mode overhang read as -inf; where windows
overlap, the scatter adds a cell's contributions in the order of the offsets that reach it (the NumPy path's
order), so those give the same bits too. Planes (image, channel) never meet, so they split over the threads whole.

Speed: 2x2 windows at stride 2 without padding (LeNet's, VGG's) have kernels of their own, unrolled, with no
table and no bounds: LeNet's first pool forward 0.27 ms against NumPy's 1.0-1.3, its scatter 0.38 against 1.1.
Other windows inside the plane read it through a table of flat offsets (forward ~1.0 ms there, about NumPy's:
LLVM does not vectorise the gathered reads), and windows reaching into padding or past the input check bounds.
"""
import numpy as np

from .. import _parallel
from ._jit import entry, kernel


@kernel()
def _window_max(xf, base, offs):
    """(max, winner) of one window lying inside the plane: offsets in order, the last NaN or the first maximum."""
    best = xf[base + offs[0]]
    won = 0
    for u in range(1, offs.size):
        v = xf[base + offs[u]]
        t = (v > best) | (v != v)
        best = v if t else best
        won = u if t else won
    return best, won


@kernel()
def _border_max(xp, i, j, kh, kw, sh, sw, dh, dw, ph, pw):
    """(max, winner) of a window that reaches past the plane: outside reads as -inf."""
    H, W = xp.shape
    best = xp.dtype.type(-np.inf)
    won = 0
    k = 0
    for a in range(kh):
        r = i * sh - ph + a * dh
        for b in range(kw):
            c = j * sw - pw + b * dw
            if 0 <= r < H and 0 <= c < W:
                v = xp[r, c]
                t = (v > best) | (v != v)
                best = v if t else best
                won = k if t else won
            k += 1
    return best, won


@kernel()
def _max_pool_pairs(x, vals, arg, lo, hi):
    """2x2 windows at stride 2, all inside the plane (each kernel call inlined by hand: a call passing arrays costs
    20-35 ns, and LLVM then vectorises the stride-2 reads: 0.27 ms for LeNet's first pool, ~1.0 through the
    offset table or NumPy's passes)."""
    OH, OW = vals.shape[1], vals.shape[2]
    for p in range(lo, hi):
        for i in range(OH):
            r0 = x[p, 2 * i]
            r1 = x[p, 2 * i + 1]
            for j in range(OW):
                best = r0[2 * j]
                won = 0
                v = r0[2 * j + 1]
                t = (v > best) | (v != v)
                best = v if t else best
                won = 1 if t else won
                v = r1[2 * j]
                t = (v > best) | (v != v)
                best = v if t else best
                won = 2 if t else won
                v = r1[2 * j + 1]
                t = (v > best) | (v != v)
                best = v if t else best
                won = 3 if t else won
                vals[p, i, j] = best
                arg[p, i, j] = won


@kernel()
def _scatter_pairs(g, arg, gx, lo, hi):
    """The scatter of _max_pool_pairs' windows: the plane zeroed, then one store per window at its winner (the
    windows are disjoint). ``+ zero`` turns -0.0 into the +0.0 that the NumPy path's sum from zeros gives. (Four
    selected stores per window measured 1.1 ms for LeNet's first pool; NumPy's passes 1.1.)"""
    W = gx.shape[2]
    OH, OW = g.shape[1], g.shape[2]
    zero = gx.dtype.type(0)
    for p in range(lo, hi):
        gf = gx[p].reshape(-1)
        for q in range(gf.size):
            gf[q] = zero
        for i in range(OH):
            gr = g[p, i]
            ar = arg[p, i]
            for j in range(OW):
                k = np.int64(ar[j])
                gf[(2 * i + (k >> 1)) * W + 2 * j + (k & 1)] = gr[j] + zero


@kernel()
def _max_pool_planes(x, offs, kh, kw, sh, sw, dh, dw, ph, pw, inner, vals, arg, lo, hi):
    """inner: (first, end) output row and column whose windows lie inside the plane."""
    W = x.shape[2]
    OH, OW = vals.shape[1], vals.shape[2]
    i0, i1, j0, j1 = inner[0], inner[1], inner[2], inner[3]
    for p in range(lo, hi):
        xp = x[p]
        xf = xp.reshape(-1)
        for i in range(OH):
            if i0 <= i < i1:
                for j in range(j0, j1):
                    best, won = _window_max(xf, (i * sh - ph) * W + (j * sw - pw), offs)
                    vals[p, i, j] = best
                    arg[p, i, j] = won
                if j0 > 0:  # (calls only where there is work: a call passing arrays costs ~30 ns)
                    _border_row(xp, i, 0, j0, kh, kw, sh, sw, dh, dw, ph, pw, vals[p, i], arg[p, i])
                if j1 < OW:
                    _border_row(xp, i, j1, OW, kh, kw, sh, sw, dh, dw, ph, pw, vals[p, i], arg[p, i])
            else:
                _border_row(xp, i, 0, OW, kh, kw, sh, sw, dh, dw, ph, pw, vals[p, i], arg[p, i])


@kernel()
def _border_row(xp, i, ja, jb, kh, kw, sh, sw, dh, dw, ph, pw, vals_row, arg_row):
    for j in range(ja, jb):
        best, won = _border_max(xp, i, j, kh, kw, sh, sw, dh, dw, ph, pw)
        vals_row[j] = best
        arg_row[j] = won


@kernel()
def _scatter_planes(g, arg, kh, kw, sh, sw, dh, dw, ph, pw, overlap, gx, lo, hi):
    H, W = gx.shape[1], gx.shape[2]
    OH, OW = g.shape[1], g.shape[2]
    zero = gx.dtype.type(0)
    for p in range(lo, hi):
        for r in range(H):
            for c in range(W):
                gx[p, r, c] = zero
        if not overlap:  # each cell is reached by one window at most: any order gives the same bits
            for i in range(OH):
                for j in range(OW):
                    k = arg[p, i, j]
                    a = k // kw
                    r = i * sh - ph + a * dh
                    c = j * sw - pw + (k - a * kw) * dw
                    if 0 <= r < H and 0 <= c < W:
                        gx[p, r, c] += g[p, i, j]
            continue
        for k in range(kh * kw):  # offsets in order: the NumPy path's order of addition at each cell
            a = k // kw
            b = k - a * kw
            for i in range(OH):
                r = i * sh - ph + a * dh
                if r < 0 or r >= H:
                    continue
                for j in range(OW):
                    if arg[p, i, j] == k:
                        c = j * sw - pw + b * dw
                        if 0 <= c < W:
                            gx[p, r, c] += g[p, i, j]


def _pairs(k, s, d, pad):
    return tuple(k) == (2, 2) and tuple(s) == (2, 2) and tuple(d) == (1, 1) and tuple(pad) == (0, 0)


def _planes(a):
    return a.reshape((-1,) + a.shape[-2:])


def _inside(n_out, size, k, s, d, pad):
    """The output positions first..end whose windows lie inside 0..size along one dim."""
    first = -(-pad // s)
    end = max(min(n_out, (size - 1 - (k - 1) * d + pad) // s + 1), first) if size - 1 - (k - 1) * d + pad >= 0 \
        else first
    return min(first, n_out), min(end, n_out)


@entry
def max_pool2d(x, k, s, d, pad, out, itype):
    """(values, winners) of a 2-D max pool of x (N, C, H, W): winners as offsets into the kernel window, row-major,
    in ``itype``; ``out`` the output size, ``pad`` the padding before each dim."""
    x3 = _planes(x)
    H, W = x3.shape[1:]
    vals = np.empty((x3.shape[0],) + tuple(out), x.dtype)
    arg = np.empty(vals.shape, itype)
    if _pairs(k, s, d, pad) and 2 * out[0] <= H and 2 * out[1] <= W:
        _parallel.split(lambda lo, hi: _max_pool_pairs(x3, vals, arg, lo, hi), x3.shape[0], per=H * W)
    else:
        offs = np.array([a * d[0] * W + b * d[1] for a in range(k[0]) for b in range(k[1])], np.int64)
        inner = np.array(_inside(out[0], H, k[0], s[0], d[0], pad[0]) + _inside(out[1], W, k[1], s[1], d[1], pad[1]),
                         np.int64)
        _parallel.split(lambda lo, hi: _max_pool_planes(x3, offs, k[0], k[1], s[0], s[1], d[0], d[1], pad[0], pad[1],
                                                        inner, vals, arg, lo, hi), x3.shape[0], per=H * W)
    return vals.reshape(x.shape[:2] + vals.shape[1:]), arg.reshape(x.shape[:2] + arg.shape[1:])


@entry
def max_pool2d_scatter(g, arg, k, s, d, pad, size):
    """The gradient of the input (N, C, *size) of a 2-D max pool: each window's gradient added to its winner."""
    g3, a3 = _planes(g), _planes(arg)
    gx = np.empty((g3.shape[0],) + tuple(size), g.dtype)
    overlap = any(ss < (kk - 1) * dd + 1 for kk, ss, dd in zip(k, s, d))
    if _pairs(k, s, d, pad) and 2 * g3.shape[1] <= size[0] and 2 * g3.shape[2] <= size[1]:
        _parallel.split(lambda lo, hi: _scatter_pairs(g3, a3, gx, lo, hi), g3.shape[0], per=size[0] * size[1])
        return gx.reshape(g.shape[:2] + gx.shape[1:])
    _parallel.split(lambda lo, hi: _scatter_planes(g3, a3, k[0], k[1], s[0], s[1], d[0], d[1], pad[0], pad[1],
                                                   overlap, gx, lo, hi), g3.shape[0], per=size[0] * size[1])
    return gx.reshape(g.shape[:2] + gx.shape[1:])
