"""Where a backward keeps an array-only formula beside its general one (because a benchmark showed it
pays, see the comment at each), the two must agree: the plain backward runs the array formula, the
first-order gradient under ``create_graph=True`` the general one. Also covers the intermediates a
backward reuses from forward (``_poly.from_forward``) against their recomputation."""
import numpy as np
import pytest

import npgrad
import npgrad.nn.functional as F

RNG = np.random.default_rng(0)


def _x(*shape):
    return RNG.standard_normal(shape)


def _with_zeros(*shape):
    a = _x(*shape)
    a[a < -0.5] = 0.0  # cumprod's exact gradient through zeros
    return a


def _c(a):
    return npgrad.tensor(a)


# Constants are drawn once: each case's function is called three times.
TARGET, T4, CW = _c(RNG.integers(0, 7, 5)), _c(RNG.integers(0, 3, (2, 4, 5))), _c(RNG.uniform(0.5, 2, 7))
T_IGNORED = _c(np.where(TARGET.numpy() == 3, -100, TARGET.numpy()))
W6, B6, W4, B4 = _c(_x(6)), _c(_x(6)), _c(_x(4)), _c(_x(4))
# (requiring grad, so that x's gradient, linear in x, still depends on something differentiable)
K_DEPTH = npgrad.tensor(_x(4, 1, 3, 3), requires_grad=True)
K_GROUP = npgrad.tensor(_x(4, 2, 3, 3), requires_grad=True)
X_DEEP = npgrad.tensor(_x(2, 8, 6, 5), requires_grad=True)
# recurrent weights (input 3, hidden 4): LSTM with proj_size 2, both directions; GRU; RNN without bias
LSTM_W = [_c(_x(*s) * 0.5) for s in [(16, 3), (16, 2), (16,), (16,), (2, 4)] * 2]
GRU_W = [_c(_x(*s) * 0.5) for s in [(12, 3), (12, 4), (12,), (12,)]]
RNN_W = [_c(_x(*s) * 0.5) for s in [(4, 3), (4, 4)]]
H0_P, C0, H0 = _c(_x(2, 2, 2)), _c(_x(2, 2, 4)), _c(_x(1, 2, 4))
CASES = {
    "gelu": (lambda x: F.gelu(x), _x(4, 9)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), _x(4, 9)),
    "silu": (lambda x: F.silu(x), _x(4, 9)),
    "mish": (lambda x: F.mish(x), _x(4, 9)),
    "cross_entropy": (lambda x: F.cross_entropy(x, TARGET), _x(5, 7)),
    "cross_entropy_smoothing_weight_ignore": (
        lambda x: F.cross_entropy(x, T_IGNORED, label_smoothing=0.2, weight=CW), _x(5, 7)),
    "cross_entropy_4d": (lambda x: F.cross_entropy(x, T4), _x(2, 3, 4, 5)),
    "layer_norm": (lambda x: F.layer_norm(x, (6,), W6, B6), _x(3, 6)),
    "group_norm": (lambda x: F.group_norm(x, 2, W4, B4), _x(3, 4, 5)),
    "batch_norm": (lambda x: F.batch_norm(x, None, None, W4, B4, training=True), _x(6, 4, 3)),
    "rms_norm": (lambda x: F.rms_norm(x, (6,)), _x(3, 6)),
    "depthwise_conv": (lambda x: F.conv2d(x, K_DEPTH, padding=1, groups=4), _x(2, 4, 5, 5)),
    "grouped_conv_cols": (lambda x: F.conv2d(x, K_GROUP, stride=2, groups=2), _x(2, 4, 7, 7)),
    # the input gradient's chunked GEMM + col2im (a batch spanning several chunks) against Col2Im of the GEMM
    "conv_input_grad_chunked": (lambda x: F.conv2d(x, K_GROUP, padding=1, groups=2), _x(3, 4, 96, 96)),
    # the weight gradient from channel-major windows (one GEMM over the batch), deep enough to take that path
    "conv_weight_grad_channel_major": (lambda w: F.conv2d(X_DEEP * w.sum(), w, padding=1), _x(3, 8, 3, 3)),
    "cumprod_with_zeros": (lambda x: x.cumprod(1), _with_zeros(3, 6)),
    # the fused recurrent layer (array BPTT) against its composite recomputation under create_graph
    "lstm_bidirectional_proj": (lambda x: npgrad.lstm(x, (H0_P, C0), LSTM_W, True, 1, 0.0, True, True, False)[0],
                                _x(4, 2, 3)),
    "gru_packed": (lambda x: npgrad.gru(x, npgrad.tensor([2, 2, 1]), H0, GRU_W, True, 1, 0.0, True, False)[0],
                   _x(5, 3)),
    "rnn_tanh_h_n": (lambda x: npgrad.rnn_tanh(x, H0[:1], RNN_W, False, 1, 0.0, True, False, False)[1], _x(4, 2, 3)),
}


@pytest.mark.parametrize("name", CASES)
def test_array_and_general_formulas_agree(name):
    fn, a = CASES[name]
    up = RNG.standard_normal(np.shape(fn(npgrad.tensor(a)).detach().numpy()))
    x = npgrad.tensor(a, requires_grad=True)
    fn(x).backward(npgrad.tensor(up))  # plain backward: arrays, the array-only formula
    plain = x.grad.numpy()
    x2 = npgrad.tensor(a, requires_grad=True)
    (general,) = npgrad.autograd.grad(fn(x2), x2, npgrad.tensor(up), create_graph=True)  # Tensors
    assert general.requires_grad  # it really went through the differentiable formula
    np.testing.assert_allclose(plain, general.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def test_gelu_float32_derivative_from_forward(monkeypatch):
    """float32 GELU computes its derivative during forward (ops._erf.gelu32_np): the plain backward must
    equal, bit for bit, the array formula run after the fact on the same input, and agree with the general
    (create_graph) formula to float32 rounding."""
    # The NumPy path's bits; the compiled kernel (the [kernels] extra) agrees within rounding: tests/kernels.
    monkeypatch.setattr(npgrad.backends.kernels, "enabled", False)
    from npgrad.ops._erf import normal_cdf_np
    a = RNG.standard_normal((3, 70000)).astype(np.float32)  # more than one evaluation block
    a[0, :7] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -9.0]
    up = RNG.standard_normal(a.shape).astype(np.float32)
    x = npgrad.tensor(a, requires_grad=True)
    y = F.gelu(x)
    y.backward(npgrad.tensor(up))
    cdf = normal_cdf_np(a)
    with np.errstate(invalid="ignore"):  # -inf * Phi(-inf) = -inf * 0: NaN, as PyTorch's gelu(-inf)
        np.testing.assert_array_equal(y.detach().numpy(), a * cdf)
        ref = np.multiply(a, a)
        ref *= -0.5
        np.exp(ref, out=ref)
        ref *= a
        ref *= float(1.0 / np.sqrt(2.0 * np.pi))  # a Python float: float32 arithmetic, as the library
        ref += cdf
        ref *= up
    np.testing.assert_array_equal(x.grad.numpy(), ref)
    x2 = npgrad.tensor(a[1:], requires_grad=True)
    (general,) = npgrad.autograd.grad(F.gelu(x2), x2, npgrad.tensor(up[1:]), create_graph=True)
    np.testing.assert_allclose(x.grad.numpy()[1:], general.detach().numpy(), rtol=2e-6, atol=2e-6)
    with npgrad.no_grad():  # no derivative computed, same values
        np.testing.assert_array_equal(F.gelu(npgrad.tensor(a)).numpy(), y.detach().numpy())
