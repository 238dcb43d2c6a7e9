"""The error function in NumPy alone (no SciPy), and the Erf/Erfc Ops (public as ``ops.special.erf``/``erfc``).

It is its own module, outside the lazily loaded ``special`` family, because nn's GELU and the normal CDF
use it on every call and must not load that family.

``erf_np`` evaluates W. J. Cody's rational Chebyshev approximations (Math. Comp. 23, 1969), the
scheme of his CALERF routine: three ranges of |x|, each with its own rational function, accurate to
about 1e-16 relative in float64. For |x| > 0.46875 the result goes through erfc = exp(-x^2) R(x),
with exp(-x^2) split as exp(-a^2) exp(-(x-a)(x+a)) for a = x rounded down to 1/16, which keeps the
exponent's rounding error out of the result. float32 inputs are evaluated in float32, float16 inputs
in float32 too (rounded back).
"""
import math

import numpy as np

from .. import _parallel
from ..autograd.function import Op
from ..tensor import Tensor
from . import _poly as P

# |x| <= 0.46875: erf(x) = x * A(x^2) / B(x^2)
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
      1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
# 0.46875 < |x| <= 4: erfc(x) = exp(-x^2) * C(x) / D(x)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
      8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
      2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
      3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
# |x| > 4: erfc(x) = exp(-x^2) / x * (1/sqrt(pi) + 1/x^2 * R(1/x^2))
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)
_INV_SQRT_PI = 5.6418958354775628695e-1
_XBIG = 27.3  # erfc(x) is below the smallest subnormal double beyond this


# Evaluation runs block by block with preallocated scratch buffers and in-place ufuncs: a chain of ~50
# elementwise steps then stays in cache and allocates nothing per step (fresh large temporaries cost
# page faults that would dominate the arithmetic).
_BLOCK = 1 << 15


class _Scratch:
    def __init__(self, n, dtype):
        self.y, self.c, self.t1, self.t2, self.t3, self.r = (np.empty(n, dtype) for _ in range(6))
        self.b1, self.b2 = np.empty(n, np.uint8), np.empty(n, np.uint8)  # (x > 0), (x >= 0) and their sum


def _small_into(y, out, s):
    """out = erf(y) for |y| <= 0.46875 (valid, and harmless, for the whole block)."""
    ysq, den = s.t1, s.t2
    np.multiply(y, y, out=ysq)
    np.multiply(ysq, _A[4], out=out)
    np.copyto(den, ysq)
    for i in range(3):
        out += _A[i]
        out *= ysq
        den += _B[i]
        den *= ysq
    out += _A[3]
    den += _B[3]
    out /= den
    out *= y


def _exp_neg_sq_into(y, out, s):
    """out *= exp(-y^2), with y^2 split as a^2 + (y-a)(y+a), a = y rounded down to 1/16."""
    a, d, e = s.t1, s.t2, s.t3
    if y.dtype == np.float32:  # y^2's rounding error is below float32's resolution of the result
        np.multiply(y, y, out=a)
        np.negative(a, out=a)
        np.exp(a, out=a)
        out *= a
        return
    np.multiply(y, 16, out=a)
    np.trunc(a, out=a)
    a *= 0.0625
    np.subtract(y, a, out=d)
    np.add(y, a, out=e)
    d *= e
    np.negative(d, out=d)
    np.exp(d, out=d)
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    out *= a
    out *= d


def _mid_into(y, out, s):
    """out = erfc(y) for 0.46875 < y <= 4 (y is clipped to that range by the caller)."""
    den = s.t2
    np.multiply(y, _C[8], out=out)
    np.copyto(den, y)
    for i in range(7):
        out += _C[i]
        out *= y
        den += _D[i]
        den *= y
    out += _C[7]
    den += _D[7]
    out /= den
    _exp_neg_sq_into(y, out, s)


def _erfc_large(y):
    """erfc(y) for y > 4 (a small subset: plain expressions are fine)."""
    big = y >= _XBIG
    y = np.where(big, 4.0, y).astype(y.dtype, copy=False)  # any finite stand-in; masked to 0 below
    ysq = 1.0 / (y * y)
    num = _P[5] * ysq
    den = ysq
    for i in range(4):
        num = (num + _P[i]) * ysq
        den = (den + _Q[i]) * ysq
    r = ysq * (num + _P[4]) / (den + _Q[4])
    a = np.trunc(y * 16) / 16
    out = np.exp(-a * a) * np.exp(-(y - a) * (y + a)) * ((_INV_SQRT_PI - r) / y)
    out[big] = 0
    return out


