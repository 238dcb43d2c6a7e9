"""gradcheck / gradgradcheck: pass on correct gradients, fail (loudly and readably) on wrong ones,
with PyTorch's verdicts, warnings and errors."""
import warnings

import numpy as np
import pytest

import npgrad
from npgrad.autograd.gradcheck import GradcheckError
from oracle import HAS_TORCH, torch

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])
by_name = dict(ids=lambda l: l.__name__)


def _leaf(lib, a):
    return lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def functions(lib):
    class WrongScale(lib.autograd.Function):
        """Backward off by a factor: gradcheck must fail."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    class SecondWrong(lib.autograd.Function):
        """Right first derivative, but built from a detached value: gradgradcheck must fail."""

        @staticmethod
        def forward(ctx, x):
            y = x.tanh()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * (1 - y.detach() ** 2)

    class OneEntryWrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            out = g * x.cos()
            out[1, 2] = out[1, 2] * 1.5
            return out

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

    OneEntryWrong.forward = staticmethod(lambda x: x.sin())
    return WrongScale, SecondWrong, OneEntryWrong


X = np.array([[0.3, -1.2, 0.8], [1.5, -0.4, 0.1]])


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_passes_on_correct_gradients(lib):
    x, y = _leaf(lib, X), _leaf(lib, X[::-1].copy())
    assert lib.autograd.gradcheck(lambda a, b: (a * b.exp()).sum(1), (x, y))
    assert lib.autograd.gradcheck(lambda a: (a.sin(), a @ a.t()), x)  # several outputs, one Tensor input
    assert lib.autograd.gradcheck(lambda a, k, b: a ** k + b, (x, 3, lib.tensor(X)))  # non-Tensor arguments
    assert lib.autograd.gradgradcheck(lambda a, b: (a * b.exp()).tanh(), (x, y))


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_wrong_first_derivative(lib):
    WrongScale, _, _ = functions(lib)
    x = _leaf(lib, X)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0") as info:
        lib.autograd.gradcheck(WrongScale.apply, (x,))
    assert type(info.value).__name__ == "GradcheckError"
    assert lib.autograd.gradcheck(WrongScale.apply, (x,), raise_exception=False) is False


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_wrong_second_derivative(lib):
    _, SecondWrong, _ = functions(lib)
    x = _leaf(lib, X)
    assert lib.autograd.gradcheck(SecondWrong.apply, (x,))
    assert lib.autograd.gradgradcheck(SecondWrong.apply, (x,), raise_exception=False) is False


def test_report_names_the_entries():
    _, _, OneEntryWrong = functions(npgrad)
    x = _leaf(npgrad, X)
    y = _leaf(npgrad, X)
    with pytest.raises(GradcheckError) as info:
        npgrad.autograd.gradcheck(lambda a, b: (a * 2, OneEntryWrong.apply(b)), (x, y))
    msg = str(info.value)
    assert "Jacobian mismatch for output 1 with respect to input 1" in msg
    assert "1 of 36 entries differ" in msg
    expected = np.cos(X[1, 2])
    assert f"d output[1][1, 2] / d input[1][1, 2]: numerical {expected:.8g}, analytical {expected * 1.5:.8g}" in msg
    assert "numerical:tensor(" in msg and "analytical:tensor(" in msg
    assert issubclass(GradcheckError, RuntimeError)


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_float32_warns(lib):
    x = lib.tensor(np.float32(X), requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision floating point"):
        lib.autograd.gradcheck(lambda a: a * 2, (x,), raise_exception=False)


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_no_input_requires_grad(lib):
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
        lib.autograd.gradcheck(lambda a: a * 2, (lib.tensor(X),))


def test_user_gradient_dtype_is_cast_to_input_dtype():
    class WrongDtype(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).float()

    x = _leaf(npgrad, X)
    # The engine casts a gradient to its input's dtype (as PyTorch validates outputs), so gradcheck passes.
    assert npgrad.autograd.gradcheck(WrongDtype.apply, (x,), atol=1e-5)
    (g,) = npgrad.autograd.grad(WrongDtype.apply(x).sum(), x)
    assert g.dtype == npgrad.float64


def test_does_not_touch_inputs_or_grads():
    x = _leaf(npgrad, X)
    before = x.detach().numpy().copy()
    npgrad.autograd.gradcheck(lambda a: a.exp(), (x,))
    npgrad.autograd.gradgradcheck(lambda a: a.exp(), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_output_independent_of_input():
    x, y = _leaf(npgrad, X), _leaf(npgrad, X)
    assert npgrad.autograd.gradcheck(lambda a, b: a * 2, (x, y))
    assert npgrad.autograd.gradcheck(lambda a: npgrad.tensor(X) * 2, (x,))
