"""Direct 3x3 convolution, stride 1, no dilation, one group: the forward and both gradients.

The NumPy paths (``nn._functional.conv``: windows on a wide grid times OpenBLAS, Winograd for wide layers) copy
every window out to memory and hand small GEMMs to BLAS; for a residual block's 16->16 3x3 layer on 32x16x32x32
that was 6-9 ms a forward on two threads against PyTorch's 1.5 (oneDNN's direct convolution). Here each image is
padded once into a scratch plane that stays in cache, and an output plane is accumulated in place: on the "wide
grid" (the padded width, so that every kernel offset is one fixed shift of a flat plane) a 3x3 window is nine
shifted reads of the same row, and one pass over an input plane adds its nine taps into four output planes at
once (four planes: the widest block whose accumulators, weights and reads fit the vector registers; measured
2.7 ms against 3.7 for one plane and 4.3 for eight, one thread, PyTorch 3.0). The last two columns of each wide
row read across the row's edge and are dropped when the block is written out.

- dL/dx is the same convolution of g, padded by 2 - pad, with the kernel flipped and its two channel axes swapped.
- dL/dW[o, c, t] is a dot product of g's plane o (on the wide grid, zeros in the dropped columns) with x's padded
  plane c shifted by tap t: nine sums per (o, c) in one pass. Images go in fixed chunks of ``CHUNK``, each chunk's
  sum in its own slot, added up in chunk order: the same bits for any thread count. An image holding an inf or NaN
  has its sums taken row by row, without the dropped columns (whose zeros times inf would make NaN).

Results agree with the NumPy path within float32 rounding, not bit for bit: a forward output is the same products
added in a different order (9 taps per channel, channel by channel); the weight gradient's sums are reassociated
into vector lanes. NaN and inf propagate as in any sum of products.
"""
import numpy as np

from .. import _parallel
from ._jit import entry, kernel

CHUNK = 4  # images per weight-gradient partial sum (fixed, so the sums do not depend on the thread count)


@kernel()
def _pad_into(x, n, top, left, Wp, dst):
    """Image n of x (N, C, H, W) into the interior of dst (C, length), the padded planes flattened; the border and
    tail, zeroed once by the caller, stay zero. Answers whether every value was finite."""
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    zero = x.dtype.type(0)
    check = zero
    for c in range(C):
        for i in range(H):
            base = (i + top) * Wp + left
            for j in range(W):
                v = x[n, c, i, j]
                dst[c, base + j] = v
                check += v - v  # 0 for a finite v, NaN for NaN or +-inf (and then for good)
    return check == zero


@kernel(fastmath={"contract"})
def _planes4(src, w, o, Wp, L, acc):
    """acc[0:4] = output planes o..o+3 on the wide grid: every input plane's nine taps, one pass per plane."""
    C = src.shape[0]
    a0, a1, a2, a3 = acc[0], acc[1], acc[2], acc[3]
    a0[:] = 0
    a1[:] = 0
    a2[:] = 0
    a3[:] = 0
    s = Wp
    d = 2 * Wp
    for c in range(C):
        r = src[c]
        x0, x1, x2 = r[0:L], r[1:1 + L], r[2:2 + L]
        x3, x4, x5 = r[s:s + L], r[s + 1:s + 1 + L], r[s + 2:s + 2 + L]
        x6, x7, x8 = r[d:d + L], r[d + 1:d + 1 + L], r[d + 2:d + 2 + L]
        k = w[o, c]
        p0, p1, p2, p3, p4, p5, p6, p7, p8 = (k[0, 0], k[0, 1], k[0, 2], k[1, 0], k[1, 1], k[1, 2],
                                              k[2, 0], k[2, 1], k[2, 2])
        k = w[o + 1, c]
        q0, q1, q2, q3, q4, q5, q6, q7, q8 = (k[0, 0], k[0, 1], k[0, 2], k[1, 0], k[1, 1], k[1, 2],
                                              k[2, 0], k[2, 1], k[2, 2])
        k = w[o + 2, c]
        u0, u1, u2, u3, u4, u5, u6, u7, u8 = (k[0, 0], k[0, 1], k[0, 2], k[1, 0], k[1, 1], k[1, 2],
                                              k[2, 0], k[2, 1], k[2, 2])
        k = w[o + 3, c]
        v0, v1, v2, v3, v4, v5, v6, v7, v8 = (k[0, 0], k[0, 1], k[0, 2], k[1, 0], k[1, 1], k[1, 2],
                                              k[2, 0], k[2, 1], k[2, 2])
        for p in range(L):
            e0, e1, e2, e3, e4, e5, e6, e7, e8 = x0[p], x1[p], x2[p], x3[p], x4[p], x5[p], x6[p], x7[p], x8[p]
            a0[p] += p0 * e0 + p1 * e1 + p2 * e2 + p3 * e3 + p4 * e4 + p5 * e5 + p6 * e6 + p7 * e7 + p8 * e8
            a1[p] += q0 * e0 + q1 * e1 + q2 * e2 + q3 * e3 + q4 * e4 + q5 * e5 + q6 * e6 + q7 * e7 + q8 * e8
            a2[p] += u0 * e0 + u1 * e1 + u2 * e2 + u3 * e3 + u4 * e4 + u5 * e5 + u6 * e6 + u7 * e7 + u8 * e8
            a3[p] += v0 * e0 + v1 * e1 + v2 * e2 + v3 * e3 + v4 * e4 + v5 * e5 + v6 * e6 + v7 * e7 + v8 * e8


