"""Higher-order gradients of composites: third derivatives, Hessian-vector products, gradient penalties."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, assert_close, torch

TOL = dict(rtol=1e-10, atol=1e-12)


def _nth_derivatives(lib, fn, x0, n):
    """[f'(x), f''(x), ..., f^(n)(x)] elementwise, by repeated grad with create_graph=True."""
    x = lib.tensor(x0, requires_grad=True)
    y = fn(x)
    out = []
    for _ in range(n):
        (y,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        out.append(y.detach().numpy().copy())
    return out


X0 = np.array([-1.3, -0.4, 0.2, 0.9, 1.7])

# Closed forms make these meaningful without torch.
ANALYTIC = [
    ("sin_exp", lambda x: x.sin() * x.exp(),
     [lambda x: np.exp(x) * (np.sin(x) + np.cos(x)), lambda x: 2 * np.exp(x) * np.cos(x),
      lambda x: 2 * np.exp(x) * (np.cos(x) - np.sin(x))]),
    ("tanh", lambda x: x.tanh(),
     [lambda x: 1 - np.tanh(x) ** 2, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2),
      lambda x: (1 - np.tanh(x) ** 2) * (6 * np.tanh(x) ** 2 - 2)]),
    ("sigmoid", lambda x: x.sigmoid(),
     [lambda x: _s(x) * (1 - _s(x)), lambda x: _s(x) * (1 - _s(x)) * (1 - 2 * _s(x)),
      lambda x: _s(x) * (1 - _s(x)) * (1 - 6 * _s(x) + 6 * _s(x) ** 2)]),
    ("log_of_square", lambda x: (x * x + 1.0).log(),
     [lambda x: 2 * x / (x * x + 1), lambda x: 2 * (1 - x * x) / (x * x + 1) ** 2,
      lambda x: 4 * x * (x * x - 3) / (x * x + 1) ** 3]),
    ("pow_cube", lambda x: x ** 3, [lambda x: 3 * x ** 2, lambda x: 6 * x, lambda x: 6 + 0 * x]),
]


def _s(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize("name,fn,derivs", ANALYTIC, ids=[a[0] for a in ANALYTIC])
def test_nth_derivatives_closed_form(name, fn, derivs):
    got = _nth_derivatives(npgrad, fn, X0, 3)
    for k, (g, d) in enumerate(zip(got, derivs), 1):
        assert_close(g, d(X0), what=f"{name} derivative {k}", rtol=1e-10, atol=1e-10)


if HAS_TORCH:
    @pytest.mark.parametrize("name,fn,derivs", ANALYTIC, ids=[a[0] for a in ANALYTIC])
    def test_nth_derivatives_match_torch(name, fn, derivs):
        ours = _nth_derivatives(npgrad, fn, X0, 4)
        theirs = _nth_derivatives(torch, fn, X0, 4)
        for k, (a, b) in enumerate(zip(ours, theirs), 1):
            assert_close(a, b, what=f"{name} derivative {k}", **TOL)


def test_third_derivative_via_backward_create_graph():
    # backward(create_graph=True) leaves a differentiable .grad: d/dx of it is the next derivative.
    x = npgrad.tensor(X0, requires_grad=True)
    with pytest.warns(UserWarning, match="create a reference cycle between the parameter and its gradient"):
        (x.sin() * x.exp()).sum().backward(create_graph=True)  # PyTorch warns the same
    g1 = x.grad
    assert g1.requires_grad and g1.grad_fn is not None
    (g2,) = npgrad.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = npgrad.autograd.grad(g2.sum(), x)
    assert_close(g3.numpy(), 2 * np.exp(X0) * (np.cos(X0) - np.sin(X0)), rtol=1e-10, atol=1e-10)


# -- a small MLP: Hessian-vector product of its loss ------------------------------------------------------

def _mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 4)) * 0.5, rng.standard_normal(4) * 0.1,
            rng.standard_normal((4, 2)) * 0.5, rng.standard_normal(2) * 0.1]


