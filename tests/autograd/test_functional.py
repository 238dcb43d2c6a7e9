"""npgrad.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) against closed forms and torch."""
import numpy as np
import pytest

import npgrad
from npgrad.autograd import functional as AF
from oracle import HAS_TORCH, assert_close, torch

X = np.array([0.3, -0.7, 1.1])
A = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 0.2]])


def _np(t):
    if isinstance(t, tuple):
        return tuple(_np(x) for x in t)
    return t.detach().numpy()


def f_vec(x):  # R^3 -> R^2
    return (x.sin() * x.exp())[:2] * x.sum()


def f_scalar(x):
    return (x.tanh() * x * x).sum() + x[0] * x[2]


def f_two(x, y):  # two inputs, two outputs
    return x * y.sum(), (x.exp() * y).sum()


def test_jacobian_closed_form():
    a = npgrad.tensor(A)
    j = AF.jacobian(lambda x: a @ x.exp(), npgrad.tensor(X))
    assert tuple(j.shape) == (2, 3) and not j.requires_grad
    assert_close(j.numpy(), A * np.exp(X), 1e-12, 0)


def test_hessian_closed_form():
    h = AF.hessian(lambda x: (x ** 3).sum() + x[0] * x[1], npgrad.tensor(X))
    expected = np.diag(6 * X)
    expected[0, 1] = expected[1, 0] = 1.0
    assert_close(h.numpy(), expected, 1e-12, 1e-14)


def test_products_agree_with_matrices():
    x = npgrad.tensor(X)
    v_out = npgrad.tensor(np.array([0.5, -2.0]))
    v_in = npgrad.tensor(np.array([1.0, 0.25, -0.5]))
    J = AF.jacobian(f_vec, x).numpy()
    out, vj = AF.vjp(f_vec, x, v_out)
    assert_close(vj.numpy(), v_out.numpy() @ J, 1e-12, 1e-14)
    out, jv = AF.jvp(f_vec, x, v_in)
    assert_close(jv.numpy(), J @ v_in.numpy(), 1e-12, 1e-14)
    H = AF.hessian(f_scalar, x).numpy()
    _, hv = AF.hvp(f_scalar, x, v_in)
    _, vh = AF.vhp(f_scalar, x, v_in)
    assert_close(hv.numpy(), H @ v_in.numpy(), 1e-12, 1e-14)
    assert_close(vh.numpy(), v_in.numpy() @ H, 1e-12, 1e-14)


def test_caller_graph_untouched_and_create_graph():
    x = npgrad.tensor(X, requires_grad=True)
    _, g = AF.vjp(lambda t: (t * t).sum(), x)
    assert not g.requires_grad and x.grad is None
    _, g = AF.vjp(lambda t: (t * t * t).sum(), x, create_graph=True)
    assert g.requires_grad
    g.sum().backward()  # d/dx sum(3x^2) = 6x
    assert_close(x.grad.numpy(), 6 * X, 1e-12, 0)


def test_independent_output_zero_or_strict_error():
    x = npgrad.tensor(X)
    y = npgrad.tensor(X)
    jx, jy = AF.jacobian(lambda a, b: a * 2, (x, y))
    assert np.all(jy.numpy() == 0)
    with pytest.raises(RuntimeError):
        AF.jacobian(lambda a, b: a * 2, (x, y), strict=True)


def test_v_required_for_non_scalar():
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        AF.vjp(f_vec, npgrad.tensor(X))


if HAS_TORCH:
    import torch.autograd.functional as TF

    def _both(fn_name, func, inputs, *rest, **kw):
        def conv(lib, a):
            return tuple(lib.tensor(x) for x in a) if isinstance(a, tuple) else lib.tensor(a)
        ours = getattr(AF, fn_name)(func, conv(npgrad, inputs), *[conv(npgrad, r) for r in rest], **kw)
        theirs = getattr(TF, fn_name)(func, conv(torch, inputs), *[conv(torch, r) for r in rest], **kw)
        return _np(ours), _np(theirs)

    def _assert_tree_close(a, b):
        if isinstance(b, tuple):
            assert isinstance(a, tuple) and len(a) == len(b)
            for x, y in zip(a, b):
                _assert_tree_close(x, y)
        else:
            assert_close(a, b, 1e-12, 1e-14)

    Y = np.array([0.4, 0.9, -0.2])

    @pytest.mark.parametrize("fn_name,func,inputs,rest", [
        ("jacobian", f_vec, X, ()),
        ("jacobian", f_two, (X, Y), ()),
        ("hessian", f_scalar, X, ()),
        ("hessian", lambda x, y: (x * y.exp() * x).sum(), (X, Y), ()),
        ("vjp", f_vec, X, (np.array([0.5, -2.0]),)),
        ("vjp", f_two, (X, Y), ((np.array([1.0, 2.0, 3.0]), np.array(0.5)),)),
        ("jvp", f_vec, X, (np.array([1.0, 0.25, -0.5]),)),
        ("jvp", f_two, (X, Y), ((np.array([1.0, 0.0, 2.0]), np.array([0.5, 0.5, -1.0])),)),
        ("hvp", f_scalar, X, (np.array([1.0, 0.25, -0.5]),)),
        ("vhp", f_scalar, X, (np.array([1.0, 0.25, -0.5]),)),
        ("hvp", lambda x, y: (x * y.exp() * x).sum(), (X, Y), ((Y, X),)),
    ])
    def test_matches_torch(fn_name, func, inputs, rest):
        ours, theirs = _both(fn_name, func, inputs, *rest)
        _assert_tree_close(ours, theirs)
