"""npgrad.kernels (the [kernels] extra) against the NumPy path it replaces: values and gradients within float32
rounding, the same NaN/inf/-0.0 results, the same bits for any thread count, the fallbacks (float16, empty,
strided, switched off, numba missing), and the accuracy of the vectorised exp/GELU polynomials in ulps."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import npgrad
from npgrad import _parallel, _runtime
from npgrad.nn import functional as F

numba = pytest.importorskip("numba", reason="the compiled kernels need numba (pip install npgrad[kernels])")

from npgrad import kernels  # noqa: E402
from npgrad.kernels import gelu as kgelu, _vecmath  # noqa: E402

RNG = np.random.default_rng(7)


@pytest.fixture
def switch(monkeypatch):
    """switch(on): the compiled kernels on or off for what follows (restored after the test)."""
    def set_(on):
        monkeypatch.setattr(npgrad.backends.kernels, "enabled", on)
    set_(True)  # (on even where NPGRAD_KERNELS=0 turned them off for the run)
    assert kernels.ready(), kernels.status()
    yield set_
    # a kernel that failed to compile would have turned them off for good (and every comparison trivial)
    assert npgrad.kernels._jit._state["numba"], kernels.status()


def _leaves(arrays):
    return [npgrad.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]


def _run(fn, arrays, up_seed=0):
    """fn's output and the float inputs' gradients (backward from a fixed random upstream gradient)."""
    ts = _leaves(arrays)
    y = fn(*ts)
    up = np.random.default_rng(up_seed).standard_normal(y.shape).astype(y.detach().numpy().dtype)
    y.backward(npgrad.tensor(up))
    return [y.detach().numpy().copy()] + [t.grad.numpy().copy() for t in ts if t.requires_grad]


def _w(n, dt):
    return (RNG.standard_normal(n) * 0.5 + 1).astype(dt)


MASK = RNG.standard_normal((3, 9, 9))
# (name, fn, inputs(dt)) — each op the kernels cover, at a shape that fits them
CASES = [
    ("gelu", lambda x: F.gelu(x), lambda dt: [RNG.standard_normal((33, 70)).astype(dt) * 4]),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), lambda dt: [RNG.standard_normal((33, 70)).astype(dt) * 4]),
    ("silu", F.silu, lambda dt: [RNG.standard_normal((33, 70)).astype(dt) * 4]),
    ("softmax", lambda x: F.softmax(x, -1), lambda dt: [RNG.standard_normal((5, 6, 37)).astype(dt) * 5]),
    ("log_softmax", lambda x: F.log_softmax(x, -1), lambda dt: [RNG.standard_normal((5, 6, 37)).astype(dt) * 5]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (40,), w, b),
     lambda dt: [RNG.standard_normal((7, 9, 40)).astype(dt) * 3 + 2, _w(40, dt), _w(40, dt)]),
    ("layer_norm_plain", lambda x: F.layer_norm(x, (40,)), lambda dt: [RNG.standard_normal((9, 40)).astype(dt)]),
    # (normalizations over the last axis with per-channel weights: the kernels must leave them to NumPy)
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b),
     lambda dt: [RNG.standard_normal((4, 6, 5)).astype(dt), _w(6, dt), _w(6, dt)]),
    ("instance_norm", lambda x, w: F.instance_norm(x, weight=w, bias=w.detach()),
     lambda dt: [RNG.standard_normal((4, 6, 5)).astype(dt), _w(6, dt)]),
    ("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
     lambda dt: [RNG.standard_normal((5, 6, 7, 9)).astype(dt) * 3 + 2, _w(6, dt), _w(6, dt)]),
    ("batch_norm_plain", lambda x: F.batch_norm(x, None, None, training=True, eps=1e-3),
     lambda dt: [RNG.standard_normal((4, 3, 11)).astype(dt)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, (40,), w),
     lambda dt: [RNG.standard_normal((9, 40)).astype(dt), _w(40, dt)]),
    ("cross_entropy", lambda x: F.cross_entropy(x, npgrad.tensor(np.array([3, 0, -100, 9, 9, 1]))),
     lambda dt: [RNG.standard_normal((6, 10)).astype(dt) * 3]),
    ("cross_entropy_smooth", lambda x: F.cross_entropy(x, npgrad.tensor(np.array([3, 0, 2, 9, 9, 1])),
                                                       label_smoothing=0.1, reduction="sum"),
     lambda dt: [RNG.standard_normal((6, 10)).astype(dt) * 3]),
    ("linear", lambda x, w, b: F.linear(x, w, b),
     lambda dt: [RNG.standard_normal((4, 5, 12)).astype(dt), RNG.standard_normal((7, 12)).astype(dt), _w(7, dt)]),
    # (8400 outputs: from linear's _BIAS_KERNEL_MIN the bias add is the compiled one, below it NumPy's)
    ("linear_wide", lambda x, w, b: F.linear(x, w, b),
     lambda dt: [RNG.standard_normal((4, 30, 12)).astype(dt), RNG.standard_normal((70, 12)).astype(dt), _w(70, dt)]),
    ("sdpa_causal", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
     lambda dt: [RNG.standard_normal((2, 3, 9, 8)).astype(dt) for _ in range(3)]),
    ("sdpa_bool_mask", lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=npgrad.tensor(np.tril(np.ones((9, 11), bool), 2))),
     lambda dt: [RNG.standard_normal((2, 3, 9, 8)).astype(dt)] + [RNG.standard_normal((2, 3, 11, 8)).astype(dt)] * 2),
    ("sdpa_float_mask", lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=npgrad.tensor(MASK.astype(q.detach().numpy().dtype)), scale=0.3),
     lambda dt: [RNG.standard_normal((2, 3, 9, 8)).astype(dt) for _ in range(3)]),
]
# float32: the kernels' roundings differ from NumPy's chain of ufuncs (FMA, float64 row sums, exp32's < 1 ulp):
# a few ulps of the largest value involved. float64: libm's erfc/exp against npgrad's own float64 series.
TOL = {np.float32: dict(rtol=2e-6, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
def test_kernel_matches_the_numpy_path(switch, name, fn, make, dt):
    arrays = make(dt)
    switch(False)
    ref = _run(fn, arrays)
    exact = _run(fn, [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays])
    switch(True)
    got = _run(fn, arrays)
    for g, r, e in zip(got, ref, exact):
        assert g.dtype == r.dtype and g.shape == r.shape
        # within rounding of the NumPy path, or closer to the float64 result than it is (tanh GELU's tail, where
        # the NumPy formula's 1 + tanh(u) cancels)
        close = np.isclose(g, r, **TOL[dt]) | (np.abs(g - e) <= np.abs(r - e))
        assert close.all(), (g[~close], r[~close], e[~close])


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 30.0, -30.0, 100.0, -100.0, 1.0], np.float32)


@pytest.mark.parametrize("name,fn", [
    ("gelu", F.gelu), ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh")), ("silu", F.silu),
    ("softmax", lambda x: F.softmax(x, -1)), ("log_softmax", lambda x: F.log_softmax(x, -1)),
    ("layer_norm", lambda x: F.layer_norm(x, (12,))),
    ("batch_norm", lambda x: F.batch_norm(x.reshape(1, 3, 12), None, None, training=True).reshape(3, 12))])
def test_special_values_as_the_numpy_path(switch, name, fn):
    """NaN where NumPy gives NaN, the same infinities and signed zeros (rows: one with each special, one clean)."""
    rows = [SPECIAL, np.where(np.isfinite(SPECIAL), SPECIAL, 2.0).astype(np.float32), np.full(12, -np.inf, np.float32)]
    x = np.stack(rows)
    switch(False)
    with np.errstate(all="ignore"):
        ref = _run(fn, [x])
        exact = _run(fn, [x.astype(np.float64)])
        switch(True)
        got = _run(fn, [x])
    for g, r, e in zip(got, ref, exact):
        assert np.array_equal(np.isnan(g), np.isnan(r))
        assert np.array_equal(np.signbit(g[g == 0]), np.signbit(r[r == 0]))
        both = ~np.isnan(r)
        # within rounding of the NumPy path, or at least as close to the float64 result (batch norm's float64 sums,
        # where the gradient's terms cancel)
        with np.errstate(invalid="ignore"):  # (inf - inf where both sides agree on the infinity)
            closer = np.abs(g - e)[both] <= np.abs(r - e)[both]
        close = np.isclose(g[both], r[both], rtol=2e-6, atol=1e-37) | closer
        assert close.all(), (g[both][~close], r[both][~close], e[both][~close])


THREAD_CASES = [
    ("gelu", F.gelu, [(800, 70)]), ("softmax", lambda x: F.softmax(x, -1), [(900, 37)]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (40,), w, b), [(700, 40), (40,), (40,)]),
    ("cross_entropy", lambda x: F.cross_entropy(x, npgrad.tensor(np.arange(300) % 10)), [(300, 10)]),
    ("linear", F.linear, [(400, 12), (70, 12), (70,)]),
    ("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [(9, 4, 6, 5), (4,), (4,)]),
    ("sdpa_causal", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [(4, 3, 40, 8)] * 3)]


@pytest.mark.parametrize("name,fn,shapes", THREAD_CASES, ids=[c[0] for c in THREAD_CASES])
def test_same_bits_for_any_thread_count(switch, monkeypatch, name, fn, shapes):
    """Pieces of rows (or columns, for the column sums) on 1, 2 and 3 threads: identical bits."""
    switch(True)
    arrays = [RNG.standard_normal(sh).astype(np.float32) for sh in shapes]
    monkeypatch.setattr(_parallel, "ENABLED", True)
    monkeypatch.setattr(_parallel, "MIN_PIECE", 64)
    monkeypatch.setattr(_parallel, "ONE_PASS_PIECE", 64)
    handed, workers = [], _parallel._workers
    monkeypatch.setattr(_parallel, "_workers", lambda k: handed.append(k) or workers(k))
    results = []
    for n in (1, 2, 3):
        monkeypatch.setitem(_runtime._state, "threads", n)
        results.append(_run(fn, arrays))
    assert max(handed, default=0) == 2  # the pieces did go to other threads (two of them on three)
    for other in results[1:]:
        assert all(a.tobytes() == b.tobytes() for a, b in zip(results[0], other))


@pytest.mark.parametrize("case", ["float16", "empty", "strided", "bfloat16"])
def test_fallback_paths_stay_right(switch, case):
    """Inputs the kernels do not take run the NumPy path, with the kernels on: the same results as with them off."""
    x = RNG.standard_normal((6, 16)).astype(np.float32)
    tol = {"float16": 1e-3, "bfloat16": 8e-3}.get(case, 1e-6)
    if case == "float16":
        make = lambda: npgrad.tensor(x.astype(np.float16), requires_grad=True)  # noqa: E731
    elif case == "bfloat16":
        make = lambda: npgrad.tensor(x).to(npgrad.bfloat16).detach().requires_grad_()  # noqa: E731
    elif case == "empty":
        make = lambda: npgrad.tensor(np.zeros((0, 16), np.float32), requires_grad=True)  # noqa: E731
    else:
        make = lambda: npgrad.tensor(np.asfortranarray(x), requires_grad=True)  # noqa: E731
    for fn in (F.gelu, F.silu, lambda t: F.softmax(t, -1), lambda t: F.layer_norm(t, (16,))):
        outs = []
        for on in (False, True):
            switch(on)
            t = make()
            y = fn(t)
            y.sum().backward()
            outs.append((y.detach().float().numpy(), t.grad.float().numpy()))
        for a, b in zip(*outs):  # (inner float32 steps, such as float16's, may still run a kernel)
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("how", ["switched_off", "strided_gradient"])
def test_layer_norm_backward_without_its_kernel_after_its_forward(switch, how):
    """The layer norm kernel keeps only each row's mean and 1/std, not xhat: a backward that cannot take the
    kernel (switched off since the forward, a non-contiguous upstream gradient) rebuilds xhat from x and gets
    the NumPy path's gradients."""
    x = RNG.standard_normal((6, 9, 40)).astype(np.float32) * 3 + 2
    w, b = _w(40, np.float32), _w(40, np.float32)
    up = RNG.standard_normal((9, 6, 40)).astype(np.float32).transpose(1, 0, 2)  # (6, 9, 40), not C-contiguous

    def grads(on_forward, on_backward):
        switch(on_forward)
        ts = _leaves([x, w, b])
        y = F.layer_norm(ts[0], (40,), ts[1], ts[2])
        switch(on_backward)
        y.backward(npgrad.tensor(up if how == "strided_gradient" else np.ascontiguousarray(up)))
        return [t.grad.numpy().copy() for t in ts]

    ref = grads(False, False)
    got = grads(True, how == "strided_gradient")
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name,fn", [("gelu", F.gelu), ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
                                     ("silu", F.silu)])
