"""npgrad.kernels.conv3x3 (the direct 3x3 convolution) against conv2d's NumPy paths and a NumPy oracle: values and
both gradients within float rounding, NaN/inf where the NumPy path puts them, the weight gradient's bits for any
thread count, the shapes it leaves alone, and create_graph through it."""
import numpy as np
import pytest

import npgrad
from npgrad import _parallel, _runtime
from npgrad.nn import functional as F

pytest.importorskip("numba", reason="the compiled kernels need numba (pip install npgrad[kernels])")

from npgrad import kernels  # noqa: E402
from npgrad.kernels import conv3x3 as kconv  # noqa: E402

RNG = np.random.default_rng(11)
TOL = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


@pytest.fixture
def switch(monkeypatch):
    def set_(on):
        monkeypatch.setattr(npgrad.backends.kernels, "enabled", on)
    set_(True)
    assert kernels.ready(), kernels.status()
    yield set_
    assert npgrad.kernels._jit._state["numba"], kernels.status()


@pytest.fixture
def calls(monkeypatch):
    """How often each kernel entry ran in the test."""
    seen = {"forward": 0, "input_grad": 0, "weight_grad": 0}
    for name in seen:
        real = getattr(kconv, name)

        def counted(*args, _real=real, _name=name):
            seen[_name] += 1
            return _real(*args)
        monkeypatch.setattr(kconv, name, counted)
    return seen


def _conv(x, w, b, padding, up_seed=1):
    ts = [npgrad.tensor(a, requires_grad=True) if a is not None else None for a in (x, w, b)]
    y = F.conv2d(ts[0], ts[1], ts[2], padding=padding)
    up = np.random.default_rng(up_seed).standard_normal(y.shape).astype(x.dtype)
    y.backward(npgrad.tensor(up))
    return [y.detach().numpy().copy()] + [t.grad.numpy().copy() for t in ts if t is not None]


# (N, C, O, H, W, padding): odd channel counts (blocks of four plus leftovers), batches that are not a multiple of
# the weight gradient's chunk, pads 0..2, a 3x3 input with no padding (one output pixel)
SHAPES = [(5, 3, 7, 9, 6, 1), (2, 4, 4, 3, 3, 0), (3, 6, 9, 7, 8, 2), (4, 1, 1, 5, 5, (1, 0)), (9, 8, 5, 4, 11, 1)]


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"s{i}" for i in range(len(SHAPES))])
def test_kernel_matches_the_numpy_path(switch, calls, shape, dt):
    N, C, O, H, W, pad = shape
    x = RNG.standard_normal((N, C, H, W)).astype(dt)
    w = RNG.standard_normal((O, C, 3, 3)).astype(dt)
    b = RNG.standard_normal(O).astype(dt)
    switch(False)
    ref = _conv(x, w, b, pad)
    assert calls == {"forward": 0, "input_grad": 0, "weight_grad": 0}
    switch(True)
    got = _conv(x, w, b, pad)
    assert calls == {"forward": 1, "input_grad": 1, "weight_grad": 1}
    scale = [np.abs(r).max() for r in ref]
    for g, r, s in zip(got, ref, scale):
        np.testing.assert_allclose(g / s, r / s, **TOL[dt])


def _oracle(xp, w):
    """A 3x3 valid convolution of an already padded input, by nine shifted einsums."""
    Ho, Wo = xp.shape[2] - 2, xp.shape[3] - 2
    return sum(np.einsum("nchw,oc->nohw", xp[:, :, a:a + Ho, c:c + Wo], w[:, :, a, c]) for a in range(3)
               for c in range(3))


