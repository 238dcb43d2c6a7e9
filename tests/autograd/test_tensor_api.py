"""The autograd-facing Tensor API: requires_grad_, detach/detach_, retain_grad, hooks, .grad, and
graph walking through grad_fn.next_functions / name()."""
import warnings

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from _errors import same_error

LIBS = [npgrad] + ([torch] if HAS_TORCH else [])
by_name = dict(ids=lambda l: l.__name__)


def _x(lib):
    return lib.tensor(np.array([1.0, 2.0]), requires_grad=True)


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_requires_grad_and_detach(lib):
    z = lib.ones(2)
    assert z.requires_grad_() is z and z.requires_grad and z.is_leaf
    z.requires_grad_(False)
    assert not z.requires_grad
    x = _x(lib)
    y = x * 2
    assert not y.is_leaf and y.requires_grad
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d[0] = 5.0  # shares memory with y
    assert y[0].item() == 5.0
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_requires_grad_errors():
    same_error(lambda lib: (_x(lib) * 2).requires_grad_(False), RuntimeError,
               "you can only change requires_grad flags of leaf variables.")
    same_error(lambda lib: lib.tensor([1, 2]).requires_grad_(), RuntimeError,
               "only Tensors of floating point dtype can require gradients")


def test_detach_view_in_place_error():
    def f(lib):
        x = _x(lib)
        (x * 2)[0:1].detach_()
    same_error(f, RuntimeError, "Can't detach views in-place. Use detach() instead.")


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_retain_grad(lib):
    x = _x(lib)
    y = x * 2
    assert not y.retains_grad
    y.retain_grad()
    y.retain_grad()  # idempotent
    assert y.retains_grad and not x.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0]
    assert x.grad.tolist() == [8.0, 16.0]
    x.retain_grad()  # a no-op on a leaf
    assert not x.retains_grad


def test_retain_grad_accumulates_over_backwards():
    x = _x(npgrad)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert y.grad.tolist() == [8.0, 16.0]


def test_retain_grad_error():
    same_error(lambda lib: lib.ones(2).retain_grad(), RuntimeError,
               "can't retain_grad on Tensor that has requires_grad=False")


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_non_leaf_grad_access_warns(lib):
    y = _x(lib) * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert y.grad is None
    assert any("is not a leaf Tensor is being accessed" in str(m.message) for m in w)


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_hooks_on_non_leaf_replace_and_chain(lib):
    x = _x(lib)
    y = x * 2
    calls = []
    y.retain_grad()
    h1 = y.register_hook(lambda g: calls.append(("h1", g.tolist())) or g * 10)
    y.register_hook(lambda g: calls.append(("h2", g.tolist())))
    (y * 3).sum().backward()
    # hooks run in registration order, each seeing the previous one's result; retain_grad sees the last
    assert calls == [("h1", [3.0, 3.0]), ("h2", [30.0, 30.0])]
    assert y.grad.tolist() == [30.0, 30.0] and x.grad.tolist() == [60.0, 60.0]
    h1.remove()
    h1.remove()  # removing twice is harmless
    calls.clear()
    x.grad = None
    y = x * 2
    (y * 3).sum().backward()
    assert calls == [] and x.grad.tolist() == [6.0, 6.0]


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_hook_on_leaf_replaces_accumulated_gradient(lib):
    x = _x(lib)
    h = x.register_hook(lambda g: g * 2)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    h.remove()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [9.0, 9.0]


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_hook_sees_total_gradient_once(lib):
    x = _x(lib)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * y + y).sum().backward()
    assert seen == [[5.0, 9.0]]


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_hook_runs_in_autograd_grad(lib):
    x = _x(lib)
    x.register_hook(lambda g: g + 1)
    (g,) = lib.autograd.grad((x * 3).sum(), x)
    assert g.tolist() == [4.0, 4.0] and x.grad is None


def test_hook_with_create_graph_is_differentiable():
    x = _x(npgrad)
    y = x * x
    y.register_hook(lambda g: g * y)  # the replacement depends on x
    (g,) = npgrad.autograd.grad(y.sum(), x, create_graph=True)  # g = y * 2x = 2x^3
    assert g.tolist() == [2.0, 16.0]
    # The second pass goes through y's node again, so the hook scales that path by y once more:
    # the y-path gives 2x * y * 2x = 4x^4 and the direct one 2 * y_hooked = 2x^2 (torch agrees).
    (h,) = npgrad.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 72.0]


def test_hook_must_keep_size_and_type():
    def size(lib):
        y = _x(lib) * 2
        y.register_hook(lambda g: lib.ones(3, dtype=g.dtype))
        y.sum().backward()
    same_error(size, RuntimeError, "hook '<lambda>' has changed the size of value")

    def dtype(lib):
        y = lib.ones(2, requires_grad=True) * 2

        def to_double(g):
            return g.double()
        y.register_hook(to_double)
        y.sum().backward()
    same_error(dtype, RuntimeError, "hook 'to_double' has changed the type of value (was torch.FloatTensor got "
                                    "torch.DoubleTensor)")


def test_hook_errors():
    same_error(lambda lib: lib.ones(2).register_hook(lambda g: g), RuntimeError,
               "cannot register a hook on a tensor that doesn't require gradient")


def test_post_accumulate_grad_hook():
    x = _x(npgrad)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_grad_settable(lib):
    x = _x(lib)
    x.grad = lib.tensor(np.array([0.5, 0.5]))
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.5, 3.5]
    x.grad = None
    assert x.grad is None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    del x.grad
    assert x.grad is None


