"""torch.fft's 18 transforms as array kernels (npgrad._fft_kernels): values, dtypes, errors and backward.

Every value is checked against explicit DFT sums (tests/fft/_fft_reference.py, no numpy.fft) and against PyTorch
when it is installed; every backward against PyTorch's autograd and against complex finite differences."""
import numpy as np
import pytest

from _fft_reference import loss_grad_fd, reference, random_like
from npgrad._fft_kernels import plan as P
from npgrad._fft_kernels import transforms as T
from oracle import HAS_TORCH, torch

NEEDS_TORCH = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
NAMES = sorted(P.TRANSFORMS)
NORMS = [None, "backward", "ortho", "forward"]
SHAPE = (4, 5, 6)
# (n_or_s, dim) per arity: odd and even lengths, shorter and longer than the input, several dims.
CASES = {
    1: [(None, None), (3, 1), (9, 0), (8, 0), (4, -1), (2, -1)],
    2: [(None, None), ((3, 8), None), ((7, 4), (0, 2)), (None, (2, 0)), (None, 1)],
    "n": [(None, None), ((5, -1, 3), None), ((3, 8), None), (None, (1,)), (None, (2, 0)), ((4,), (0,)), (6, None),
          (None, ())],
}
TOL = {np.complex64: 1e-5, np.float32: 1e-5, np.complex128: 1e-10, np.float64: 1e-10}


def _cases():
    for name in NAMES:
        kind, _, arity = P.TRANSFORMS[name]
        for n_or_s, dim in CASES[arity]:
            if dim == () and kind != "c2c":
                continue
            yield pytest.param(name, n_or_s, dim, id=f"{name}-{n_or_s}-{dim}")


def _input_dtypes(name):
    kind = P.TRANSFORMS[name][0]
    return [np.float64] if kind == "r2c" else [np.float64, np.complex128]


def _torch_call(name, x, n_or_s, dim, norm):
    kw = {"norm": norm}
    arity = P.TRANSFORMS[name][2]
    if n_or_s is not None:
        kw["n" if arity == 1 else "s"] = n_or_s
    if dim is not None:
        kw["dim"] = dim
    return getattr(torch.fft, name)(x, **kw)


def _close(actual, expected, dtype, what):
    tol = TOL[np.dtype(dtype).type]
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale, err_msg=what)


def _np(t):
    return t.detach().resolve_conj().numpy()


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name,n_or_s,dim", list(_cases()))
def test_forward_matches_dft_sums(name, n_or_s, dim, norm):
    rng = np.random.default_rng(0)
    for dtype in _input_dtypes(name):
        x = random_like(rng, SHAPE, dtype)
        plan = P.make_plan(name, x.shape, x.dtype, n_or_s, dim, norm)
        y = T.forward(x, plan)
        expected = reference(plan.kind, plan.inverse, x, plan.dims, plan.sizes, plan.norm) if plan.dims else x
        assert y.dtype == (np.float64 if plan.kind == "c2r" else np.complex128)
        _close(y, expected, y.dtype, f"{name} {dtype.__name__}")


