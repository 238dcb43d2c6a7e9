"""A custom autograd.Function under forward-mode AD runs its ``jvp`` staticmethod, as PyTorch 2.13 does:
tangents per input in input order (zeros for a Tensor without one, None for a non-Tensor or when grads are not
materialised), ``ctx.save_for_forward``, both the ``setup_context`` and the ``forward(ctx, ...)`` style, in-place
Functions (``mark_dirty``), and PyTorch's errors for a malformed jvp. Each tangent is checked against central
finite differences and, where torch is installed, against torch.autograd.forward_ad."""
import numpy as np
import pytest

import npgrad
import npgrad.autograd.forward_ad as fwAD
from oracle import HAS_TORCH, torch

RNG = np.random.default_rng(3)
X, Y, TX, TY = (RNG.standard_normal(4) for _ in range(4))


def _functions(lib):
    class MulNew(lib.autograd.Function):  # setup_context style, save_for_forward
        @staticmethod
        def forward(x, y, k):
            return x * y * k, (x + 1).sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, k = inputs
            ctx.save_for_forward(x, y)
            ctx.k = k

        @staticmethod
        def jvp(ctx, tx, ty, tk):
            assert tk is None  # a non-Tensor input
            x, y = ctx.saved_tensors
            return (tx * y + x * ty) * ctx.k, (x + 1).cos() * tx

        @staticmethod
        def backward(ctx, g1, g2):
            raise AssertionError("not reached under forward AD")

    class ExpOld(lib.autograd.Function):  # forward(ctx, ...) style, saving its output for forward
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_forward(out)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def jvp(ctx, tx):
            out, = ctx.saved_tensors
            return out * tx

        @staticmethod
        def backward(ctx, g):
            out, = ctx.saved_tensors
            return g * out

    class DoubleInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, tx):
            tx.mul_(2)
            return tx
    return MulNew, ExpOld, DoubleInPlace


def _tangent(lib, fn, x, tx, *rest):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        out = fn(fw.make_dual(lib.tensor(x), lib.tensor(tx)), *rest)
        outs = out if isinstance(out, tuple) else (out,)
        return [np.asarray(fw.unpack_dual(o).primal.detach().numpy()) for o in outs], \
               [np.asarray(fw.unpack_dual(o).tangent.numpy()) for o in outs]


def _fd(f, x, tx, eps=1e-6):
    hi, lo = f(x + eps * tx), f(x - eps * tx)
    return [(h - l) / (2 * eps) for h, l in zip(hi, lo)]


