"""Op table: torch.fft (npgrad/fft, over ops/spectral.py) and torch.stft/istft. The entries sit in the "complex"
family, so tests/complex/test_complex_table.py runs them: values, dtypes and gradients in complex64 and complex128
against PyTorch (complex64 rtol 1e-5, complex128 1e-10) and against complex finite differences without it; the
exact rows (fftfreq, shifts) and the error rows against PyTorch.

Inputs are (shape, kind): "c" complex, "r" the matching real dtype (the real-to-complex transforms and stft's
signal and window)."""
from _record import EXACT, OpInfo, Sample
from _record import raises_like_torch as _r

from family_complex import COMPLEX, COMPLEX_DTYPES

F = "complex"

C2, R2, C3, R3 = ((4, 6), "c"), ((4, 6), "r"), ((2, 3, 5), "c"), ((2, 3, 5), "r")
CH, CH3 = ((4, 4), "c"), ((2, 3, 4), "c")  # c2r inputs: the half spectra of length-6 signals along the last dim


def _c(name, fn, inputs):
    return Sample(name, fn, tuple(inputs), dtypes=COMPLEX_DTYPES, checks=frozenset({COMPLEX, COMPLEX + "_fd"}))


def _x(name, fn):
    return Sample(name, fn, (), checks=frozenset({EXACT}))


def _f(L, name):
    return getattr(L.fft, name)


def _one_d(name, x, sized):
    """Samples of a 1-D transform: defaults, n padding and trimming, another dim, every norm."""
    return [
        _c(f"{name}", lambda L, a: _f(L, name)(a), [x]),
        _c(f"{name}_n_pad_dim0", lambda L, a: _f(L, name)(a, n=sized + 3, dim=0), [x]),
        _c(f"{name}_n_trim_ortho", lambda L, a: _f(L, name)(a, n=3, norm="ortho"), [x]),
        _c(f"{name}_odd_forward", lambda L, a: _f(L, name)(a, 5, -1, "forward"), [x]),
        _c(f"{name}_backward_norm", lambda L, a: _f(L, name)(a, norm="backward"), [x]),
    ]


def _two_d(name, x):
    return [
        _c(f"{name}", lambda L, a: _f(L, name)(a), [x]),
        _c(f"{name}_s_ortho", lambda L, a: _f(L, name)(a, s=(3, 7), norm="ortho"), [x]),
        _c(f"{name}_dims_forward", lambda L, a: _f(L, name)(a, dim=(0, 2), norm="forward"), [x]),
    ]


def _n_d(name, x):
    return [
        _c(f"{name}", lambda L, a: _f(L, name)(a), [x]),
        _c(f"{name}_s_last_dims", lambda L, a: _f(L, name)(a, s=(4, 5)), [x]),
        _c(f"{name}_dim_ortho", lambda L, a: _f(L, name)(a, dim=(2, 0), norm="ortho"), [x]),
        _c(f"{name}_s_dim_forward", lambda L, a: _f(L, name)(a, s=(2, 6), dim=(0, -1), norm="forward"), [x]),
    ]


def _entry(name, samples, empty=()):
    return OpInfo(name, F, samples=samples, empty=empty)


OPS = [_entry(f"fft.{n}", _one_d(n, x, 4)) for n, x in
       (("fft", C2), ("ifft", C2), ("rfft", R2), ("ihfft", R2), ("irfft", CH), ("hfft", CH))]
OPS += [_entry(f"fft.{n}", _two_d(n, x)) for n, x in
        (("fft2", C3), ("ifft2", C3), ("rfft2", R3), ("ihfft2", R3), ("irfft2", CH3), ("hfft2", CH3))]
OPS += [_entry(f"fft.{n}", _n_d(n, x)) for n, x in
        (("fftn", C3), ("ifftn", C3), ("rfftn", R3), ("ihfftn", R3), ("irfftn", CH3), ("hfftn", CH3))]

# Real inputs to the complex-to-complex transforms (promoted), and compositions whose gradient crosses the
# real/complex boundary twice.
OPS[0].samples.append(_c("fft_of_real", lambda L, x: L.fft.fft(x, dim=0), [R2]))
OPS[0].samples.append(_c("fft_abs_loss", lambda L, z: (L.fft.fft(z).abs() ** 2).sum(), [C2]))
OPS[2].samples.append(_c("irfft_rfft_roundtrip", lambda L, x: L.fft.irfft(L.fft.rfft(x) * (1 + 2j), 6), [R2]))
OPS[12].samples.append(_c("fftn_all_dims_empty", lambda L, z: L.fft.fftn(z, dim=()), [C2]))


