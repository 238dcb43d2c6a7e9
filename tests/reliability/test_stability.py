"""Numerical stability at extreme inputs: |x| = 1e4 logits, all-equal logits, tiny variances around a large
mean, tiny and huge norms. Values and gradients must be finite wherever the exact answer is, equal to the
exact answer (computed here in float64 from a stable formula, so the test means something without
PyTorch), and equal to PyTorch's.
"""
import math

import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as NF
from oracle import HAS_TORCH, torch

if HAS_TORCH:
    import torch.nn.functional as TF

EXTREME = np.array([-1e4, -100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, 1e4])
TOL = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def _softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _log_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))))


def _bce_logits(x, y):
    return np.mean(np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x))))


def _targets3(lib):
    return lib.tensor([0, 1, 2])


CASES = [
    # (name, fn(lib, F, *tensors), inputs, exact(*float64 arrays) -> value, exact gradient or None)
    ("sigmoid", lambda L, F, x: x.sigmoid(), [EXTREME], _sigmoid),
    ("softplus", lambda L, F, x: F.softplus(x), [EXTREME], _softplus),
    ("softplus_beta", lambda L, F, x: F.softplus(x, beta=2.0, threshold=30), [EXTREME],
     lambda x: np.where(2 * x > 30, x, _softplus(2 * x) / 2)),
    ("logsigmoid", lambda L, F, x: F.logsigmoid(x), [EXTREME], lambda x: -_softplus(-x)),
    ("log_softmax", lambda L, F, x: F.log_softmax(x.reshape(3, 3), 1), [EXTREME],
     lambda x: _log_softmax(x.reshape(3, 3), 1)),
    ("log_softmax_dim0", lambda L, F, x: F.log_softmax(x.reshape(3, 3), 0), [EXTREME],
     lambda x: _log_softmax(x.reshape(3, 3), 0)),
    ("tensor.log_softmax", lambda L, F, x: x.reshape(3, 3).log_softmax(-1), [EXTREME],
     lambda x: _log_softmax(x.reshape(3, 3), 1)),
    ("softmax", lambda L, F, x: F.softmax(x.reshape(3, 3), 1), [EXTREME],
     lambda x: np.exp(_log_softmax(x.reshape(3, 3), 1))),
    ("softmax_all_equal", lambda L, F, x: F.softmax(x, 0), [np.full(4, 1e4)], lambda x: np.full(4, 0.25)),
    ("logsumexp", lambda L, F, x: L.logsumexp(x.reshape(3, 3), 1), [EXTREME],
     lambda x: -_log_softmax(x.reshape(3, 3), 1)[:, 0] + x.reshape(3, 3)[:, 0]),
    ("logsumexp_equal", lambda L, F, x: L.logsumexp(x, 0), [np.full(5, 1e4)], lambda x: 1e4 + math.log(5)),
    ("logsumexp_-inf", lambda L, F, x: L.logsumexp(x, 0), [np.array([-np.inf, -np.inf])], lambda x: -np.inf),
    ("cross_entropy", lambda L, F, x: F.cross_entropy(x.reshape(3, 3), _targets3(L)), [EXTREME],
     lambda x: -np.mean(_log_softmax(x.reshape(3, 3), 1)[[0, 1, 2], [0, 1, 2]])),
    ("cross_entropy_all_equal", lambda L, F, x: F.cross_entropy(x, L.tensor([0, 1, 2, 4])),
     [np.full((4, 5), 1e4)], lambda x: math.log(5)),
    ("cross_entropy_confident_wrong", lambda L, F, x: F.cross_entropy(x, L.tensor([1])),
     [np.array([[1e4, -1e4, 0.0]])], lambda x: 2e4),
    ("cross_entropy_probs", lambda L, F, x: F.cross_entropy(x, L.tensor([[0.0, 1.0, 0.0]], dtype=x.dtype)),
     [np.array([[1e4, -1e4, 0.0]])], lambda x: 2e4),
    ("cross_entropy_smoothing", lambda L, F, x: F.cross_entropy(x.reshape(3, 3), _targets3(L), label_smoothing=0.1),
     [EXTREME], None),
    ("nll_of_log_softmax", lambda L, F, x: F.nll_loss(F.log_softmax(x.reshape(3, 3), 1), _targets3(L)), [EXTREME],
     lambda x: -np.mean(_log_softmax(x.reshape(3, 3), 1)[[0, 1, 2], [0, 1, 2]])),
    ("bce_with_logits", lambda L, F, x, y: F.binary_cross_entropy_with_logits(x, y), [EXTREME, (EXTREME > 0) * 1.0],
     _bce_logits),
    ("bce_with_logits_wrong", lambda L, F, x, y: F.binary_cross_entropy_with_logits(x, y),
     [EXTREME, (EXTREME < 0) * 1.0], _bce_logits),
    ("bce_with_logits_pos_weight", lambda L, F, x, y: F.binary_cross_entropy_with_logits(
        x, y, pos_weight=L.tensor(3.0, dtype=x.dtype)), [EXTREME, (EXTREME < 0) * 1.0], None),
    ("norm_tiny", lambda L, F, x: x.norm(), [np.array([3e-30, 4e-30, 0.0])], lambda x: 5e-30),
    ("norm_zero", lambda L, F, x: x.norm(), [np.zeros(3)], lambda x: 0.0),
    ("norm_p3_zero", lambda L, F, x: x.norm(p=3), [np.zeros(2)], lambda x: 0.0),
    ("normalize_zero", lambda L, F, x: F.normalize(x, dim=0), [np.zeros(2)], lambda x: np.zeros(2)),
    # deviations of 1e-3 around 1e4 (float32-representable, mean included): E[x^2] - E[x]^2 would lose them
    ("std_tiny_variance", lambda L, F, x: x.std(), [1e4 + np.array([0.0, 1.0, 3.0, 4.0]) / 1024],
     lambda x: np.std(x - x[0], ddof=1)),
    ("std_all_equal", lambda L, F, x: x.std(), [np.full(3, 3.0)], lambda x: 0.0),
    ("var_all_equal_large", lambda L, F, x: x.var(), [np.full(3, 1e4)], lambda x: 0.0),
    ("std_large_spread", lambda L, F, x: x.std(), [np.array([1e4, -1e4, 0.5])], lambda x: np.std(x, ddof=1)),
    ("layer_norm_all_equal", lambda L, F, x: F.layer_norm(x, (3,)), [np.full(3, 5.0)], lambda x: np.zeros(3)),
    ("tanh", lambda L, F, x: x.tanh(), [EXTREME], np.tanh),
    ("silu", lambda L, F, x: F.silu(x), [EXTREME], lambda x: x * _sigmoid(x)),
    ("gelu", lambda L, F, x: F.gelu(x), [EXTREME], None),
    ("mish", lambda L, F, x: F.mish(x), [EXTREME], lambda x: x * np.tanh(_softplus(x))),
    ("elu", lambda L, F, x: F.elu(x), [EXTREME], lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    ("log1p_expm1", lambda L, F, x: x.expm1().log1p(), [np.array([-3.0, 1e-10, 5.0])],
     lambda x: np.log1p(np.expm1(x))),
    ("kl_div_log_target", lambda L, F, x, y: F.kl_div(x, y, reduction="sum", log_target=True),
     [np.array([-1e4, -1.0]), np.array([-1e4, -2.0])], None),
]


def _run(lib, F, case, dtype):
    name, fn, inputs, exact = case
    ts = [lib.tensor(np.asarray(a, dtype=dtype), requires_grad=True) for a in inputs]
    out = fn(lib, F, *ts)
    up = np.linspace(0.5, 1.5, max(out.numel(), 1)).reshape(tuple(out.shape)).astype(dtype)
    out.backward(lib.tensor(up))
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_extreme_inputs(case, dtype):
    name, fn, inputs, exact = case
    out, grads = _run(npgrad, NF, case, dtype)
    if exact is not None:
        # exact for the inputs as the dtype stores them (float32 cannot hold 1e4 + 1e-3 exactly)
        expected = np.asarray(exact(*[np.asarray(a, dtype).astype(np.float64) for a in inputs]), np.float64)
        np.testing.assert_allclose(out.astype(np.float64), expected, equal_nan=False, err_msg=f"{name} value",
                                   **TOL[dtype])
        finite = np.isfinite(expected).all()
    else:
        finite = True
    if finite:
        assert np.isfinite(out).all(), f"{name}: non-finite value {out}"
        for g in grads:
            assert np.isfinite(g).all(), f"{name}: non-finite gradient {g}"
    if HAS_TORCH:
        t_out, t_grads = _run(torch, TF, case, dtype)
        np.testing.assert_allclose(out, t_out, err_msg=f"{name} value vs PyTorch", **TOL[dtype])
        for g, tg in zip(grads, t_grads):
            np.testing.assert_allclose(g, tg, err_msg=f"{name} gradient vs PyTorch", **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softplus_and_bce_gradients_at_the_extremes(dtype):
    """The exact gradients: softplus' = sigmoid (0 and 1 at -+1e4), BCE-with-logits' = (sigmoid(x) - y) / n."""
    x = npgrad.tensor(EXTREME.astype(dtype), requires_grad=True)
    NF.softplus(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _sigmoid(EXTREME), **TOL[dtype])
    x.grad = None
    y = (EXTREME < 0).astype(dtype)
    NF.binary_cross_entropy_with_logits(x, npgrad.tensor(y)).backward()
    np.testing.assert_allclose(x.grad.numpy(), (_sigmoid(EXTREME) - y) / len(y), **TOL[dtype])
    x.grad = None
    NF.cross_entropy(x.reshape(3, 3), npgrad.tensor([0, 1, 2])).backward()
    p = np.exp(_log_softmax(EXTREME.reshape(3, 3), 1))
    p[[0, 1, 2], [0, 1, 2]] -= 1
    np.testing.assert_allclose(x.grad.numpy().reshape(3, 3), p / 3, **TOL[dtype])
