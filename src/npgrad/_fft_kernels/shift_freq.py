"""fftshift/ifftshift (rolls that move the zero frequency to the centre and back) and the sample frequencies
fftfreq/rfftfreq, on arrays."""
import numpy as np

from ..dtypes import get_default_dtype
from .plan import wrap_dim


def shift_dims(shape, dim):
    ndim = len(shape)
    if dim is None:
        dims = tuple(range(ndim))
    elif isinstance(dim, (int, np.integer)):
        dims = (wrap_dim(dim, ndim),)
    else:
        dims = tuple(wrap_dim(d, ndim) for d in dim)
    if not dims:  # PyTorch rolls by an empty shift list, which its roll refuses
        raise RuntimeError("`shifts` required")
    return dims


def fftshift(x, dim=None):
    """torch.fft.fftshift: roll each dim by half its length (rounded down)."""
    x = np.asarray(x)
    dims = shift_dims(x.shape, dim)
    return np.roll(x, [x.shape[d] // 2 for d in dims], axis=dims)


def ifftshift(x, dim=None):
    """torch.fft.ifftshift: the inverse roll, which differs from fftshift for odd lengths."""
    x = np.asarray(x)
    dims = shift_dims(x.shape, dim)
    return np.roll(x, [-(x.shape[d] // 2) for d in dims], axis=dims)


def fftshift_backward(grad, dim=None):
    """A roll's adjoint is the opposite roll: fftshift's backward is ifftshift over the same dims."""
    return ifftshift(grad, dim)


def ifftshift_backward(grad, dim=None):
    return fftshift(grad, dim)


def _freq_dtype(dtype, name):
    if dtype is None:
        return np.dtype(get_default_dtype().np)
    dtype = np.dtype(dtype)
    if dtype.kind == "c":  # PyTorch builds the frequencies with arange, which has no complex kernel
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{_cname(dtype)}\'')
    if dtype.kind != "f":
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    return dtype


def _cname(dtype):
    return "ComplexFloat" if dtype == np.complex64 else "ComplexDouble"


def _check_n(n):
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return n


def fftfreq(n, d=1.0, dtype=None):
    """torch.fft.fftfreq: [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d n), in ``dtype`` (NumPy dtype; None: the
    default float dtype). No gradient: PyTorch builds it as a factory."""
    n = _check_n(n)
    dtype = _freq_dtype(dtype, "fftfreq")
    k = np.arange(n, dtype=np.float64)
    k[(n + 1) // 2:] -= n
    with np.errstate(divide="ignore", invalid="ignore"):
        return (k * (np.float64(1.0) / (np.float64(n) * d))).astype(dtype)


def rfftfreq(n, d=1.0, dtype=None):
    """torch.fft.rfftfreq: [0, 1, ..., n//2] / (d n), the frequencies of rfft's bins."""
    n = int(n)
    dtype = _freq_dtype(dtype, "rfftfreq")
    half = -(-n // 2) if n < 0 else n // 2  # C's truncating division, as PyTorch sizes it
    _check_n(half + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.arange(half + 1, dtype=np.float64) * (np.float64(1.0) / (np.float64(n) * d))).astype(dtype)