CASES = {
    "setup_context": (lambda lib: lambda d: _functions(lib)[0].apply(d, lib.tensor(Y), 3.0),
                      lambda x: [x * Y * 3.0, np.sin(x + 1)]),
    "old_style": (lambda lib: lambda d: _functions(lib)[1].apply(d), lambda x: [np.exp(x)]),
    "mark_dirty": (lambda lib: lambda d: _functions(lib)[2].apply(d.clone()), lambda x: [2 * x]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_jvp_against_finite_differences_and_torch(name):
    make, numpy_f = CASES[name]
    primals, tangents = _tangent(npgrad, make(npgrad), X, TX)
    for p, e in zip(primals, numpy_f(X)):
        np.testing.assert_allclose(p, e, rtol=1e-12)
    for t, e in zip(tangents, _fd(numpy_f, X, TX)):
        np.testing.assert_allclose(t, e, rtol=1e-6, atol=1e-8)
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the PyTorch comparison is skipped")
    _, want = _tangent(torch, make(torch), X, TX)
    for t, e in zip(tangents, want):
        np.testing.assert_allclose(t, e, rtol=1e-12)


def test_tangents_in_input_order_zero_or_none():
    seen = {}

    class Probe(npgrad.autograd.Function):
        @staticmethod
        def forward(x, y, k):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.set_materialize_grads(seen.get("materialize", True))

        @staticmethod
        def jvp(ctx, tx, ty, tk):
            seen["got"] = (tx, ty, tk)
            return tx

    with fwAD.dual_level():
        y = npgrad.tensor(Y)
        Probe.apply(fwAD.make_dual(npgrad.tensor(X), npgrad.tensor(TX)), y, 2)
        tx, ty, tk = seen["got"]
        np.testing.assert_array_equal(tx.numpy(), TX)
        np.testing.assert_array_equal(ty.numpy(), np.zeros(4))  # a Tensor without tangent: zeros
        assert tk is None
        seen["materialize"] = False
        Probe.apply(y, fwAD.make_dual(npgrad.tensor(X), npgrad.tensor(TX)), 2)
        assert seen["got"][0] is None and seen["got"][2] is None
        np.testing.assert_array_equal(seen["got"][1].numpy(), TX)


def test_jvp_composes_with_reverse_mode():
    # the tangent computed by jvp from a primal that requires grad is differentiable: d/dx <exp(x) t, 1> = exp(x) t
    ExpOld = _functions(npgrad)[1]
    x = npgrad.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        out = ExpOld.apply(fwAD.make_dual(x, npgrad.tensor(TX)))
        fwAD.unpack_dual(out).tangent.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(X) * TX, rtol=1e-12)


def test_no_dual_argument_does_not_call_jvp():
    MulNew = _functions(npgrad)[0]
    with fwAD.dual_level():
        out, _ = MulNew.apply(npgrad.tensor(X), npgrad.tensor(Y), 2.0)
        assert fwAD.unpack_dual(out).tangent is None


def _bad(kind):
    class Bad(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if kind == "dirty":
                x.mul_(2)
                ctx.mark_dirty(x)
                return x
            if kind == "identity":
                return x
            if kind == "nondiff":
                o = x * 2
                ctx.mark_non_differentiable(o)
                return o, x * 3
            if kind == "int":
                return x.long(), x * 3
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, tx):
            return {"count": tx * 2, "shape": (tx[:2], tx), "float": (3.0, tx), "dirty": tx * 2,
                    "identity": tx.clone(), "nondiff": (tx * 5, tx), "int": (tx, tx)}[kind]
    return Bad


ERRORS = {
    "count": "Function's jvp returned an invalid number of forward gradients (expected 2 but got 1)",
    "shape": "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
             "not supported. Tensor is of size [4] while the given forward gradient is of size [2].",
    "float": "expected Variable or None (got float) for grad output 0.",
    "dirty": "An inplace custom Function is not modifying the forward mode gradients inplace.",
    "identity": "A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning "
                "a view.",
    "nondiff": "Function's jvp returned a gradient at position 0, but  the corresponding forward output is not a "
               "differentiable Tensor.You should return None at that position instead.",
    "int": "Function's jvp returned a gradient at position 0, but  the corresponding forward output is not a "
           "differentiable Tensor.",
}


@pytest.mark.parametrize("kind", list(ERRORS))
def test_malformed_jvp_raises_pytorchs_error(kind):
    with fwAD.dual_level():
        with pytest.raises(RuntimeError) as e:
            _bad(kind).apply(fwAD.make_dual(npgrad.tensor(X), npgrad.tensor(TX)))
    assert ERRORS[kind] in str(e.value)


@pytest.mark.parametrize("kind", list(ERRORS))
def test_malformed_jvp_error_is_torchs(kind):
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the PyTorch comparison is skipped")
    global npgrad
    saved, npgrad = npgrad, torch
    try:
        bad = _bad(kind)
    finally:
        npgrad = saved
    tfw = torch.autograd.forward_ad
    with tfw.dual_level():
        with pytest.raises(RuntimeError) as e:
            bad.apply(tfw.make_dual(torch.tensor(X), torch.tensor(TX)))
    assert ERRORS[kind] in str(e.value)


def test_view_returning_jvp_is_accepted():
    class Same(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def jvp(ctx, tx):
            return tx.view_as(tx)
    with fwAD.dual_level():
        d = fwAD.make_dual(npgrad.tensor(X), npgrad.tensor(TX))
        out = Same.apply(d)
        np.testing.assert_array_equal(fwAD.unpack_dual(out).tangent.numpy(), TX)
        np.testing.assert_array_equal(fwAD.unpack_dual(d).tangent.numpy(), TX)
