"""torch.stft / torch.istft on arrays, and their backward with respect to the signal (or spectrum) and the window.

stft: optionally pad the signal by n_fft//2 on both sides (``pad_mode``), cut it into frames of n_fft samples
every ``hop_length``, multiply each by the window (zero-padded to n_fft, centred), and take the DFT of each frame
(the first n_fft//2+1 bins when ``onesided``), scaled by 1/sqrt(n_fft) when ``normalized``. The result is
(batch?, freq, frames). istft inverts it: inverse DFT of each frame, times the window, overlap-added, divided by
the overlap-added squared window (which must not vanish: the NOLA condition), and the centre padding cut off.

Arguments are checked in PyTorch's order with its messages, whose prefix echoes the call as PyTorch prints it.
"""
import warnings

import numpy as np

from . import transforms as T
from .plan import make_plan

_LEGACY = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
           "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int16": "torch.ShortTensor",
           "int8": "torch.CharTensor", "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
           "complex64": "CPUComplexFloatType", "complex128": "CPUComplexDoubleType"}
_PAD_MODES = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


def _tensor_repr(dtype, shape, braces=False):
    dims = "[" + ", ".join(str(s) for s in shape) + "]"
    return _LEGACY.get(np.dtype(dtype).name, np.dtype(dtype).name) + ("{" + dims + "}" if braces else dims)


def _opt(v):
    return "None" if v is None else str(int(v))


def _window_repr(window):
    return "None" if window is None else _tensor_repr(window.dtype, window.shape, braces=True)


def _promote(*dtypes):
    """The result dtype of a signal and a window: float32 with float64 gives float64, any complex is complex."""
    dt = np.result_type(*[np.dtype(d) for d in dtypes if d is not None])
    return dt


def _complex_of(dtype):
    return np.dtype(np.complex64) if np.dtype(dtype) in (np.float32, np.complex64) else np.dtype(np.complex128)


def _real_of(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) in (np.float32, np.complex64) else np.dtype(np.float64)


def _full_window(window, win_length, n_fft, dtype):
    """The window zero-padded to n_fft, centred as PyTorch centres it (the extra sample goes right)."""
    left = (n_fft - win_length) // 2
    full = np.zeros(n_fft, dtype=dtype)
    full[left:left + win_length] = 1 if window is None else window
    return full, left


def _check_pad(shape, pad, mode):
    """PyTorch's errors for F.pad of the signal viewed as (1, batch?, length)."""
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    length = shape[-1] if shape else 1
    if mode == "reflect" and pad >= length:
        view = [1] * (3 - len(shape)) + list(shape)
        raise RuntimeError("Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                           f"padding ({pad}, {pad}) at dimension 2 of input {view}")
    if mode == "circular" and pad > length:
        raise RuntimeError("Padding value causes wrapping around more than once.")


def _pad_signal(x, pad, mode):
    return np.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode=_PAD_MODES[mode])


def _unpad_signal(g, pad, mode, length):
    """The adjoint of _pad_signal along the last axis: every padded sample's gradient goes back to the sample it
    copied."""
    gx = g[..., pad:pad + length].copy()
    if pad == 0:
        return gx
    left, right = g[..., :pad], g[..., pad + length:]
    if mode == "reflect":  # left pad reads x[pad], ..., x[1]; right pad reads x[L-2], ..., x[L-1-pad]
        gx[..., 1:pad + 1] += left[..., ::-1]
        gx[..., length - 1 - pad:length - 1] += right[..., ::-1]
    elif mode == "replicate":
        gx[..., 0] += left.sum(-1)
        gx[..., -1] += right.sum(-1)
    elif mode == "circular":  # left pad reads the last pad samples, right pad the first pad
        gx[..., length - pad:] += left
        gx[..., :pad] += right
    return gx


def _frames(xp, n_fft, hop, n_frames):
    """(batch, frames, n_fft) view of the padded signal: frame t starts at sample t * hop."""
    view = np.lib.stride_tricks.sliding_window_view(xp, n_fft, axis=-1)
    return view[:, ::hop][:, :n_frames]


