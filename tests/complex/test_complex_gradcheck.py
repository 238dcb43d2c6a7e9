"""gradcheck/gradgradcheck with complex inputs and outputs: they pass for npgrad's complex operators (checking the
conjugate-Wirtinger convention on real coordinates) and catch a backward that forgets a conjugate, as PyTorch's."""
import numpy as np
import pytest

import npgrad
from npgrad.autograd import gradcheck, gradgradcheck
from oracle import HAS_TORCH, torch


def _z(*shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.3, 1.5, shape) * np.exp(1j * rng.uniform(-2.5, 2.5, shape))
    return a


FUNCS = {
    "mul": lambda L, a, b: a * b, "exp_div": lambda L, a, b: a.exp() / b, "abs": lambda L, a, b: (a * b).abs(),
    "real_imag": lambda L, a, b: a.real * b.imag, "matmul": lambda L, a, b: a.reshape(2, 3) @ b.reshape(3, 2),
    "angle": lambda L, a, b: L.angle(a) + b.sgn(), "conj": lambda L, a, b: a.conj() * b.sqrt(),
    "view_as_real": lambda L, a, b: L.view_as_real(a * b), "sum_var": lambda L, a, b: (a.sum() * b).var(),
    "polar_complex": lambda L, a, b: L.polar(a.abs(), b.real) + L.complex(a.imag, b.abs()),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_gradcheck_and_gradgradcheck_pass(name):
    fn = FUNCS[name]
    xs = [npgrad.tensor(_z(6, seed=s), requires_grad=True) for s in (1, 2)]
    assert gradcheck(lambda a, b: fn(npgrad, a, b), xs)
    assert gradgradcheck(lambda a, b: fn(npgrad, a, b), xs)


def test_real_input_complex_output():
    x = npgrad.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    assert gradcheck(lambda t: t * (2 - 1j) + (t * 1j).exp(), (x,))


class _NoConjMul(npgrad.autograd.Function):
    """a * b with the gradient g * b (the real-analytic rule), not PyTorch's g * conj(b)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


def test_missing_conjugate_is_caught():
    a, b = (npgrad.tensor(_z(3, seed=s), requires_grad=True) for s in (3, 4))
    with pytest.raises(npgrad.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(_NoConjMul.apply, (a, b))
    assert gradcheck(_NoConjMul.apply, (a, b), raise_exception=False) is False


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch's gradcheck is the reference for which functions pass")
@pytest.mark.parametrize("name", ["mul", "abs", "angle", "view_as_real"])
def test_torch_gradcheck_agrees(name):
    fn = FUNCS[name]
    xs = [torch.tensor(_z(6, seed=s), requires_grad=True) for s in (1, 2)]
    assert torch.autograd.gradcheck(lambda a, b: fn(torch, a, b), xs)