def test_grad_assignment_errors():
    def wrong_size(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = lib.zeros(2, 3)
    same_error(wrong_size, RuntimeError, "attempting to assign a gradient of size '[2, 3]' to a tensor of size "
                                         "'[2]'. Please ensure that the gradient and the tensor are the same size")

    def wrong_dtype(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = lib.zeros(2, dtype=lib.float64)
    same_error(wrong_dtype, RuntimeError, "attempting to assign a gradient with dtype 'double' to a tensor with "
                                          "grad_dtype 'Float'.")

    def wrong_type(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = [1.0, 2.0]
    same_error(wrong_type, TypeError, "assigned grad expected to be a Tensor or None but got grad of type list")


# -- walking the graph --------------------------------------------------------------------------------------

NAMED = [
    ("mul", lambda lib, x, w: x * w),
    ("add", lambda lib, x, w: x + w),
    ("sub", lambda lib, x, w: x - w),
    ("div", lambda lib, x, w: x / w),
    ("neg", lambda lib, x, w: -x),
    ("pow", lambda lib, x, w: x ** 2),
    ("square", lambda lib, x, w: x.square()),
    ("sum", lambda lib, x, w: x.sum()),
    ("sum_dim", lambda lib, x, w: x.sum(1)),
    ("mean", lambda lib, x, w: x.mean()),
    ("mean_dim", lambda lib, x, w: x.mean(0)),
    ("tanh", lambda lib, x, w: x.tanh()),
    ("sigmoid", lambda lib, x, w: x.sigmoid()),
    ("exp", lambda lib, x, w: x.exp()),
    ("log", lambda lib, x, w: x.abs().log()),
    ("relu", lambda lib, x, w: x.relu()),
    ("mm", lambda lib, x, w: x @ w.t()),
    ("dot", lambda lib, x, w: x[0] @ w[0]),
    ("mv", lambda lib, x, w: x @ w[0]),
    ("view", lambda lib, x, w: x.view(6)),
    ("reshape", lambda lib, x, w: x.reshape(3, 2)),
    ("flatten", lambda lib, x, w: x.flatten()),
    ("permute", lambda lib, x, w: x.permute(1, 0)),
    ("expand", lambda lib, x, w: x[0:1].expand(4, 3)),
    ("cat", lambda lib, x, w: lib.cat([x, w])),
    ("select", lambda lib, x, w: x[0]),
    ("slice", lambda lib, x, w: x[:, 1:]),
    ("index", lambda lib, x, w: x[[0, 0]]),
    ("clone", lambda lib, x, w: x.clone()),
    ("to_dtype", lambda lib, x, w: x.double()),
    ("max_all", lambda lib, x, w: x.max()),
    ("min_all", lambda lib, x, w: x.min()),
    ("amax", lambda lib, x, w: x.amax(1)),
    ("cumsum", lambda lib, x, w: x.cumsum(1)),
    ("logsumexp", lambda lib, x, w: x.logsumexp(1)),
    ("where", lambda lib, x, w: lib.where(x > 0, x, w)),
    ("maximum", lambda lib, x, w: lib.maximum(x, w)),
    ("clamp", lambda lib, x, w: x.clamp(-1, 1)),
    ("tril", lambda lib, x, w: x.tril()),
    ("norm", lambda lib, x, w: x.norm()),
    ("repeat", lambda lib, x, w: x.repeat(2, 1)),
]


def _named_inputs(lib):
    x = lib.tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]], dtype=np.float32), requires_grad=True)
    w = lib.tensor(np.array([[1.0, 2.0, -3.0], [0.5, -0.5, 0.25]], dtype=np.float32), requires_grad=True)
    return x, w


if HAS_TORCH:
    @pytest.mark.parametrize("name,fn", NAMED, ids=[n for n, _ in NAMED])
    def test_node_names_match_torch(name, fn):
        ours = fn(npgrad, *_named_inputs(npgrad)).grad_fn.name()
        theirs = fn(torch, *_named_inputs(torch)).grad_fn.name()
        assert ours == theirs


def _walk(root):
    """Every node reachable from ``root``, as (name, [child names]) in a deterministic order."""
    out, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        kids = [n for n, _ in node.next_functions]
        out.append((node.name(), [None if k is None else k.name() for k in kids]))
        stack.extend(reversed(kids))
    return out


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_walk_graph_of_mlp_step(lib):
    x, w = _named_inputs(lib)
    b = lib.tensor(np.zeros(2, dtype=np.float32), requires_grad=True)
    loss = ((x * w).sum(1) + b).tanh().mean()
    graph = _walk(loss.grad_fn)
    assert graph == [
        ("MeanBackward0", ["TanhBackward0"]),
        ("TanhBackward0", ["AddBackward0"]),
        ("AddBackward0", ["SumBackward1", "torch::autograd::AccumulateGrad"]),
        ("SumBackward1", ["MulBackward0"]),
        ("MulBackward0", ["torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad"]),
        ("torch::autograd::AccumulateGrad", []),
        ("torch::autograd::AccumulateGrad", []),
        ("torch::autograd::AccumulateGrad", []),
    ]
    acc = loss.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[1][0]
    assert acc.variable is b


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_next_functions_none_for_inputs_without_grad(lib):
    x = _x(lib)
    y = x * lib.ones(2)
    (first, _), (second, _) = y.grad_fn.next_functions
    assert first.name() == "torch::autograd::AccumulateGrad" and second is None


@pytest.mark.parametrize("lib", LIBS, **by_name)
def test_node_hooks(lib):
    x = _x(lib)
    y = x * 3
    seen = []
    y.grad_fn.register_prehook(lambda gout: seen.append(("pre", [g.tolist() for g in gout])))
    y.grad_fn.register_hook(lambda gin, gout: seen.append(("post", [None if g is None else g.tolist() for g in gin])))
    y.sum().backward()
    assert seen == [("pre", [[1.0, 1.0]]), ("post", [[3.0, 3.0], None])]