@pytest.mark.parametrize("how", ["switched_off", "strided_gradient"])
def test_activation_backward_without_its_kernel_after_its_forward(switch, name, fn, dt, how):
    """The activation kernels' forwards keep no derivative (their backward recomputes it): a backward with the
    kernels switched off since the forward, or with a strided upstream gradient, still gets the NumPy path's."""
    x = RNG.standard_normal((20, 30)).astype(dt) * 4
    up = RNG.standard_normal((30, 20)).astype(dt).T

    def grad(on_forward, on_backward):
        switch(on_forward)
        t = npgrad.tensor(x, requires_grad=True)
        y = fn(t)
        switch(on_backward)
        y.backward(npgrad.tensor(up if how == "strided_gradient" else np.ascontiguousarray(up)))
        return t.grad.numpy().copy()

    np.testing.assert_allclose(grad(True, how == "strided_gradient"), grad(False, False), **TOL[dt])


def test_layer_norm_stats_rebuild_the_forwards_xhat(switch):
    """saved_xhat(x, stats) is the forward's own xhat, bit for bit (the output without weight and bias)."""
    switch(True)
    from npgrad.kernels import norm as knorm
    for dt in (np.float32, np.float64):
        x = (RNG.standard_normal((50, 33)) * 5 + 3).astype(dt)
        y, stats = knorm.layer_norm_forward(x, None, None, 1e-5)
        xhat, rstd = knorm.saved_xhat(x, stats)
        assert xhat.tobytes() == y.tobytes() and rstd.shape == (50, 1) and rstd.dtype == dt