@NEEDS_TORCH
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name,n_or_s,dim", list(_cases()))
def test_forward_and_backward_match_torch(name, n_or_s, dim, norm):
    rng = np.random.default_rng(1)
    for dtype in _input_dtypes(name):
        x = random_like(rng, SHAPE, dtype)
        xt = torch.tensor(x, requires_grad=True)
        yt = _torch_call(name, xt, n_or_s, dim, norm)
        plan = P.make_plan(name, x.shape, x.dtype, n_or_s, dim, norm)
        y = T.forward(x, plan)
        assert str(y.dtype) == str(yt.dtype).split(".")[1]
        _close(y, _np(yt), y.dtype, f"{name} forward")
        g = random_like(rng, y.shape, y.dtype)
        (gt,) = torch.autograd.grad(yt, xt, torch.tensor(g))
        gx = T.backward(g, plan)
        assert gx.dtype == x.dtype and gx.shape == x.shape
        _close(gx, _np(gt), gx.dtype, f"{name} backward")


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("name,n_or_s,dim", list(_cases()))
def test_backward_matches_complex_finite_differences(name, n_or_s, dim, norm):
    rng = np.random.default_rng(2)
    for dtype in _input_dtypes(name):
        x = random_like(rng, (3, 4, 5), dtype)
        plan = P.make_plan(name, x.shape, x.dtype, n_or_s, dim, norm)
        g = random_like(rng, T.forward(x, plan).shape, plan.out_dtype)
        expected = loss_grad_fd(lambda v: T.forward(v, plan), x, g)
        np.testing.assert_allclose(T.backward(g, plan), expected, rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_single_precision_and_integer_dtypes(name):
    kind = P.TRANSFORMS[name][0]
    cases = [(np.float32, np.complex64), (np.float64, np.complex128), (np.int64, np.complex64),
             (np.bool_, np.complex64), (np.int32, np.complex64)]
    if kind != "r2c":
        cases += [(np.complex64, np.complex64), (np.complex128, np.complex128)]
    rng = np.random.default_rng(3)
    for dtype, out in cases:
        x = (random_like(rng, (4, 6), np.complex128) * 3)
        x = (x if np.dtype(dtype).kind == "c" else x.real).astype(dtype)
        y = T.transform(name, x)
        expected = np.dtype(out) if kind != "c2r" else np.dtype(np.real(np.zeros(1, out)).dtype)
        assert y.dtype == expected, (name, dtype, y.dtype)
        exact = T.transform(name, x.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
        _close(y, exact, y.dtype, f"{name} {np.dtype(dtype).name}")
        if HAS_TORCH:
            yt = _torch_call(name, torch.tensor(x), None, None, None)
            assert str(y.dtype) == str(yt.dtype).split(".")[1], (name, dtype)
            _close(y, _np(yt), y.dtype, f"{name} {np.dtype(dtype).name} vs torch")


def test_integer_input_follows_the_default_dtype():
    import npgrad

    old = npgrad.get_default_dtype()
    npgrad.set_default_dtype(npgrad.float64)
    try:
        assert T.transform("fft", np.arange(4)).dtype == np.complex128
        assert T.transform("irfft", np.arange(4)).dtype == np.float64
    finally:
        npgrad.set_default_dtype(old)


def test_c2r_ignores_the_imaginary_part_of_dc_and_nyquist():
    x = np.array([1 + 5j, 2 - 1j, 3 + 7j])  # n = 4: bin 0 is DC, bin 2 is Nyquist
    assert np.allclose(T.transform("irfft", x), T.transform("irfft", np.array([1, 2 - 1j, 3])))
    g = T.backward(np.ones(4), P.make_plan("irfft", (3,), np.complex128))
    assert np.allclose(g.imag[[0, 2]], 0)


def test_scalar_input_with_no_dims_is_a_complex_copy():
    x = np.array(3.0)
    y = T.transform("fftn", x)
    assert y.shape == () and y.dtype == np.complex128 and y == 3


ERRORS = [  # (name, shape, dtype, n_or_s, dim, norm, exception, message)
    ("fft", (4, 5), np.float32, 0, None, None, RuntimeError, "Invalid number of data points (0) specified"),
    ("fft", (4, 5), np.float32, -2, None, None, RuntimeError, "Invalid number of data points (-2) specified"),
    ("fft", (4, 5), np.float32, None, 2, None, IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("fft", (4, 5), np.float32, None, None, "bad", RuntimeError, 'Invalid normalization mode: "bad"'),
    ("fftn", (4, 5), np.float32, None, None, "Ortho", RuntimeError, 'Invalid normalization mode: "Ortho"'),
    ("fftn", (4, 5), np.float32, (3,), (0, 1), None, RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    ("fft2", (4, 5), np.float32, (2, 3, 4), None, None, RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    ("fftn", (4, 5), np.float32, None, (0, 0), None, RuntimeError, "FFT dims must be unique"),
    ("fftn", (4, 5), np.float32, (3, 0), None, None, RuntimeError, "Invalid number of data points (0) specified"),
    ("fftn", (4, 5), np.float32, (3, 3, 3), None, None, RuntimeError,
     "Got shape with 3 values but input tensor only has 2 dimensions."),
    ("fft2", (5,), np.float32, None, None, None, IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    ("rfft", (4, 5), np.complex64, None, None, None, RuntimeError,
     "rfft expects a real input tensor, but got ComplexFloat"),
    ("ihfft", (4, 5), np.complex128, None, None, None, RuntimeError,
     "ihfft expects a real input tensor, but got ComplexDouble"),
    ("rfftn", (4, 5), np.complex64, None, None, None, RuntimeError,
     "rfftn expects a real-valued input tensor, but got ComplexFloat"),
    ("rfft2", (4, 5), np.complex128, None, None, None, RuntimeError,
     "rfftn expects a real-valued input tensor, but got ComplexDouble"),
    ("ihfftn", (4, 5), np.complex128, None, None, None, RuntimeError,
     "Only supports floating-point dtypes, but found: ComplexDouble"),
    ("ihfft2", (4, 5), np.complex64, None, None, None, RuntimeError,
     "Only supports floating-point dtypes, but found: ComplexFloat"),
    ("irfft", (1,), np.float32, None, None, None, RuntimeError, "Invalid number of data points (0) specified"),
    ("hfft", (1,), np.float32, None, None, None, RuntimeError, "Invalid number of data points (0) specified"),
    ("irfftn", (3, 1), np.float32, None, None, None, RuntimeError, "Invalid number of data points (0) specified"),
    ("fft", (0,), np.float32, None, None, None, RuntimeError, "Invalid number of data points (0) specified"),
    ("fft", (), np.float32, None, None, None, IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    ("fft", (), np.float32, None, 0, None, IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    ("fftn", (), np.float32, (1,), None, None, RuntimeError,
     "Got shape with 1 values but input tensor only has 0 dimensions."),
    ("rfftn", (4, 5), np.float32, None, (), None, RuntimeError, "rfftn must transform at least one axis"),
    ("irfftn", (4, 5), np.float32, None, (), None, RuntimeError, "irfftn must transform at least one axis"),
    ("hfftn", (4, 5), np.float32, None, (), None, RuntimeError, "hfftn must transform at least one axis"),
    ("ihfftn", (4, 5), np.float32, None, (), None, RuntimeError, "ihfftn must transform at least one axis"),
    ("fft", (4,), np.float16, None, None, None, RuntimeError, "Unsupported dtype Half"),
]


@pytest.mark.parametrize("name,shape,dtype,n_or_s,dim,norm,exc,message", ERRORS,
                         ids=[f"{e[0]}-{e[-1][:30]}" for e in ERRORS])
def test_errors_are_pytorchs(name, shape, dtype, n_or_s, dim, norm, exc, message):
    with pytest.raises(exc) as info:
        T.transform(name, np.zeros(shape, dtype=dtype), n_or_s, dim, norm)
    assert str(info.value) == message
    if HAS_TORCH:
        with pytest.raises(exc) as theirs:
            _torch_call(name, torch.zeros(shape, dtype=getattr(torch, np.dtype(dtype).name)), n_or_s, dim, norm)
        assert str(theirs.value).splitlines()[0] == message


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("name,n_or_s,dim", list(_cases()))
def test_forward_is_the_adjoint_of_backward(name, n_or_s, dim, norm):
    # Re<v, backward(g)> == Re<forward(v), g> for every v, g: backward is real-linear in g and forward is its
    # adjoint, so forward(gg, plan) is the gradient of backward -- what a create_graph backward needs.
    rng = np.random.default_rng(4)
    for dtype in _input_dtypes(name):
        plan = P.make_plan(name, SHAPE, np.dtype(dtype), n_or_s, dim, norm)
        v = random_like(rng, SHAPE, dtype)
        g = random_like(rng, T.forward(v, plan).shape, plan.out_dtype)
        lhs = np.real(np.vdot(v, T.backward(g, plan)))
        rhs = np.real(np.vdot(T.forward(v, plan), g))
        assert abs(lhs - rhs) <= 1e-10 * max(1.0, abs(lhs)), (name, lhs, rhs)
