"""float16 reductions and normalizations accumulate in float32, as PyTorch's CPU kernels do, at every
magnitude: tiny (1e-4, subnormal 1e-6), ordinary, large (300, 1e4, whose squares overflow float16) and
near float16's limit (6e4).

Each case runs forward and backward (a fixed random upstream gradient) on float16 inputs and is checked
against two references:

* the same computation in float64 (npgrad's float64 path, i.e. NumPy float64, established by the other
  tests) on the same float16 values, rounded to float16: this needs no PyTorch, and fails when npgrad
  rounds to float16 mid-computation (a float16 sum of squares is inf above |x| ~ 256, 0 below ~1e-4);
* PyTorch on the same float16 input: same dtype, the same NaN/inf positions, and values within a few
  float16 ulps, except where PyTorch's own half arithmetic loses more than that against float64
  (``TORCH_LESS_ACCURATE``, each with its reason; the test checks that PyTorch really is off there, so
  the list cannot go stale).
"""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as NF
from oracle import HAS_TORCH, torch

if HAS_TORCH:
    import torch.nn.functional as TF

# Overflowing cases (6e4) warn from NumPy inside both libraries' float16 arithmetic and in the comparisons here;
# the values are what is under test.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SCALES = [1e-4, 1e-6, 1.0, 300.0, 1e4, 6e4]
TOL = 4e-3  # normwise: about 4 float16 ulps of the largest result ...
SUBNORMAL_ULPS = 8 * 2.0 ** -24  # ... plus 8 of float16's smallest subnormals, where results are that small

_T = [0, 3, 1, 7]

CASES = {
    "sum": lambda L, F, x: x.sum(),
    "sum_dim": lambda L, F, x: x.sum(1),
    "mean": lambda L, F, x: x.mean(),
    "mean_dim": lambda L, F, x: x.mean(1, keepdim=True),
    "var": lambda L, F, x: x.var(),
    "var_dim": lambda L, F, x: x.var(1),
    "std": lambda L, F, x: x.std(),
    "std_dim": lambda L, F, x: x.std(1, correction=0),
    "norm": lambda L, F, x: x.norm(),
    "norm_dim": lambda L, F, x: x.norm(dim=1),
    "norm_p1": lambda L, F, x: x.norm(p=1, dim=0),
    "norm_p3": lambda L, F, x: x.norm(p=3),
    "vector_norm": lambda L, F, x: L.linalg.vector_norm(x, dim=1),
    "softmax": lambda L, F, x: x.softmax(1),
    "log_softmax": lambda L, F, x: x.log_softmax(1),
    "logsumexp": lambda L, F, x: L.logsumexp(x, 1),
    "layer_norm": lambda L, F, x: F.layer_norm(x, (8,)),
    "layer_norm_affine": lambda L, F, x: F.layer_norm(x, (8,), L.linspace(0.5, 1.5, 8, dtype=x.dtype),
                                                      L.linspace(-1, 1, 8, dtype=x.dtype)),
    "group_norm": lambda L, F, x: F.group_norm(x.reshape(2, 4, 4), 2),
    "batch_norm": lambda L, F, x: F.batch_norm(x.reshape(4, 2, 4), None, None, training=True),
    "instance_norm": lambda L, F, x: F.instance_norm(x.reshape(2, 4, 4)),
    "rms_norm": lambda L, F, x: F.rms_norm(x, (8,), eps=1e-6),
    "normalize": lambda L, F, x: F.normalize(x, dim=1),
    "cross_entropy": lambda L, F, x: F.cross_entropy(x, L.tensor(_T)),
    "cross_entropy_smooth": lambda L, F, x: F.cross_entropy(x, L.tensor(_T), reduction="sum", label_smoothing=0.1),
    "cumsum": lambda L, F, x: x.cumsum(1),
    "matmul": lambda L, F, x: x @ x.t(),
    "linear": lambda L, F, x: F.linear(x, x[:3]),
}

# (case, scale): why PyTorch's float16 result is further than TOL from float64 while npgrad's is not.
TORCH_LESS_ACCURATE = {
    ("batch_norm", 1e-6): "forward: PyTorch's half batch-norm kernel loses ~1.6e-2 on subnormal inputs",
    ("instance_norm", 1e-6): "forward: runs PyTorch's batch-norm kernel (same loss as batch_norm)",
    ("std", 1e4): "backward: PyTorch's float16 std * (n - 1) = 3e5 overflows: gradient 0",
    ("std_dim", 1e-6): "backward: PyTorch's float16 g / std overflows to inf for a subnormal std",
    ("norm_p3", 1e-4): "backward: PyTorch's float16 |x|^(p-2) / norm^(p-1) overflows: NaN",
    ("norm_p3", 1e-6): "backward: as at 1e-4",
    ("norm_p3", 300.0): "backward: PyTorch's float16 norm^(p-1) overflows: NaN",
    ("norm_p3", 1e4): "backward: as at 300",
    ("cross_entropy_smooth", 1e4): "forward: PyTorch's float16 label-smoothing sum overflows to inf; the loss, "
                                   "4.7e4, is representable",
}

_SUBNORMAL_RESULT = "the result is subnormal in float16 (~6 significant bits) and the backward reuses it, in " \
                    "PyTorch too"
