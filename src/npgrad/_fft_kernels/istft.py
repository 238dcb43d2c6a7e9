"""torch.istft on arrays, and its backward with respect to the spectrum and the window.

The inverse DFT of each frame, times the window, overlap-added, divided by the overlap-added squared window (which
must not vanish: the NOLA condition), and the centre padding cut off. Arguments are checked in PyTorch's order with
its messages.
"""
import warnings

import numpy as np

from . import framing as F
from . import transforms as T
from .plan import make_plan

class IstftPlan:
    """Everything the backward of one istft call needs besides the saved spectrum and window."""
    __slots__ = ("n_fft", "hop", "win_length", "left", "center", "norm", "onesided", "return_complex", "batched",
                 "n_frames", "expected_len", "start", "end", "out_len", "x_dtype", "w_dtype", "out_dtype", "freq")


def istft_plan(x_shape, x_dtype, n_fft, hop_length=None, win_length=None, window=None, center=True,
               normalized=False, onesided=None, length=None, return_complex=False):
    """Check torch.istft's arguments (PyTorch's order and messages) and resolve them."""
    x_dtype = np.dtype(x_dtype)
    w_dtype = None if window is None else np.dtype(window.dtype)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please provide the same window "
                      "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=3)
    if x_dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    shape = tuple(x_shape)
    prefix = (f"istft({F.tensor_repr(x_dtype, shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
              f"window={F.window_repr(window)}, center={int(bool(center))}, normalized={int(bool(normalized))}, "
              f"onesided={F.opt_repr(onesided)}, length={F.opt_repr(length)}, return_complex={int(bool(return_complex))}) ")
    if int(np.prod(shape)) == 0:
        raise RuntimeError(prefix + ": input tensor cannot be empty.")
    if len(shape) not in (2, 3):
        raise RuntimeError(prefix + f": expected a tensor with 3 or 4 dimensions, but got {len(shape) + 1}")
    freq, n_frames = shape[-2], shape[-1]
    if onesided is None:
        onesided = freq != n_fft
    if onesided:
        if n_fft // 2 + 1 != freq:
            raise RuntimeError(prefix + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                                        f"match n_fft / 2 + 1 when onesided=True, but got {freq}")
    elif n_fft != freq:
        raise RuntimeError(prefix + ": expected the frequency dimension (3rd to the last) of the input tensor to match "
                                    f"n_fft when onesided=False, but got {freq}")
    if not 0 < hop <= win:
        raise RuntimeError(prefix + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(prefix + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(prefix + ": Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
    elif w_dtype is not None and w_dtype.kind == "c":
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    p = IstftPlan()
    p.n_fft, p.hop, p.win_length, p.left = n_fft, hop, win, (n_fft - win) // 2
    p.center, p.norm, p.onesided, p.return_complex = center, "ortho" if normalized else "backward", onesided, bool(
        return_complex)
    p.batched, p.n_frames, p.freq = len(shape) == 3, n_frames, freq
    p.expected_len = n_fft + hop * (n_frames - 1)
    p.start = n_fft // 2 if center else 0
    if length is not None:
        p.end = p.start + length
    else:
        p.end = p.expected_len - n_fft // 2 if center else p.expected_len
    p.out_len = max(p.end - p.start, 0) if length is None else length
    p.x_dtype, p.w_dtype = x_dtype, w_dtype
    p.out_dtype = F.promote(x_dtype, w_dtype)
    if not return_complex:
        p.out_dtype = F.real_of(p.out_dtype)
    w, _ = F.full_window(window, win, n_fft, F.promote(p.out_dtype, w_dtype))
    env = _envelope(w, p)
    if env.size == 0:  # PyTorch takes the minimum of an empty envelope
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    if np.abs(env).min() < 1e-11:  # NOLA: some output sample is covered by no window
        raise RuntimeError(prefix + "window overlap add min: 1\n[ CPUBoolType{} ]")
    if p.end > p.expected_len:
        warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with zeros "
                      "in the tail. Please check your center and hop_length settings.", UserWarning, stacklevel=3)
    return p


def _envelope(w, p):
    """The overlap-added squared window on the kept samples: what istft divides by."""
    env = F.overlap_add(np.broadcast_to(w * w, (1, p.n_frames, p.n_fft)), p.hop, p.expected_len)[0]
    return env[p.start:min(p.end, p.expected_len)]


def _istft_frames_plan(p, x_shape, x_dtype):
    """The torch.fft plan that turns each column of the spectrum into a frame of n_fft samples."""
    shape = (x_shape[0], p.freq if p.onesided or p.return_complex else p.n_fft // 2 + 1, x_shape[-1])
    name = "ifft" if p.return_complex else "irfft"
    return make_plan(name, shape, x_dtype, p.n_fft, 1, p.norm)


def _istft_parts(x, window, p):
    """(frames (batch, frames, n_fft) before the window, full window, numerator of the overlap-add)."""
    xb = x.reshape((-1,) + x.shape[-2:])
    if not p.onesided and not p.return_complex:  # a full spectrum read as a real signal's: its first half
        xb = xb[:, :p.n_fft // 2 + 1]
    fp = _istft_frames_plan(p, xb.shape, xb.dtype)
    frames = np.swapaxes(T.forward(xb, fp), 1, 2)
    w, left = F.full_window(window, p.win_length, p.n_fft, F.promote(frames.dtype, p.w_dtype))
    return frames, w, F.overlap_add(frames * w, p.hop, p.expected_len), fp


def istft(x, window, p):
    """torch.istft's value for the arguments resolved in ``p``."""
    x = np.asarray(x)
    _, w, num, _ = _istft_parts(x, window, p)
    y = num[:, p.start:min(p.end, p.expected_len)] / _envelope(w, p)
    if p.end > p.expected_len:
        y = np.pad(y, [(0, 0), (0, p.end - p.expected_len)])
    y = y.astype(p.out_dtype, copy=False)
    return y if p.batched else y[0]


def istft_backward(grad, x, window, p):
    """(gradient of the spectrum, gradient of the window or None) of ``istft(x, window, p)`` given its output's.

    The output is num / env on the kept samples, num the overlap-add of the windowed frames and env that of the
    squared window: the spectrum reaches only num, the window reaches both."""
    x = np.asarray(x)
    g = np.asarray(grad).reshape(-1, p.out_len)
    frames, w, num, fp = _istft_parts(x, window, p)
    env = _envelope(w, p)
    kept = slice(p.start, min(p.end, p.expected_len))
    g = g[:, :env.size]
    g_num = np.zeros((g.shape[0], p.expected_len), dtype=np.result_type(g, env))
    g_num[:, kept] = g / np.conj(env)
    g_win_frames = F.frames(g_num, p.n_fft, p.hop, p.n_frames)  # the overlap-add's adjoint
    g_frames = g_win_frames * np.conj(w)
    if not p.return_complex:
        g_frames = np.real(g_frames)
    gx = T.backward(np.swapaxes(g_frames, 1, 2), fp)
    if gx.shape[1] != x.shape[-2]:  # the second half of a full spectrum read as real was never used
        gx = T.resize(gx, (1,), (x.shape[-2],))
    gx = gx.reshape(x.shape).astype(x.dtype, copy=False)
    gw = None
    if window is not None:
        y = num[:, kept] / env
        g_env = np.zeros(p.expected_len, dtype=g_num.dtype)
        g_env[kept] = -np.sum(g * np.conj(y / env), axis=0)
        g_w_full = np.sum(g_win_frames * np.conj(frames), axis=(0, 1))
        g_w_full = g_w_full + 2 * np.conj(w) * np.sum(F.frames(g_env[None], p.n_fft, p.hop, p.n_frames), axis=(0, 1))
        gw = g_w_full[p.left:p.left + p.win_length]
        gw = (gw if window.dtype.kind == "c" else np.real(gw)).astype(window.dtype, copy=False)
    return gx, gw