def _T(L, *a, **k):
    return L.tensor(*a, **k)


def _ar(L, n=6, dtype=None):
    return L.arange(float(n), dtype=dtype or L.float64)


OPS += [
    _entry("fft.fftshift", [
        _c("fftshift", lambda L, z: L.fft.fftshift(z), [C3]),
        _c("fftshift_dim", lambda L, z: L.fft.fftshift(z, dim=(0, -1)), [C3]),
        _c("fftshift_int_dim_real", lambda L, x: L.fft.fftshift(x, 1), [R3]),
        _x("fftshift_values", lambda L: L.fft.fftshift(_ar(L, 7))),
        _r("fftshift_empty_dims", lambda L: L.fft.fftshift(_ar(L), dim=())),
        _r("fftshift_bad_dim", lambda L: L.fft.fftshift(_ar(L), dim=2)),
    ]),
    _entry("fft.ifftshift", [
        _c("ifftshift", lambda L, z: L.fft.ifftshift(z), [C3]),
        _c("ifftshift_of_fftshift", lambda L, z: L.fft.ifftshift(L.fft.fftshift(z, 1), 1) * 2, [C3]),
        _x("ifftshift_values", lambda L: [L.fft.ifftshift(_ar(L, 7)), L.fft.ifftshift(_ar(L, 6).reshape(2, 3))]),
    ]),
    _entry("fft.fftfreq", [
        _x("fftfreq_values", lambda L: [L.fft.fftfreq(8), L.fft.fftfreq(7, 0.5), L.fft.fftfreq(1), L.fft.fftfreq(0)]),
        _x("fftfreq_dtypes", lambda L: [L.fft.fftfreq(5, dtype=L.float64), L.fft.fftfreq(4, d=2)]),
        _x("fftfreq_requires_grad", lambda L: L.fft.fftfreq(4, requires_grad=True).requires_grad),
        _x("fftfreq_out", lambda L: (lambda o: [L.fft.fftfreq(4, out=o), o])(L.zeros(4))),
        _r("fftfreq_negative", lambda L: L.fft.fftfreq(-1)),
        _r("fftfreq_int_dtype", lambda L: L.fft.fftfreq(4, dtype=L.int64)),
    ]),
    _entry("fft.rfftfreq", [
        _x("rfftfreq_values", lambda L: [L.fft.rfftfreq(8), L.fft.rfftfreq(7, 0.1), L.fft.rfftfreq(0)]),
        _x("rfftfreq_dtype", lambda L: L.fft.rfftfreq(6, dtype=L.float64)),
        _r("rfftfreq_int_dtype", lambda L: L.fft.rfftfreq(4, dtype=L.int32)),
    ]),
]

# PyTorch's refusals (class and message).
OPS[0].samples.extend([
    _r("fft_bad_norm", lambda L: L.fft.fft(_ar(L), norm="unit")),
    _r("fft_bad_dim", lambda L: L.fft.fft(_ar(L), dim=1)),
    _r("fft_zero_n", lambda L: L.fft.fft(_ar(L), n=0)),
    _r("fft_half", lambda L: L.fft.fft(_ar(L, dtype=L.float16))),
    _x("fft_int_promotes", lambda L: L.fft.fft(L.arange(4))),
    _x("fft_float32_to_complex64", lambda L: L.fft.fft(_ar(L, 4, L.float32))),
])
OPS[2].samples.extend([
    _r("rfft_of_complex", lambda L: L.fft.rfft(_T(L, [1j, 2.0]))),
    _r("rfft2_of_complex", lambda L: L.fft.rfft2(_T(L, [[1j, 2.0]]))),
])
OPS[6].samples.extend([
    _r("fft2_s_dim_mismatch", lambda L: L.fft.fft2(_ar(L).reshape(2, 3), s=(2,), dim=(0, 1))),
    _r("fft2_repeated_dims", lambda L: L.fft.fft2(_ar(L).reshape(2, 3), dim=(0, 0))),
])


# -- stft / istft -------------------------------------------------------------------------------------------------