@kernel(fastmath={"contract"})
def _plane1(src, w, o, Wp, L, a0):
    """a0 = output plane o on the wide grid (the channels left over after the blocks of four)."""
    C = src.shape[0]
    a0[:] = 0
    s = Wp
    d = 2 * Wp
    for c in range(C):
        r = src[c]
        x0, x1, x2 = r[0:L], r[1:1 + L], r[2:2 + L]
        x3, x4, x5 = r[s:s + L], r[s + 1:s + 1 + L], r[s + 2:s + 2 + L]
        x6, x7, x8 = r[d:d + L], r[d + 1:d + 1 + L], r[d + 2:d + 2 + L]
        k = w[o, c]
        p0, p1, p2, p3, p4, p5, p6, p7, p8 = (k[0, 0], k[0, 1], k[0, 2], k[1, 0], k[1, 1], k[1, 2],
                                              k[2, 0], k[2, 1], k[2, 2])
        for p in range(L):
            a0[p] += (p0 * x0[p] + p1 * x1[p] + p2 * x2[p] + p3 * x3[p] + p4 * x4[p] + p5 * x5[p]
                      + p6 * x6[p] + p7 * x7[p] + p8 * x8[p])


@kernel()
def _write_planes(acc, m, out, n, o, Wp):
    """Planes acc[0:m] (wide grid) into out[n, o:o + m], dropping each row's last Wp - Wo columns."""
    Ho, Wo = out.shape[2], out.shape[3]
    for q in range(m):
        for i in range(Ho):
            for j in range(Wo):
                out[n, o + q, i, j] = acc[q, i * Wp + j]


@kernel()
def _conv_images(x, w, top, left, Hp, Wp, out, lo, hi):
    """out[lo:hi] = images lo..hi of x, padded by (top, left) to Hp x Wp, convolved with w (O, C, 3, 3)."""
    C, O = x.shape[1], w.shape[0]
    L = (Hp - 2) * Wp
    src = np.zeros((C, Hp * Wp + 2), x.dtype)  # +2: the last wide window's reads past the bottom-right corner
    acc = np.empty((4, L), x.dtype)
    for n in range(lo, hi):
        _pad_into(x, n, top, left, Wp, src)
        o = 0
        while o + 4 <= O:
            _planes4(src, w, o, Wp, L, acc)
            _write_planes(acc, 4, out, n, o, Wp)
            o += 4
        while o < O:
            _plane1(src, w, o, Wp, L, acc[0])
            _write_planes(acc, 1, out, n, o, Wp)
            o += 1


