"""Smooth activations: exact GELU, tanh GELU, SiLU; each forward, and each backward fused with its derivative.

Replaces (and is tested against) the NumPy code of ``nn.functional.gelu``/``silu``: ``ops._erf.gelu32_np`` for
float32 exact GELU (~33 array passes and one exp, in blocks), ``x * normal_cdf_np(x)`` for float64, and the
tanh/sigmoid formulas of ``GELUOp``/``SiLUOp``. One pass here, each element in registers.

float32 exact GELU is npgrad's tail-accurate formula, the same as gelu32_np's: Phi(-|x|) = exp(-x^2/2) t Q(t),
t = 1 / (1 + p |x| / sqrt 2), with the same fitted Q, and the Gaussian factor shared with the derivative
Phi(x) + x phi(x); exp from ``_vecmath.exp32``. Against float64 GELU the kernel stays within a few float32 ulps
(tests/kernels/test_kernels.py measures and bounds it). float64 uses libm's erfc and exp.
tanh GELU is written x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): the same function as
x (1 + tanh u) / 2 without its cancellation for negative x. SiLU is x / (1 + exp(-x)).
"""
import math

import numpy as np

from .. import _parallel
from . import _vecmath
from ._jit import entry, kernel

_F = np.float32
# ops/_erf.py's fit (_CDF_P, _CDF_Q); tests/kernels checks the two copies agree.
_CDF_P = 0.45
_CDF_Q = (0.12694266037659693, 0.12694158120828516, 0.11413582649262685, 0.08762600603215598, 0.05997551125008539,
          -0.011179803664797386, 0.0712018441014909, -0.1502925119721123, 0.09534457436242912, -0.02069568116119888)
_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_BETA = math.sqrt(2.0 / math.pi)
_TANH_KAPPA = 0.044715
(_Q0, _Q1, _Q2, _Q3, _Q4, _Q5, _Q6, _Q7, _Q8, _Q9) = [_F(q) for q in _CDF_Q]
_PS = _F(_CDF_P * _SQRT1_2)
_IS2P = _F(_INV_SQRT_2PI)
_HALF, _ONE, _ZERO = _F(0.5), _F(1.0), _F(0.0)
_M2B, _KAPPA = _F(-2.0 * _TANH_BETA), _F(_TANH_KAPPA)
_K3 = _F(3.0 * _TANH_KAPPA)


@kernel(fastmath={"contract"})
def _gelu32(x, g, out, grad):
    for i in range(x.size):
        v = x[i]
        t = _ONE / (_ONE + abs(v) * _PS)
        q = _Q9 * t + _Q8
        q = q * t + _Q7
        q = q * t + _Q6
        q = q * t + _Q5
        q = q * t + _Q4
        q = q * t + _Q3
        q = q * t + _Q2
        q = q * t + _Q1
        q = q * t + _Q0
        e = _vecmath.exp32(v * v * -_HALF)
        h = q * t * e                      # Phi(-|v|), with its relative accuracy
        cdf = h if v < _ZERO else _ONE - h
        cdf = cdf if v != _ZERO else _HALF
        if grad:
            out[i] = g[i] * (cdf + v * e * _IS2P)
        else:
            out[i] = v * cdf


@kernel()
def _gelu64(x, g, out, grad):
    for i in range(x.size):
        v = x[i]
        cdf = 0.5 * math.erfc(-v * _SQRT1_2)
        if grad:
            out[i] = g[i] * (cdf + v * math.exp(-0.5 * v * v) * _INV_SQRT_2PI)
        else:
            out[i] = v * cdf


@kernel(fastmath={"contract"})
def _gelu_tanh32(x, g, out, grad):
    for i in range(x.size):
        v = x[i]
        v2 = v * v
        s = _ONE / (_ONE + _vecmath.exp32(_M2B * (v + _KAPPA * v2 * v)))  # (1 + tanh u) / 2
        if grad:  # s + v * ds/dv, ds/dv = 2 s (1 - s) u'
            out[i] = g[i] * (s + v * (s * (_ONE - s)) * (-_M2B * (_ONE + _K3 * v2)))
        else:
            out[i] = v * s


@kernel()
def _gelu_tanh64(x, g, out, grad):
    for i in range(x.size):
        v = x[i]
        v2 = v * v
        s = 1.0 / (1.0 + math.exp(-2.0 * _TANH_BETA * (v + _TANH_KAPPA * v2 * v)))
        if grad:
            out[i] = g[i] * (s + v * (s * (1.0 - s)) * (2.0 * _TANH_BETA * (1.0 + 3.0 * _TANH_KAPPA * v2)))
        else:
            out[i] = v * s


@kernel(fastmath={"contract"})
def _silu32(x, g, out, grad):
    for i in range(x.size):
        v = x[i]
        s = _ONE / (_ONE + _vecmath.exp32(-v))
        if grad:
            out[i] = g[i] * (s * (_ONE + v * (_ONE - s)))
        else:
            out[i] = v * s


@kernel()
def _silu64(x, g, out, grad):
    for i in range(x.size):
        v = x[i]
        s = 1.0 / (1.0 + math.exp(-v))
        if grad:
            out[i] = g[i] * (s * (1.0 + v * (1.0 - s)))
        else:
            out[i] = v * s


_KERNELS = {"none": ("_gelu32", "_gelu64"), "tanh": ("_gelu_tanh32", "_gelu_tanh64"), "silu": ("_silu32", "_silu64")}


@entry
def activation(kind, x):
    """GELU (``kind`` "none" or "tanh") or SiLU ("silu") of a contiguous float32/float64 array ``x`` (the caller
    checked ``fits``), split over the threads in pieces of whole 1024-element blocks."""
    return _run(kind, x, None)


@entry
def activation_grad(kind, x, g):
    """g times the derivative at x of ``activation(kind, .)``, for contiguous x and g of one shape and dtype: the
    derivative recomputed in the same pass, not stored by the forward. That keeps one x-sized buffer fewer alive
    per activation between forward and backward (PyTorch keeps none either) at the same speed: GELU forward +
    backward of 32x64x512 float32 on two threads, 8 alternating processes each, median 2.78 ms against 2.74 when
    the forward wrote the derivative (the recomputed polynomial costs what the stored array's traffic did)."""
    return _run(kind, x, g)


def _run(kind, x, g):
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    # (no gradient: an empty stand-in, never read. Passing out twice made LLVM's aliasing fallback ~70x slower)
    gflat = np.empty(0, flat.dtype) if g is None else g.reshape(-1)
    grad = g is not None
    fn = globals()[_KERNELS[kind][flat.dtype != np.float32]]  # (compiled: rebound when numba loaded)
    _parallel.split(lambda lo, hi: fn(flat[lo:hi], gflat[lo:hi] if grad else gflat, out[lo:hi], grad), flat.size,
                    1024)
    return out.reshape(x.shape)
