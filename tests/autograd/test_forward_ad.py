"""Forward-mode AD (npgrad.autograd.forward_ad): the JVP of every differentiable entry of the op table, the
API's errors against PyTorch's, levels, and how dual tensors meet requires_grad, views and in-place ops.

The table test runs every op-table sample with float64 inputs that need grad (new ops are covered as they
are added): the tangent forward AD computes must equal J t from reverse mode (one vjp row per output
element, or random projections <v, J t> = <J^T v, t> for large outputs) and central finite differences
along t, and equal torch.autograd.forward_ad's (float64 and float32) where PyTorch implements forward AD
for the op.
"""
import numpy as np
import pytest

import npgrad
import npgrad.autograd.forward_ad as fwAD
from npgrad.autograd import _jvp_rules
from opinfo import FD, OP_DB, PARITY
from oracle import HAS_TORCH, assert_close, first_output, make_arrays, scaled_tol, torch, to_numpy


def _diff_inputs(case, arrays):
    return [i for i, (spec, a) in enumerate(zip(case.inputs, arrays)) if spec.grad and a.dtype.kind == "f"]


def _table():
    rows, seen = [], set()
    for op in OP_DB:
        for s in op.samples:
            if not (set(s.checks) & {PARITY, FD}) or np.float64 not in tuple(s.dtypes):
                continue
            if not any(spec.grad for spec in s.inputs):
                continue
            name = s.name if s.name not in seen else f"{op.name}:{s.name}"
            seen.add(name)
            rows.append(pytest.param(s, id=name))
    return rows


CASES = _table()


def _tangents(arrays, idx, dtype, seed=3):
    rng = np.random.default_rng(seed)
    return {i: rng.standard_normal(arrays[i].shape).astype(dtype) for i in idx}


def _forward_ad(lib, fw, case, arrays, tangents):
    with fw.dual_level():
        xs = [lib.tensor(a) for a in arrays]
        for i, t in tangents.items():
            xs[i] = fw.make_dual(xs[i], lib.tensor(t))
        out = first_output(case.fn(lib, *xs))
        primal, tangent = fw.unpack_dual(out)
        return to_numpy(primal), (None if tangent is None else to_numpy(tangent))


def _reverse_jt(case, arrays, tangents, lib=npgrad):
    """J t from reverse mode: one vjp row per output element (random projections beyond 64 elements)."""
    xs = [lib.tensor(a) for a in arrays]
    for i in tangents:
        xs[i].requires_grad_(True)
    out = first_output(case.fn(lib, *xs))
    if not out.requires_grad:
        return None, None
    diff = [xs[i] for i in tangents]
    ts = [tangents[i] for i in tangents]
    n = out.numel()

    def row(v):
        gs = lib.autograd.grad(out, diff, lib.tensor(v), retain_graph=True, allow_unused=True)
        return sum(float(np.sum(to_numpy(g) * t)) for g, t in zip(gs, ts) if g is not None)
    if n <= 64:
        eye = np.eye(n, dtype=to_numpy(out).dtype)
        return np.array([row(eye[k].reshape(out.shape)) for k in range(n)]).reshape(out.shape), None
    rng = np.random.default_rng(5)
    vs = [rng.standard_normal(tuple(out.shape)) for _ in range(8)]
    return None, [(v, row(v.astype(to_numpy(out).dtype))) for v in vs]


def _finite_difference(case, arrays, tangents, eps):
    """sum_i t_i * (f(x + eps e_i) - f(x - eps e_i)) / (2 eps), one coordinate at a time: at a tie (max,
    sort ...) this gives the same even split as reverse mode, where a difference along t would not."""
    def f(xs):
        with npgrad.no_grad():
            return to_numpy(first_output(case.fn(npgrad, *[npgrad.tensor(a) for a in xs]))).astype(np.float64)
    total = 0.0
    for i, t in tangents.items():
        for j in range(arrays[i].size):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i].flat[j] += eps
            minus[i].flat[j] -= eps
            total = total + t.flat[j] * (f(plus) - f(minus)) / (2 * eps)
    return total