@pytest.mark.parametrize("lo,hi", [((0, 2), (1, 0)), ((2, 1), (0, 2))])
def test_asymmetric_padding_against_numpy(switch, lo, hi):
    """The entries take a pad per side (conv2d itself pads symmetrically): forward, and both gradients by the
    adjoint identity <g, conv(x)> = <input_grad(g), x> = <weight_grad(x, g), w> in float64."""
    x = RNG.standard_normal((3, 5, 6, 7))
    w = RNG.standard_normal((6, 5, 3, 3))
    xp = np.pad(x, ((0, 0), (0, 0), (lo[0], hi[0]), (lo[1], hi[1])))
    y = kconv.forward(x, w, lo, hi)
    np.testing.assert_allclose(y, _oracle(xp, w), rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal(y.shape)
    gx = kconv.input_grad(g, w, x.shape, lo, hi)
    gw = kconv.weight_grad(x, g, lo, hi)
    assert gx.shape == x.shape and gw.shape == w.shape
    # each entry's gradient against a finite change of one input (the map is linear: exact up to rounding)
    for k in range(4):
        dx = RNG.standard_normal(x.shape)
        dw = RNG.standard_normal(w.shape)
        assert np.isclose(np.vdot(g, kconv.forward(dx, w, lo, hi)), np.vdot(gx, dx), rtol=1e-10)
        assert np.isclose(np.vdot(g, kconv.forward(x, dw, lo, hi)), np.vdot(gw, dw), rtol=1e-10)


def test_nan_and_inf_land_where_the_numpy_path_puts_them(switch):
    x = RNG.standard_normal((2, 4, 8, 8)).astype(np.float32)
    x[0, 1, 3, 4] = np.nan
    x[1, 2, 0, 0] = np.inf
    w = RNG.standard_normal((5, 4, 3, 3)).astype(np.float32)
    outs = []
    for on in (False, True):
        switch(on)
        outs.append(_conv(x, w, None, 1))
    for a, b in zip(*outs):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isposinf(a), np.isposinf(b))
        finite = np.isfinite(a)
        np.testing.assert_allclose(a[finite], b[finite], rtol=2e-5, atol=2e-5)


def test_same_bits_for_any_thread_count(switch, monkeypatch):
    """Images split over 1, 2 and 3 threads; the weight gradient's per-chunk sums are added in chunk order."""
    x = RNG.standard_normal((11, 3, 6, 6)).astype(np.float32)
    w = RNG.standard_normal((5, 3, 3, 3)).astype(np.float32)
    monkeypatch.setattr(_parallel, "ENABLED", True)
    monkeypatch.setattr(_parallel, "GEMM_MIN", 64)
    results = []
    for n in (1, 2, 3):
        monkeypatch.setitem(_runtime._state, "threads", n)
        results.append(_conv(x, w, None, 1))
    for other in results[1:]:
        assert all(a.tobytes() == b.tobytes() for a, b in zip(results[0], other))


@pytest.mark.parametrize("case", ["stride", "dilation", "groups", "kernel5", "wide", "float16", "pad3"])
def test_other_convolutions_leave_it_alone(switch, calls, case):
    """Shapes it does not cover take conv2d's other paths (and still agree with the switch off)."""
    C = 64 if case == "wide" else 4  # 64 channels: Winograd's
    x = RNG.standard_normal((2, C, 9, 9)).astype(np.float16 if case == "float16" else np.float32)
    w = RNG.standard_normal((C if case == "wide" else 6, 2 if case == "groups" else C, 5 if case == "kernel5" else 3,
                             5 if case == "kernel5" else 3)).astype(x.dtype)
    kw = {"stride": dict(stride=2, padding=1), "dilation": dict(dilation=2, padding=2), "groups": dict(groups=2),
          "pad3": dict(padding=3)}.get(case, dict(padding=1))
    outs = []
    for on in (True, False):
        switch(on)
        t = npgrad.tensor(x, requires_grad=True)
        y = F.conv2d(t, npgrad.tensor(w), **kw)
        y.float().sum().backward()
        outs.append((y.detach().float().numpy(), t.grad.float().numpy()))
    assert calls == {"forward": 0, "input_grad": 0, "weight_grad": 0}
    tol = 5e-2 if case == "float16" else 1e-4
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_double_backward_through_the_kernel_forward(switch, calls):
    """create_graph builds the backward from differentiable ops (the kernels serve array gradients only)."""
    x = npgrad.tensor(RNG.standard_normal((2, 3, 5, 5)), requires_grad=True)
    w = npgrad.tensor(RNG.standard_normal((4, 3, 3, 3)), requires_grad=True)
    assert npgrad.autograd.gradgradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x, w))
    assert calls["forward"] > 0
