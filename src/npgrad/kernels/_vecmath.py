"""Scalar maths the kernels inline into their loops, written so LLVM vectorises it.

The llvmlite that numba's wheels serve has no SVML, so ``math.exp`` on float32 stays a scalar libm call per
element and stops a loop from vectorising. ``exp32`` is the float32 exponential as a polynomial: e**x = 2**k e**r
with k = round(x / ln 2) and |r| <= ln(2)/2 (r in two steps, with ln 2 split in a high part exact in float32 and
a low part), e**r by its Taylor polynomial to degree 7 (truncation 5.6e-9 relative, below float32's half ulp),
and 2**k built from its exponent bits in two factors, so results down to the denormals come out without an
overflowing intermediate. Measured against float64 ``np.exp`` over [-104, 89] (tests/kernels): within 2 ulps,
the same inf, 0 and NaN as NumPy at the ends. float64 kernels call ``math.exp`` (libm, < 1 ulp): they are not
the hot path, and a float64 polynomial of the same accuracy would not be much faster.
"""
import math

import numpy as np

from ._jit import kernel

_F = np.float32
_LOG2E = _F(1.4426950408889634)
_LN2_HI = _F(0.693145751953125)       # 15 significant bits: k * _LN2_HI is exact for |k| <= 150
_LN2_LO = _F(1.4286068203094172e-06)  # ln 2 - _LN2_HI
_HI = _F(89.0)                        # above: 2**k overflows float32 (e**x does from 88.7228)
_LO = _F(-104.0)                      # below: e**x rounds to 0
_ZERO, _HALF, _ONE = _F(0.0), _F(0.5), _F(1.0)
_LANES_FROM = 256  # row length from which row_max keeps 16 lanes (timings there)
# 1/n! for n = 7 .. 2, rounded to float32
_C7, _C6, _C5 = _F(1 / 5040), _F(1 / 720), _F(1 / 120)
_C4, _C3, _C2 = _F(1 / 24), _F(1 / 6), _F(1 / 2)


@kernel(fastmath={"contract"})
def exp32(x):
    """e**x for a float32 scalar, within 2 ulps; inf above 88.7228 (overflow), 0 below -103.97, NaN for NaN."""
    # Below _LO (a causal mask's -inf, say) the answer is 0, selected at the end; the polynomial runs on 0 there
    # instead, because clamping to _LO would build a denormal product, and every vector holding one takes a
    # microcode assist on Intel cores (a row of half -inf: 7x slower).
    low = x < _LO
    xc = _ZERO if low else x
    xc = xc if xc < _HI else _HI
    k = np.floor(xc * _LOG2E + _HALF)
    r = xc - k * _LN2_HI
    r = r - k * _LN2_LO
    p = _C7 * r + _C6
    p = p * r + _C5
    p = p * r + _C4
    p = p * r + _C3
    p = p * r + _C2
    p = p * r + _ONE
    p = p * r + _ONE
    ki = np.int32(k)
    k1 = ki >> 1
    k2 = ki - k1
    y = p * int_bits_as_float(np.int32((k1 + 127) << 23))  # noqa: F821 - bound when numba loads (_jit)
    y = y * int_bits_as_float(np.int32((k2 + 127) << 23))  # noqa: F821
    y = _ZERO if low else y
    return y if x == x else x


def exp(x):
    """e**x inside a kernel of either float dtype: ``exp32`` for float32, libm's for float64 (numba picks the
    implementation by the argument's type; ``_jit`` registers that overload when numba loads)."""
    return math.exp(x)


def _exp_for(numba_type, types):
    """The implementation ``exp`` stands for at one argument type (for ``numba.extending.overload``)."""
    if numba_type == types.float32:
        e32 = exp32
        return lambda x: e32(x)
    if numba_type == types.float64:
        return lambda x: math.exp(x)
    return None


@kernel(fastmath={"nsz"}, inline=True)
def row_max(r):
    """The largest element of a non-empty 1-D array. A NaN may be skipped here: the callers' exp(x - max) turns
    any NaN element into a NaN row anyway. Inlined (a call per row costs its arguments' reference counts). A short
    row takes one running maximum; a long one 16 independent lanes in a scratch array (one running maximum is a
    chain of dependent compares that LLVM does not vectorise), whose allocation a short row would not repay. One
    thread, float32: 8192 rows of 64 0.42 ms one running maximum against 0.55 in lanes; 128 rows of 4096 0.90
    against 0.18."""
    n = r.size
    m = r[0]
    if n < _LANES_FROM:
        for j in range(1, n):
            v = r[j]
            m = v if v > m else m
        return m
    acc = np.empty(16, r.dtype)
    for k in range(16):
        acc[k] = m
    for j in range(0, n - 15, 16):
        for k in range(16):
            v = r[j + k]
            acc[k] = v if v > acc[k] else acc[k]
    for k in range(16):
        m = acc[k] if acc[k] > m else m
    for j in range(n - n % 16, n):
        m = r[j] if r[j] > m else m
    return m
