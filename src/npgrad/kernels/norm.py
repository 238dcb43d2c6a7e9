"""Row normalizations over the last axis: layer norm and RMSNorm, forward and backward.

Replaces (and is tested against) ``nn._functional.normalization``'s NumPy rows path (``_moments_into``,
``_affine_into``, ``_input_grad_into`` and the einsum column sums of ``_normalize_backward_np``) and
``RMSNormOp``'s formulas. Each row is read two or three times while it sits in cache, instead of ~7 array
passes with temporaries.

Layer norm's forward writes only y and each row's (mean, 1/std); its backward rebuilds xhat from x in one pass
that also takes the weight and bias gradients' column sums: 3 full-size reads and 1 write a step fewer than
storing xhat (2048x128 float32 on two threads: backward 370 -> 254 us). The row sums accumulate in float64 for
either input dtype, which makes the corrected two-pass moments of the NumPy path (``recentre``: the mean's
rounding error subtracted again) automatic for float32 and keeps them for float64 (the deviations' own mean is
added back); the elementwise steps run in the array's dtype, as NumPy's do. Results agree with the NumPy path
within float32 rounding, not bit for bit. Column sums are added in fixed pieces (row chunks for layer norm,
column blocks otherwise), so their order of addition, and the result, is the same for any thread count.
"""
import math

import numpy as np

from .. import _parallel
from ._jit import entry, kernel


@kernel(fastmath={"reassoc", "contract"})
def _layer_norm_rows(x, w, b, eps, y, stats, affine):
    """affine: 0 none, 1 weight, 2 weight and bias, 3 bias. stats[i] = (mean, 1/std) of row i, in float64: the
    backward rebuilds xhat from them and x, bit for bit as here, instead of reading a stored copy."""
    rows, n = x.shape
    for i in range(rows):
        s = 0.0
        for j in range(n):
            s += x[i, j]
        m = s / n
        c = 0.0
        c2 = 0.0
        for j in range(n):
            v = x[i, j] - m
            c += v
            c2 += v * v
        c /= n
        var = c2 / n - c * c
        var = 0.0 if var < 0.0 else var  # (NaN stays NaN)
        m += c
        r = 1.0 / math.sqrt(var + eps)
        stats[i, 0] = m
        stats[i, 1] = r
        md, rd = x.dtype.type(m), x.dtype.type(r)  # (the elementwise steps in the array's dtype, as NumPy's)
        for j in range(n):
            h = (x[i, j] - md) * rd
            if affine == 0:
                y[i, j] = h
            elif affine == 1:
                y[i, j] = h * w[j]
            elif affine == 2:
                y[i, j] = h * w[j] + b[j]
            else:
                y[i, j] = h + b[j]


@kernel(fastmath={"reassoc", "contract"})
def _layer_norm_grad_chunks(g, x, w, stats, gx, part, lo, hi, rows_per, has_w, need_x, need_sums):
    """Row chunks lo..hi (``rows_per`` rows each) of layer norm's backward in one pass over g and x: xhat rebuilt
    from x and the forward's stats; gx = rstd (gw - mean(gw) - xhat mean(gw xhat)), gw = g w (need_x); and each
    chunk's column sums of g xhat and of g (the weight and bias gradients) into part[chunk] (need_sums)."""
    R, n = g.shape
    for c in range(lo, hi):
        pw, pb = part[c, 0], part[c, 1]
        if need_sums:
            pw[:] = 0.0
            pb[:] = 0.0
        for i in range(c * rows_per, min(R, (c + 1) * rows_per)):
            md, rd = x.dtype.type(stats[i, 0]), x.dtype.type(stats[i, 1])
            s1 = 0.0
            s2 = 0.0
            for j in range(n):
                h = (x[i, j] - md) * rd
                gj = g[i, j]
                gw = gj * w[j] if has_w else gj
                s1 += gw
                s2 += gw * h
                if need_sums:
                    pw[j] += gj * h
                    pb[j] += gj
            if need_x:
                m1, m2 = x.dtype.type(s1 / n), x.dtype.type(s2 / n)
                for j in range(n):
                    h = (x[i, j] - md) * rd
                    gw = g[i, j] * w[j] if has_w else g[i, j]
                    gx[i, j] = (gw - m1 - h * m2) * rd