def test_switch_off_never_calls_a_kernel(switch, monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("a kernel ran with the switch off")
    monkeypatch.setattr(kgelu, "activation", boom)
    switch(False)
    x = npgrad.randn(8, 8, requires_grad=True)
    F.gelu(x).sum().backward()
    switch(True)
    with pytest.raises(AssertionError, match="switch off"):
        F.gelu(x)


def test_double_backward_through_kernel_forwards(switch):
    """create_graph recomputes from the saved inputs (the kernels' saved derivatives serve plain backwards only)."""
    switch(True)
    for fn in (F.gelu, lambda t: F.gelu(t, approximate="tanh"), F.silu, lambda t: F.layer_norm(t, (5,)),
               lambda t: F.log_softmax(t, -1)):
        x = npgrad.tensor(RNG.standard_normal((3, 5)), requires_grad=True)
        assert npgrad.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
def test_row_max_over_integer_keys_is_the_float_maximum(switch, dt):
    """_vecmath.row_max takes the maximum over the floats' bits as ordered integers: the same value as NumPy's max
    at every length (the vector loop and its tail), with infinities, zeros of both signs, denormals and negatives."""
    rm = _vecmath.row_max

    @numba.njit
    def rows_max(x, n, out):
        for i in range(x.shape[0]):
            out[i] = rm(x[i, :n])

    tiny = np.finfo(dt).tiny
    pool = np.array([-np.inf, np.inf, 0.0, -0.0, tiny / 4, -tiny / 4, -1e30, 1e30, -3.0, 2.5], dt)
    for n in (1, 2, 15, 16, 17, 63, 64, 65, 300):
        x = np.concatenate([RNG.standard_normal((40, n)).astype(dt) * 100 - 50,
                            RNG.choice(pool, (40, n)), -np.abs(RNG.standard_normal((20, n))).astype(dt)])
        x[:, 0] = np.where(np.arange(100) % 7 == 0, -np.inf, x[:, 0])
        out = np.empty(len(x), dt)
        rows_max(np.ascontiguousarray(x), n, out)
        want = x.max(axis=1)
        assert (out == want).all(), (n, out[out != want], want[out != want])


def test_exp32_within_one_ulp_of_float64(switch):
    x = np.linspace(-87.0, 88.0, 400_001).astype(np.float32)
    out = np.empty_like(x)
    _exp_loop(x, out)
    ref = np.exp(x.astype(np.float64))
    ulps = np.abs(out - ref) / np.spacing(ref.astype(np.float32)).astype(np.float64)
    assert ulps.max() <= 1.0, ulps.max()
    # the denormal results (and below -104 the zeros the polynomial no longer builds, so that a causal mask's -inf
    # does not make denormal intermediates), against NumPy's float32 exp
    low = np.concatenate([np.linspace(-110.0, -87.0, 20_001), [-1e30, -3.4e38]]).astype(np.float32)
    got = np.empty_like(low)
    _exp_loop(low, got)
    with np.errstate(under="ignore"):
        want = np.exp(low.astype(np.float64)).astype(np.float32)
    assert np.abs(got.view(np.int32) - want.view(np.int32)).max() <= 1  # one step of the denormal grid
    assert (got[low < -104] == 0).all()
    ends = np.array([np.nan, np.inf, -np.inf, 88.8, -104.0, -104.5, 0.0, -0.0], np.float32)
    got = np.empty_like(ends)
    _exp_loop(ends, got)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, np.exp(ends))