def _block(x, out, s, want_erfc):
    # Branch selection by blending with 0/1 factors: masked ufuncs (where=) and copyto-with-where are an
    # order of magnitude slower than plain arithmetic passes.
    n = x.size
    y, c, r = s.y[:n], s.c[:n], s.r[:n]
    v = _View(s, n)
    np.abs(x, out=y)
    small = y <= 0.46875
    all_small = small.all()
    if not all_small:
        np.clip(y, 0.46875, 4.0, out=c)
        _mid_into(c, r, v)  # erfc(|x|) for the mid range
        large = y > 4.0
        if large.any():
            r[large] = _erfc_large(y[large])
        if want_erfc:  # erfc(x) = 2 - erfc(|x|) for x < 0: r += neg * (2 - 2r), exact where x >= 0
            neg = (x < 0).astype(r.dtype)
            np.subtract(1.0, r, out=c)
            c *= 2.0
            c *= neg
            r += c
        else:  # erf(|x|) = (0.5 - erfc) + 0.5, then the sign of x
            np.subtract(0.5, r, out=r)
            r += 0.5
            np.sign(x, out=c)
            r *= c
    if small.any():
        np.clip(y, 0.0, 0.46875, out=y)  # keeps the formula finite on entries it does not serve
        _small_into(y, out, v)
        np.sign(x, out=y)
        out *= y
        if want_erfc:
            np.subtract(1.0, out, out=out)
        if not all_small:
            # out * f + r * (1 - f): each product is exactly the value or exactly 0, so the sum is exact.
            f = small.astype(out.dtype)
            out *= f
            np.subtract(1.0, f, out=f)
            r *= f
            out += r
    else:
        np.copyto(out, r)


class _View:
    """The first n entries of each scratch buffer (the last block may be short)."""

    def __init__(self, s, n):
        self.t1, self.t2, self.t3 = s.t1[:n], s.t2[:n], s.t3[:n]


def _blocked(x, block_fn, *args):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    n = flat.size
    s = _Scratch(min(n, _BLOCK), flat.dtype)
    for start in range(0, n, _BLOCK):
        block_fn(flat[start:start + _BLOCK], out[start:start + _BLOCK], s, *args)
    nan = np.isnan(flat)
    if nan.any():
        out[nan] = np.nan
    return out.reshape(x.shape)


def _half_in_float32(fn):
    """Evaluate float16 input in float32 and round the result back, as PyTorch computes Half: Cody's
    coefficients (up to ~4e3) and intermediate products overflow or lose all accuracy in float16."""
    def wrapped(x, *args):
        x = np.asarray(x)
        if x.dtype == np.float16:
            return fn(x.astype(np.float32), *args).astype(np.float16)
        return fn(x, *args)
    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


@_half_in_float32
def _eval(x, want_erfc):
    return _blocked(x, _block, want_erfc)


# -- the standard normal CDF for GELU ----------------------------------------------------------------------------
# Phi(x) = erfc(-x / sqrt(2)) / 2 keeps full relative accuracy in the lower tail (1 + erf does not). float32 writes
# the lower side as h(x) = erfc(|x| / sqrt 2) / 2 = exp(-x^2 / 2) * t * Q(t), t = 1 / (1 + p |x| / sqrt 2): the
# Gaussian factor is exactly the one GELU's derivative needs, so forward and derivative share one exp. Q (degree 9,
# p = 0.45) was fitted here to erfcx with relative weights (Lawson-style iteratively reweighted least squares):
# relative error 3.4e-8 in float64; evaluated in float32 the CDF is within 6e-7 relative for x > -4, 1.3e-6 down
# to -8 and 4e-6 down to -12 (denormals below), each 3-4x closer than the Chebyshev erfc fit it replaces.
_CDF_P = 0.45
_CDF_Q = (0.12694266037659693, 0.12694158120828516, 0.11413582649262685, 0.08762600603215598, 0.05997551125008539,
          -0.011179803664797386, 0.0712018441014909, -0.1502925119721123, 0.09534457436242912, -0.02069568116119888)
_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# Larger blocks than erf's: 2048x512 float32, forward with derivative, medians: 32K blocks 11.9 ms on one thread,
# 128K 10.3; on two threads (where each ufunc call must run long enough not to queue on the GIL) 16K blocks took
# 16.0 ms, 128K 7.0.
_CDF_BLOCK = 1 << 17


