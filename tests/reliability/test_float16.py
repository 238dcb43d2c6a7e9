"""float16 works wherever PyTorch's CPU supports it: same float16 result dtype, values within float16
precision, gradients too. Without PyTorch, each float16 result is compared with the same computation in
float64 (whose correctness the other tests establish) rounded to float16.
"""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as NF
from oracle import HAS_TORCH, torch
from opinfo import call_forms

if HAS_TORCH:
    import torch.nn.functional as TF

RTOL, ATOL = 1e-2, 1e-2  # a few float16 ulps (inputs are O(1))


def _op(name, fn, known_bug=None):
    marks = [pytest.mark.xfail(strict=True, reason=known_bug)] if known_bug else []
    return pytest.param(fn, id=name, marks=marks)


OPS = [
    _op("index", lambda L, F, x, y: x[:, [0, 2, 2]]),
]
# The operators already in the op table (tests/opinfo) bring their float16 call forms from there.
OPS += [_op(name, lambda L, F, x, y, fn=fn: fn(L, x, y)) for name, fn in call_forms("float16")]


def _inputs(lib, dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.2, 1.8, (3, 4))
    y = rng.uniform(0.2, 1.8, (3, 4))
    return [lib.tensor(a.astype(dtype), requires_grad=True) for a in (x, y)]


def _forward(lib, F, fn, dtype):
    xs = _inputs(lib, dtype)
    out = fn(lib, F, *xs)
    return xs, out[0] if isinstance(out, tuple) else out


def _backward(lib, xs, out):
    if not out.requires_grad:
        return None
    (out.float() if lib is torch else out).sum().backward()
    return [None if t.grad is None else t.grad.numpy() for t in xs]


def _close(a, b, scale=1):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=scale * RTOL,
                               atol=scale * ATOL)


@pytest.mark.parametrize("fn", OPS)
def test_float16_support(fn):
    if not HAS_TORCH:
        xs, out = _forward(npgrad, NF, fn, "float16")
        _, ref = _forward(npgrad, NF, fn, "float64")
        if ref.is_floating_point():
            assert out.dtype == npgrad.float16, f"float16 input gives {out.dtype}"
        _close(out.detach().numpy(), ref.detach().numpy())
        return
    try:
        t_xs, t_out = _forward(torch, TF, fn, "float16")
    except (RuntimeError, NotImplementedError):
        return  # PyTorch's CPU has no float16 kernel for it: nothing to compare (npgrad may do better)
    xs, out = _forward(npgrad, NF, fn, "float16")
    assert str(out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1], \
        f"float16 input gives {out.dtype}, PyTorch {t_out.dtype}"
    _close(out.detach().numpy(), t_out.detach().numpy())
    try:
        t_grads = _backward(torch, t_xs, t_out)
    except RuntimeError:  # not differentiable in PyTorch (floor_divide): npgrad must refuse too
        with pytest.raises(RuntimeError):
            _backward(npgrad, xs, out)
        return
    grads = _backward(npgrad, xs, out)
    assert (grads is None) == (t_grads is None), "differentiable in one library only"
    for g, tg in zip(grads or [], t_grads or []):
        assert (g is None) == (tg is None)
        if g is not None:
            assert g.dtype == np.float16, f"float16 input got a {g.dtype} gradient"
            _close(g, tg, scale=3)
