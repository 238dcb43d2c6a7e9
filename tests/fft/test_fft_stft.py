"""torch.stft / torch.istft as array kernels: values against explicit loops and PyTorch, the round trip, the
backward (signal or spectrum, and window) against PyTorch's autograd and complex finite differences, and
PyTorch's errors and warnings."""
import itertools
import re
import warnings

import numpy as np
import pytest

from _fft_reference import loss_grad_fd, random_like, reference
from npgrad._fft_kernels import istft as I
from npgrad._fft_kernels import stft as S
from oracle import HAS_TORCH, torch

NEEDS_TORCH = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
N_FFT, HOP = 8, 3


def _padded_index(i, length, mode):
    if mode == "reflect":
        i = np.where(i < 0, -i, i)
        return np.where(i >= length, 2 * (length - 1) - i, i)
    if mode == "replicate":
        return np.clip(i, 0, length - 1)
    if mode == "circular":
        return i % length
    return i  # constant: out-of-range samples read as zero below


def reference_stft(x, window, win_length, center, mode, normalized, onesided):
    """One signal, frame by frame, with the DFT as a sum."""
    length = x.shape[-1]
    pad = N_FFT // 2 if center else 0
    n_frames = 1 + (length + 2 * pad - N_FFT) // HOP
    w = np.zeros(N_FFT, dtype=np.complex128)
    left = (N_FFT - win_length) // 2
    w[left:left + win_length] = 1 if window is None else window
    out = []
    for t in range(n_frames):
        i = np.arange(t * HOP, t * HOP + N_FFT) - pad
        j = _padded_index(i, length, mode)
        inside = (j >= 0) & (j < length)
        frame = np.where(inside, x[np.clip(j, 0, length - 1)], 0) * w
        spec = reference("c2c", False, frame, (0,), (N_FFT,), "ortho" if normalized else "backward")
        out.append(spec[:N_FFT // 2 + 1] if onesided else spec)
    return np.array(out).T


def reference_istft(spec, window, win_length, center, normalized, onesided, length):
    """Inverse DFT of each frame (as sums), windowed, overlap-added, divided by the squared window's overlap-add."""
    n_frames = spec.shape[-1]
    w = np.zeros(N_FFT)
    left = (N_FFT - win_length) // 2
    w[left:left + win_length] = 1 if window is None else window
    total = N_FFT + HOP * (n_frames - 1)
    num, env = np.zeros(total), np.zeros(total)
    norm = "ortho" if normalized else "backward"
    for t in range(n_frames):
        frame = reference("c2r", True, spec[:N_FFT // 2 + 1, t], (0,), (N_FFT,), norm)
        num[t * HOP:t * HOP + N_FFT] += frame * w
        env[t * HOP:t * HOP + N_FFT] += w * w
    start = N_FFT // 2 if center else 0
    end = start + length if length is not None else (total - N_FFT // 2 if center else total)
    kept = env[start:min(end, total)]
    if kept.min() < 1e-11:
        return None  # some kept sample is under no window: istft refuses (NOLA)
    return np.pad(num[start:min(end, total)] / kept, (0, max(0, end - total)))


def _window(kind, rng):
    if kind is None:
        return None, None
    if kind == "full":
        return 0.5 + rng.random(N_FFT), None
    return 0.5 + rng.random(5), 5


STFT_CASES = [pytest.param(*c, id="-".join(map(str, c))) for c in itertools.product(
    [(), (2,)], [np.float64, np.complex128], [None, "full", "short"],
    [(True, "reflect"), (True, "constant"), (True, "replicate"), (True, "circular"), (False, None)],
    [False, True], [None, False])]


def _stft(x, win, wl, center, mode, normalized, onesided, return_complex=True):
    kw = dict(n_fft=N_FFT, hop_length=HOP, win_length=wl, center=center, pad_mode=mode or "reflect",
              normalized=normalized, onesided=onesided, return_complex=return_complex)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the rectangular-window notice, checked on its own below
        p = S.stft_plan(x.shape, x.dtype, window=win, **kw)
    return p, kw


@pytest.mark.parametrize("batch,dtype,wkind,pad,normalized,onesided", STFT_CASES)
def test_stft_matches_frame_loop_and_finite_differences(batch, dtype, wkind, pad, normalized, onesided):
    rng = np.random.default_rng(0)
    x = random_like(rng, batch + (13,), dtype)
    win, wl = _window(wkind, rng)
    center, mode = pad
    p, _ = _stft(x, win, wl, center, mode, normalized, onesided)
    y = S.stft(x, win, p)
    full = onesided is False or np.dtype(dtype).kind == "c"
    for b in range(int(np.prod(batch))):
        expected = reference_stft(x.reshape(-1, 13)[b], win, wl or N_FFT, center, mode, normalized, not full)
        np.testing.assert_allclose(y.reshape((-1,) + y.shape[-2:])[b], expected, rtol=1e-10, atol=1e-10)
    g = random_like(rng, y.shape, y.dtype)
    gx, gw = S.stft_backward(g, x, win, p)
    np.testing.assert_allclose(gx, loss_grad_fd(lambda v: S.stft(v, win, p), x, g), rtol=1e-6, atol=1e-6)
    if win is not None:
        np.testing.assert_allclose(gw, loss_grad_fd(lambda v: S.stft(x, v, p), win, g), rtol=1e-6, atol=1e-6)


def _np(t):
    return t.detach().resolve_conj().numpy()


@NEEDS_TORCH
@pytest.mark.parametrize("return_complex", [True, False])
@pytest.mark.parametrize("batch,dtype,wkind,pad,normalized,onesided", STFT_CASES)
def test_stft_matches_torch(batch, dtype, wkind, pad, normalized, onesided, return_complex):
    rng = np.random.default_rng(1)
    x = random_like(rng, batch + (23,), dtype)
    win, wl = _window(wkind, rng)
    center, mode = pad
    p, kw = _stft(x, win, wl, center, mode, normalized, onesided, return_complex)
    y = S.stft(x, win, p)
    xt = torch.tensor(x, requires_grad=True)
    wt = None if win is None else torch.tensor(win, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yt = torch.stft(xt, window=wt, **kw)
    assert str(y.dtype) == str(yt.dtype).split(".")[1]
    np.testing.assert_allclose(y, _np(yt), rtol=1e-10, atol=1e-10)
    g = random_like(rng, y.shape, y.dtype)
    grads = torch.autograd.grad(yt, [xt] + ([wt] if wt is not None else []), torch.tensor(g))
    for ours, theirs in zip(S.stft_backward(g, x, win, p), grads):
        assert ours.dtype == _np(theirs).dtype
        np.testing.assert_allclose(ours, _np(theirs), rtol=1e-10, atol=1e-10)


@NEEDS_TORCH
def test_stft_align_to_window_matches_torch():
    rng = np.random.default_rng(2)
    x, win = rng.standard_normal(30), rng.random(4)
    kw = dict(n_fft=N_FFT, hop_length=HOP, win_length=4, center=False, return_complex=True, align_to_window=True)
    p = S.stft_plan(x.shape, x.dtype, window=win, **kw)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(win, requires_grad=True)
    yt = torch.stft(xt, window=wt, **kw)
    np.testing.assert_allclose(S.stft(x, win, p), _np(yt), rtol=1e-10, atol=1e-10)
    g = random_like(rng, tuple(yt.shape), np.complex128)
    for ours, theirs in zip(S.stft_backward(g, x, win, p), torch.autograd.grad(yt, [xt, wt], torch.tensor(g))):
        np.testing.assert_allclose(ours, _np(theirs), rtol=1e-10, atol=1e-10)


def test_stft_dtypes():
    x32, w64 = np.ones(16, np.float32), np.ones(8)
    for x, w, out in [(x32, None, np.complex64), (x32, w64, np.complex128), (x32.astype(np.complex64), None,
                                                                             np.complex64), (x32.astype(np.float64),
                                                                                             None, np.complex128)]:
        p, _ = _stft(x, w, None, True, "reflect", False, None)
        assert S.stft(x, w, p).dtype == out
    p, _ = _stft(x32, None, None, True, "reflect", False, None, return_complex=False)
    y = S.stft(x32, None, p)
    assert y.dtype == np.float32 and y.shape == (5, 6, 2)  # 1 + (16 + 8 - 8) // 3 frames


ISTFT_CASES = [pytest.param(*c, id="-".join(map(str, c))) for c in itertools.product(
    [(), (2,)], [None, "full", "short"], [True, False], [False, True], [None, True, False], [None, 12, 30])]


def _istft_plan(x, win, wl, center, normalized, onesided, length, return_complex=False):
    kw = dict(n_fft=N_FFT, hop_length=HOP, win_length=wl, center=center, normalized=normalized, onesided=onesided,
              length=length, return_complex=return_complex)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return I.istft_plan(x.shape, x.dtype, window=win, **kw), kw


def _spectrum(rng, batch, onesided):
    freq = N_FFT if onesided is False else N_FFT // 2 + 1
    return random_like(rng, batch + (freq, 7), np.complex128)


@pytest.mark.parametrize("batch,wkind,center,normalized,onesided,length", ISTFT_CASES)
def test_istft_matches_loop_and_finite_differences(batch, wkind, center, normalized, onesided, length):
    rng = np.random.default_rng(3)
    x = _spectrum(rng, batch, onesided)
    win, wl = _window(wkind, rng)
    expected = [reference_istft(x.reshape((-1,) + x.shape[-2:])[b], win, wl or N_FFT, center, normalized, onesided,
                                length) for b in range(int(np.prod(batch)))]
    if expected[0] is None:
        with pytest.raises(RuntimeError, match=r"window overlap add min: 1\n\[ CPUBoolType\{\} \]$"):
            _istft_plan(x, win, wl, center, normalized, onesided, length)
        return
    p, _ = _istft_plan(x, win, wl, center, normalized, onesided, length)
    y = I.istft(x, win, p)
    for b in range(int(np.prod(batch))):
        np.testing.assert_allclose(y.reshape(-1, y.shape[-1])[b], expected[b], rtol=1e-10, atol=1e-10)
    g = rng.standard_normal(y.shape)
    gx, gw = I.istft_backward(g, x, win, p)
    np.testing.assert_allclose(gx, loss_grad_fd(lambda v: I.istft(v, win, p), x, g), rtol=1e-6, atol=1e-6)
    if win is not None:
        np.testing.assert_allclose(gw, loss_grad_fd(lambda v: I.istft(x, v, p), win, g), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("return_complex", [False, True])
def test_istft_inverts_stft(return_complex):
    rng = np.random.default_rng(4)
    x = random_like(rng, (2, 40), np.complex128 if return_complex else np.float64)
    win = np.hanning(N_FFT + 2)[1:-1]
    p, _ = _stft(x, win, None, True, "reflect", False, None)
    spec = S.stft(x, win, p)
    q, _ = _istft_plan(spec, win, None, True, False, None if not return_complex else False, 40, return_complex)
    np.testing.assert_allclose(I.istft(spec, win, q), x, rtol=1e-10, atol=1e-10)


@NEEDS_TORCH
@pytest.mark.parametrize("return_complex", [False, True])
@pytest.mark.parametrize("batch,wkind,center,normalized,onesided,length", ISTFT_CASES)
def test_istft_matches_torch(batch, wkind, center, normalized, onesided, length, return_complex):
    rng = np.random.default_rng(5)
    x = _spectrum(rng, batch, onesided)
    win, wl = _window(wkind, rng)
    try:
        p, kw = _istft_plan(x, win, wl, center, normalized, onesided, length, return_complex)
    except RuntimeError as ours:
        with pytest.raises(RuntimeError) as theirs, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            torch.istft(torch.tensor(x), N_FFT, HOP, wl, None if win is None else torch.tensor(win), center,
                        normalized, onesided, length, return_complex)
        assert str(theirs.value) == str(ours)
        return
    y = I.istft(x, win, p)
    xt = torch.tensor(x, requires_grad=True)
    wt = None if win is None else torch.tensor(win, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yt = torch.istft(xt, window=wt, **kw)
    assert str(y.dtype) == str(yt.dtype).split(".")[1]
    np.testing.assert_allclose(y, _np(yt), rtol=1e-10, atol=1e-10)
    g = random_like(rng, y.shape, y.dtype)
    grads = torch.autograd.grad(yt, [xt] + ([wt] if wt is not None else []), torch.tensor(g))
    for ours, theirs in zip(I.istft_backward(g, x, win, p), grads):
        assert ours.dtype == _np(theirs).dtype
        np.testing.assert_allclose(ours, _np(theirs), rtol=1e-9, atol=1e-9)


def test_istft_dtypes():
    spec = np.ones((5, 7), np.complex64)
    for w, rc, out in [(None, False, np.float32), (np.ones(8), False, np.float64), (np.ones(8), True, np.complex128),
                       (None, True, np.complex64)]:
        x = spec if not rc else np.ones((8, 7), np.complex64)
        p, _ = _istft_plan(x, w, None, True, False, None, None, rc)
        assert I.istft(x, w, p).dtype == out


def _stft_error(shape=(20,), dtype=np.float32, window=None, **kw):
    args = dict(n_fft=8, return_complex=True)
    args.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            S.stft_plan(shape, dtype, window=window, **args)
        except (RuntimeError, NotImplementedError) as e:
            ours = e
        else:
            raise AssertionError("no error")
        if HAS_TORCH:
            wt = None if window is None else torch.tensor(window)
            with pytest.raises(type(ours)) as theirs:
                torch.stft(torch.zeros(shape, dtype=getattr(torch, np.dtype(dtype).name)), window=wt, **args)
            assert str(theirs.value) == str(ours)
    return str(ours)


def test_stft_errors_are_pytorchs():
    msg = _stft_error(return_complex=None)
    assert msg.startswith("stft requires the return_complex parameter be given for real inputs")
    assert _stft_error(n_fft=30, center=False) == (
        "stft(torch.FloatTensor[20], n_fft=30, hop_length=7, win_length=30, window=None, normalized=0, "
        "onesided=None, return_complex=1, align_to_window=None) : expected 0 < n_fft < 20, but got n_fft=30")
    assert _stft_error(hop_length=0).endswith(": expected hop_length > 0, but got hop_length=0")
    assert _stft_error(win_length=9).endswith(": expected 0 < win_length <= n_fft, but got win_length=9")
    assert _stft_error(window=np.ones((2, 4), np.float32)).endswith(
        "window=torch.FloatTensor{[2, 4]}, normalized=0, onesided=None, return_complex=1, align_to_window=None) : "
        "expected a 1D window tensor of size equal to win_length=8, but got window with size [2, 4]")
    assert _stft_error(pad_mode="bad") == "Unrecognised padding mode bad"
    assert _stft_error(shape=(3,)).startswith("Argument #4: Padding size should be less than")
    assert _stft_error(shape=(3,), pad_mode="circular") == "Padding value causes wrapping around more than once."
    assert _stft_error(shape=(2, 3, 20)).endswith(": expected a 1D or 2D tensor")
    assert _stft_error(dtype=np.int64).startswith("stft(torch.LongTensor[28], ")
    assert _stft_error(dtype=np.complex64, onesided=True) == "Cannot have onesided output if window or input is complex"
    assert _stft_error(align_to_window=True) == "stft align_to_window should only be set when center = false"
    assert re.search(r"^stft\(CPUComplexDoubleType\[28\], .*onesided=0, return_complex=0, ",
                     _stft_error(dtype=np.complex128, onesided=False, hop_length=0, return_complex=False))


def _hann(n):
    """torch.hann_window(n): periodic, so its first sample is 0."""
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)


def _istft_error(shape=(5, 11), window="hann", **kw):
    args = dict(n_fft=8)
    args.update(kw)
    win = _hann(8) if isinstance(window, str) else window
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            I.istft_plan(shape, np.complex64, window=win, **args)
        except RuntimeError as e:
            ours = e
        else:
            raise AssertionError("no error")
        if HAS_TORCH:
            wt = None if win is None else torch.tensor(win, dtype=torch.float32 if win.dtype.kind == "f" else None)
            with pytest.raises(RuntimeError) as theirs:
                torch.istft(torch.ones(shape, dtype=torch.complex64), window=wt, **args)
            assert str(theirs.value) == str(ours)
    return str(ours)


def test_istft_errors_are_pytorchs():
    prefix = ("istft(CPUComplexFloatType[5, 11], n_fft=8, hop_length=2, win_length=8, window=torch.FloatTensor{[8]}, "
              "center=1, normalized=0, onesided=None, length=None, return_complex=0) ")
    w32 = _hann(8)
    assert _istft_error(window=np.zeros(8, np.float32)) == prefix + "window overlap add min: 1\n[ CPUBoolType{} ]"
    assert _istft_error(window=w32, n_fft=10).endswith(
        ": expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when "
        "onesided=True, but got 5")
    assert _istft_error(window=w32, onesided=False).endswith("to match n_fft when onesided=False, but got 5")
    assert _istft_error(window=w32, hop_length=9).endswith(": expected 0 < hop_length <= win_length")
    assert _istft_error(window=None, win_length=9).endswith(": expected 0 < win_length <= n_fft")
    assert _istft_error(window=np.ones(7, np.float32)).endswith(
        ": Invalid window shape. window has to be 1D and length of `win_length`")
    assert _istft_error(window=w32, return_complex=True) == "Cannot have onesided output if window or input is complex"
    assert _istft_error(window=np.ones(8, np.complex64)) == "Complex windows are incompatible with return_complex=False"
    assert _istft_error(shape=(1, 1, 5, 11), window=w32).endswith(": expected a tensor with 3 or 4 dimensions, but got 5")
    assert _istft_error(shape=(5, 0), window=w32).endswith(": input tensor cannot be empty.")
    assert _istft_error(window=w32, center=False).endswith("window overlap add min: 1\n[ CPUBoolType{} ]")
    with pytest.raises(RuntimeError, match="^istft requires a complex-valued input tensor matching the output"):
        I.istft_plan((5, 11), np.float32, 8, window=w32)


def test_warnings_are_pytorchs():
    with pytest.warns(UserWarning, match="^A window was not provided. A rectangular window will be applied,which"):
        S.stft_plan((20,), np.float32, 8, return_complex=True)
    with pytest.warns(UserWarning, match="^stft with return_complex=False is deprecated"):
        S.stft_plan((20,), np.float32, 8, window=np.ones(8), return_complex=False)
    with pytest.warns(UserWarning, match="^A window was not provided. A rectangular window will be applied.Please"):
        I.istft_plan((5, 11), np.complex64, 8)
    with pytest.warns(UserWarning, match="^The length of signal is shorter than the length parameter"):
        I.istft_plan((5, 11), np.complex64, 8, window=np.ones(8), length=40)


@NEEDS_TORCH
@pytest.mark.parametrize("onesided", [None, False])
def test_single_precision_matches_torch(onesided):
    rng = np.random.default_rng(6)
    x, win = rng.standard_normal((2, 40)).astype(np.float32), _hann(N_FFT)
    p, kw = _stft(x, win, None, True, "reflect", False, onesided)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(win, requires_grad=True)
    yt = torch.stft(xt, window=wt, **kw)
    y = S.stft(x, win, p)
    assert y.dtype == np.complex64
    np.testing.assert_allclose(y, _np(yt), rtol=1e-5, atol=1e-5 * np.abs(y).max())
    g = random_like(rng, y.shape, np.complex64)
    for ours, theirs in zip(S.stft_backward(g, x, win, p), torch.autograd.grad(yt, [xt, wt], torch.tensor(g))):
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours, _np(theirs), rtol=1e-5, atol=1e-5 * np.abs(ours).max())
    spec = y.astype(np.complex64)
    q, kw = _istft_plan(spec, win, None, True, False, onesided, None)
    st = torch.tensor(spec, requires_grad=True)
    zt = torch.istft(st, window=wt, **kw)
    z = I.istft(spec, win, q)
    assert z.dtype == np.float32
    np.testing.assert_allclose(z, _np(zt), rtol=1e-5, atol=1e-5 * np.abs(z).max())
    h = rng.standard_normal(z.shape).astype(np.float32)
    for ours, theirs in zip(I.istft_backward(h, spec, win, q), torch.autograd.grad(zt, [st, wt], torch.tensor(h))):
        assert ours.dtype == _np(theirs).dtype
        np.testing.assert_allclose(ours, _np(theirs), rtol=1e-5, atol=1e-5 * np.abs(ours).max())
