"""Row normalizations over the last axis: layer norm and RMSNorm, forward and backward.

Replaces (and is tested against) ``nn._functional.normalization``'s NumPy rows path (``_moments_into``,
``_affine_into``, ``_input_grad_into`` and the einsum column sums of ``_normalize_backward_np``) and
``RMSNormOp``'s formulas. Each row is read two or three times while it sits in cache, instead of ~7 array
passes with temporaries.

Sums accumulate in float64 for either input dtype, which makes the corrected two-pass moments of the NumPy path
(``recentre``: the mean's rounding error subtracted again) automatic for float32 and keeps them for float64 (the
deviations' own mean is added back). Results agree with the NumPy path within float32 rounding, not bit for bit.
Column sums (the weight and bias gradients) split over columns, so each column's order of addition, and the
result, is the same for any thread count.
"""
import math

import numpy as np

from .. import _parallel
from ._jit import entry, kernel


@kernel(fastmath={"reassoc", "contract"})
def _layer_norm_rows(x, w, b, eps, xhat, y, rstd, affine):
    """affine: 0 none, 1 weight, 2 weight and bias, 3 bias."""
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
        rstd[i, 0] = r
        for j in range(n):
            xhat[i, j] = (x[i, j] - m) * r
            h = xhat[i, j]  # rounded to the array's dtype, as the NumPy path keeps it
            if affine == 0:
                y[i, j] = h
            elif affine == 1:
                y[i, j] = h * w[j]
            elif affine == 2:
                y[i, j] = h * w[j] + b[j]
            else:
                y[i, j] = h + b[j]


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


_COLUMN_PIECE = 1 << 18


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
    # A column sum is one add (or multiply-add) an element, ~0.2 ns on one core: below twice this many elements
    # per piece the hand-off to a second thread (30-40 us on the 2-core VM) costs more than the half it saves.
    _parallel.split(lambda lo, hi: _column_sums(a2, b2, lo, hi, out), n, 16, a2.shape[0],
                    piece_min=_COLUMN_PIECE)
    return out


@entry
def layer_norm_forward(x, w, b, eps):
    """(y, xhat, rstd) of layer norm over the last axis; rstd shaped (..., 1) like the NumPy path's."""
    x2 = _rows(x)
    n = x2.shape[1]
    xhat, y = np.empty_like(x2), np.empty_like(x2)
    rstd = np.empty((x2.shape[0], 1), x2.dtype)
    affine = (0 if b is None else 3) if w is None else (1 if b is None else 2)
    none = np.empty(0, x2.dtype)
    w1 = none if w is None else w.reshape(-1)
    b1 = none if b is None else b.reshape(-1)
    _parallel.split(lambda lo, hi: _layer_norm_rows(x2[lo:hi], w1, b1, eps, xhat[lo:hi], y[lo:hi], rstd[lo:hi],
                                                    affine), x2.shape[0], per=n)
    lead = x.shape[:-1]
    return y.reshape(x.shape), xhat.reshape(x.shape), rstd.reshape(lead + (1,))


@entry
def norm_input_grad(g, w, xhat, rstd, centre=True):
    """dL/dx of layer norm (``centre``) or RMSNorm (xhat = x * rinv, rstd = rinv) over the last axis."""
    g2, xh2 = _rows(g), _rows(xhat)
    r2 = rstd.reshape(-1, 1)
    gx = np.empty_like(g2)
    w1 = np.empty(0, g2.dtype) if w is None else w.reshape(-1)
    _parallel.split(lambda lo, hi: _norm_grad_rows(g2[lo:hi], w1, xh2[lo:hi], r2[lo:hi], gx[lo:hi], w is not None,
                                                   centre), g2.shape[0], per=g2.shape[1])
    return gx.reshape(g.shape)


@entry
def rms_norm_forward(x, w, eps):
    """(y, rinv) of RMSNorm over the last axis: y = x / sqrt(mean(x^2) + eps) * w; rinv shaped (..., 1)."""
    x2 = _rows(x)
    y = np.empty_like(x2)
    rinv = np.empty((x2.shape[0], 1), x2.dtype)
    w1 = np.empty(0, x2.dtype) if w is None else w.reshape(-1)
    _parallel.split(lambda lo, hi: _rms_rows(x2[lo:hi], w1, eps, y[lo:hi], rinv[lo:hi], w is not None),
                    x2.shape[0], per=x2.shape[1])
    return y.reshape(x.shape), rinv.reshape(x.shape[:-1] + (1,))