@pytest.mark.parametrize("case", CASES)
def test_jvp_matches_reverse_mode_and_finite_differences(case):
    arrays = make_arrays(case, np.float64)
    idx = _diff_inputs(case, arrays)
    tangents = _tangents(arrays, idx, np.float64)
    try:
        primal, jt = _forward_ad(npgrad, fwAD, case, arrays, tangents)
    except NotImplementedError as e:
        # only where the op's backward cannot be differentiated (the fallback needs it), as PyTorch's
        assert "Trying to use forward AD with" in str(e) and "not been implemented" in str(e)
        if HAS_TORCH:
            with pytest.raises(NotImplementedError, match="Trying to use forward AD with"):
                _forward_ad(torch, torch.autograd.forward_ad, case, arrays, tangents)
        return
    rows, projections = _reverse_jt(case, arrays, tangents)
    if rows is None and projections is None:
        assert jt is None, f"{case.name}: a non-differentiable output got a tangent"
        return
    assert jt is not None, f"{case.name}: no tangent"
    assert jt.shape == primal.shape and jt.dtype == primal.dtype
    tol = dict(rtol=1e-10, atol=1e-10 * max(1.0, float(np.max(np.abs(jt), initial=0.0))))
    if rows is not None:
        assert_close(jt, rows, what=f"{case.name}: forward AD vs reverse-mode rows", **tol)
    else:
        for v, expected in projections:
            np.testing.assert_allclose(float(np.sum(v * jt)), expected, rtol=1e-9, atol=1e-9 * np.abs(jt).sum(),
                                       err_msg=f"{case.name}: <v, J t> vs <J^T v, t>")
    if case.fd and FD in case.checks:
        fd = _finite_difference(case, arrays, tangents, case.fd_eps)
        assert_close(jt, fd, rtol=case.fd_tol, atol=case.fd_tol * max(1.0, float(np.max(np.abs(fd), initial=0))),
                     what=f"{case.name}: forward AD vs finite differences")


def _torch_jvp(case, arrays, tangents):
    try:
        primal, tangent = _forward_ad(torch, torch.autograd.forward_ad, case, arrays, tangents)
    except NotImplementedError as e:
        if "forward AD" in str(e):
            return None  # PyTorch has no forward-AD formula for this op: nothing to compare with
        raise
    except RuntimeError as e:
        if "Cannot convert a ZeroTensor" in str(e):
            return "zero"  # PyTorch's zero tangent of an output that is not differentiable (slogdet's sign)
        if "forward gradient" in str(e):
            return None  # PyTorch's forward formula fails on this call (triangular_solve with a batch broadcast)
        raise
    return primal, tangent


def _torch_checks(case, arrays, tangents, jt_t, dtype):
    """Ways to agree with PyTorch: its forward-AD tangent, then its reverse-mode J t (vjp rows, or <v, J t> =
    <J^T v, t>). The two part at ties (PyTorch's forward formula for amax sends the tangent to one of the
    tied elements, its backward splits it; max_unpool of overlapping windows writes one element several
    times, which its backward counts each time), on structured inputs (triangular_solve's and
    cholesky_inverse's forward formulas use the whole tangent, their backward only the triangle), at
    embedding's padding_idx, and where PyTorch drops the tangent (scatter_reduce "prod"). npgrad's forward
    AD is reverse mode's J t throughout, so it must equal one of them."""
    rtol = 1e-5 if dtype is np.float32 else 1e-10
    tol = case.grad_tol or scaled_tol(dtype, *(a.shape for a in arrays))
    rtol = max(tol["rtol"], rtol)

    def close(jt, expected, what):
        scale = max(1.0, float(np.max(np.abs(np.nan_to_num(expected)), initial=0)))
        assert_close(jt, expected, what=f"{case.name}: forward AD vs {what}", rtol=rtol,
                     atol=max(tol["atol"], rtol * scale))
    checks = []
    if jt_t is not None:
        checks.append(lambda jt: close(jt, jt_t, "torch forward AD"))
    rows, projections = _reverse_jt(case, arrays, tangents, torch)
    if rows is not None:
        checks.append(lambda jt: close(jt, rows.astype(jt.dtype), "torch reverse-mode rows"))
    elif projections is not None:
        checks.append(lambda jt: close(np.array([np.sum(v * jt) for v, _ in projections]),
                                       np.array([e for _, e in projections]), "torch <J^T v, t>"))
    return checks


