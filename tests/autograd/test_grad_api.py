"""autograd.grad and autograd.backward: PyTorch's semantics and errors."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch
from _errors import same_error


def _x(lib, values=(1.0, 2.0, 3.0)):
    return lib.tensor(list(values), requires_grad=True)


def test_grad_single_and_sequence_inputs():
    x, w = _x(npgrad), _x(npgrad, (0.5, -1.0, 2.0))
    y = (x * w).sum()
    gx = npgrad.autograd.grad(y, x, retain_graph=True)
    assert isinstance(gx, tuple) and len(gx) == 1
    assert_close(gx[0].numpy(), w.detach().numpy(), 0, 0)
    gx, gw = npgrad.autograd.grad([y], [x, w])
    assert_close(gw.numpy(), x.detach().numpy(), 0, 0)
    assert x.grad is None and w.grad is None  # grad() never touches .grad


def test_grad_multiple_outputs_sum_their_contributions():
    x = _x(npgrad)
    a, b = (x * 2).sum(), (x * x).sum()
    (g,) = npgrad.autograd.grad([a, b], x)
    assert_close(g.numpy(), 2 + 2 * x.detach().numpy(), 0, 0)


def test_grad_outputs_weight_each_output():
    x = _x(npgrad)
    v = npgrad.tensor([1.0, 0.0, -2.0])
    (g,) = npgrad.autograd.grad(x * x, x, v)
    assert_close(g.numpy(), v.numpy() * 2 * x.detach().numpy(), 0, 0)
    # None is allowed for a scalar output, mixed with explicit ones.
    (g,) = npgrad.autograd.grad([(x * 2).sum(), (x * 3).sum()], x, [None, npgrad.tensor(2.0)])
    assert_close(g.numpy(), np.full(3, 8.0), 0, 0)


def test_grad_with_respect_to_non_leaf():
    x = _x(npgrad)
    a = x * 2
    b = (a * a).sum()
    ga, gx = npgrad.autograd.grad(b, [a, x])
    assert_close(ga.numpy(), 2 * a.detach().numpy(), 0, 0)
    assert_close(gx.numpy(), 8 * x.detach().numpy(), 0, 0)


def test_grad_of_multi_output_node_output():
    x = npgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    top, bottom = x.unbind(0)
    (g,) = npgrad.autograd.grad((top * bottom).sum(), top)
    assert_close(g.numpy(), np.array([3.0, 4.0]), 0, 0)


def test_allow_unused_and_materialize():
    x, w = _x(npgrad), _x(npgrad)
    y = (x * 2).sum()
    gx, gw = npgrad.autograd.grad(y, [x, w], allow_unused=True, retain_graph=True)
    assert gw is None
    gx, gw = npgrad.autograd.grad(y, [x, w], materialize_grads=True)
    assert_close(gw.numpy(), np.zeros(3), 0, 0)


def test_unused_input_error():
    def f(lib):
        x, w = _x(lib), _x(lib)
        lib.autograd.grad((x * 2).sum(), [x, w])
    same_error(f, RuntimeError, "The differentiated Tensor at index 1 appears to not have been used in the graph. "
                                "Set allow_unused=True if this is the desired behavior.")


def test_materialize_with_allow_unused_false_error():
    def f(lib):
        x = _x(lib)
        lib.autograd.grad((x * 2).sum(), x, materialize_grads=True, allow_unused=False)
    same_error(f, ValueError, "Expected allow_unused to be True or not passed when materialize_grads=True")


def test_input_not_requiring_grad_error():
    def f(lib):
        x = _x(lib)
        lib.autograd.grad((x * 2).sum(), [x, lib.tensor([1.0])])
    same_error(f, RuntimeError, "One of the differentiated Tensors does not require grad")


def test_output_not_requiring_grad_error():
    def f(lib):
        x = _x(lib)
        lib.autograd.grad([(x * 2).sum(), lib.tensor(1.0)], x)
    same_error(f, RuntimeError, "element 1 of tensors does not require grad and does not have a grad_fn")


def test_empty_inputs_errors():
    def grad_empty(lib):
        lib.autograd.grad((_x(lib) * 2).sum(), [])
    same_error(grad_empty, RuntimeError, "`inputs` argument to `grad()` cannot be empty.")

    def backward_empty(lib):
        (_x(lib) * 2).sum().backward(inputs=[])
    same_error(backward_empty, RuntimeError, "`inputs` argument to `backward()` cannot be empty.")


def test_non_tensor_input_error():
    def f(lib):
        lib.autograd.grad((_x(lib) * 2).sum(), [1.0])
    same_error(f, RuntimeError, "all inputs have to be Tensors or GradientEdges, but got float")


def test_implicit_grad_for_non_scalar_error():
    same_error(lambda lib: (_x(lib) * 2).backward(), RuntimeError,
               "grad can be implicitly created only for scalar outputs")
    same_error(lambda lib: lib.autograd.grad(_x(lib) * 2, _x(lib), allow_unused=True), RuntimeError,
               "grad can be implicitly created only for scalar outputs")


def test_backward_on_tensor_without_grad_error():
    same_error(lambda lib: (lib.tensor([1.0, 2.0]) * 2).sum().backward(), RuntimeError,
               "element 0 of tensors does not require grad and does not have a grad_fn")


def test_grad_output_shape_mismatch_error():
    def f(lib):
        x = _x(lib)
        (x * 2).backward(lib.ones(4))
    same_error(f, RuntimeError, "Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] "
                                "has a shape of torch.Size([3]).")


def test_freed_graph_error():
    def f(lib):
        x = _x(lib)
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()
    same_error(f, RuntimeError, "Trying to backward through the graph a second time")

    def g(lib):
        x = _x(lib)
        y = (x * x).sum()
        lib.autograd.grad(y, x)
        lib.autograd.grad(y, x)
    same_error(g, RuntimeError, "Trying to backward through the graph a second time")


def test_retain_graph_allows_second_backward_and_accumulates():
    x = _x(npgrad)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad.numpy(), 4 * x.detach().numpy(), 0, 0)


def test_backward_inputs_restricts_accumulation():
    x, w = _x(npgrad), _x(npgrad, (3.0, 4.0, 5.0))
    y = (x * w).sum()
    y.backward(inputs=[x], retain_graph=True)
    assert w.grad is None
    assert_close(x.grad.numpy(), w.detach().numpy(), 0, 0)
    y.backward(inputs=x)  # a single tensor works too, and accumulates
    assert_close(x.grad.numpy(), 2 * w.detach().numpy(), 0, 0)


def test_backward_inputs_non_leaf_gets_grad():
    x = _x(npgrad)
    a = x * 2
    (a * a).sum().backward(inputs=[a])
    assert_close(a.grad.numpy(), 2 * a.detach().numpy(), 0, 0)
    assert x.grad is None


def test_backward_inputs_leaf_runs_hooks():
    x = _x(npgrad)
    seen = []
    x.register_hook(lambda g: g * 2)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward(inputs=[x])
    assert x.grad.tolist() == [6.0, 6.0, 6.0] and seen == [[6.0, 6.0, 6.0]]


def test_autograd_backward_function_multiple_roots():
    x = _x(npgrad)
    a, b = x * 2, x * x
    npgrad.autograd.backward([a, b], [npgrad.ones(3), npgrad.tensor([1.0, 0.0, 1.0])])
    assert_close(x.grad.numpy(), 2 + np.array([1.0, 0.0, 1.0]) * 2 * x.detach().numpy(), 0, 0)


def test_grad_dict_inputs():
    x, w = _x(npgrad), _x(npgrad)
    out = npgrad.autograd.grad((x * w * 3).sum(), {"x": x, "w": w})
    assert set(out) == {"x", "w"}
    assert_close(out["x"].numpy(), 3 * w.detach().numpy(), 0, 0)


def test_retain_grad_populated_by_autograd_grad():
    x = _x(npgrad)
    y = x * 2
    y.retain_grad()
    npgrad.autograd.grad((y * y).sum(), x)
    assert_close(y.grad.numpy(), 2 * y.detach().numpy(), 0, 0)
    assert x.grad is None


def test_grad_of_intermediate_only_runs_needed_part():
    # Nodes below the requested input do not run: their saved values survive (no retain_graph needed
    # for a later backward through them).
    x = _x(npgrad)
    a = x.exp()
    b = (a * a).sum()
    npgrad.autograd.grad(b, a)
    (gx,) = npgrad.autograd.grad(a.sum(), x)
    assert_close(gx.numpy(), np.exp(x.detach().numpy()), 1e-12, 0)


if HAS_TORCH:
    def test_grad_api_matches_torch_on_shared_subgraph():
        def run(lib):
            x = lib.tensor(np.array([0.3, -0.2, 0.9]), requires_grad=True)
            w = lib.tensor(np.array([1.5, 0.5, -1.0]), requires_grad=True)
            h = (x * w).tanh()
            outs = [h.sum(), (h * h * x).sum()]
            gs = lib.autograd.grad(outs, [x, w, h], [lib.tensor(1.0, dtype=lib.float64),
                                                     lib.tensor(np.array(-2.0))])
            return [g.detach().numpy() for g in gs]
        for a, b in zip(run(npgrad), run(torch)):
            assert_close(a, b, 1e-12, 1e-14)
