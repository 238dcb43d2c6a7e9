"""inf and NaN arise silently, as in PyTorch: no NumPy "RuntimeWarning: overflow encountered in exp" (an error
under ``-W error``) from inside an operator, its backward, an in-place write, an optimizer step or a cast; and
the caller's own NumPy error state is left as it was (npgrad._fp_quiet).

Fill values are checked as PyTorch checks them: a finite value beyond a float dtype's range is refused with
PyTorch's message where PyTorch refuses it.
"""
import warnings

import numpy as np
import pytest

import npgrad
from _op_tables import BINARY, REDUCTIONS, UNARY
from opinfo import special_fuzz
from oracle import HAS_TORCH, torch

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1e30, -1e30, 1.0, -1.0, 0.5, -2.5, 3.0])
F = npgrad.nn.functional


def _no_fp_warnings(call):
    """Run ``call`` with NumPy's floating-point warnings as errors; return its result."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*encountered in", category=RuntimeWarning)
        return call()


def _forward_backward(fn, arrays, dtype):
    ts = [npgrad.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    out = fn(*ts)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum(o.sum() for o in outs if isinstance(o, npgrad.Tensor) and o.requires_grad)
    if isinstance(loss, npgrad.Tensor):
        loss.backward()
    return outs


ONE_INPUT = ([(f"unary {op}", lambda x, op=op: op.fn(npgrad, x)) for op in UNARY]
             + [(f"reduction {op}", lambda x, op=op: op.fn(npgrad, x, 0, False)) for op in REDUCTIONS]
             + [(f"special {ident}", lambda x, fn=fn: fn(npgrad, x)) for ident, fn in special_fuzz()])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ONE_INPUT, ids=[c[0] for c in ONE_INPUT])
def test_one_input_ops_at_special_values_do_not_warn(case, dtype):
    _, fn = case
    _no_fp_warnings(lambda: _forward_backward(fn, [SPECIAL], dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", BINARY, ids=str)
def test_binary_ops_at_special_values_do_not_warn(op, dtype):
    _no_fp_warnings(lambda: _forward_backward(lambda a, b: op.fn(npgrad, a, b), [SPECIAL, SPECIAL[::-1].copy()],
                                              dtype))


def test_the_values_are_still_ieee():
    x = npgrad.tensor([0.0, -1.0, 1e30, 100.0])
    out = _no_fp_warnings(lambda: (x.log(), x.sqrt(), x * x, x.exp(), x / 0.0))
    np.testing.assert_array_equal(out[0].numpy()[:2], [-np.inf, np.nan])
    assert np.isnan(out[1].numpy()[1]) and out[2].numpy()[2] == np.inf and out[3].numpy()[3] == np.inf
    np.testing.assert_array_equal(out[4].numpy(), [np.nan, -np.inf, np.inf, np.inf])


def test_the_callers_numpy_error_state_is_untouched():
    before = np.geterr()
    with np.errstate(divide="raise", over="raise"):
        y = npgrad.tensor([0.0, 1e30], requires_grad=True)
        z = y.log() + (y * y)  # npgrad computes silently even while the caller has NumPy raise
        z.sum().backward()
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))  # ... and the caller's state is back after each op
        with pytest.raises(RuntimeError, match="not positive-definite"):  # failing inside its kernel: state back too
            npgrad.linalg.cholesky(npgrad.tensor([[1.0, 2.0], [2.0, 1.0]]))
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))


def test_in_place_writes_and_casts_do_not_warn():
    def run():
        x = npgrad.tensor([1.0, 0.0, 1e30])
        x.div_(0.0)
        x.mul_(1e30)
        y = npgrad.zeros(2, dtype=npgrad.float16)
        y.copy_(npgrad.tensor([1e30, -1e30]))
        y[0] = 1e5  # (PyTorch writes inf here, and refuses 1e5 only in fill_/full)
        return x, y, npgrad.tensor([1e300], dtype=npgrad.float32), npgrad.tensor([1e300]), npgrad.tensor(
            [1e300], dtype=npgrad.float64).float()
    x, y, a, b, c = _no_fp_warnings(run)
    assert np.isnan(x.numpy()[1]) and x.numpy()[2] == np.inf
    np.testing.assert_array_equal(y.numpy(), [np.inf, -np.inf])
    assert a.item() == b.item() == c.item() == np.inf


def test_large_inputs_split_over_threads_do_not_warn():
    # large enough for npgrad._parallel to hand pieces to its worker threads, whose NumPy state is their own
    x = npgrad.full((1 << 19,), 1e30, requires_grad=True)
    out = _no_fp_warnings(lambda: (F.gelu(x), F.softmax(npgrad.full((4096, 128), -np.inf), -1)))
    _no_fp_warnings(lambda: out[0].sum().backward())
    assert out[0][0].item() == np.float32(1e30) and np.isnan(out[1][0, 0].item())


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"])
def test_optimizer_steps_on_huge_gradients_do_not_warn(opt):
    p = npgrad.nn.Parameter(npgrad.tensor([1.0, 2.0]))
    p.grad = npgrad.tensor([1e30, np.inf])
    _no_fp_warnings(getattr(npgrad.optim, opt)([p], lr=0.1).step)


def test_lbfgs_is_quiet_but_its_closure_keeps_the_callers_state():
    p = npgrad.nn.Parameter(npgrad.tensor([1.0, 2.0]))
    opt = npgrad.optim.LBFGS([p], max_iter=2)

    def closure():
        opt.zero_grad()
        loss = (p * 1e30).sum()
        loss.backward()
        return loss

    _no_fp_warnings(lambda: opt.step(closure))

    def user_closure():
        np.log(np.zeros(1))  # the user's own NumPy code: the user's state (here: raise)
        return closure()

    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        opt.step(user_closure)


def test_clip_grad_norm_of_overflowing_gradients_does_not_warn():
    p = npgrad.nn.Parameter(npgrad.ones(3))
    p.grad = npgrad.full((3,), 1e30)
    total = _no_fp_warnings(lambda: npgrad.nn.utils.clip_grad_norm_([p], 1.0))
    assert total.item() == np.inf


# -- fill values beyond a float dtype's range ------------------------------------------------------------------
_MASK = [True, False]
FILLS = {
    "fill_": lambda L, v, dt: L.zeros(2, dtype=dt).fill_(v),
    "full": lambda L, v, dt: L.full((2,), v, dtype=dt),
    "new_full": lambda L, v, dt: L.zeros(2, dtype=dt).new_full((2,), v),
    "full_like": lambda L, v, dt: L.full_like(L.zeros(2, dtype=dt), v),
    "masked_fill": lambda L, v, dt: L.zeros(2, dtype=dt).masked_fill(L.tensor(_MASK), v),
    "index_fill": lambda L, v, dt: L.zeros(2, dtype=dt).index_fill(0, L.tensor([0]), v),
    "setitem": lambda L, v, dt: L.zeros(2, dtype=dt).__setitem__(0, v),
}
# (dtype, value, the type the fill-style calls refuse it as, the one item assignment does): PyTorch refuses a
# finite value beyond the dtype's largest; item assignment checks float32 items only.
VALUES = [("float16", 1e5, "c10::Half", None), ("float32", 1e300, "float", "float"), ("float16", 1e300, "c10::Half", None),
          ("float16", 65504.0, None, None), ("float16", float("inf"), None, None), ("float32", -float("inf"), None, None),
          ("float64", 1e300, None, None), ("float32", 3.4028234663852886e38, None, None)]


@pytest.mark.parametrize("row", VALUES, ids=lambda r: f"{r[0]}-{r[1]}")
@pytest.mark.parametrize("name", list(FILLS))
def test_fill_value_range_as_pytorch(name, row):
    dtype, value, refused, refused_by_setitem = row
    word = refused_by_setitem if name == "setitem" else refused
    libs = (npgrad, torch) if HAS_TORCH else (npgrad,)
    for lib in libs:
        call = lambda: FILLS[name](lib, value, getattr(lib, dtype))  # noqa: E731
        if word is None:
            _no_fp_warnings(call)
        else:
            with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {word} without overflow$"):
                call()


def test_histc_over_a_range_near_the_dtype_limit():
    # The range's width overflows float32: PyTorch counts nothing (it used to be a NumPy ValueError here).
    wide = _no_fp_warnings(lambda: npgrad.histc(npgrad.tensor([1e38, -1e38, 3e38]), bins=4))
    np.testing.assert_array_equal(wide.numpy(), np.zeros(4))
    # A finite width whose product with the bin count overflows: every value still lands in a bin.
    near = _no_fp_warnings(lambda: npgrad.histc(npgrad.tensor([-1.5e38, 1.5e38, 0.0]), bins=100))
    assert near.sum().item() == 3 and near[0].item() == 1
    if HAS_TORCH:
        np.testing.assert_array_equal(wide.numpy(), torch.histc(torch.tensor([1e38, -1e38, 3e38]), bins=4).numpy())


def test_backward_sums_are_quiet_but_hooks_and_custom_backward_keep_the_callers_state():
    # inf + -inf where two gradient contributions meet, and into an existing .grad
    x = npgrad.tensor([1.0], requires_grad=True)
    _no_fp_warnings(lambda: ((x * np.inf) + (x * -np.inf)).sum().backward())
    _no_fp_warnings(lambda: (x * -np.inf).sum().backward())
    assert np.isnan(x.grad.item())

    class NumpyLog(npgrad.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1.0

        @staticmethod
        def backward(ctx, g):
            np.log(np.zeros(1))  # the user's own NumPy code
            return g

    seen = []

    def hook(g):
        seen.append(np.geterr()["divide"])
        return g

    y = npgrad.tensor([1.0], requires_grad=True)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            NumpyLog.apply(y).sum().backward()
        z = y * 2.0
        z.register_hook(hook)
        z.sum().backward()
    assert seen == ["raise"]


def test_npgrads_own_runtime_warnings_reach_the_user():
    # npgrad no longer hides RuntimeWarnings raised in its modules (a warnings filter did, until the error state
    # took over): PyTorch's "Ambiguous kl_divergence" warning was among them.
    from npgrad.distributions import Normal, kl_divergence, register_kl

    class A(Normal):
        pass

    class B(Normal):
        pass

    register_kl(A, Normal)(lambda p, q: npgrad.tensor(1.0))
    register_kl(Normal, B)(lambda p, q: npgrad.tensor(2.0))
    with pytest.warns(RuntimeWarning, match=r"^Ambiguous kl_divergence\(A, B\)\. Please register_kl\(A, B\)$"):
        kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
