"""Window functions (hann, hamming, blackman, bartlett, kaiser), as torch.stft's callers build them.

Each is computed step by step in the window's own dtype, the operations in PyTorch's order, so float32 windows
round as PyTorch's do rather than being float64 values cast down."""
import math

import numpy as np

from . import dtypes as _dt
from ._convert import _finish
from .tensor import _check_device


def _checks(name, window_length, dtype):
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    d = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
    if not (d.is_floating_point or d.is_complex):
        from .ops.products import cpp_type_name
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={cpp_type_name(d.np)}, "
                           f"device=cpu, layout=Strided (default), requires_grad=false (default), "
                           f"pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    return d


def _cos(x):
    # Rounded from a wider cosine: PyTorch's vectorised float32 cosine is within an ulp of the true value and
    # NumPy's own float32 one strays further, which shows near the window's zero ends.
    return np.cos(x.astype(np.float64)).astype(x.dtype) if x.dtype != np.float64 else np.cos(x)


def _window(name, window_length, periodic, dtype, device, requires_grad, body):
    """``body(k, m)``: the symmetric window of length m on k = arange(m) (in the dtype); a periodic window is the
    symmetric one of length n + 1 without its last point."""
    _check_device(device)
    d = _checks(name, window_length, dtype)
    n = int(window_length)
    if n <= 1:  # PyTorch returns these before its arange, which has no complex kernel
        return _finish(np.ones(n, d.np), None, requires_grad, False)
    if d.is_complex:
        raise _dt.not_implemented("arange_cpu", d)
    m = n + 1 if periodic else n
    w = np.asarray(body(np.arange(m, dtype=d.np), m), d.np)
    return _finish(np.ascontiguousarray(w[:n]), None, requires_grad, False)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _hamming("hamming_window", window_length, periodic, alpha, beta, dtype, device, requires_grad)


def _hamming(name, window_length, periodic, alpha, beta, dtype, device, requires_grad):
    def body(k, m):
        return _cos(k * (math.pi * 2.0 / (m - 1))) * -beta + alpha
    return _window(name, window_length, periodic, dtype, device, requires_grad, body)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    return _hamming("hann_window", window_length, periodic, 0.5, 0.5, dtype, device, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def body(k, m):
        x = k * (math.pi / (m - 1))
        return (_cos(x * 4) * 0.08 - _cos(x * 2) * 0.5) + 0.42
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, body)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def body(k, m):
        w = k * (2.0 / (m - 1))
        half = ((m - 1) >> 1) + 1
        w[half:] = 2 - w[half:]
        return w
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, body)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    def body(k, m):
        # PyTorch's kernel works in the dtype's opmath type (float for half) and divides by I0(beta)
        op = np.float64 if k.dtype == np.float64 else np.float32
        alpha, b = op((m - 1) / 2.0), op(beta)
        arg = b * np.sqrt(np.abs(1 - ((k.astype(op) - alpha) / alpha) ** 2))
        return (np.i0(arg.astype(np.float64)) / np.i0(float(b))).astype(op)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, body)


__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
