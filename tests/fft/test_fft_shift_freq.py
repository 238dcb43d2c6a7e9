"""fftshift/ifftshift and fftfreq/rfftfreq as array kernels: values against explicit formulas and PyTorch, the
shifts' backward (the opposite roll) against the adjoint identity and PyTorch, and PyTorch's errors."""
import numpy as np
import pytest

from npgrad._fft_kernels import shift_freq as S
from oracle import HAS_TORCH, torch

NEEDS_TORCH = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
DIMS = [None, 0, 1, -1, (0, 1), (1,), (2, 0)]


def _centred(x, dims, inverse):
    """Index arithmetic: fftshift moves sample i to (i + n//2) mod n, ifftshift moves it back."""
    out = x
    for d in dims:
        n = x.shape[d]
        shift = -(n // 2) if inverse else n // 2
        out = np.take(out, (np.arange(n) - shift) % n, axis=d)
    return out


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("shape", [(4, 5, 6), (3, 7, 1)])
def test_shifts_match_index_arithmetic_and_torch(shape, dim):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    dims = range(x.ndim) if dim is None else ((dim,) if isinstance(dim, int) else dim)
    for fn, inverse in ((S.fftshift, False), (S.ifftshift, True)):
        np.testing.assert_array_equal(fn(x, dim), _centred(x, dims, inverse))
        if HAS_TORCH:
            np.testing.assert_array_equal(fn(x, dim), getattr(torch.fft, fn.__name__)(torch.tensor(x), dim).numpy())
    np.testing.assert_array_equal(S.ifftshift(S.fftshift(x, dim), dim), x)


@pytest.mark.parametrize("dim", DIMS)
def test_shift_backward_is_the_adjoint(dim):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5, 7)) + 1j * rng.standard_normal((4, 5, 7))
    g = rng.standard_normal((4, 5, 7)) + 1j * rng.standard_normal((4, 5, 7))
    for fwd, bwd in ((S.fftshift, S.fftshift_backward), (S.ifftshift, S.ifftshift_backward)):
        # <fwd(x), g> == <x, bwd(g)>: bwd is fwd's adjoint, which for a permutation is the gradient
        assert np.isclose(np.vdot(g, fwd(x, dim)), np.vdot(bwd(g, dim), x))
        if HAS_TORCH:
            xt = torch.tensor(x, requires_grad=True)
            (gt,) = torch.autograd.grad(getattr(torch.fft, fwd.__name__)(xt, dim), xt, torch.tensor(g))
            np.testing.assert_array_equal(bwd(g, dim), gt.resolve_conj().numpy())


@pytest.mark.parametrize("call,exc,message", [
    (lambda: S.fftshift(np.zeros((4, 5)), 5), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda: S.fftshift(np.zeros((4, 5)), ()), RuntimeError, "`shifts` required"),
    (lambda: S.ifftshift(np.array(3.0)), RuntimeError, "`shifts` required"),
    (lambda: S.fftshift(np.array(3.0), 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
])
def test_shift_errors_are_pytorchs(call, exc, message):
    with pytest.raises(exc, match="^" + __import__("re").escape(message) + "$"):
        call()


def _torch_dtype(dtype):
    return None if dtype is None else getattr(torch, np.dtype(dtype).name)


@pytest.mark.parametrize("dtype", [None, np.float32, np.float64])
@pytest.mark.parametrize("d", [1.0, 0.5, 3, 0.1])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 11])
def test_frequencies_match_formula_and_torch(n, d, dtype):
    expected_dtype = np.dtype(np.float32 if dtype is None else dtype)  # the default dtype is float32
    f, r = S.fftfreq(n, d, dtype), S.rfftfreq(n, d, dtype)
    assert f.dtype == expected_dtype and r.dtype == expected_dtype
    k = np.array([i if i < (n + 1) // 2 else i - n for i in range(n)], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(f, k / (n * d), rtol=1e-6)
        np.testing.assert_allclose(r, np.arange(n // 2 + 1) / (n * d), rtol=1e-6, equal_nan=True)
    if HAS_TORCH:
        np.testing.assert_allclose(f, torch.fft.fftfreq(n, d, dtype=_torch_dtype(dtype)).numpy(), rtol=1e-6)
        np.testing.assert_allclose(r, torch.fft.rfftfreq(n, d, dtype=_torch_dtype(dtype)).numpy(), rtol=1e-6,
                                   equal_nan=True)


def test_frequencies_follow_the_default_dtype():
    import npgrad

    old = npgrad.get_default_dtype()
    npgrad.set_default_dtype(npgrad.float64)
    try:
        assert S.fftfreq(4).dtype == np.float64 and S.rfftfreq(4).dtype == np.float64
    finally:
        npgrad.set_default_dtype(old)


@pytest.mark.parametrize("n", [-1, -2, -3, -4])
def test_negative_lengths_as_pytorch(n):
    with pytest.raises(RuntimeError, match=rf"^Trying to create tensor with negative dimension {n}: \[{n}\]$"):
        S.fftfreq(n)
    try:  # rfftfreq sizes itself n/2 + 1 with C's division: -1 gives one sample, -4 a negative size
        ours = S.rfftfreq(n)
    except RuntimeError as e:
        ours = e
    assert (n, str(ours)) in {(-1, "[-0.]"), (-2, "[]"), (-3, "[]"),
                              (-4, "Trying to create tensor with negative dimension -1: [-1]")}
    if HAS_TORCH:
        try:
            theirs = torch.fft.rfftfreq(n).numpy()
        except RuntimeError as e:
            assert str(e) == str(ours)
        else:
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("fn", [S.fftfreq, S.rfftfreq])
def test_frequency_dtype_errors(fn):
    name = fn.__name__
    with pytest.raises(RuntimeError, match=f"^{name} requires a floating point or complex dtype$"):
        fn(4, dtype=np.int64)
    with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'ComplexFloat'$"):
        fn(4, dtype=np.complex64)
    if HAS_TORCH:
        with pytest.raises(RuntimeError, match=f"^{name} requires a floating point or complex dtype$"):
            getattr(torch.fft, name)(4, dtype=torch.int64)
        with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'ComplexFloat'$"):
            getattr(torch.fft, name)(4, dtype=torch.complex64)
