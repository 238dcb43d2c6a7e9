"""NaN and inf propagate as PyTorch propagates them, forward and backward, and nothing is silently
zeroed: property tests over inputs drawn from special values (NaN, +-inf, +-0, tiny and huge numbers)
mixed with ordinary ones.

With PyTorch: values and gradients must equal PyTorch's, NaN for NaN and inf for inf. Without it: the
forward value must equal the NumPy reference (IEEE semantics), and a NaN input must give a NaN output.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import npgrad
from _fuzz import MODES, check, seeds, shapes
from _op_tables import BINARY, REDUCTIONS, UNARY
from oracle import HAS_TORCH, torch

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1e30, -1e30, 1.0, -1.0, 0.5, -2.5, 3.0])


def special_values(seed, shape, dtype):
    rng = np.random.default_rng(seed)
    return np.asarray(SPECIAL[rng.integers(0, len(SPECIAL), size=shape)].astype(dtype))


def _forward_only(mode):
    # Gradients at special values have no finite-difference oracle: without PyTorch, forward only.
    return mode == "fd"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", UNARY, ids=str)
@given(shape=shapes(max_dims=3, sides=(1, 2, 3, 4)), seed=seeds, dtype=st.sampled_from(["float32", "float64"]))
def test_unary_special_values(op, mode, shape, seed, dtype):
    x = special_values(seed, shape, dtype)
    if not op.special_negatives:
        x = np.where(np.signbit(x) & ((x == 0) | np.isinf(x)), 1.0, x).astype(dtype)
    if _forward_only(mode):
        with np.errstate(all="ignore"):
            expected = op.ref(x)
        out = op.fn(npgrad, npgrad.tensor(x)).numpy()
        np.testing.assert_array_equal(np.isnan(out), np.isnan(expected.astype(out.dtype)), err_msg=op.name)
        np.testing.assert_allclose(out, expected.astype(out.dtype), rtol=1e-5, equal_nan=True, err_msg=op.name)
        return
    check(op.fn, [x], "torch", what=f"{op.name} {x.tolist()}")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", BINARY, ids=str)
@given(shape=shapes(max_dims=2, sides=(1, 2, 3, 4)), seed=seeds, dtype=st.sampled_from(["float32", "float64"]))
def test_binary_special_values(op, mode, shape, seed, dtype):
    a, b = special_values(seed, shape, dtype), special_values(seed + 1, shape, dtype)
    if op.special_filter is not None:
        a, b = op.special_filter(a, b)
    if _forward_only(mode):
        with np.errstate(all="ignore"):
            expected = np.asarray(op.ref(a, b))
        out = op.fn(npgrad, npgrad.tensor(a), npgrad.tensor(b)).numpy()
        np.testing.assert_allclose(out, expected.astype(out.dtype), rtol=1e-5, equal_nan=True, err_msg=op.name)
        return
    check(op.fn, [a, b], "torch", what=f"{op.name} {a.tolist()} {b.tolist()}",
          no_grad_inputs=() if op.special_grads else (0, 1))


@pytest.mark.parametrize("mode", MODES)
# var_mean aside: PyTorch's Welford mean makes [inf, 0] NaN (and [0.5, -1e30, 1e30] 7e13), not inf (0).
@pytest.mark.parametrize("op", [r for r in REDUCTIONS if r.fd and r.name != "var_mean"], ids=str)
@given(shape=shapes(min_dims=1, max_dims=3, sides=(1, 2, 3, 4)), seed=seeds, data=st.data())
def test_reduction_special_values(op, mode, shape, seed, data):
    x = special_values(seed, shape, "float64")
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    if _forward_only(mode):
        with np.errstate(all="ignore"):
            expected = np.asarray(op.ref(x, dim, False))
        out = op.fn(npgrad, npgrad.tensor(x), dim, False)
        out = (out[0] if isinstance(out, tuple) else out).numpy()
        if op.name not in ("nansum", "argmax"):  # NaN in a slice makes its result NaN: never zeroed
            nan_slices = np.isnan(x).any(axis=dim)
            if op.name in ("cumsum", "cumprod", "softmax", "log_softmax"):
                nan_slices = np.isnan(expected)
            assert np.isnan(out[nan_slices]).all(), f"{op.name}: a NaN was lost"
        np.testing.assert_allclose(out, expected.astype(out.dtype), rtol=1e-7, equal_nan=True, err_msg=op.name)
        return
    check(lambda lib, t: op.fn(lib, t, dim, False), [x], "torch", what=f"{op.name} dim={dim} {x.tolist()}",
          no_grad_inputs=() if op.special_grads else (0,))


if HAS_TORCH:
    import npgrad.nn.functional as NF
    import torch.nn.functional as TF

    def _functional(name, call, known_bug=None):
        # known_bug: a discrepancy reported to the nn module's owner; strict, so the fix is noticed
        marks = [pytest.mark.xfail(strict=True, reason=known_bug)] if known_bug else []
        return pytest.param(name, call, id=name, marks=marks)

    _NAN_GRAD = "gradient at NaN/inf input is NaN, PyTorch's is finite (reported)"

    FUNCTIONAL = [
        _functional("softplus", lambda F, x: F.softplus(x)),
        _functional("logsigmoid", lambda F, x: F.logsigmoid(x)),
        _functional("silu", lambda F, x: F.silu(x)),
        _functional("gelu", lambda F, x: F.gelu(x)),
        _functional("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh")),
        _functional("elu", lambda F, x: F.elu(x), _NAN_GRAD),
        _functional("selu", lambda F, x: F.selu(x), _NAN_GRAD),
        _functional("celu", lambda F, x: F.celu(x), _NAN_GRAD),
        _functional("leaky_relu", lambda F, x: F.leaky_relu(x, 0.1)),
        _functional("hardtanh", lambda F, x: F.hardtanh(x), "gradient at NaN is 0, PyTorch passes it (reported)"),
        _functional("hardswish", lambda F, x: F.hardswish(x), _NAN_GRAD),
        # (hardsigmoid: PyTorch's float64 gradient uses a float32 1/6, so float64 parity is impossible)
        _functional("relu6", lambda F, x: F.relu6(x), "gradient at NaN is 0, PyTorch passes it (reported)"),
        _functional("mish", lambda F, x: F.mish(x)),
        _functional("softsign", lambda F, x: F.softsign(x)),
        _functional("softshrink", lambda F, x: F.softshrink(x), "NaN input gives 0, PyTorch NaN (reported)"),
        _functional("hardshrink", lambda F, x: F.hardshrink(x), "NaN input gives 0, PyTorch NaN (reported)"),
        _functional("tanhshrink", lambda F, x: F.tanhshrink(x)),
        _functional("softmax", lambda F, x: F.softmax(x, -1)),
        _functional("log_softmax", lambda F, x: F.log_softmax(x, -1)),
        _functional("layer_norm", lambda F, x: F.layer_norm(x, x.shape[-1:])),
        _functional("normalize", lambda F, x: F.normalize(x, dim=-1)),
        _functional("mse", lambda F, x: F.mse_loss(x, x.flip(-1), reduction="none")),
        _functional("l1", lambda F, x: F.l1_loss(x, x.flip(-1), reduction="none")),
        _functional("smooth_l1", lambda F, x: F.smooth_l1_loss(x, x.flip(-1), reduction="none"), _NAN_GRAD),
        _functional("huber", lambda F, x: F.huber_loss(x, x.flip(-1), reduction="none"), _NAN_GRAD),
        _functional("bce_logits", lambda F, x: F.binary_cross_entropy_with_logits(x, (x.detach() > 0).to(x.dtype),
                                                                                reduction="none")),
        _functional("cross_entropy", lambda F, x: F.cross_entropy(x.reshape(-1, x.shape[-1]),
                                                                  _targets(F, x), reduction="none")),
        _functional("max_pool1d", lambda F, x: F.max_pool1d(x.reshape(1, 1, -1), 2)),
        _functional("avg_pool1d", lambda F, x: F.avg_pool1d(x.reshape(1, 1, -1), 2)),
    ]

    def _targets(F, x):
        lib = torch if F is TF else npgrad
        n = x.reshape(-1, x.shape[-1]).shape[0]
        return lib.arange(n) % x.shape[-1]

    @pytest.mark.parametrize("name,call", FUNCTIONAL)
    @given(shape=shapes(min_dims=1, max_dims=2, sides=(2, 3, 4)), seed=seeds)
    def test_functional_special_values(name, call, shape, seed):
        x = special_values(seed, shape, "float64")
        check(lambda lib, t: call(TF if lib is torch else NF, t), [x], "torch", what=f"F.{name} {x.tolist()}")
