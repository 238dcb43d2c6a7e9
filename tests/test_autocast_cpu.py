"""torch.autocast("cpu"): which ops run in lower precision and which in float32, values beside PyTorch's,
nesting, ``enabled=False``, decorator use, the state functions, and GradScaler("cpu")."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F
from npgrad.autograd import record

try:
    import torch
    import torch.nn.functional as TF
    HAS_TORCH = True
except ImportError:  # pragma: no cover - depends on the machine
    torch = TF = None
    HAS_TORCH = False

rng = np.random.default_rng(1)
X = rng.standard_normal((6, 16)).astype(np.float32)
W = rng.standard_normal((5, 16)).astype(np.float32)
IM = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
K = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
TGT = rng.integers(0, 5, 6)

# (name, fn(lib, F, x, w, im, k, tgt), lower): PyTorch's CPU autocast runs `lower` ops in the autocast dtype and
# the others (losses here) in float32.
CASES = [("linear", lambda L, F_, x, w, im, k, t: F_.linear(x, w), True),
         ("matmul", lambda L, F_, x, w, im, k, t: x @ w.T, True),
         ("mm", lambda L, F_, x, w, im, k, t: L.mm(x, w.T), True),
         ("conv2d", lambda L, F_, x, w, im, k, t: F_.conv2d(x.reshape(1, 1, 6, 16), w[:3, :9].reshape(3, 1, 3, 3)),
          True),
         ("cross_entropy", lambda L, F_, x, w, im, k, t: F_.cross_entropy(F_.linear(x, w), t), False),
         ("mse_loss", lambda L, F_, x, w, im, k, t: F_.mse_loss(F_.linear(x, w), F_.linear(x, w) * 0.5), False)]


def _run(lib, F_, dtype, fn):
    x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
    with lib.autocast("cpu", dtype=dtype):
        y = fn(lib, F_, x, w, lib.tensor(IM), lib.tensor(K), lib.tensor(TGT))
    (y.float() * 1.0).sum().backward()
    return y, x.grad, w.grad


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name, fn, lower", CASES, ids=[c[0] for c in CASES])
def test_policy_and_values(name, fn, lower, dtype):
    y, gx, gw = _run(npgrad, F, getattr(npgrad, dtype), fn)
    assert y.dtype.name == (dtype if lower else "float32")
    assert gx.dtype is npgrad.float32 and gw.dtype is npgrad.float32  # leaves keep their own dtype
    if lower and name != "conv2d":  # the oracle without PyTorch: inputs rounded to dtype, float32 product, rounded
        npd = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
        r = lambda a: a.astype(npd).astype(np.float32)  # noqa: E731
        np.testing.assert_array_equal(np.asarray(y.float()), (r(X) @ r(W).T).astype(npd).astype(np.float32))
    if HAS_TORCH:
        ty, tgx, tgw = _run(torch, TF, getattr(torch, dtype), fn)
        assert str(ty.dtype) == "torch." + y.dtype.name
        tol = 2 ** -7 if dtype == "bfloat16" else 2 ** -10
        np.testing.assert_allclose(np.asarray(y.detach().float()), ty.detach().float().numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(np.asarray(gw), tgw.numpy(), rtol=8 * tol, atol=8 * tol * np.abs(tgw.numpy()).max())


def test_state_nesting_decorator_and_no_trace_outside():
    a = npgrad.randn(3, 3)
    assert not npgrad.is_autocast_enabled("cpu") and npgrad.get_autocast_dtype("cpu") is npgrad.bfloat16
    with npgrad.autocast("cpu"):
        assert npgrad.is_autocast_enabled("cpu") and (a @ a).dtype is npgrad.bfloat16
        assert (a + a).dtype is npgrad.float32  # not on the list: untouched
        with npgrad.autocast("cpu", enabled=False):
            assert not npgrad.is_autocast_enabled("cpu") and (a @ a).dtype is npgrad.float32
        with npgrad.autocast("cpu", dtype=npgrad.float16):
            assert npgrad.get_autocast_dtype("cpu") is npgrad.float16 and (a @ a).dtype is npgrad.float16
        assert npgrad.get_autocast_dtype("cpu") is npgrad.bfloat16 and (a @ a).dtype is npgrad.bfloat16
    assert not npgrad.is_autocast_enabled("cpu") and (a @ a).dtype is npgrad.float32

    @npgrad.autocast("cpu")
    def f(x):
        return x @ x
    assert f(a).dtype is npgrad.bfloat16 and (a @ a).dtype is npgrad.float32
    try:
        with npgrad.amp.autocast("cpu"):
            raise KeyError
    except KeyError:
        pass
    assert not npgrad.is_autocast_enabled("cpu")
    if not npgrad.dtypes._LOW_USED[0]:  # (other tests in this process may have used bfloat16 already)
        assert record.LOWP_HOOK == []


def test_unsupported_dtype_disables_with_torchs_warning():
    msg = "In CPU autocast, but the target dtype is not supported. Disabling autocast."
    with pytest.warns(UserWarning, match=msg):
        ac = npgrad.autocast("cpu", dtype=npgrad.float64)
    with ac:
        assert not npgrad.is_autocast_enabled("cpu")
    if HAS_TORCH:
        with pytest.warns(UserWarning, match=msg):
            torch.autocast("cpu", dtype=torch.float64)


def _scaler_run(lib):
    w = lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([w], lr=0.1)
    s = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    out = []
    for v in [1.0, float("inf"), 1.0, 1.0, 1.0]:
        opt.zero_grad()
        s.scale((w * v).sum()).backward()
        s.unscale_(opt)
        s.step(opt)
        s.update()
        out.append((s.get_scale(), w.detach().tolist()))
    return out


def test_grad_scaler_cpu():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # enabled on the CPU: no "not available" warning
        got = _scaler_run(npgrad)
    # the inf step is skipped and halves the scale; two clean steps double it
    assert [g[0] for g in got] == [4.0, 2.0, 2.0, 4.0, 4.0]
    np.testing.assert_allclose([g[1][0] for g in got], [0.9, 0.9, 0.8, 0.7, 0.6], rtol=1e-6)
    if HAS_TORCH:
        want = _scaler_run(torch)
        assert [g[0] for g in got] == [g[0] for g in want]
        np.testing.assert_allclose([g[1] for g in got], [g[1] for g in want], rtol=1e-6)
