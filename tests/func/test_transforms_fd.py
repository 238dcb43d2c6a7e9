"""npgrad.func against finite differences and NumPy, without PyTorch: grad / jacrev / jacfwd / jvp / vjp /
hessian of functions whose NumPy twin is differentiated numerically, and vmap against a Python loop."""
import numpy as np
import pytest

import npgrad
from npgrad import func as F
from _funcs import B, X, Y, fd_jacobian, np_of

pytestmark = pytest.mark.filterwarnings("ignore:npgrad runs torch.func.vmap as a Python loop")
TOL = dict(rtol=1e-6, atol=1e-7)


def f_np(x):
    return np.tanh(x) * np.sin(x).sum()


def f_ng(x):
    return npgrad.tanh(x) * npgrad.sin(x).sum()


def s_np(x):
    return (np.exp(x) * x[::-1]).sum() + (x ** 3).sum()


def s_ng(x):
    return (npgrad.exp(x) * npgrad.flip(x, [0])).sum() + (x ** 3).sum()


def t(a):
    return npgrad.tensor(np.asarray(a, dtype=np.float64))


def test_grad_matches_finite_differences():
    np.testing.assert_allclose(np_of(F.grad(s_ng)(t(X))), fd_jacobian(s_np, X), **TOL)


def test_jacrev_and_jacfwd_match_finite_differences():
    expected = fd_jacobian(f_np, X)
    np.testing.assert_allclose(np_of(F.jacrev(f_ng)(t(X))), expected, **TOL)
    np.testing.assert_allclose(np_of(F.jacfwd(f_ng)(t(X))), expected, **TOL)


def test_jvp_and_vjp_are_products_with_the_jacobian():
    jac = fd_jacobian(f_np, X)
    out, tangent = F.jvp(f_ng, (t(X),), (t(Y),))
    np.testing.assert_allclose(np_of(out), f_np(X), rtol=1e-12)
    np.testing.assert_allclose(np_of(tangent), jac @ Y, **TOL)
    _, fn = F.vjp(f_ng, t(X))
    np.testing.assert_allclose(np_of(fn(t(Y))[0]), Y @ jac, **TOL)


def test_hessian_and_grad_of_grad_match_finite_differences():
    hess = fd_jacobian(lambda x: fd_jacobian(s_np, x, 1e-5), X, 1e-5)
    np.testing.assert_allclose(np_of(F.hessian(s_ng)(t(X))), hess, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np_of(F.jacrev(F.grad(s_ng))(t(X))), hess, rtol=1e-5, atol=1e-5)
    # d/dx sum(grad(s)(x)) is the row sums of the Hessian
    np.testing.assert_allclose(np_of(F.grad(lambda x: F.grad(s_ng)(x).sum())(t(X))), hess.sum(0),
                               rtol=1e-5, atol=1e-5)


def test_third_derivative_of_a_polynomial():
    # d^3/dx^3 of x^4 summed is 24 x
    g3 = F.grad(lambda x: F.grad(lambda z: F.grad(lambda w: (w ** 4).sum())(z).sum())(x).sum())(t(X))
    np.testing.assert_allclose(np_of(g3), 24 * X, rtol=1e-12)


def test_vmap_is_the_loop_stacked():
    np.testing.assert_allclose(np_of(F.vmap(f_ng)(t(B))), np.stack([f_np(b) for b in B]), rtol=1e-12)
    np.testing.assert_allclose(np_of(F.vmap(f_ng, in_dims=1, out_dims=1)(t(B))),
                               np.stack([f_np(b) for b in B.T], 1), rtol=1e-12)
    per_row = F.vmap(F.grad(s_ng))(t(B))
    np.testing.assert_allclose(np_of(per_row), np.stack([fd_jacobian(s_np, b) for b in B]), **TOL)


def test_gradient_flows_through_vmap_to_the_batched_input():
    b = t(B).requires_grad_()
    F.vmap(lambda r: (r ** 2).sum())(b).sum().backward()
    np.testing.assert_allclose(np_of(b.grad), 2 * B, rtol=1e-12)


def test_jvp_strict_raises_for_a_constant_function():
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        F.jvp(lambda x: npgrad.ones(3), (t(X),), (t(Y),), strict=True)
    out, tangent = F.jvp(lambda x: npgrad.ones(3), (t(X),), (t(Y),))
    np.testing.assert_array_equal(np_of(tangent), np.zeros(3))


def test_unused_input_gets_zero_gradient():
    g = F.grad(lambda x, y: (x ** 2).sum(), argnums=(0, 1))(t(X), t(Y))
    np.testing.assert_array_equal(np_of(g[1]), np.zeros(3))
