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


# tanh's odd polynomial below |x| = 0.55: tanh(x) = x + x s q(s), s = x^2, q of degree 4 fitted (float64 least
# squares on 4000 Chebyshev nodes of [0, 0.55^2], Lawson-reweighted toward minimax; relative error 1.0e-9)
_TANH_SPLIT = _F(0.55)
_T0, _T1, _T2, _T3, _T4 = (_F(c) for c in (-0.333333180450237, 0.13332601665666072, -0.05385385604545607,
                                            0.021077751149270425, -0.006282463779112032))
_M2 = _F(-2.0)


@kernel(fastmath={"contract"})
def tanh32(x):
    """tanh of a float32 scalar, within 1 ulp of float64's rounded (tests/kernels: every float32 of [0.4, 0.7) and
    600k samples elsewhere; once, every float32 of [0.25, 1.25); NumPy's own float32 tanh is within 1 ulp too), -0.0,
    +-1 at +-inf and NaN kept.
    Below |x| = 0.55 the polynomial; above, (1 - e) / (1 + e) with e = exp32(-2|x|) <= 1, which has no cancellation
    there (e <= 1/3). Both are computed and one selected, and the sign is put on with copysign: branches or a
    negation chosen by the sign kept LLVM from vectorising the loops that inline it (8x slower)."""
    a = abs(x)
    s = a * a
    q = _T4 * s + _T3
    q = q * s + _T2
    q = q * s + _T1
    q = q * s + _T0
    p = a + a * (s * q)
    e = exp32(_M2 * a)
    t = (_ONE - e) / (_ONE + e)
    return math.copysign(p if a < _TANH_SPLIT else t, x)


def exp(x):
    """e**x inside a kernel of either float dtype: ``exp32`` for float32, libm's for float64 (numba picks the
    implementation by the argument's type; ``_jit`` registers that overload when numba loads)."""
    return math.exp(x)


def tanh(x):
    """tanh inside a kernel of either float dtype: ``tanh32`` for float32, libm's for float64 (an overload, as for
    ``exp``)."""
    return math.tanh(x)


def _float_impl(name, numba_type, types):
    """The implementation ``exp``/``tanh`` (``name``) stands for at one argument type (for
    ``numba.extending.overload``): the float32 polynomial (``exp32``, ``tanh32``) or libm's float64 function."""
    if numba_type == types.float32:
        f32 = globals()[name + "32"]  # (the compiled dispatcher by now: _jit rebinds it when numba loads)
        return lambda x: f32(x)
    if numba_type == types.float64:
        return _LIBM[name]
    return None


# (each through the module global ``math``: a libm function captured as a closure's free variable does not type)
_LIBM = {"exp": lambda x: math.exp(x), "tanh": lambda x: math.tanh(x)}


def row_max(r):
    """The largest element of a non-empty 1-D C-contiguous float array, inside a kernel (numba compiles
    ``_row_max_for``'s implementation, inlined, in its place: ``_jit`` registers that overload when numba loads).
    A NaN may be taken or skipped here: the callers' exp(x - max) turns any NaN element into a NaN row anyway."""
    return r.max()


def _row_max_for(numba_type, types):
    """row_max at one argument type, as a maximum over integers: a float's bits, with the sign bit's meaning
    flipped for negatives (b ^ ((b >> 31) & 0x7fffffff)), order as the floats do, and an integer maximum over a
    row vectorises where a float one does not (LLVM keeps its compares in order for NaN's sake: a chain of
    dependent compare-selects). One thread, float32: 8192 rows of 64 0.34 -> 0.10 ms, 512 rows of 1024 0.85 ->
    0.09 ms (the scratch-lane version it replaces: ~0.2), with no scratch array at any length. -0.0 sorts below
    0.0; +NaN above +inf (taken), -NaN below -inf (skipped)."""
    if not isinstance(numba_type, types.Array) or numba_type.ndim != 1:
        return None
    if numba_type.dtype == types.float32:
        itype, shift, lowest = np.int32, np.int32(31), np.int32(-(1 << 31))
    elif numba_type.dtype == types.float64:
        itype, shift, lowest = np.int64, np.int64(63), np.int64(-(1 << 63))
    else:
        return None
    mask = itype(np.iinfo(itype).max)

    def impl(r):
        bits = r.view(itype)
        m = lowest
        for j in range(bits.size):
            b = bits[j]
            k = itype(b ^ ((b >> shift) & mask))  # (numba widens int32 arithmetic to int64: narrowed back)
            m = k if k > m else m
        return int_bits_as_float(itype(m ^ ((m >> shift) & mask)))  # noqa: F821 - bound when numba loads (_jit)
    return impl
