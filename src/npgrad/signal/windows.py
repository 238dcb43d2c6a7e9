"""``torch.signal.windows``: SciPy-style window functions of length ``M`` (``sym=True`` for filter design, the
symmetric window; ``sym=False`` for spectral analysis, the first M points of the window of length M + 1).

Each window is evaluated on n = 0..M-1 in float64 and rounded once to ``dtype`` (float32 or float64)."""
import math

import numpy as np

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _finish(values, dtype, device, requires_grad):
    import npgrad
    from ..tensor import _check_device
    _check_device(device)
    return npgrad.tensor(values, dtype=dtype, requires_grad=requires_grad)


def _make(name, M, sym, dtype, device, requires_grad, body):
    """``body(n, L)``: the symmetric window of length L at the points n (float64)."""
    from .. import dtypes as _dt
    if isinstance(M, bool) or not isinstance(M, (int, np.integer)) or M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    d = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
    if d not in (_dt.float32, _dt.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: torch.{d.name}")
    if M <= 1:
        return _finish(np.ones(M), d, device, requires_grad)
    length = M if sym else M + 1
    return _finish(body(np.arange(M, dtype=np.float64), length), d, device, requires_grad)


def _cosine_sum(a):
    """sum_k (-1)^k a_k cos(2 pi k n / (L - 1))."""
    coeffs = [float(c) for c in a]
    return lambda n, L: sum((-1) ** k * c * np.cos(2 * math.pi * k * n / (L - 1)) for k, c in enumerate(coeffs))


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _make("general_cosine", M, sym, dtype, device, requires_grad, _cosine_sum(a))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.54, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    # (PyTorch's messages name blackman itself, where hann/hamming/nuttall's name general_cosine)
    return _make("blackman", M, sym, dtype, device, requires_grad, _cosine_sum([0.42, 0.5, 0.08]))


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _make("bartlett", M, sym, dtype, device, requires_grad,
                 lambda n, L: 1.0 - np.abs(2.0 * n / (L - 1) - 1.0))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _make("cosine", M, sym, dtype, device, requires_grad, lambda n, L: np.sin(math.pi * (n + 0.5) / L))


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    return _make("exponential", M, sym, dtype, device, requires_grad,
                 lambda n, L: np.exp(-np.abs(n - ((L - 1) / 2.0 if center is None else center)) / tau))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _make("gaussian", M, sym, dtype, device, requires_grad,
                 lambda n, L: np.exp(-0.5 * ((n - (L - 1) / 2.0) / std) ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _make("kaiser", M, sym, dtype, device, requires_grad,
                 lambda n, L: np.i0(beta * np.sqrt(np.clip(1.0 - (2.0 * n / (L - 1) - 1.0) ** 2, 0.0, None)))
                 / np.i0(beta))
