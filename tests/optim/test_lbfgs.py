"""LBFGS, with and without the strong-Wolfe line search, follows PyTorch's iterates."""
import inspect

import numpy as np
import pytest

import npgrad
from _optim_harness import to_npgrad
from oracle import HAS_TORCH, torch
from npgrad.optim._line_search import cubic_minimizer, strong_wolfe


def _problem(lib, dtype, seed=0):
    rng = np.random.default_rng(seed)
    X, Y = lib.tensor(rng.normal(size=(20, 3)).astype(dtype)), lib.tensor(rng.normal(size=(20, 1)).astype(dtype))
    params = [lib.tensor(rng.normal(size=(3, 1)).astype(dtype), requires_grad=True),
              lib.tensor(np.zeros(1, dtype), requires_grad=True),
              lib.tensor(np.array([1.5, -0.5], dtype), requires_grad=True)]
    w, b, z = params

    def loss():  # least squares plus a Rosenbrock valley and a quartic: curved, not quadratic
        return (((X @ w + b - Y) ** 2).mean() + (1 - z[0]) ** 2 + 5 * (z[1] - z[0] ** 2) ** 2
                + 0.1 * (w ** 4).sum())
    return params, loss


def _run(lib, dtype, kw, steps, opt_state=None):
    params, loss_fn = _problem(lib, dtype)
    opt = lib.optim.LBFGS(params, **kw)

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss
    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return losses, [p.detach().numpy().copy() for p in params], opt


CONFIGS = [dict(), dict(line_search_fn="strong_wolfe"), dict(history_size=3, max_iter=7, lr=0.5),
           dict(line_search_fn="strong_wolfe", history_size=2, max_iter=30), dict(max_iter=4, max_eval=6, lr=0.3),
           dict(line_search_fn="strong_wolfe", tolerance_grad=1e-3, tolerance_change=1e-4),
           dict(line_search_fn="strong_wolfe", max_eval=9)]
# One pair of history converges slowly along a flat direction; past a few steps the iterates there are
# ill-conditioned (a 1e-16 change in a gradient moves them by 1e-6), so compare the first steps only.
SLOW = dict(history_size=1, max_iter=10, lr=0.8)


def test_cubic_minimizer_is_exact_on_a_cubic():
    f = lambda x: x ** 3 - 3 * x  # noqa: E731  minimum at x = 1
    df = lambda x: 3 * x ** 2 - 3  # noqa: E731
    assert cubic_minimizer(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0)) == pytest.approx(1.0, rel=1e-14)
    assert cubic_minimizer(2.0, f(2.0), df(2.0), 0.0, f(0.0), df(0.0)) == pytest.approx(1.0, rel=1e-14)
    assert cubic_minimizer(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0), bounds=(1.5, 3.0)) == 1.5
    # no real stationary point: the middle of the bounds
    assert cubic_minimizer(0.0, 0.0, 2.0, 1.0, 1.5, 2.0) == 0.5


def test_strong_wolfe_conditions_hold():
    a = np.array([1.0, 10.0])
    x0 = np.array([1.0, 1.0])
    fg = lambda x: (0.5 * float(a @ x ** 2), a * x)  # noqa: E731
    f0, g0 = fg(x0)
    d = -g0
    f, g, t, evals = strong_wolfe(lambda t: fg(x0 + t * d), 1.0, d, f0, g0, g0 @ d)
    assert f <= f0 + 1e-4 * t * (g0 @ d) and abs(g @ d) <= 0.9 * abs(g0 @ d)
    assert f == fg(x0 + t * d)[0] and evals >= 1


def test_converges_on_a_quadratic_without_torch():
    rng = np.random.default_rng(1)
    m = rng.normal(size=(4, 4))
    A, b = m @ m.T + 4 * np.eye(4), rng.normal(size=4)
    x = npgrad.tensor(np.zeros(4), requires_grad=True)
    At, bt = npgrad.tensor(A), npgrad.tensor(b)
    opt = npgrad.optim.LBFGS([x], line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=0)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (At @ x)) - bt @ x
        loss.backward()
        return loss
    first = float(opt.step(closure))
    assert first == 0.0
    np.testing.assert_allclose(x._data, np.linalg.solve(A, b), rtol=1e-9)


def test_first_iteration_without_line_search():
    # one iteration: x1 = x0 - min(1, 1/|g|_1) lr g
    x = npgrad.tensor(np.array([3.0, -1.0]), requires_grad=True)
    opt = npgrad.optim.LBFGS([x], lr=0.5, max_iter=1)

    def closure():
        opt.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        return loss
    assert float(opt.step(closure)) == 10.0
    g = np.array([6.0, -2.0])
    np.testing.assert_allclose(x._data, np.array([3.0, -1.0]) - 0.5 / 8 * g, rtol=1e-15)
    st = opt.state[x]
    assert st["n_iter"] == 1 and st["func_evals"] == 1 and isinstance(st["d"], npgrad.Tensor)