@kernel(fastmath={"reassoc", "contract"})
def _dots9(gr, x0, x1, x2, x3, x4, x5, x6, x7, x8, a, b):
    """The nine dot products of gr[a:b] with x0..x8[a:b] (one vector loop: the lanes reassociate each sum). The
    runs are sliced out so that the loop index starts at 0: an index numba cannot prove non-negative gets a
    wraparound check that stops the loop vectorising (6x slower)."""
    gr, x0, x1, x2, x3, x4, x5, x6, x7, x8 = (gr[a:b], x0[a:b], x1[a:b], x2[a:b], x3[a:b], x4[a:b], x5[a:b],
                                              x6[a:b], x7[a:b], x8[a:b])
    t0 = t1 = t2 = t3 = t4 = t5 = t6 = t7 = t8 = gr.dtype.type(0)
    for p in range(b - a):
        e = gr[p]
        t0 += e * x0[p]
        t1 += e * x1[p]
        t2 += e * x2[p]
        t3 += e * x3[p]
        t4 += e * x4[p]
        t5 += e * x5[p]
        t6 += e * x6[p]
        t7 += e * x7[p]
        t8 += e * x8[p]
    return t0, t1, t2, t3, t4, t5, t6, t7, t8


@kernel(fastmath={"reassoc", "contract"})
def _tap_sums(gw, src, Wp, L, part):
    """part[o, c, a, b] += sum_p gw[o, p] * src[c, p + a * Wp + b]: one pass over g's plane per input plane."""
    O, C = gw.shape[0], src.shape[0]
    s = Wp
    d = 2 * Wp
    for c in range(C):
        r = src[c]
        x0, x1, x2 = r[0:L], r[1:1 + L], r[2:2 + L]
        x3, x4, x5 = r[s:s + L], r[s + 1:s + 1 + L], r[s + 2:s + 2 + L]
        x6, x7, x8 = r[d:d + L], r[d + 1:d + 1 + L], r[d + 2:d + 2 + L]
        for o in range(O):
            gr = gw[o]
            t0 = t1 = t2 = t3 = t4 = t5 = t6 = t7 = t8 = gr.dtype.type(0)
            for p in range(L):
                e = gr[p]
                t0 += e * x0[p]
                t1 += e * x1[p]
                t2 += e * x2[p]
                t3 += e * x3[p]
                t4 += e * x4[p]
                t5 += e * x5[p]
                t6 += e * x6[p]
                t7 += e * x7[p]
                t8 += e * x8[p]
            _add9(part[o, c], t0, t1, t2, t3, t4, t5, t6, t7, t8)


@kernel()
def _add9(k, t0, t1, t2, t3, t4, t5, t6, t7, t8):
    k[0, 0] += t0
    k[0, 1] += t1
    k[0, 2] += t2
    k[1, 0] += t3
    k[1, 1] += t4
    k[1, 2] += t5
    k[2, 0] += t6
    k[2, 1] += t7
    k[2, 2] += t8


@kernel()
def _tap_sums_by_row(gw, src, Wp, L, Wo, part):
    """_tap_sums over each wide row's Wo real columns only, for an image holding an inf or NaN: the dropped
    columns' zeros in g times an inf or NaN read across the row's edge would be NaN."""
    O, C = gw.shape[0], src.shape[0]
    s = Wp
    d = 2 * Wp
    for c in range(C):
        r = src[c]
        x0, x1, x2 = r[0:L], r[1:1 + L], r[2:2 + L]
        x3, x4, x5 = r[s:s + L], r[s + 1:s + 1 + L], r[s + 2:s + 2 + L]
        x6, x7, x8 = r[d:d + L], r[d + 1:d + 1 + L], r[d + 2:d + 2 + L]
        for o in range(O):
            for start in range(0, L, Wp):
                t0, t1, t2, t3, t4, t5, t6, t7, t8 = _dots9(gw[o], x0, x1, x2, x3, x4, x5, x6, x7, x8, start,
                                                            start + Wo)
                _add9(part[o, c], t0, t1, t2, t3, t4, t5, t6, t7, t8)