SIG, BSIG, CSIG, WIN6, WIN8 = ((24,), "r"), ((2, 24), "r"), ((24,), "c"), ((6,), "r"), ((8,), "r")
SPEC, BSPEC, FSPEC = ((5, 7), "c"), ((2, 5, 7), "c"), ((8, 7), "c")


def _ones(L):
    return L.ones(8, dtype=L.float64)  # a window given: the error rows test their error, not the no-window warning


def _stft(L, x, w, **kw):
    return L.stft(x, 8, hop_length=2, win_length=w.shape[0], window=w, return_complex=True, **kw)


def _istft(L, z, w, **kw):
    return L.istft(z, 8, hop_length=2, win_length=w.shape[0], window=w, **kw)


OPS += [
    # empty signals: PyTorch's reflect padding refuses them (tests/reliability/test_empty_tensors.py)
    _entry("stft", empty=[(f"float64 {shape}", lambda L, x: L.stft(x, 4, window=L.ones(4, dtype=x.dtype),
                                                                  return_complex=True), (shape, "float64"))
                          for shape in ((0,), (0, 16), (2, 0))], samples=[
        _c("stft", lambda L, x, w: _stft(L, x, w), [SIG, WIN6]),
        _c("stft_method_batched_normalized", lambda L, x, w: x.stft(8, 3, 8, w, normalized=True, return_complex=True),
           [BSIG, WIN8]),
        _c("stft_constant_pad", lambda L, x, w: _stft(L, x, w, pad_mode="constant"), [SIG, WIN6]),
        _c("stft_replicate_pad", lambda L, x, w: _stft(L, x, w, pad_mode="replicate"), [BSIG, WIN6]),
        _c("stft_no_center", lambda L, x, w: _stft(L, x, w, center=False), [SIG, WIN8]),
        _c("stft_align_to_window", lambda L, x, w: _stft(L, x, w, center=False, align_to_window=True), [SIG, WIN6]),
        _c("stft_complex_signal", lambda L, z, w: _stft(L, z, w), [CSIG, WIN6]),
        _c("stft_twosided", lambda L, x, w: _stft(L, x, w, onesided=False), [SIG, WIN6]),
        _c("stft_complex_window", lambda L, x, w: L.stft(x, 8, 4, window=w, return_complex=True), [SIG, ((8,), "c")]),
        _c("stft_real_layout", lambda L, x, w: L.stft(x, 8, 4, window=w, return_complex=False), [SIG, WIN8]),
        _r("stft_needs_return_complex", lambda L: L.stft(_ar(L, 16), 8, window=L.ones(8, dtype=L.float64))),
        _r("stft_n_fft_too_big", lambda L: L.stft(_ar(L, 4), 8, window=_ones(L), center=False, return_complex=True)),
        _r("stft_window_size", lambda L: L.stft(_ar(L, 16), 8, window=L.ones(5), return_complex=True)),
        _r("stft_3d", lambda L: L.stft(_ar(L, 16).reshape(1, 1, 16), 8, window=_ones(L), return_complex=True)),
    ]),
    _entry("istft", empty=[(f"complex128 {shape}", lambda L, z: L.istft(z, 4, window=L.ones(4, dtype=L.float64)),
                            (shape, "complex128")) for shape in ((0, 3, 5), (3, 0))], samples=[
        _c("istft", lambda L, z, w: _istft(L, z, w), [SPEC, WIN6]),
        _c("istft_method_batched_length", lambda L, z, w: z.istft(8, 2, 8, w, length=11), [BSPEC, WIN8]),
        _c("istft_normalized_no_center", lambda L, z, w: _istft(L, z, w, center=False, normalized=True), [SPEC, WIN8]),
        _c("istft_two_sided_complex", lambda L, z, w: _istft(L, z, w, onesided=False, return_complex=True),
           [FSPEC, WIN6]),
        _c("istft_stft_roundtrip", lambda L, x, w: _istft(L, _stft(L, x, w), w, length=24), [SIG, WIN8]),
        _r("istft_real_input", lambda L: L.istft(L.ones(5, 3), 8, window=_ones(L))),
        _r("istft_bad_freq", lambda L: L.istft(L.ones(4, 3, dtype=L.cfloat), 8, window=_ones(L))),
        _r("istft_nola", lambda L: L.istft(L.ones(5, 3, dtype=L.cfloat), 8, window=L.zeros(8))),
    ]),
]