@kernel(fastmath={"reassoc", "contract"})
def _norm_grad_rows(g, w, xhat, rstd, gx, has_w, centre):
    """dL/dx of y = xhat * w per row: rstd (gw - mean(gw) - xhat mean(gw xhat)), gw = g w; without the mean(gw)
    term (RMSNorm, centre False)."""
    rows, n = g.shape
    for i in range(rows):
        s1 = 0.0
        s2 = 0.0
        for j in range(n):
            gw = g[i, j] * w[j] if has_w else g[i, j]
            s1 += gw
            s2 += gw * xhat[i, j]
        m1 = s1 / n if centre else 0.0
        m2 = s2 / n
        r = rstd[i, 0]
        for j in range(n):
            gw = g[i, j] * w[j] if has_w else g[i, j]
            gx[i, j] = (gw - m1 - xhat[i, j] * m2) * r


@kernel(fastmath={"reassoc", "contract"})
def _column_sums(a, b, lo, hi, out):
    """out[j] = sum_i a[i, j] (b None-like: b.shape[0] == 0) or sum_i a[i, j] b[i, j], for columns lo:hi, rows in
    order. The float64 accumulators are the piece's own: in one array shared by the pieces, the cache line
    holding both sides of a boundary went back and forth between the cores once a row (2048x128 float32, two
    threads: 198 us against 91 on one)."""
    accs = np.zeros(hi - lo, np.float64)
    for i in range(a.shape[0]):
        ar = a[i, lo:hi]
        if b.shape[0] == 0:
            for j in range(hi - lo):
                accs[j] += ar[j]
        else:
            br = b[i, lo:hi]
            for j in range(hi - lo):
                accs[j] += ar[j] * br[j]
    for j in range(hi - lo):
        out[lo + j] = accs[j]


@kernel(fastmath={"reassoc", "contract"})
def _rms_rows(x, w, eps, y, rinv, has_w):
    rows, n = x.shape
    for i in range(rows):
        s = 0.0
        for j in range(n):
            s += x[i, j] * x[i, j]
        rinv[i, 0] = 1.0 / math.sqrt(s / n + eps)
        r = rinv[i, 0]
        for j in range(n):
            y[i, j] = x[i, j] * r * w[j] if has_w else x[i, j] * r


def _rows(a):
    return a.reshape(-1, a.shape[-1])


def _no_array(dt):
    return np.empty((0,) * 2, dt)


@entry
def column_sums(a, b=None):
    """Column sums of the rows of ``a`` (or of ``a * b``), split over column blocks; shape (a.shape[-1],)."""
    a2 = _rows(a)
    b2 = _no_array(a2.dtype) if b is None else _rows(b)
    n = a2.shape[1]
    out = np.empty(n, a2.dtype)
    _parallel.split(lambda lo, hi: _column_sums(a2, b2, lo, hi, out), n, 16, a2.shape[0],
                    piece_min=_parallel.ONE_PASS_PIECE)
    return out


@entry
def layer_norm_forward(x, w, b, eps):
    """(y, stats) of layer norm over the last axis; stats (rows, 2) float64: each row's mean and 1/std."""
    x2 = _rows(x)
    n = x2.shape[1]
    y = np.empty_like(x2)
    stats = np.empty((x2.shape[0], 2), np.float64)
    affine = (0 if b is None else 3) if w is None else (1 if b is None else 2)
    none = np.empty(0, x2.dtype)
    w1 = none if w is None else w.reshape(-1)
    b1 = none if b is None else b.reshape(-1)
    _parallel.split(lambda lo, hi: _layer_norm_rows(x2[lo:hi], w1, b1, eps, y[lo:hi], stats[lo:hi], affine),
                    x2.shape[0], per=n, piece_min=_parallel.ONE_PASS_PIECE)
    return y.reshape(x.shape), stats