# only the (row, dtype) pairs the row is compared with PyTorch in: the others are no case of this test
TORCH_CASES = [pytest.param(p.values[0], dtype, id=f"{p.id}-{dtype.__name__}") for dtype in (np.float32, np.float64)
               for p in CASES if dtype in tuple(p.values[0].dtypes) and PARITY in p.values[0].checks]


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
@pytest.mark.parametrize("case, dtype", TORCH_CASES)
def test_jvp_matches_torch(case, dtype):
    arrays = make_arrays(case, dtype)
    tangents = _tangents(arrays, _diff_inputs(case, arrays), dtype)
    got = _torch_jvp(case, arrays, tangents)
    if got is None:  # PyTorch has no forward-AD formula for the op: its reverse mode's J t is still the oracle
        try:
            primal, jt = _forward_ad(npgrad, fwAD, case, arrays, tangents)
        except NotImplementedError as e:  # or npgrad refuses as well, as PyTorch words it (ctc_loss in both)
            assert str(e).startswith("Trying to use forward AD with ") and str(e).endswith(
                "that does not support it because it has not been implemented yet."), f"{case.name}: {e}"
            return
        got = (primal, None)
    else:
        primal, jt = _forward_ad(npgrad, fwAD, case, arrays, tangents)
    if got == "zero" and jt is None:
        return  # PyTorch's zero tangent for an output it does not differentiate through (slogdet's sign)
    checks = _torch_checks(case, arrays, tangents, None if got == "zero" else got[1], dtype)
    if not checks:  # not differentiable in PyTorch (slogdet's sign, an index ...)
        assert jt is None or not np.any(jt), f"{case.name}: a tangent where PyTorch has none"
        return
    assert jt is not None, f"{case.name}: no tangent (PyTorch has one)"
    assert jt.dtype == primal.dtype, f"{case.name}: tangent dtype {jt.dtype} != primal dtype {primal.dtype}"
    errors = []
    for check in checks:
        try:
            check(jt)
            return
        except AssertionError as e:
            errors.append(e)
    if errors:
        raise errors[0]


def test_rule_kinds_are_counted():
    """Every Op class resolves to a kind; the linear/multilinear/diagonal tables name existing Ops only."""
    from npgrad import ops
    from npgrad.autograd.function import Op
    ops.load_lazy_families()
    import npgrad.nn.functional  # noqa: F401

    def walk(c):
        for s in c.__subclasses__():
            yield s
            yield from walk(s)
    classes = set(walk(Op))
    names = {c.__name__ for c in classes}
    for table in (_jvp_rules.LINEAR, set(_jvp_rules.MULTILINEAR), _jvp_rules.DIAGONAL):
        assert table <= names, sorted(table - names)
    kinds = {c: _jvp_rules.kind_of(c) for c in classes}
    assert set(kinds.values()) <= {"linear", "multilinear", "diagonal", "add", "sub", "own", "fallback"}
    assert sum(k != "fallback" for k in kinds.values()) > 100


# -- the API against PyTorch's --------------------------------------------------------------------------

def _f64(*values):
    return npgrad.tensor(np.array(values, np.float64))


