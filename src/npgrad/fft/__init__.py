"""``torch.fft``: the discrete Fourier transforms (complex-to-complex, real-to-complex, complex-to-real, in one, two
and n dimensions), fftshift/ifftshift and the sample frequencies, with PyTorch's signatures, dtypes, errors and
gradients. The transforms are Ops over ``npgrad._fft_kernels`` (``npgrad.ops.spectral``); the shifts are rolls.
"""
import numpy as np

from .. import dtypes as _dt
from .._fft_kernels import shift_freq as _sf
from ..ops._out import check_out as _check_out, write_out as _write_out
from ..ops.movement import roll as _roll
from ..ops.spectral import transform as _transform
from ..tensor import Tensor, _check_device

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _finish(name, args, result, out):
    if out is None:
        return result
    _check_out(name, out, args, {})
    return _write_out(name, result.detach(), out)


def _one_d(name):
    def f(input, n=None, dim=-1, norm=None, *, out=None):
        return _finish(name, (input,), _transform(name, input, n, dim, norm), out)
    return f


def _two_d(name):
    def f(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return _finish(name, (input,), _transform(name, input, s, dim, norm), out)
    return f


def _n_d(name):
    def f(input, s=None, dim=None, norm=None, *, out=None):
        return _finish(name, (input,), _transform(name, input, s, dim, norm), out)
    return f


def _declare(name, make):
    f = make(name)
    f.__name__ = f.__qualname__ = name
    f.__module__ = __name__
    f.__doc__ = f"torch.fft.{name}: see PyTorch's documentation; computed with numpy.fft, differentiable."
    globals()[name] = f


for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    _declare(_name, _one_d)
for _name in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"):
    _declare(_name, _two_d)
for _name in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"):
    _declare(_name, _n_d)


# -- shifts: rolls by half of each dim (differentiable through roll) ------------------------------------------

def _shifted(input, dim, sign):
    dims = _sf.shift_dims(input.shape, dim)
    return _roll(input, [sign * (input.shape[d] // 2) for d in dims], list(dims))


def fftshift(input, dim=None):
    """Move the zero-frequency bin to the centre: roll each of ``dim`` (all by default) by half its length."""
    return _shifted(input, dim, 1)


def ifftshift(input, dim=None):
    """fftshift's inverse (it differs from fftshift for odd lengths)."""
    return _shifted(input, dim, -1)


# -- sample frequencies: factories ----------------------------------------------------------------------------

def _factory(values, out, requires_grad):
    if out is not None:
        _check_out("fftfreq", out, (), {})
        return _write_out("fftfreq", Tensor._wrap(values), out)
    t = Tensor._wrap(values)
    return t.requires_grad_() if requires_grad else t


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of fft's bins for a signal of n samples spaced d apart: [0, 1, ..., -1] / (d n)."""
    _check_device(device)
    return _factory(_sf.fftfreq(n, d, None if dtype is None else _dt.to_dtype(dtype).np), out, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of rfft's n//2+1 bins: [0, 1, ..., n//2] / (d n)."""
    _check_device(device)
    return _factory(_sf.rfftfreq(n, d, None if dtype is None else _dt.to_dtype(dtype).np), out, requires_grad)


del _name, np