def _exp_loop(x, out):
    assert kernels.ready()  # (_vecmath.exp32 is a compiled function from here on)
    exp32 = _vecmath.exp32

    @numba.njit
    def loop(x, out):
        for i in range(x.size):
            out[i] = exp32(x[i])
    loop(x, out)


def test_exact_gelu_float32_ulps_no_worse_than_the_numpy_path(switch):
    """Both use npgrad's tail-accurate Phi; against float64 GELU the kernel's error (ulps of the result) is at most
    the NumPy path's plus 1, and under 10 ulps for x > -4 (the tail below has denormal-range cancellation)."""
    from npgrad.ops._erf import gelu32_np, normal_cdf_np
    x = np.linspace(-12.0, 12.0, 200_001).astype(np.float32)
    ref = x.astype(np.float64) * normal_cdf_np(x.astype(np.float64))
    y = kgelu.activation("none", x)
    y0, _ = gelu32_np(x, False)
    for lo, hi in ((-4, 12), (-8, -4), (-12, -8)):
        m = (x >= lo) & (x < hi) & (np.abs(ref) > 1e-37)
        sp = np.spacing(np.abs(ref[m]).astype(np.float32)).astype(np.float64)
        k, n = (np.max(np.abs(a[m] - ref[m]) / sp) for a in (y, y0))
        assert k <= n + 1, (lo, hi, k, n)
        if lo == -4:
            assert k < 10, k


