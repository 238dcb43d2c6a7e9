"""torch.stft on arrays, and its backward with respect to the signal and the window.

Optionally pad the signal by n_fft//2 on both sides (``pad_mode``), cut it into frames of n_fft samples every
``hop_length``, multiply each by the window (zero-padded to n_fft, centred), and take the DFT of each frame (the
first n_fft//2+1 bins when ``onesided``), scaled by 1/sqrt(n_fft) when ``normalized``: (batch?, freq, frames).
Arguments are checked in PyTorch's order with its messages, whose prefix echoes the call as PyTorch prints it.
"""
import warnings

import numpy as np

from . import framing as F
from . import transforms as T
from .plan import SWAP

class StftPlan:
    """Everything the backward of one stft call needs besides the saved signal and window."""
    __slots__ = ("n_fft", "hop", "win_length", "left", "center", "pad", "pad_mode", "norm", "onesided",
                 "return_complex", "batched", "length", "n_frames", "x_dtype", "w_dtype", "out_dtype", "align")


def stft_plan(x_shape, x_dtype, n_fft, hop_length=None, win_length=None, window=None, center=True,
              pad_mode="reflect", normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """Check torch.stft's arguments (PyTorch's order and messages) and resolve them."""
    x_dtype = np.dtype(x_dtype)
    w_dtype = None if window is None else np.dtype(window.dtype)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=3)
    complex_in = x_dtype.kind == "c" or (w_dtype is not None and w_dtype.kind == "c")
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.",
                      UserWarning, stacklevel=3)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    pad = n_fft // 2 if center else 0
    shape = tuple(x_shape)
    if center:
        F.check_pad(shape, pad, pad_mode)
        shape = shape[:-1] + (shape[-1] + 2 * pad,) if shape else shape
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    prefix = (f"stft({F.tensor_repr(x_dtype, shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
              f"window={F.window_repr(window)}, normalized={int(bool(normalized))}, onesided={F.opt_repr(onesided)}, "
              f"return_complex={int(bool(return_complex))}, align_to_window={F.opt_repr(align_to_window)}) : ")
    if len(shape) not in (1, 2):
        raise RuntimeError(prefix + "expected a 1D or 2D tensor")
    if x_dtype.kind not in "fc":
        raise RuntimeError(prefix + "expected a tensor of floating point or complex values")
    length = shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(prefix + f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(prefix + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(prefix + f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(prefix + f"expected a 1D window tensor of size equal to win_length={win}, but got window "
                                    f"with size {list(window.shape)}")
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    p = StftPlan()
    p.n_fft, p.hop, p.win_length, p.left = n_fft, hop, win, (n_fft - win) // 2
    p.center, p.pad, p.pad_mode, p.norm = center, pad, pad_mode, "ortho" if normalized else "backward"
    p.onesided, p.return_complex, p.batched, p.align = onesided, bool(return_complex), len(shape) == 2, bool(
        align_to_window)
    p.length = x_shape[-1]
    p.n_frames = 1 + (length - (win if p.align else n_fft)) // hop
    p.x_dtype, p.w_dtype = x_dtype, w_dtype
    p.out_dtype = F.complex_of(F.promote(x_dtype, w_dtype))
    return p


def _signal_frames(x, p):
    xb = x.reshape(-1, x.shape[-1]).astype(F.promote(x.dtype, p.w_dtype), copy=False)
    if p.center:
        xb = F.pad_signal(xb, p.pad, p.pad_mode)
    if p.align:  # frame t holds x[t*hop : t*hop + win_length] where the window is, not at the frame's start
        xb = np.pad(xb, [(0, 0), (p.left, p.n_fft - p.win_length - p.left)])
    return F.frames(xb, p.n_fft, p.hop, p.n_frames), xb.shape[-1]


def stft(x, window, p):
    """torch.stft's value for the arguments resolved in ``p`` (``window`` may be None: a rectangular one)."""
    x = np.asarray(x)
    frames, _ = _signal_frames(x, p)
    w, _ = F.full_window(window, p.win_length, p.n_fft, F.promote(x.dtype, p.w_dtype))
    z = frames * w
    y = (np.fft.rfft if p.onesided else np.fft.fft)(z, axis=-1, norm=p.norm)
    y = np.swapaxes(y, -1, -2).astype(p.out_dtype, copy=False)
    if not p.batched:
        y = y[0]
    if not p.return_complex:  # the deprecated layout: torch.view_as_real of the complex result
        y = np.stack([y.real, y.imag], axis=-1)
    return np.ascontiguousarray(y)


def stft_backward(grad, x, window, p):
    """(gradient of the signal, gradient of the window or None) of ``stft(x, window, p)`` given its output's."""
    x = np.asarray(x)
    g = np.asarray(grad)
    if not p.return_complex:
        g = g[..., 0] + 1j * g[..., 1]
    g = np.swapaxes(g.reshape((-1,) + g.shape[-2:]), -1, -2)  # (batch, frames, freq)
    frames, padded_len = _signal_frames(x, p)
    work = F.promote(x.dtype, p.w_dtype)
    w, left = F.full_window(window, p.win_length, p.n_fft, work)
    if p.onesided:  # z is real: the rfft's adjoint (zero-pad the bins, inverse, real part)
        gz = np.real(np.fft.ifft(T.resize(g, (g.ndim - 1,), (p.n_fft,)), axis=-1, norm=SWAP[p.norm]))
    else:
        gz = np.fft.ifft(g, axis=-1, norm=SWAP[p.norm])
        if work.kind != "c":
            gz = gz.real
    gframes = gz * np.conj(w)
    gw = None
    if window is not None:
        gw_full = np.sum(gz * np.conj(frames), axis=(0, 1))
        gw = gw_full[left:left + p.win_length]
        gw = (gw if window.dtype.kind == "c" else np.real(gw)).astype(window.dtype, copy=False)
    gxp = F.overlap_add(gframes, p.hop, padded_len)
    if p.align:
        gxp = gxp[:, p.left:p.left + gxp.shape[-1] - p.n_fft + p.win_length]
    gx = F.unpad_signal(gxp, p.pad, p.pad_mode, p.length) if p.center else gxp
    if x.dtype.kind != "c":
        gx = np.real(gx)
    gx = gx.reshape(x.shape).astype(x.dtype, copy=False)
    return gx, gw