def _api_errors(lib, fw):
    """(id, call) pairs: each must raise PyTorch's exception with PyTorch's message."""
    x = lib.tensor(np.ones(3))

    def inside(fn):
        def run():
            with fw.dual_level():
                fn()
        return run
    return [
        ("make_dual outside a level", lambda: fw.make_dual(x, x)),
        ("make_dual shape", inside(lambda: fw.make_dual(x, lib.tensor(np.ones(2))))),
        ("make_dual integer tangent", inside(lambda: fw.make_dual(x, lib.tensor(np.ones(3, np.int64))))),
        ("make_dual integer primal", inside(lambda: fw.make_dual(lib.tensor(np.ones(3, np.int64)), x))),
        ("make_dual wrong level", inside(lambda: fw.make_dual(x, x, level=1))),
        ("make_dual level 0 outside", lambda: fw.make_dual(x, x, level=0)),
        ("make_dual twice", inside(lambda: fw.make_dual(fw.make_dual(x, x), x))),
        ("nested levels", inside(lambda: fw.enter_dual_level())),
        ("exit outside a level", lambda: fw.exit_dual_level()),
        ("exit level 0 outside", lambda: fw.exit_dual_level(level=0)),
        ("exit another level", inside(lambda: fw.exit_dual_level(level=3))),
        ("unpack_dual of a number", inside(lambda: fw.unpack_dual(3))),
    ]


_API_IDS = [name for name, _ in _api_errors(npgrad, fwAD)]


@pytest.mark.parametrize("name", _API_IDS)
def test_api_errors(name):
    call = dict(_api_errors(npgrad, fwAD))[name]
    with pytest.raises(Exception) as got:
        call()
    assert fwAD._current[0] is None  # a failed call inside `with` still closes the level
    if HAS_TORCH:
        with pytest.raises(Exception) as expected:
            dict(_api_errors(torch, torch.autograd.forward_ad))[name]()
        assert type(got.value) is type(expected.value)
        assert str(got.value) == str(expected.value)
    else:
        assert isinstance(got.value, (RuntimeError, ValueError, TypeError))


def test_levels_and_unpack():
    x, t = _f64(1.0, 2.0), _f64(0.5, -1.0)
    assert fwAD.unpack_dual(x) == (x, None)  # outside a level: no tangent
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, t)
        assert not d.requires_grad
        u = fwAD.unpack_dual(d)
        assert isinstance(u, fwAD.UnpackedDualTensor) and isinstance(u, tuple)
        assert u.tangent is t and u.primal is not d and np.array_equal(u.primal.numpy(), x.numpy())
        assert fwAD.unpack_dual(u.primal).tangent is None
        assert fwAD.unpack_dual(x).tangent is None  # make_dual leaves its argument alone
        assert fwAD.unpack_dual(d.detach()).tangent is None
        np.testing.assert_array_equal(fwAD.unpack_dual(d.clone()).tangent.numpy(), t.numpy())
        y = d * 3
    assert fwAD.unpack_dual(y).tangent is None  # the level's tangents end with it
    assert fwAD.enter_dual_level() == 0  # a new level after the old one
    fwAD.exit_dual_level(level=0)
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None  # a new level sees none of the old one's tangents

    @fwAD.dual_level()
    def decorated():
        return fwAD.unpack_dual(fwAD.make_dual(x, t) ** 2).tangent
    np.testing.assert_allclose(decorated().numpy(), 2 * x.numpy() * t.numpy())


