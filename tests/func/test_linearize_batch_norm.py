"""torch.func.linearize (against torch and against jvp / finite differences) and
replace_all_batch_norm_modules_ (against torch, and its effect: no running stats, batch statistics in eval)."""
import numpy as np
import pytest

import npgrad
from npgrad import func as F
from oracle import HAS_TORCH, assert_close, torch
from _funcs import X, Y, fd_jacobian, np_of

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (the oracle) is not installed")
TOL = dict(rtol=1e-10, atol=1e-12)
# torch.func.linearize traces func with torch.fx, which warns about its own constant folding (the oracle's detail).
pytestmark = pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node:UserWarning")


def _f(lib):
    return lambda a, b: (lib.sin(a) * b, {"k": a * a})


@needs_torch
def test_linearize_matches_torch():
    def run(lib, F_):
        t = lambda a: lib.tensor(np.asarray(a, dtype=np.float64))  # noqa: E731
        out, fn = F_.linearize(_f(lib), t(X), t(Y))
        return out, fn(t(Y), t(X)), fn(t(X), t(X))
    ours, theirs = run(npgrad, F), run(torch, torch.func)
    for a, b in zip(ours, theirs):
        assert_close(np_of(a[0]), np_of(b[0]), **TOL)
        assert_close(np_of(a[1]["k"]), np_of(b[1]["k"]), **TOL)


@needs_torch
def test_linearize_errors_match_torch():
    def msgs(lib, F_):
        t = lambda a: lib.tensor(np.asarray(a, dtype=np.float64))  # noqa: E731
        _, fn = F_.linearize(_f(lib), t(X), t(Y))
        out = []
        for call in (lambda: fn(t(X)), lambda: fn(t(X), lib.ones(2, dtype=lib.float64))):
            with pytest.raises(RuntimeError) as e:
                call()
            out.append(str(e.value))
        return out
    assert msgs(npgrad, F) == msgs(torch, torch.func)


def test_linearize_is_the_jvp():
    f = lambda x: npgrad.tanh(x) * x.sum()  # noqa: E731
    x = npgrad.tensor(X)
    out, fn = F.linearize(f, x)
    jac = fd_jacobian(lambda a: np.tanh(a) * a.sum(), X)
    np.testing.assert_allclose(np_of(out), np.tanh(X) * X.sum(), rtol=1e-12)
    for v in (Y, X):
        np.testing.assert_allclose(np_of(fn(npgrad.tensor(v))), jac @ v, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(np_of(fn(npgrad.tensor(v))), np_of(F.jvp(f, (x,), (npgrad.tensor(v),))[1]),
                                   rtol=1e-12)


def _bn_state(lib, F_):
    m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3), lib.nn.Sequential(lib.nn.BatchNorm2d(2)))
    assert F_.replace_all_batch_norm_modules_(m) is m
    return [(b.running_mean, b.running_var, b.num_batches_tracked, b.track_running_stats) for b in (m[1], m[2][0])]


@needs_torch
def test_replace_all_batch_norm_modules_matches_torch():
    assert _bn_state(npgrad, F) == _bn_state(torch, torch.func)


def test_replaced_batch_norm_uses_batch_statistics_in_eval():
    bn = npgrad.nn.BatchNorm1d(3).double()
    F.replace_all_batch_norm_modules_(bn)
    bn.eval()
    x = npgrad.tensor(np.random.default_rng(0).standard_normal((8, 3)) * 3 + 1)
    out = bn(x).detach().numpy()
    np.testing.assert_allclose(out, (x.numpy() - x.numpy().mean(0)) / np.sqrt(x.numpy().var(0) + 1e-5), rtol=1e-10)
    assert list(dict(bn.named_buffers())) == []