@kernel()
def _weight_grad_chunks(x, g, top, left, Hp, Wp, parts, lo, hi, chunk):
    """parts[k] = dL/dW summed over images k*chunk .. (k+1)*chunk, for chunks lo..hi."""
    N, C = x.shape[0], x.shape[1]
    O, Ho, Wo = g.shape[1], g.shape[2], g.shape[3]
    L = Ho * Wp
    src = np.zeros((C, Hp * Wp + 2), x.dtype)
    gw = np.zeros((O, L), x.dtype)  # g on the wide grid: the dropped columns stay zero
    for k in range(lo, hi):
        part = parts[k]
        part[:] = 0
        for n in range(k * chunk, min(N, (k + 1) * chunk)):
            finite = _pad_into(x, n, top, left, Wp, src)
            for o in range(O):
                for i in range(Ho):
                    for j in range(Wo):
                        gw[o, i * Wp + j] = g[n, o, i, j]
            if finite:
                _tap_sums(gw, src, Wp, L, part)
            else:
                _tap_sums_by_row(gw, src, Wp, L, Wo, part)


def fits(x, w, stride, dilation, groups, lo, hi):
    """Whether this 2-D convolution is the kernels' case: a 3x3 kernel at stride 1, no dilation, one group, pads of
    at most 2 (the input gradient pads g by 2 - pad), an output at least 1x1, and arrays the kernels take."""
    from . import fits as _fits
    return (x.ndim == 4 and w.shape[2:] == (3, 3) and tuple(stride) == (1, 1) and tuple(dilation) == (1, 1)
            and groups == 1 and all(0 <= p <= 2 for p in tuple(lo) + tuple(hi))
            and x.shape[2] + lo[0] + hi[0] >= 3 and x.shape[3] + lo[1] + hi[1] >= 3 and _fits(x, w))


def _by_images(fn, n, work_per_image):
    _parallel.split(fn, n, per=work_per_image, piece_min=_parallel.GEMM_MIN)


@entry
def forward(x, w, lo, hi):
    """conv2d(x, w) with padding (lo, hi) per spatial dim, stride 1: (N, O, Ho, Wo)."""
    N, C, H, W = x.shape
    O = w.shape[0]
    Hp, Wp = H + lo[0] + hi[0], W + lo[1] + hi[1]
    out = np.empty((N, O, Hp - 2, Wp - 2), x.dtype)
    w = np.ascontiguousarray(w)
    _by_images(lambda a, b: _conv_images(x, w, lo[0], lo[1], Hp, Wp, out, a, b), N, O * C * 9 * (Hp - 2) * Wp)
    return out


@entry
def input_grad(g, w, x_shape, lo, hi):
    """dL/dx (x_shape) of forward(x, w, lo, hi) for its output's gradient g: g padded by 2 - pad, convolved with
    the flipped kernel with its channel axes swapped."""
    N, C, H, W = x_shape
    O = w.shape[0]
    wt = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    g = np.ascontiguousarray(g)
    gx = np.empty(x_shape, g.dtype)
    Hp, Wp = H + 2, W + 2
    _by_images(lambda a, b: _conv_images(g, wt, 2 - lo[0], 2 - lo[1], Hp, Wp, gx, a, b), N, O * C * 9 * H * Wp)
    return gx


@entry
def weight_grad(x, g, lo, hi):
    """dL/dW (O, C, 3, 3) of forward(x, w, lo, hi) for its output's gradient g."""
    N, C, H, W = x.shape
    O = g.shape[1]
    Hp, Wp = H + lo[0] + hi[0], W + lo[1] + hi[1]
    g = np.ascontiguousarray(g)
    chunks = -(-N // CHUNK)
    parts = np.empty((chunks, O, C, 3, 3), x.dtype)
    _parallel.split(lambda a, b: _weight_grad_chunks(x, g, lo[0], lo[1], Hp, Wp, parts, a, b, CHUNK), chunks,
                    per=CHUNK * O * C * 9 * g.shape[2] * Wp, piece_min=_parallel.GEMM_MIN)
    return parts.sum(axis=0)
