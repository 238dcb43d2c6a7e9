"""Custom autograd.Function: the user contract, checked by gradcheck and against the same Function
written for torch.autograd.Function."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch
from _errors import same_error


def functions(lib):
    """The same user Functions, written once against ``lib`` (npgrad or torch)."""
    F = lib.autograd.Function

    class MyExp(F):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)  # the output itself: differentiable again
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class SinCos(F):
        """Two outputs from one input."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, gs, gc):
            (x,) = ctx.saved_tensors
            return gs * x.cos() - gc * x.sin()

    class ScaledPow(F):
        """Non-tensor arguments (an exponent and a keyword scale) and needs_input_grad."""

        @staticmethod
        def forward(ctx, x, w, p, scale=1.0):
            ctx.save_for_backward(x, w)
            ctx.p, ctx.scale = p, scale
            ctx.needs = tuple(ctx.needs_input_grad)
            return scale * w * x ** p

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            gx = gw = None
            if ctx.needs_input_grad[0]:
                gx = g * ctx.scale * w * ctx.p * x ** (ctx.p - 1)
            if ctx.needs_input_grad[1]:
                gw = g * ctx.scale * x ** ctx.p
            return gx, gw, None, None

    class SortWithIndex(F):
        """An integer output marked non-differentiable, and a float one that is."""

        @staticmethod
        def forward(ctx, x):
            idx = x.argsort() if hasattr(x, "argsort") else None
            idx = lib.tensor(np.argsort(x.detach().numpy(), kind="stable"))
            vals = x[idx]
            flag = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(idx, flag)
            ctx.save_for_backward(idx)
            return vals, idx, flag

        @staticmethod
        def backward(ctx, g, g_idx, g_flag):
            (idx,) = ctx.saved_tensors
            out = lib.zeros_like(g)
            out[idx] = g
            return out

    class Cube(F):
        """Newer style: forward without ctx, setup_context saves."""

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x * x

    class OnceSquare(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    return dict(MyExp=MyExp, SinCos=SinCos, ScaledPow=ScaledPow, SortWithIndex=SortWithIndex, Cube=Cube,
                OnceSquare=OnceSquare)


NP = functions(npgrad)
X = np.array([[0.3, -1.2, 0.8], [1.5, -0.4, 0.1]])
W = np.array([[0.7, 0.2, -1.1], [0.4, 1.3, 0.9]])


def _leaf(lib, a):
    return lib.tensor(a.copy(), requires_grad=True)


def test_my_exp_forward_backward_and_node():
    x = _leaf(npgrad, X)
    y = NP["MyExp"].apply(x)
    assert y.grad_fn.name() == "MyExpBackward"
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    y.sum().backward()
    assert_close(x.grad.numpy(), np.exp(X), 1e-12, 0)


@pytest.mark.parametrize("name,make_args", [
    ("MyExp", lambda lib: (_leaf(lib, X),)),
    ("SinCos", lambda lib: (_leaf(lib, X),)),
    ("ScaledPow", lambda lib: (_leaf(lib, np.abs(X) + 0.5), _leaf(lib, W), 3)),
    ("SortWithIndex", lambda lib: (_leaf(lib, X[0]),)),
    ("Cube", lambda lib: (_leaf(lib, X),)),
    ("OnceSquare", lambda lib: (_leaf(lib, X),)),
])
def test_gradcheck_passes(name, make_args):
    assert npgrad.autograd.gradcheck(NP[name].apply, make_args(npgrad))


@pytest.mark.parametrize("name", ["MyExp", "SinCos", "Cube"])
def test_gradgradcheck_passes(name):
    assert npgrad.autograd.gradgradcheck(NP[name].apply, (_leaf(npgrad, X),))


def test_scaled_pow_kwargs_and_needs_input_grad():
    x = _leaf(npgrad, np.abs(X) + 0.5)
    w = npgrad.tensor(W)  # does not require grad
    F = NP["ScaledPow"]
    y = F.apply(x, w, 2, scale=0.5)
    assert y.grad_fn.needs_input_grad == (True, False, False, False)
    y.sum().backward()
    assert_close(x.grad.numpy(), 0.5 * W * 2 * (np.abs(X) + 0.5), 1e-12, 0)
    assert w.grad is None


def test_non_differentiable_outputs():
    x = _leaf(npgrad, X[0])
    vals, idx, flag = NP["SortWithIndex"].apply(x)
    assert vals.requires_grad and not idx.requires_grad and not flag.requires_grad
    assert idx.dtype == npgrad.int64
    (vals * npgrad.tensor(np.arange(3.0))).sum().backward()
    expected = np.zeros(3)
    expected[np.argsort(X[0], kind="stable")] = np.arange(3.0)
    assert_close(x.grad.numpy(), expected, 0, 0)


def test_materialize_grads_zero_fills_unused_output():
    seen = {}

    class Two(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen["gb"] = gb
            return ga * 2 + gb * 3

    x = _leaf(npgrad, X)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert seen["gb"] is not None and np.all(seen["gb"].numpy() == 0)
    assert_close(x.grad.numpy(), np.full(X.shape, 2.0), 0, 0)


def test_set_materialize_grads_false_passes_none():
    seen = {}

    class Two(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen["gb"] = gb
            return ga * 2 if gb is None else ga * 2 + gb * 3

    x = _leaf(npgrad, X)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert seen["gb"] is None
    assert_close(x.grad.numpy(), np.full(X.shape, 2.0), 0, 0)


def test_none_gradient_for_an_input():
    class FirstOnly(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * 2 + y

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    x, y = _leaf(npgrad, X), _leaf(npgrad, W)
    FirstOnly.apply(x, y).sum().backward()
    assert y.grad is None
    assert_close(x.grad.numpy(), np.full(X.shape, 2.0), 0, 0)


def test_ctx_attributes_and_no_record_without_grad():
    class Keep(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor
            ctx.shape = tuple(x.shape)
            return x * factor

        @staticmethod
        def backward(ctx, g):
            assert ctx.shape == (2, 3)
            return g * ctx.factor, None

    x = _leaf(npgrad, X)
    y = Keep.apply(x, 4.0)
    y.sum().backward()
    assert_close(x.grad.numpy(), np.full(X.shape, 4.0), 0, 0)
    with npgrad.no_grad():
        z = Keep.apply(x, 4.0)
    assert z.grad_fn is None and not z.requires_grad
    z = Keep.apply(npgrad.tensor(X), 4.0)
    assert z.grad_fn is None


def test_forward_runs_without_grad_and_returning_an_input():
    modes = []

    class Ident(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            modes.append(npgrad.is_grad_enabled())
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = _leaf(npgrad, X)
    y = Ident.apply(x)
    assert modes == [False] and y is not x and y.grad_fn.name() == "IdentBackward"
    y.sum().backward()
    assert_close(x.grad.numpy(), np.full(X.shape, 5.0), 0, 0)


def _double_in_place(lib):
    """A Function that doubles its input in place and says so with mark_dirty."""
    class Double_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Double_


def test_mark_dirty_rebases_the_input():
    x = _leaf(npgrad, X)
    a = x * 1
    b = _double_in_place(npgrad).apply(a)
    assert b is a and a.grad_fn.name() == "Double_Backward" and a._version == 2
    b.sum().backward()
    assert_close(x.grad.numpy(), np.full(X.shape, 2.0), 0, 0)


def test_mark_dirty_on_leaf_error():
    def f(lib):
        _double_in_place(lib).apply(lib.ones(2, requires_grad=True))
    same_error(f, RuntimeError, "a leaf Variable that requires grad has been used in an in-place operation.")


def test_wrong_number_of_gradients_error():
    def f(lib):
        class H(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, g
        H.apply(lib.ones(2, requires_grad=True)).sum().backward()
    same_error(f, RuntimeError, "function HBackward returned an incorrect number of gradients (expected 1, got 2)")


def test_gradient_for_non_tensor_input_error():
    def f(lib):
        class G(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, n):
                return x * n

            @staticmethod
            def backward(ctx, g):
                return g, g
        G.apply(lib.ones(2, requires_grad=True), 3).sum().backward()
    same_error(f, RuntimeError, "function GBackward returned a gradient different than None at position 2, but the "
                                "corresponding forward input was not a Variable")


def test_wrong_gradient_shape_error():
    def f(lib):
        class W(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return lib.ones(3)
        W.apply(lib.ones(2, requires_grad=True)).sum().backward()
    same_error(f, RuntimeError, "Function WBackward returned an invalid gradient at index 0 - got [3] but expected "
                                "shape compatible with [2]")


def test_once_differentiable_without_differentiable_upstream():
    x = _leaf(npgrad, X)
    (g,) = npgrad.autograd.grad(NP["OnceSquare"].apply(x).sum(), x, create_graph=True)
    assert_close(g.detach().numpy(), 2 * X, 0, 0)
    # The upstream gradient of a plain sum does not require grad: nothing to block, as in torch.
    assert not g.requires_grad


def test_once_differentiable_blocks_double_backward():
    def f(lib):
        fns = NP if lib is npgrad else functions(lib)
        x = _leaf(lib, X)
        y = fns["OnceSquare"].apply(x)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)  # upstream 2y depends on x
        g.sum().backward()
    same_error(f, RuntimeError, "trying to differentiate twice a function that was marked with @once_differentiable")


def test_saved_tensors_freed_after_backward():
    x = _leaf(npgrad, X)
    y = NP["MyExp"].apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_vjp_alias_for_backward():
    class V(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def vjp(ctx, g):
            return g * 3

    x = _leaf(npgrad, X)
    V.apply(x).sum().backward()
    assert_close(x.grad.numpy(), np.full(X.shape, 3.0), 0, 0)


if HAS_TORCH:
    TH = functions(torch)

    def _run(lib, fns, name, make_args, create_graph):
        args = make_args(lib)
        outs = fns[name].apply(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        outs = [o for o in outs if o.requires_grad]
        leaves = [a for a in args if isinstance(a, (npgrad.Tensor, torch.Tensor)) and a.requires_grad]
        rng = np.random.default_rng(0)
        ups = [lib.tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
        grads = lib.autograd.grad(outs, leaves, ups, create_graph=create_graph)
        res = [g.detach().numpy() for g in grads]
        if create_graph:
            total = sum((g * g).sum() for g in grads)
            res += [g.detach().numpy() for g in lib.autograd.grad(total, leaves)]
        return [o.detach().numpy() for o in outs] + res

    @pytest.mark.parametrize("name,make_args,create_graph", [
        ("MyExp", lambda lib: (_leaf(lib, X),), True),
        ("SinCos", lambda lib: (_leaf(lib, X),), True),
        ("ScaledPow", lambda lib: (_leaf(lib, np.abs(X) + 0.5), _leaf(lib, W), 3), True),
        ("SortWithIndex", lambda lib: (_leaf(lib, X[0]),), False),
        ("Cube", lambda lib: (_leaf(lib, X),), True),
        ("OnceSquare", lambda lib: (_leaf(lib, X),), False),
    ])
    def test_matches_torch_function(name, make_args, create_graph):
        ours = _run(npgrad, NP, name, make_args, create_graph)
        theirs = _run(torch, TH, name, make_args, create_graph)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_close(a, b, 1e-12, 1e-14)