def test_requires_grad_composition():
    """A dual whose primal requires grad: reverse mode through the primal still works, and the tangent,
    recorded too, can itself be differentiated (d/dx of J t)."""
    x = _f64(0.3, -1.2, 2.0).requires_grad_()
    t = _f64(1.0, 0.5, -2.0)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert d.requires_grad
        y = (d * d).sin().sum()
        primal, tangent = fwAD.unpack_dual(y)
        assert tangent.requires_grad
        (gx,) = npgrad.autograd.grad(tangent, x, retain_graph=True)
        y.backward()
    xs = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2 * xs * np.cos(xs * xs), rtol=1e-12)
    # d/dx sum(2 x t cos(x^2)) = 2 t cos(x^2) - 4 x^2 t sin(x^2)
    expected = 2 * t.numpy() * np.cos(xs ** 2) - 4 * xs ** 2 * t.numpy() * np.sin(xs ** 2)
    np.testing.assert_allclose(gx.numpy(), expected, rtol=1e-12)
    if HAS_TORCH:
        xt = torch.tensor(xs, requires_grad=True)
        with torch.autograd.forward_ad.dual_level():
            dt = torch.autograd.forward_ad.make_dual(xt, torch.tensor(t.numpy()))
            tt = torch.autograd.forward_ad.unpack_dual((dt * dt).sin().sum()).tangent
            np.testing.assert_allclose(torch.autograd.grad(tt, xt)[0].numpy(), gx.numpy(), rtol=1e-12)


def test_no_grad_and_requires_grad_flag():
    x, t = _f64(1.0, 2.0), _f64(1.0, 1.0)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        with npgrad.no_grad():
            y = d.exp() * 2
        assert not y.requires_grad
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), 2 * np.exp(x.numpy()))
        z = d.softmax(0)  # through the double-VJP fallback: no graph is left behind
        assert not z.requires_grad and z.grad_fn is None and not fwAD.unpack_dual(z).tangent.requires_grad
        leaf = fwAD.make_dual(x, t).requires_grad_()  # as PyTorch: a dual may become a leaf needing grad
        (leaf * leaf).sum().backward()
        np.testing.assert_allclose(leaf.grad.numpy(), 2 * x.numpy())


def test_inplace_and_views():
    """In-place ops on duals update the tangent in place; a view's tangent is a view of the base's."""
    with fwAD.dual_level():
        base = fwAD.make_dual(_f64(0.0, 0.0, 0.0, 0.0), _f64(1.0, 1.0, 1.0, 1.0))
        view = base[:2]
        np.testing.assert_array_equal(fwAD.unpack_dual(view).tangent.numpy(), [1.0, 1.0])
        view.mul_(3)
        np.testing.assert_array_equal(fwAD.unpack_dual(base).tangent.numpy(), [3.0, 3.0, 1.0, 1.0])
        base.exp_()
        np.testing.assert_array_equal(fwAD.unpack_dual(base).tangent.numpy(), [3.0, 3.0, 1.0, 1.0])
        base.zero_()
        np.testing.assert_array_equal(fwAD.unpack_dual(base).tangent.numpy(), [0.0] * 4)
        plain = _f64(0.0, 0.0, 0.0, 0.0)  # a plain tensor written through a view gets a tangent
        plain[1:3].add_(fwAD.make_dual(_f64(1.0, 1.0), _f64(5.0, 5.0)))
        np.testing.assert_array_equal(fwAD.unpack_dual(plain).tangent.numpy(), [0.0, 5.0, 5.0, 0.0])
        plain[0] = fwAD.make_dual(_f64(2.0)[0], _f64(7.0)[0])
        np.testing.assert_array_equal(fwAD.unpack_dual(plain).tangent.numpy(), [7.0, 5.0, 5.0, 0.0])
        plain.copy_(_f64(1.0, 2.0, 3.0, 4.0))
        np.testing.assert_array_equal(fwAD.unpack_dual(plain).tangent.numpy(), [0.0] * 4)
        s = fwAD.make_dual(_f64(1.0, 2.0).reshape(1, 2), _f64(3.0, 4.0).reshape(1, 2)).squeeze_(0)
        np.testing.assert_array_equal(fwAD.unpack_dual(s).tangent.numpy(), [3.0, 4.0])
        leaf = _f64(1.0, 2.0).requires_grad_()
        r = fwAD.make_dual(leaf * 1, _f64(1.0, 1.0))
        r.mul_(fwAD.make_dual(_f64(2.0, 3.0), _f64(1.0, -1.0)))  # recorded: r requires grad
        np.testing.assert_array_equal(fwAD.unpack_dual(r).tangent.detach().numpy(), [3.0, 1.0])
        r.sum().backward()
        np.testing.assert_array_equal(leaf.grad.numpy(), [2.0, 3.0])