def _overlap_add(frames, hop, total):
    """The adjoint of _frames: (batch, frames, n_fft) summed back into (batch, total) samples."""
    b, n_frames, n_fft = frames.shape
    out = np.zeros((b, total), dtype=frames.dtype)
    for t in range(n_frames):  # a loop over frames: each step adds one contiguous block, no scatter needed
        out[:, t * hop:t * hop + n_fft] += frames[:, t]
    return out


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
        _check_pad(shape, pad, pad_mode)
        shape = shape[:-1] + (shape[-1] + 2 * pad,) if shape else shape
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    prefix = (f"stft({_tensor_repr(x_dtype, shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
              f"window={_window_repr(window)}, normalized={int(bool(normalized))}, onesided={_opt(onesided)}, "
              f"return_complex={int(bool(return_complex))}, align_to_window={_opt(align_to_window)}) : ")
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
    p.out_dtype = _complex_of(_promote(x_dtype, w_dtype))
    return p


def _signal_frames(x, p):
    xb = x.reshape(-1, x.shape[-1]).astype(_promote(x.dtype, p.w_dtype), copy=False)
    if p.center:
        xb = _pad_signal(xb, p.pad, p.pad_mode)
    if p.align:  # frame t holds x[t*hop : t*hop + win_length] where the window is, not at the frame's start
        xb = np.pad(xb, [(0, 0), (p.left, p.n_fft - p.win_length - p.left)])
    return _frames(xb, p.n_fft, p.hop, p.n_frames), xb.shape[-1]


def stft(x, window, p):
    """torch.stft's value for the arguments resolved in ``p`` (``window`` may be None: a rectangular one)."""
    x = np.asarray(x)
    frames, _ = _signal_frames(x, p)
    w, _ = _full_window(window, p.win_length, p.n_fft, _promote(x.dtype, p.w_dtype))
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
    work = _promote(x.dtype, p.w_dtype)
    w, left = _full_window(window, p.win_length, p.n_fft, work)
    if p.onesided:  # z is real: the rfft's adjoint (zero-pad the bins, inverse, real part)
        gz = np.real(np.fft.ifft(T.resize(g, (-1 % g.ndim,), (p.n_fft,)), axis=-1, norm=_swap(p.norm)))
    else:
        gz = np.fft.ifft(g, axis=-1, norm=_swap(p.norm))
        if work.kind != "c":
            gz = gz.real
    gframes = gz * np.conj(w)
    gw = None
    if window is not None:
        gw_full = np.sum(gz * np.conj(frames), axis=(0, 1))
        gw = gw_full[left:left + p.win_length]
        gw = (gw if window.dtype.kind == "c" else np.real(gw)).astype(window.dtype, copy=False)
    gxp = _overlap_add(gframes, p.hop, padded_len)
    if p.align:
        gxp = gxp[:, p.left:p.left + gxp.shape[-1] - p.n_fft + p.win_length]
    gx = _unpad_signal(gxp, p.pad, p.pad_mode, p.length) if p.center else gxp
    if x.dtype.kind != "c":
        gx = np.real(gx)
    gx = gx.reshape(x.shape).astype(x.dtype if x.dtype.kind in "fc" else work, copy=False)
    return gx, gw


def _swap(norm):
    return {"backward": "forward", "ortho": "ortho", "forward": "backward"}[norm]


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
    prefix = (f"istft({_tensor_repr(x_dtype, shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
              f"window={_window_repr(window)}, center={int(bool(center))}, normalized={int(bool(normalized))}, "
              f"onesided={_opt(onesided)}, length={_opt(length)}, return_complex={int(bool(return_complex))}) ")
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
    p.out_dtype = _promote(x_dtype, w_dtype)
    if not return_complex:
        p.out_dtype = _real_of(p.out_dtype)
    w, _ = _full_window(window, win, n_fft, _promote(p.out_dtype, w_dtype))
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
    env = _overlap_add(np.broadcast_to(w * w, (1, p.n_frames, p.n_fft)), p.hop, p.expected_len)[0]
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
    w, left = _full_window(window, p.win_length, p.n_fft, _promote(frames.dtype, p.w_dtype))
    return frames, w, _overlap_add(frames * w, p.hop, p.expected_len), fp


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
    g_win_frames = _frames(g_num, p.n_fft, p.hop, p.n_frames)  # the overlap-add's adjoint
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
        g_w_full = g_w_full + 2 * np.conj(w) * np.sum(_frames(g_env[None], p.n_fft, p.hop, p.n_frames), axis=(0, 1))
        gw = g_w_full[p.left:p.left + p.win_length]
        gw = (gw if window.dtype.kind == "c" else np.real(gw)).astype(window.dtype, copy=False)
    return gx, gw