# (case, scale): a looser tolerance against float64 where float16 itself cannot do better, for the reason given.
# The same tolerance applies to PyTorch parity there (both libraries round the same intermediates differently).
LOOSER = {
    ("std", 1e-6): (3e-2, _SUBNORMAL_RESULT),
    ("std_dim", 1e-6): (3e-2, _SUBNORMAL_RESULT),
    ("norm_dim", 1e-6): (3e-2, _SUBNORMAL_RESULT),
    ("vector_norm", 1e-6): (3e-2, _SUBNORMAL_RESULT),
    ("norm_p3", 1e-6): (3e-2, _SUBNORMAL_RESULT),
    ("normalize", 1e-6): (3e-2, "x / norm divides by a subnormal float16 norm (~6 significant bits), as PyTorch's"),
    ("softmax", 300.0): (0.25, "saturated rows: the gradient y * (g - sum(g * y)) cancels O(1) terms down to "
                               "~5e-4, so the float16 rounding of the saved output y dominates, as in PyTorch"),
}


def _input(scale):
    rng = np.random.default_rng(0)
    sign = np.where(rng.random((4, 8)) < 0.5, -1.0, 1.0)
    return (rng.uniform(0.5, 1.5, (4, 8)) * sign * scale).astype(np.float16)


def _run(lib, F, fn, a, dtype=None):
    x = lib.tensor(a if dtype is None else a.astype(dtype), requires_grad=True)
    out = fn(lib, F, x)
    up = np.random.default_rng(1).uniform(-1, 1, tuple(out.shape)).astype(np.float16)
    out.backward(lib.tensor(up if dtype is None else up.astype(dtype)))
    return out.detach().numpy(), x.grad.numpy()


def _err(a, ref):
    """The error of ``a`` against ``ref`` in units of the tolerance TOL: <= TOL passes. NaN/inf must sit at
    the same places, with the same sign."""
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    fin = np.isfinite(ref)
    if not np.array_equal(np.isfinite(a), fin) or not np.array_equal(a[~fin], ref[~fin], equal_nan=True):
        return np.inf
    if not fin.any():
        return 0.0
    bound = np.abs(ref[fin]).max() + SUBNORMAL_ULPS / TOL
    return float(np.abs(a - ref)[fin].max() / bound)


def _reference(fn, a):
    """float64 on the same float16 values, rounded to float16 (as an exactly rounded kernel would give)."""
    out, grad = _run(npgrad, NF, fn, a, np.float64)
    with np.errstate(over="ignore"):  # a value past 65504 is inf in float16, as it should be
        return out.astype(np.float16), grad.astype(np.float16)


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: f"{s:g}")
@pytest.mark.parametrize("name", list(CASES))
def test_float16_accumulates_in_float32(name, scale):
    fn, a = CASES[name], _input(scale)
    out, grad = _run(npgrad, NF, fn, a)
    assert out.dtype == np.float16 and grad.dtype == np.float16
    ref_out, ref_grad = _reference(fn, a)
    tol = LOOSER.get((name, scale), (TOL,))[0]
    finite = np.isfinite(out).all()  # an overflowed result has no meaningful gradient to compare
    assert _err(out, ref_out) <= tol, f"forward off the float64 reference by {_err(out, ref_out):.2e}"
    if finite and np.isfinite(ref_grad).all():  # (a true gradient past 65504: only PyTorch's NaN/inf to match)
        assert _err(grad, ref_grad) <= tol, f"backward off the float64 reference by {_err(grad, ref_grad):.2e}"
    if not HAS_TORCH:
        return
    t_out, t_grad = _run(torch, TF, fn, a)
    assert t_out.dtype == out.dtype and t_grad.dtype == grad.dtype
    torch_off = _err(t_out, ref_out) > tol or (finite and np.isfinite(ref_grad).all() and _err(t_grad, ref_grad) > tol)
    if (name, scale) in TORCH_LESS_ACCURATE:
        assert torch_off, f"PyTorch now matches float64 here: remove ({name!r}, {scale}) from TORCH_LESS_ACCURATE"
        return
    assert not torch_off, "PyTorch's float16 result is off float64: list it in TORCH_LESS_ACCURATE with a reason"
    assert _err(out, t_out) <= tol, f"forward off PyTorch's by {_err(out, t_out):.2e}"
    if finite:
        assert _err(grad, t_grad) <= tol, f"backward off PyTorch's by {_err(grad, t_grad):.2e}"


def test_float16_norm_of_large_values_is_finite():
    # the example: a sum of squares past 65504 still has a representable root
    x = npgrad.full((4,), 5000.0, dtype=npgrad.float16)
    assert x.norm().item() == 10000.0
    assert NF.layer_norm(x.reshape(1, 4) * npgrad.tensor([1.0, -1.0, 1.0, -1.0], dtype=npgrad.float16), (4,)) \
        .abs().min().item() > 0.99


def test_float32_paths_are_unchanged(monkeypatch):
    """The float16 branches leave float32 and float64 alone: their results are bit-identical to the
    formulas computed directly in NumPy in that dtype."""
    # The NumPy path's bits; the compiled kernels (the [kernels] extra) agree within rounding: tests/kernels.
    monkeypatch.setattr(npgrad.backends.kernels, "enabled", False)
    rng = np.random.default_rng(3)
    for dt in (np.float32, np.float64):
        a = rng.standard_normal((5, 7)).astype(dt)
        x = npgrad.tensor(a)
        assert x.norm().numpy().dtype == dt
        np.testing.assert_array_equal(x.norm().numpy(), np.sqrt(np.sum(a * a)).astype(dt))
        np.testing.assert_array_equal(x.cumsum(1).numpy(), np.cumsum(a, axis=1))
        e = np.exp(a - a.max(1, keepdims=True))
        # (softmax sums its rows with einsum: ops/softmax.py)
        np.testing.assert_array_equal(x.softmax(1).numpy(), e / np.einsum("ij->i", e)[:, None])
