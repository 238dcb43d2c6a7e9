"""What torch.stft and torch.istft share: how PyTorch echoes a call in its error messages, the window zero-padded
to n_fft, the signal's centre padding (and its adjoint), cutting a signal into frames and overlap-adding them back
(each the other's adjoint)."""
import numpy as np

_LEGACY = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
           "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int16": "torch.ShortTensor",
           "int8": "torch.CharTensor", "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
           "complex64": "CPUComplexFloatType", "complex128": "CPUComplexDoubleType"}
_PAD_MODES = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


def tensor_repr(dtype, shape, braces=False):
    dims = "[" + ", ".join(str(s) for s in shape) + "]"
    return _LEGACY.get(np.dtype(dtype).name, np.dtype(dtype).name) + ("{" + dims + "}" if braces else dims)


def opt_repr(v):
    return "None" if v is None else str(int(v))


def window_repr(window):
    return "None" if window is None else tensor_repr(window.dtype, window.shape, braces=True)


def promote(*dtypes):
    """The result dtype of a signal and a window: float32 with float64 gives float64, any complex is complex."""
    dt = np.result_type(*[np.dtype(d) for d in dtypes if d is not None])
    return dt


def complex_of(dtype):
    return np.dtype(np.complex64) if np.dtype(dtype) in (np.float32, np.complex64) else np.dtype(np.complex128)


def real_of(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) in (np.float32, np.complex64) else np.dtype(np.float64)


def full_window(window, win_length, n_fft, dtype):
    """The window zero-padded to n_fft, centred as PyTorch centres it (the extra sample goes right)."""
    left = (n_fft - win_length) // 2
    full = np.zeros(n_fft, dtype=dtype)
    full[left:left + win_length] = 1 if window is None else window
    return full, left


def check_pad(shape, pad, mode):
    """PyTorch's errors for F.pad of the signal viewed as (1, batch?, length)."""
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    length = shape[-1] if shape else 1
    view = [1] * (3 - len(shape)) + list(shape)
    if mode in ("reflect", "replicate") and 0 in view[1:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {view}")
    if mode == "reflect" and pad >= length:
        raise RuntimeError("Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                           f"padding ({pad}, {pad}) at dimension 2 of input {view}")
    if mode == "circular" and pad > length:
        raise RuntimeError("Padding value causes wrapping around more than once.")


def pad_signal(x, pad, mode):
    return np.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode=_PAD_MODES[mode])


def unpad_signal(g, pad, mode, length):
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


def frames(xp, n_fft, hop, n_frames):
    """(batch, frames, n_fft) view of the padded signal: frame t starts at sample t * hop."""
    view = np.lib.stride_tricks.sliding_window_view(xp, n_fft, axis=-1)
    return view[:, ::hop][:, :n_frames]


def overlap_add(blocks, hop, total):
    """The adjoint of frames(): (batch, frames, n_fft) summed back into (batch, total) samples."""
    b, n_frames, n_fft = blocks.shape
    out = np.zeros((b, total), dtype=blocks.dtype)
    for t in range(n_frames):  # a loop over frames: each step adds one contiguous block, no scatter needed
        out[:, t * hop:t * hop + n_fft] += blocks[:, t]
    return out