def test_gelu_constants_are_ops_erf_fit():
    from npgrad.ops import _erf
    assert kgelu._CDF_P == _erf._CDF_P and kgelu._CDF_Q == _erf._CDF_Q


@pytest.mark.parametrize("how", ["missing", "broken"])
def test_without_numba_the_numpy_path_runs_and_info_says_why(how, tmp_path):
    if how == "broken":  # a numba package whose import fails
        (tmp_path / "numba").mkdir()
        (tmp_path / "numba" / "__init__.py").write_text("raise ImportError('this numba is broken')\n")
    code = ("import sys\n"
            + ("sys.modules['numba'] = None\n" if how == "missing" else "")
            + "import npgrad, numpy as np\n"
            "from npgrad.nn import functional as F\n"
            "x = npgrad.randn(4, 6, requires_grad=True); y = F.gelu(x); y.sum().backward()\n"
            "assert np.allclose(x.grad.numpy(), F.gelu(x.detach().double(), ).numpy() * 0 + x.grad.numpy())\n"
            "print(npgrad.kernels.ready(), npgrad.kernels.status())\n")
    path = os.pathsep.join([str(tmp_path), _src_path()])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=path, NPGRAD_KERNELS="1")).stdout
    want = ("False not installed: the NumPy path runs" if how == "missing" else
            "False unusable, the NumPy path runs: numba could not be loaded (ImportError: this numba is broken)")
    assert out.startswith(want), out