def saved_xhat(x, stats):
    """(xhat, rstd) as the NumPy path keeps them, from x and ``layer_norm_forward``'s stats (for a backward that
    cannot take the kernel: a non-contiguous gradient, the kernels switched off since the forward)."""
    x2 = _rows(x)
    rstd = stats[:, 1:].astype(x2.dtype)
    xhat = (x2 - stats[:, :1].astype(x2.dtype)) * rstd
    return xhat.reshape(x.shape), rstd.reshape(x.shape[:-1] + (1,))


# Rows per partial column sum in layer norm's backward: the pieces are whole chunks, and the chunks' sums are
# added in chunk order, so the weight and bias gradients have the same bits for any thread count.
_ROW_CHUNK = 64


@entry
def layer_norm_backward(g, x, w, stats, need_x, need_w, need_b):
    """(gx, gw, gb) of layer norm over the last axis from the forward's input and stats (None where not asked)."""
    g2, x2 = _rows(g), _rows(x)
    R, n = g2.shape
    chunks = -(-R // _ROW_CHUNK)
    need_sums = need_w or need_b
    gx = np.empty_like(g2) if need_x else np.empty((0, n), g2.dtype)
    part = np.empty((chunks if need_sums else 0, 2, n), np.float64)
    w1 = np.empty(0, g2.dtype) if w is None else w.reshape(-1)
    _parallel.split(lambda lo, hi: _layer_norm_grad_chunks(g2, x2, w1, stats, gx, part, lo, hi, _ROW_CHUNK,
                                                           w is not None, need_x, need_sums),
                    chunks, per=_ROW_CHUNK * n, piece_min=_parallel.ONE_PASS_PIECE)
    gw = gb = None
    if need_sums:
        sums = part.sum(axis=0).astype(g2.dtype)  # (NumPy's pairwise order over the chunks: fixed by R alone)
        gw = sums[0] if need_w else None
        gb = sums[1] if need_b else None
    return (gx.reshape(g.shape) if need_x else None), gw, gb


@entry
def norm_input_grad(g, w, xhat, rstd, centre=True):
    """dL/dx of layer norm (``centre``) or RMSNorm (xhat = x * rinv, rstd = rinv) over the last axis."""
    g2, xh2 = _rows(g), _rows(xhat)
    r2 = rstd.reshape(-1, 1)
    gx = np.empty_like(g2)
    w1 = np.empty(0, g2.dtype) if w is None else w.reshape(-1)
    _parallel.split(lambda lo, hi: _norm_grad_rows(g2[lo:hi], w1, xh2[lo:hi], r2[lo:hi], gx[lo:hi], w is not None,
                                                   centre), g2.shape[0], per=g2.shape[1],
                    piece_min=_parallel.ONE_PASS_PIECE)
    return gx.reshape(g.shape)


@entry
def rms_norm_forward(x, w, eps):
    """(y, rinv) of RMSNorm over the last axis: y = x / sqrt(mean(x^2) + eps) * w; rinv shaped (..., 1)."""
    x2 = _rows(x)
    y = np.empty_like(x2)
    rinv = np.empty((x2.shape[0], 1), x2.dtype)
    w1 = np.empty(0, x2.dtype) if w is None else w.reshape(-1)
    _parallel.split(lambda lo, hi: _rms_rows(x2[lo:hi], w1, eps, y[lo:hi], rinv[lo:hi], w is not None),
                    x2.shape[0], per=x2.shape[1], piece_min=_parallel.ONE_PASS_PIECE)
    return y.reshape(x.shape), rinv.reshape(x.shape[:-1] + (1,))