def _cdf32_block(x, out, s, gauss=None):
    """out = Phi(x) for a float32 block; ``gauss`` (optional) receives exp(-x^2 / 2). ~30 array passes, one exp."""
    n = x.size
    t, q = s.t1[:n], s.t2[:n]
    e = s.y[:n] if gauss is None else gauss
    np.abs(x, out=t)
    t *= _CDF_P * _SQRT1_2
    t += 1.0
    np.divide(1.0, t, out=t)               # (np.reciprocal's float32 loop takes ~1.6x as long, same bits)
    np.multiply(t, _CDF_Q[9], out=q)
    for k in range(8, -1, -1):
        q += _CDF_Q[k]
        q *= t                             # t * Q(t)
    np.multiply(x, x, out=e)
    e *= -0.5
    np.exp(e, out=e)                       # exp(-x^2 / 2); x^2 overflowing to inf gives 0, the limit
    q *= e                                 # h = Phi(-|x|), the lower side, with its relative accuracy
    # Phi = h + (1 + sign x) (1/2 - h): h itself (exactly) below zero, 1 - h above, 1/2 at zero. Arithmetic, not
    # np.where or a masked ufunc: those take 7-20x a plain pass here. 1 + sign x is (x > 0) + (x >= 0), added
    # as bytes: np.sign's float32 loop alone costs ~6 passes. NaN compares False (0), and h is NaN there.
    gt, ge = s.b1[:n], s.b2[:n]
    np.greater(x, 0.0, out=gt.view(np.bool_))
    np.greater_equal(x, 0.0, out=ge.view(np.bool_))
    gt += ge
    np.copyto(t, gt)
    np.subtract(0.5, q, out=out)
    out *= t
    out += q


def gelu32_np(x, want_deriv):
    """GELU of a float32 array, ``x * Phi(x)``, evaluated block by block; with ``want_deriv`` also its
    derivative ``Phi(x) + x * phi(x)``, from the same exp(-x^2 / 2) as Phi, while the block is still in cache.
    Large arrays are split over the threads (``_parallel``: each element's steps are the same, bit-identical).

    2048x512 float32 (a GPT MLP's activation) on the 2-core VM, forward with the derivative: ~15 -> ~11 ms on one
    thread (one exp fewer: 33 passes and one exp instead of 43 and two), ~7 ms on two."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    deriv = np.empty_like(flat) if want_deriv else None

    def block(start, stop, s):
        xb = flat[start:stop]
        cdf = s.t3[:xb.size]
        if want_deriv:
            d = deriv[start:stop]
            _cdf32_block(xb, cdf, s, gauss=d)
            d *= xb                    # x * exp(-x^2 / 2)
            d *= _INV_SQRT_2PI
            d += cdf
        else:
            _cdf32_block(xb, cdf, s)
        np.multiply(xb, cdf, out=out[start:stop])

    _over_cdf_blocks(flat, block)
    return out.reshape(x.shape), (deriv.reshape(x.shape) if want_deriv else None)


def _over_cdf_blocks(flat, block):
    """``block(start, stop, scratch)`` over _CDF_BLOCK-sized blocks of ``flat``, the blocks split over the threads
    (``_parallel``), each thread with its own scratch."""
    def piece(lo, hi):
        s = _Scratch(min(hi - lo, _CDF_BLOCK), flat.dtype)
        for start in range(lo, hi, _CDF_BLOCK):
            block(start, min(start + _CDF_BLOCK, hi), s)

    _parallel.split(piece, flat.size, 1024)


def _cdf32(x):
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _over_cdf_blocks(flat, lambda start, stop, s: _cdf32_block(flat[start:stop], out[start:stop], s))
    return out.reshape(x.shape)


@_half_in_float32
def normal_cdf_np(x):
    """Phi(x), the standard normal CDF, accurate in both tails; float32 (and float16) stay themselves."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return _cdf32(x)
    return 0.5 * erfc_np(x * -_SQRT1_2)


def erf_np(x):
    """erf(x) elementwise, for float32 or float64 arrays."""
    return _eval(x, False)


def erfc_np(x):
    """erfc(x) = 1 - erf(x), accurate where erf(x) is close to 1."""
    return _eval(x, True)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erf(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return erf_np(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (_TWO_OVER_SQRT_PI * P.exp(-(x * x)))


class Erfc(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return erfc_np(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (-_TWO_OVER_SQRT_PI * P.exp(-(x * x)))


def erf_poly(x):
    """erf for backward formulas: an array in a plain backward, a differentiable Tensor under create_graph."""
    return Erf.apply(x) if isinstance(x, Tensor) else erf_np(x)