def _mlp_data(seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((5, 3)), rng.standard_normal((5, 2))


def _mlp_loss(lib, params, x, y):
    w1, b1, w2, b2 = params
    h = (x @ w1 + b1).tanh()
    out = h @ w2 + b2
    return ((out - y) ** 2).mean()


def _hvp(lib, vec_seed=2):
    params = [lib.tensor(p, requires_grad=True) for p in _mlp_params()]
    x, y = (lib.tensor(a) for a in _mlp_data())
    rng = np.random.default_rng(vec_seed)
    vs = [lib.tensor(rng.standard_normal(p.shape)) for p in _mlp_params()]
    loss = _mlp_loss(lib, params, x, y)
    grads = lib.autograd.grad(loss, params, create_graph=True)
    dot = sum((g * v).sum() for g, v in zip(grads, vs))
    hv = lib.autograd.grad(dot, params)
    return [h.detach().numpy() for h in hv], params, vs, x, y


def test_mlp_hvp_matches_finite_differences_of_gradient():
    hv, _, vs, _, _ = _hvp(npgrad)
    # H v = (grad(p + e v) - grad(p - e v)) / 2e, computed with plain first-order backward.
    eps = 1e-6

    def grad_at(sign):
        params = [npgrad.tensor(p + sign * eps * v.numpy(), requires_grad=True)
                  for p, v in zip(_mlp_params(), vs)]
        x, y = (npgrad.tensor(a) for a in _mlp_data())
        _mlp_loss(npgrad, params, x, y).backward()
        return [p.grad.numpy() for p in params]

    plus, minus = grad_at(1.0), grad_at(-1.0)
    for h, a, b in zip(hv, plus, minus):
        assert_close(h, (a - b) / (2 * eps), rtol=1e-6, atol=1e-8, what="HVP vs finite differences")


if HAS_TORCH:
    def test_mlp_hvp_matches_torch():
        ours = _hvp(npgrad)[0]
        theirs = _hvp(torch)[0]
        for a, b in zip(ours, theirs):
            assert_close(a, b, **TOL, what="MLP Hessian-vector product")


# -- WGAN-GP: gradient penalty on interpolates, then backward into the critic's parameters --------------

def _critic_params(seed=4):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 5)) * 0.6, rng.standard_normal(5) * 0.1, rng.standard_normal((5, 1)) * 0.6]


def _gradient_penalty_step(lib):
    w1, b1, w2 = [lib.tensor(p, requires_grad=True) for p in _critic_params()]
    rng = np.random.default_rng(5)
    real, fake = lib.tensor(rng.standard_normal((4, 3))), lib.tensor(rng.standard_normal((4, 3)))
    alpha = lib.tensor(rng.random((4, 1)))

    def critic(x):
        h = x @ w1 + b1
        h = h * h.sigmoid()  # SiLU: smooth, so the penalty's gradient is non-trivial
        return h @ w2

    x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_hat = critic(x_hat)
    (g,) = lib.autograd.grad(d_hat, x_hat, grad_outputs=lib.ones_like(d_hat), create_graph=True)
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10.0 * penalty
    loss.backward()
    return [p.grad.numpy() for p in (w1, b1, w2)], penalty.item()


def test_gradient_penalty_gradients_match_finite_differences():
    grads, _ = _gradient_penalty_step(npgrad)
    assert all(np.abs(g).sum() > 0 for g in grads)

    def loss_at(params):
        w1, b1, w2 = [npgrad.tensor(p, requires_grad=True) for p in params]
        rng = np.random.default_rng(5)
        real, fake = npgrad.tensor(rng.standard_normal((4, 3))), npgrad.tensor(rng.standard_normal((4, 3)))
        alpha = npgrad.tensor(rng.random((4, 1)))

        def critic(x):
            h = x @ w1 + b1
            return (h * h.sigmoid()) @ w2
        x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        (g,) = npgrad.autograd.grad(critic(x_hat).sum(), x_hat)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        return (critic(fake).mean() - critic(real).mean() + 10.0 * penalty).item()

    base = _critic_params()
    eps = 1e-6
    for i, g in enumerate(grads):
        for k in range(0, base[i].size, 3):
            plus = [p.copy() for p in base]
            minus = [p.copy() for p in base]
            plus[i].flat[k] += eps
            minus[i].flat[k] -= eps
            num = (loss_at(plus) - loss_at(minus)) / (2 * eps)
            assert abs(num - g.flat[k]) < 1e-6 * max(1.0, abs(num)), (i, k, num, g.flat[k])


if HAS_TORCH:
    def test_gradient_penalty_matches_torch():
        ours, pen_n = _gradient_penalty_step(npgrad)
        theirs, pen_t = _gradient_penalty_step(torch)
        assert abs(pen_n - pen_t) < 1e-12
        for a, b in zip(ours, theirs):
            assert_close(a, b, **TOL, what="WGAN-GP parameter gradient")


def test_create_graph_float32_keeps_dtype():
    x = npgrad.tensor([0.5, -1.0], requires_grad=True)
    (g,) = npgrad.autograd.grad((x.tanh() * x).sum(), x, create_graph=True)
    (h,) = npgrad.autograd.grad(g.sum(), x)
    assert g.dtype == npgrad.float32 and h.dtype == npgrad.float32


def test_hessian_of_quadratic_form_is_symmetric_matrix():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4))
    A = npgrad.tensor(a)
    x = npgrad.tensor(rng.standard_normal(4), requires_grad=True)
    (g,) = npgrad.autograd.grad(x @ A @ x, x, create_graph=True)
    rows = [npgrad.autograd.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(4)]
    assert_close(np.stack(rows), a + a.T, rtol=1e-12, atol=1e-12)
