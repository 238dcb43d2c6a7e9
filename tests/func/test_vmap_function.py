"""A custom autograd.Function inside vmap, as PyTorch 2.13: its ``vmap`` staticmethod, ``generate_vmap_rule=True``,
per-example gradients through its own backward (vmap(grad(...))), nested vmap, and PyTorch's errors for a
Function without vmap support, with both a rule and generate_vmap_rule, in the old ``forward(ctx, ...)`` style,
or with a vmap rule returning one value. Values are checked against NumPy and, with torch installed, against
torch.func.vmap."""
import numpy as np
import pytest

import npgrad
from npgrad.autograd import record
from oracle import HAS_TORCH, torch

RNG = np.random.default_rng(5)
X = RNG.standard_normal((4, 3))
W = RNG.standard_normal(3)


def _functions(lib, calls):
    class Cube(lib.autograd.Function):  # y = x**3 * w; backward hand-written
        @staticmethod
        def forward(x, w):
            return x ** 3 * w

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            calls.append("backward")
            x, w = ctx.saved_tensors
            return g * 3 * x ** 2 * w, None

    class CubeGen(Cube):
        generate_vmap_rule = True

    class CubeRule(Cube):
        @staticmethod
        def vmap(info, in_dims, x, w):
            calls.append(("vmap", info.batch_size, info.randomness, in_dims))
            x = x.movedim(in_dims[0], 0) if in_dims[0] is not None else x
            return CubeRule.apply(x, w), 0  # the physical call: batched at outer levels only
    return Cube, CubeGen, CubeRule


def _run(lib, name, what, calls):
    cls = {c.__name__: c for c in _functions(lib, calls)}[name]
    x, w = lib.tensor(X), lib.tensor(W)
    if what == "forward":
        return lib.func.vmap(cls.apply, in_dims=(0, None))(x, w)
    if what == "in_dims=1":
        return lib.func.vmap(cls.apply, in_dims=(1, None))(x.T.contiguous(), w)
    if what == "nested":
        return lib.func.vmap(lib.func.vmap(cls.apply, in_dims=(0, None)), in_dims=(0, None))(x.reshape(2, 2, 3), w)
    return lib.func.vmap(lib.func.grad(lambda v: cls.apply(v, w).sum()))(x)


EXPECTED = {"forward": lambda: X ** 3 * W, "in_dims=1": lambda: X ** 3 * W,
            "nested": lambda: (X ** 3 * W).reshape(2, 2, 3), "grad": lambda: 3 * X ** 2 * W}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["CubeGen", "CubeRule"])
@pytest.mark.parametrize("what", list(EXPECTED))
def test_function_under_vmap(name, what):
    calls = []
    got = _run(npgrad, name, what, calls)
    np.testing.assert_allclose(got.numpy(), EXPECTED[what](), rtol=1e-12)
    if what == "grad":
        assert calls.count("backward") == len(X)  # the Function's own backward, once per example
    elif name == "CubeRule":
        assert calls[0][1:3] == (len(X) if what != "nested" else 2, "error")
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the PyTorch comparison is skipped")
    want = _run(torch, name, what, [])
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)


def _bad(lib, kind):
    class Plain(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Old(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Both(Plain):
        generate_vmap_rule = True

        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, 0

    class OneReturn(Plain):
        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2
    return {"Plain": Plain, "Old": Old, "Both": Both, "OneReturn": OneReturn}[kind]


DOCS = " For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
ERRORS = {
    "Plain": "You tried to vmap over Plain, but it does not have vmap support. Please override and implement the vmap "
             "staticmethod or set generate_vmap_rule=True." + DOCS,
    "Old": "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must "
           "override the setup_context staticmethod." + DOCS,
    "Both": "You tried to vmap over Both, but it has both generate_vmap_rule=True and an overridden vmap staticmethod. "
            "Please set generate_vmap_rule=False or delete the overridden vmap staticmethod to avoid ambiguity." + DOCS,
    "OneReturn": "Expected the vmap staticmethod to have two returns, an output and out_dims with pytree structure "
                 "compatible with the output. Got a <class '",
}


@pytest.mark.parametrize("kind", list(ERRORS))
def test_pytorchs_errors(kind):
    libs = [npgrad] + ([torch] if HAS_TORCH else [])
    for lib in libs:
        with pytest.raises(RuntimeError) as e:
            lib.func.vmap(_bad(lib, kind).apply)(lib.tensor(X))
        assert str(e.value).startswith(ERRORS[kind]), lib.__name__
    assert record.FUNCTION_HOOK == []  # vmap left, even on an error


def test_function_outside_vmap_is_untouched():
    assert record.FUNCTION_HOOK == []
    calls = []
    cube = _functions(npgrad, calls)[0]
    x = npgrad.tensor(X, requires_grad=True)
    cube.apply(x, npgrad.tensor(W)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * X ** 2 * W, rtol=1e-12)
    assert npgrad.autograd.Function.generate_vmap_rule is False
    with pytest.raises(NotImplementedError, match="To use autograd.Function with vmap, you must either override the "
                                                  "vmap staticmethod or set generate_vmap_rule=True."):
        npgrad.autograd.Function.vmap(None, (0,), x)


def _cube_with_jvp(lib):
    class Cube(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * t
    return Cube


TRANSFORMS = {
    "jacfwd": (lambda lib, c, x: lib.func.jacfwd(c.apply)(x), lambda x: np.diag(3 * x ** 2)),
    "jacrev": (lambda lib, c, x: lib.func.jacrev(c.apply)(x), lambda x: np.diag(3 * x ** 2)),
    "jvp": (lambda lib, c, x: lib.func.jvp(c.apply, (x,), (lib.ones_like(x),))[1], lambda x: 3 * x ** 2),
    "hessian": (lambda lib, c, x: lib.func.hessian(lambda v: c.apply(v).sum())(x), lambda x: np.diag(6 * x)),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_function_with_jvp_under_the_other_transforms(name):
    f, closed = TRANSFORMS[name]
    x = X[0]
    got = f(npgrad, _cube_with_jvp(npgrad), npgrad.tensor(x)).numpy()
    np.testing.assert_allclose(got, closed(x), rtol=1e-12, atol=1e-12)
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the PyTorch comparison is skipped")
    np.testing.assert_allclose(got, f(torch, _cube_with_jvp(torch), torch.tensor(x)).numpy(), rtol=1e-12)