def test_errors():
    a = npgrad.tensor([1.0], requires_grad=True)
    b = npgrad.tensor([2.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
        npgrad.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        npgrad.optim.LBFGS([a], lr=-1)
    opt = npgrad.optim.LBFGS([a], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (a ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_state_dict_resume_equals_uninterrupted(tmp_path):
    kw = dict(line_search_fn="strong_wolfe", history_size=3, max_iter=3)
    _, straight, _ = _run(npgrad, np.float64, kw, 4)
    params, loss_fn = _problem(npgrad, np.float64)
    opt = npgrad.optim.LBFGS(params, **kw)

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss
    for _ in range(2):
        opt.step(closure)
    npgrad.save(opt.state_dict(), tmp_path / "lbfgs.pt")
    opt2 = npgrad.optim.LBFGS(params, **kw)
    opt2.load_state_dict(npgrad.load(tmp_path / "lbfgs.pt"))
    opt = opt2
    for _ in range(2):
        opt2.step(closure)
    for a, b in zip(straight, params):
        np.testing.assert_array_equal(a, b._data)


if HAS_TORCH:
    @pytest.mark.parametrize("kw", CONFIGS + [SLOW], ids=[str(k) for k in CONFIGS + [SLOW]])
    def test_matches_torch_float64(kw):
        steps = 3 if kw is SLOW else 20
        ours, pa, opt = _run(npgrad, np.float64, kw, steps)
        theirs, pb, topt = _run(torch, np.float64, kw, steps)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)
        for a, b in zip(pa, pb):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        st, tst = opt.state[opt._params[0]], topt.state[topt._params[0]]
        assert sorted(st) == sorted(tst)
        assert st["func_evals"] == tst["func_evals"] and st["n_iter"] == tst["n_iter"]
        assert len(st["old_dirs"]) == len(tst["old_dirs"])

    @pytest.mark.parametrize("kw", CONFIGS[:4], ids=[str(k) for k in CONFIGS[:4]])
    def test_matches_torch_float32(kw):
        # Two steps, before the iterates reach the float32 noise floor where termination tests (and so the
        # number of inner iterations) depend on the last bit of each library's loss.
        kw = {**kw, "max_iter": min(kw.get("max_iter", 20), 4)}
        ours, pa, _ = _run(npgrad, np.float32, kw, 2)
        theirs, pb, _ = _run(torch, np.float32, kw, 2)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)
        for a, b in zip(pa, pb):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    def test_tensor_lr_matches_torch():
        kw = dict(line_search_fn=None, max_iter=5)
        _, pa, _ = _run(npgrad, np.float64, {**kw, "lr": npgrad.tensor(0.7)}, 5)
        _, pb, _ = _run(torch, np.float64, {**kw, "lr": torch.tensor(0.7)}, 5)
        for a, b in zip(pa, pb):
            np.testing.assert_allclose(a, b, rtol=1e-10)

    def test_continues_from_torch_state_dict():
        kw = dict(line_search_fn="strong_wolfe", history_size=4, max_iter=3)
        _, theirs, _ = _run(torch, np.float64, kw, 4)
        tparams, tloss = _problem(torch, np.float64)
        topt = torch.optim.LBFGS(tparams, **kw)

        def tclosure():
            topt.zero_grad()
            loss = tloss()
            loss.backward()
            return loss
        for _ in range(2):
            topt.step(tclosure)
        params, loss_fn = _problem(npgrad, np.float64)
        for p, tp in zip(params, tparams):
            p._data[...] = tp.detach().numpy()
        opt = npgrad.optim.LBFGS(params, **kw)
        opt.load_state_dict(to_npgrad(topt.state_dict()))

        def closure():
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss
        for _ in range(2):
            opt.step(closure)
        for a, b in zip(params, theirs):
            np.testing.assert_allclose(a._data, b, rtol=1e-10, atol=1e-12)

    def test_signature_and_state_dict_layout_match_torch():
        sig, tsig = inspect.signature(npgrad.optim.LBFGS.__init__), inspect.signature(torch.optim.LBFGS.__init__)
        assert [(p.name, p.default) for p in sig.parameters.values()] == \
            [(p.name, p.default) for p in tsig.parameters.values()]
        kw = dict(line_search_fn="strong_wolfe", history_size=3, max_iter=3)
        _, _, opt = _run(npgrad, np.float32, kw, 2)
        _, _, topt = _run(torch, np.float32, kw, 2)
        sd, tsd = opt.state_dict(), topt.state_dict()
        assert sd["param_groups"] == tsd["param_groups"]
        st, tst = sd["state"][0], tsd["state"][0]
        for k in tst:
            assert type(st[k]).__name__ == type(tst[k]).__name__, k
            if isinstance(tst[k], list):
                assert [type(v).__name__ for v in st[k]] == [type(v).__name__ for v in tst[k]], k