def test_env_var_turns_them_off_and_info_reports_it():
    code = "import npgrad; print(npgrad.backends.kernels.enabled); print(npgrad.kernels.status())"
    env = dict(os.environ, PYTHONPATH=_src_path(), NPGRAD_KERNELS="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.splitlines()[0] == "False" and out.splitlines()[1].startswith("off")
    out = subprocess.run([sys.executable, "-m", "npgrad", "info"], capture_output=True, text=True, check=True,
                         env=env).stdout
    assert "kernels: off" in out


def _src_path():
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")


def test_gelu_kernel_compiled_and_vectorised_speed_is_sane(switch):
    """Guards against the compiled path silently falling back to Python: 1M elements well under 0.5 s."""
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    kgelu.activation_grad("none", x, x)
    import time
    t0 = time.perf_counter()
    kgelu.activation_grad("none", x, x)
    assert time.perf_counter() - t0 < 0.5
    assert math.isclose(float(kgelu.activation("none", np.array([1.0], np.float32))[0]),
                        0.5 * (1 + math.erf(1 / math.sqrt(2))), rel_tol=1e-6)


POOLS = [((3, 4, 12, 10), dict(kernel_size=2)),  # 2x2 stride 2: the unrolled kernels
         ((2, 3, 11, 13), dict(kernel_size=2)),  # odd sizes: the last row and column dropped
         ((2, 3, 11, 13), dict(kernel_size=2, ceil_mode=True)),  # overhang past the input: the checked windows
         ((2, 3, 11, 13), dict(kernel_size=3, stride=2, padding=1)),  # overlapping windows with padding
         ((2, 3, 11, 13), dict(kernel_size=3, stride=1, padding=1, dilation=2)),
         ((2, 3, 9, 14), dict(kernel_size=(2, 3), stride=(1, 2))),
         ((2, 3, 17), "1d")]


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("special", [False, True], ids=["plain", "nan_inf_zeros"])
@pytest.mark.parametrize("shape,kw", POOLS, ids=[f"pool{i}" for i in range(len(POOLS))])
def test_max_pool_same_bits_as_the_numpy_path(switch, shape, kw, special, dt):
    """Values, indices and the input gradient bit for bit: NaN windows report their last NaN, ties the first
    maximum, signed zeros and -inf as NumPy's passes give them, overlapping windows' sums in the same order."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(dt)
    up_shape = None
    if special:
        x.flat[::7], x.flat[::11], x.flat[::13], x.flat[::17] = np.nan, -np.inf, -0.0, np.inf
        x.flat[1::19] = 0.0  # ties between 0.0 and -0.0
    outs = []
    for on in (False, True):
        switch(on)
        t = npgrad.tensor(x, requires_grad=True)
        if kw == "1d":
            y, idx = F.max_pool1d(t, 3, stride=2, padding=1, return_indices=True)
        else:
            y, idx = F.max_pool2d(t, return_indices=True, **kw)
        if up_shape is None:
            up_shape = y.shape
            up = rng.standard_normal(up_shape).astype(dt)
            up.flat[::5] = -0.0
        y.backward(npgrad.tensor(up))
        outs.append([y.detach().numpy(), idx.numpy(), t.grad.numpy()])
    (y0, i0, g0), (y1, i1, g1) = outs
    assert i0.tobytes() == i1.tobytes() and g0.tobytes() == g1.tobytes()
    assert y0.dtype == y1.dtype and y0.shape == y1.shape
    assert np.array_equal(y0, y1, equal_nan=True)
    # A tie between 0.0 and -0.0: PyTorch (and the kernel) keep the winner's own zero, np.maximum's SIMD loop may
    # not (the NumPy path's values differ there in sign only).
    flat = x.reshape(x.shape[:2] + (-1,))
    winner = np.take_along_axis(flat, i1.reshape(i1.shape[:2] + (-1,)), 2).reshape(y1.shape)
    assert np.array_equal(np.signbit(y1), np.signbit(winner)) and np.array_equal(y1, winner, equal_nan=True)


def test_max_pool_same_bits_for_any_thread_count_and_double_backward(switch, monkeypatch):
    switch(True)
    x = RNG.standard_normal((4, 6, 10, 10)).astype(np.float32)
    monkeypatch.setattr(_parallel, "ENABLED", True)
    monkeypatch.setattr(_parallel, "MIN_PIECE", 64)
    monkeypatch.setattr(_parallel, "ONE_PASS_PIECE", 64)
    results = []
    for n in (1, 2, 3):
        monkeypatch.setitem(_runtime._state, "threads", n)
        results.append(_run(lambda t: F.max_pool2d(t, 2), [x]) + _run(lambda t: F.max_pool2d(t, 3, 1, 1), [x]))
    for other in results[1:]:
        assert all(a.tobytes() == b.tobytes() for a, b in zip(results[0], other))
    t = npgrad.tensor(RNG.standard_normal((2, 2, 6, 6)), requires_grad=True)
    assert npgrad.autograd.gradgradcheck(lambda v: F.max_pool2d(v, 2), (t,))


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
def test_relu_gradient_same_bits_as_the_numpy_path(switch, dt):
    """g's own bits where relu's output is not <= 0 (NaN outputs pass it), an exact +0 elsewhere, even for a NaN
    or inf gradient; on 1 and 3 threads."""
    x = np.concatenate([SPECIAL.astype(dt), RNG.standard_normal(3000).astype(dt)])
    up = np.concatenate([np.array([1.0, np.nan, np.inf, -0.0, np.nan, -np.inf, 2.0, -0.0, 3.0, 4.0, 5.0, 6.0], dt),
                         RNG.standard_normal(3000).astype(dt)])
    outs = []
    for on in (False, True):
        switch(on)
        t = npgrad.tensor(x, requires_grad=True)
        F.relu(t).backward(npgrad.tensor(up))
        outs.append(t.grad.numpy().tobytes())
    assert outs[0] == outs[1]


def test_every_kernel_module_is_a_loaded_family():
    """_jit loads the families by name: a kernel module missing from FAMILIES would never be compiled."""
    import pkgutil
    from npgrad.kernels import _jit
    modules = {m.name for m in pkgutil.iter_modules(kernels.__path__) if not m.name.startswith("_")}
    assert modules == set(_jit.FAMILIES)


def _tanh_loop(x, out):
    assert kernels.ready()
    tanh32 = _vecmath.tanh32

    @numba.njit
    def loop(x, out):
        for i in range(x.size):
            out[i] = tanh32(x[i])
    loop(x, out)


def _ulps32(a, b):
    """Distance in float32 steps (signed-magnitude bits made ordered integers)."""
    ia, ib = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ia, ib = (np.where(v < 0, -(v & 0x7FFFFFFF), v) for v in (ia, ib))
    return np.abs(ia - ib)


def test_tanh32_within_one_ulp_of_float64(switch):
    # every float32 around the switch from the polynomial to the exponential form (0.55), and samples elsewhere
    lo, hi = np.array([0.4, 0.7], np.float32).view(np.int32)
    rng = np.random.default_rng(3)
    x = np.concatenate([np.arange(lo, hi, dtype=np.int32).view(np.float32), rng.uniform(-12, 12, 400_000),
                        10.0 ** rng.uniform(-40, 1.2, 200_000)]).astype(np.float32)
    x = np.concatenate([x, -x])
    out = np.empty_like(x)
    _tanh_loop(x, out)
    assert _ulps32(out, np.tanh(x.astype(np.float64)).astype(np.float32)).max() <= 1
    ends = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 60.0, -60.0], np.float32)
    got = np.empty_like(ends)
    _tanh_loop(ends, got)
    np.testing.assert_array_equal(got, np.tanh(ends))
    assert np.signbit(got[1]) and not np.signbit(got[0])


def _recurrent_run(mode, dt, proj=0, bidirectional=False, lengths=None, bias=True):
    """An LSTM's or GRU's outputs and every gradient, from fixed weights and inputs."""
    npgrad.manual_seed(0)
    extra = dict(proj_size=proj) if proj else {}
    m = getattr(npgrad.nn, mode)(6, 8, num_layers=2, bidirectional=bidirectional, bias=bias, **extra)
    m = m.double() if dt == np.float64 else m
    rng = np.random.default_rng(1)
    x = npgrad.tensor((rng.standard_normal((7, 5, 6)) * 2).astype(dt), requires_grad=True)
    inp = x if lengths is None else npgrad.nn.utils.rnn.pack_padded_sequence(x, lengths)
    out, state = m(inp)
    if lengths is not None:
        out = npgrad.nn.utils.rnn.pad_packed_sequence(out)[0]
    states = state if mode == "LSTM" else (state,)
    up = npgrad.tensor(rng.standard_normal(out.shape).astype(dt))
    ((out * up).sum() + sum((s * s).sum() for s in states)).backward()
    return [out.detach().numpy(), x.grad.numpy()] + [s.detach().numpy() for s in states] + \
        [p.grad.numpy() for p in m.parameters()]


RECURRENT_CASES = [("LSTM", dict()), ("LSTM", dict(proj=3)), ("LSTM", dict(bidirectional=True)),
                   ("LSTM", dict(lengths=[7, 6, 6, 2, 1])), ("GRU", dict()), ("GRU", dict(bidirectional=True)),
                   ("GRU", dict(lengths=[7, 6, 6, 2, 1])), ("GRU", dict(bias=False))]


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("mode,kw", RECURRENT_CASES,
                         ids=[f"{m}-{'-'.join(kw) or 'plain'}" for m, kw in RECURRENT_CASES])
def test_recurrent_step_kernels_match_the_numpy_path(switch, monkeypatch, mode, kw, dt):
    from npgrad.nn._functional import rnn
    calls = []
    for name in (f"{mode.lower()}_forward_step", f"{mode.lower()}_backward_step"):
        fn = getattr(rnn._krec, name)
        monkeypatch.setattr(rnn._krec, name, lambda *a, _fn=fn, _n=name: calls.append(_n) or _fn(*a))
    got = _recurrent_run(mode, dt, **kw)
    # the kernels did run (the LSTM's backward only without a projection, which takes the NumPy step)
    want_calls = {f"{mode.lower()}_forward_step"} | (set() if kw.get("proj") else {f"{mode.lower()}_backward_step"})
    assert set(calls) == want_calls
    switch(False)
    want = _recurrent_run(mode, dt, **kw)
    # 7 steps of a recurrence: each kernel step is within a few ulps of NumPy's, and the differences carry on
    tol = 2e-6 if dt == np.float32 else 1e-13
    for g, w in zip(got, want):
        assert np.abs(g - w).max() <= tol * max(np.abs(w).max(), 1), np.abs(g - w).max()


def test_lstm_step_kernels_give_each_row_the_same_bits_in_any_block(switch):
    # The layer splits its batch rows over the threads (rnn._by_rows); a row's gate arithmetic must not depend on
    # the block it is computed in. (The step's product does: OpenBLAS's rows of x @ W change in their last bits
    # with the number of rows, so the layer's bits depend on the split through the product, as any split GEMM's.)
    from npgrad.kernels import recurrent
    rng = np.random.default_rng(5)
    H, n = 24, 13
    arrays = dict(g=rng.standard_normal((n, 4 * H)) * 3, c=rng.standard_normal((n, H)), dh=rng.standard_normal((n, H)),
                  gy=rng.standard_normal((n, H)), dc=rng.standard_normal((n, H)))
    for dt in (np.float32, np.float64):
        a = {k: v.astype(dt) for k, v in arrays.items()}
        results = []
        for cuts in ([0, n], [0, 1, 8, n], [0, 5, 6, n]):
            g, c, dc = a["g"].copy(), a["c"].copy(), a["dc"].copy()
            cprev, tc, y, d = (np.empty((n, k), dt) for k in (H, H, H, 4 * H))
            for lo, hi in zip(cuts[:-1], cuts[1:]):
                assert recurrent.lstm_forward_step(g[lo:hi], c[lo:hi], cprev[lo:hi], tc[lo:hi], y[lo:hi])
                assert recurrent.lstm_backward_step(a["dh"][lo:hi], a["gy"][lo:hi], g[lo:hi], tc[lo:hi], cprev[lo:hi],
                                                    dc[lo:hi], d[lo:hi])
            results.append([v.tobytes() for v in (g, c, cprev, tc, y, d, dc)])
        assert results[0] == results[1] == results[2]
        assert (cprev == a["c"]).all()


def test_gru_step_kernels_give_each_row_the_same_bits_in_any_block(switch):
    from npgrad.kernels import recurrent
    rng = np.random.default_rng(6)
    H, n = 24, 13
    arrays = dict(g=rng.standard_normal((n, 3 * H)) * 3, hw=rng.standard_normal((n, 3 * H)) * 2,
                  hp=rng.standard_normal((n, H)), dh=rng.standard_normal((n, H)), gy=rng.standard_normal((n, H)))
    for dt in (np.float32, np.float64):
        a = {k: v.astype(dt) for k, v in arrays.items()}
        results = []
        for cuts in ([0, n], [0, 1, 8, n], [0, 5, 6, n]):
            g, dh = a["g"].copy(), a["dh"].copy()
            hn, y = np.empty((n, H), dt), np.empty((n, H), dt)
            d, dhw = np.empty((n, 3 * H), dt), np.empty((n, 3 * H), dt)
            for lo, hi in zip(cuts[:-1], cuts[1:]):
                assert recurrent.gru_forward_step(g[lo:hi], a["hw"][lo:hi], a["hp"][lo:hi], hn[lo:hi], y[lo:hi])
                assert recurrent.gru_backward_step(dh[lo:hi], a["gy"][lo:hi], g[lo:hi], a["hp"][lo:hi], hn[lo:hi],
                                                   d[lo:hi], dhw[lo:hi])
            results.append([v.tobytes() for v in (g, hn, y, d, dhw, dh)])
        assert results[0] == results[1] == results[2]
        assert (hn == a["hw"][:, 2 * H:]).all()