def test_custom_function_without_jvp_raises():
    class Twice(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    with fwAD.dual_level():
        with pytest.raises(NotImplementedError, match="You must implement the jvp function for custom "
                                                      "autograd.Function to use it with forward mode AD."):
            Twice.apply(fwAD.make_dual(_f64(1.0), _f64(1.0)))
        assert Twice.apply(_f64(1.0)).item() == 2.0  # no dual argument: as usual


def test_outside_a_level_nothing_changes():
    from npgrad.autograd import record
    assert record.DUAL_HOOK == []
    with fwAD.dual_level():
        assert record.DUAL_HOOK
    assert record.DUAL_HOOK == []


# -- torch.func on forward AD ------------------------------------------------------------------------

def _mlp_params(lib):
    rng = np.random.default_rng(7)
    return [lib.tensor(rng.standard_normal(s)) for s in [(5, 4), (5,), (3, 5)]]


def _mlp(lib, params, x):
    w1, b1, w2 = params
    return lib.tanh(x @ w1.T + b1).softmax(-1) @ w2.T


def test_func_jvp_runs_on_dual_tensors():
    seen = []

    def f(x):
        seen.append(fwAD.unpack_dual(x).tangent)
        return x.sin()
    x, t = _f64(0.1, 0.2), _f64(1.0, -1.0)
    out, jt = npgrad.func.jvp(f, (x,), (t,))
    assert seen[0] is t  # func saw the dual itself
    np.testing.assert_allclose(jt.numpy(), np.cos(x.numpy()) * t.numpy(), rtol=1e-15)
    assert not out.requires_grad and not jt.requires_grad and fwAD.unpack_dual(out).tangent is None


def test_func_jacfwd_and_forward_over_reverse_match_torch():
    params = _mlp_params(npgrad)
    x = npgrad.tensor(np.random.default_rng(8).standard_normal(4))
    jac = npgrad.func.jacfwd(lambda v: _mlp(npgrad, params, v))(x)
    np.testing.assert_allclose(jac.numpy(), npgrad.func.jacrev(lambda v: _mlp(npgrad, params, v))(x).numpy(),
                               rtol=1e-12, atol=1e-14)
    t = npgrad.tensor(np.random.default_rng(9).standard_normal(4))

    def loss(lib, v):
        return (_mlp(lib, _mlp_params(lib), v) ** 2).sum()
    _, hvp = npgrad.func.jvp(npgrad.func.grad(lambda v: loss(npgrad, v)), (x,), (t,))  # forward-over-reverse
    hess = npgrad.func.hessian(lambda v: loss(npgrad, v))(x)
    np.testing.assert_allclose(hvp.numpy(), hess.numpy() @ t.numpy(), rtol=1e-10)
    if HAS_TORCH:
        tp = _mlp_params(torch)
        tx, tt = torch.tensor(x.numpy()), torch.tensor(t.numpy())
        np.testing.assert_allclose(jac.numpy(), torch.func.jacfwd(lambda v: _mlp(torch, tp, v))(tx).numpy(),
                                   rtol=1e-10, atol=1e-14)
        _, thvp = torch.func.jvp(torch.func.grad(lambda v: loss(torch, v)), (tx,), (tt,))
        np.testing.assert_allclose(hvp.numpy(), thvp.numpy(), rtol=1e-10)
    # a jvp whose primal requires grad keeps its graph for the caller (grad of a jvp)
    xr = x.clone().requires_grad_()
    _, jt = npgrad.func.jvp(lambda v: (v ** 3).sum(), (xr,), (t,))
    (g,) = npgrad.autograd.grad(jt, xr)
    np.testing.assert_allclose(g.numpy(), 6 * x.numpy() * t.numpy(), rtol=1e-12)
