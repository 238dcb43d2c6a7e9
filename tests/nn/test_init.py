"""nn.init and every layer's default initialisation: the same distributions and bounds as PyTorch
(values differ: a different random generator), checked by bounds and sample statistics."""
import math

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
import npgrad.nn.init as init
from oracle import HAS_TORCH, torch


@pytest.fixture(autouse=True)
def _seeded():
    # Statistics of random draws: fixed seeds make every run see the same draws (no flaky thresholds).
    npgrad.manual_seed(0)
    if HAS_TORCH:
        torch.manual_seed(0)


def vals(t):
    return t.detach().numpy().astype(np.float64).ravel()


def test_uniform_normal_constant():
    t = npgrad.empty(100, 100)
    assert init.uniform_(t, -2.0, 3.0) is t
    v = vals(t)
    assert v.min() >= -2.0 and v.max() <= 3.0 and abs(v.mean() - 0.5) < 0.05 and abs(v.std() - 5 / math.sqrt(12)) < 0.03
    init.normal_(t, 1.0, 0.5)
    v = vals(t)
    assert abs(v.mean() - 1.0) < 0.02 and abs(v.std() - 0.5) < 0.02
    init.constant_(t, 0.3)
    assert np.all(vals(t) == np.float32(0.3))
    init.zeros_(t)
    assert np.all(vals(t) == 0)
    init.ones_(t)
    assert np.all(vals(t) == 1)


def test_trunc_normal():
    t = npgrad.empty(200, 100)
    init.trunc_normal_(t, mean=0.0, std=1.0, a=-2.0, b=2.0)
    v = vals(t)
    assert v.min() >= -2.0 and v.max() <= 2.0
    # The standard normal truncated to [-2, 2] has standard deviation 0.8796.
    assert abs(v.std() - 0.8796) < 0.02 and abs(v.mean()) < 0.02
    init.trunc_normal_(t, mean=1.0, std=0.02, a=0.97, b=1.5)
    v = vals(t)
    assert v.min() >= 0.97 and v.max() <= 1.5


def test_xavier_and_kaiming_bounds():
    w = npgrad.empty(64, 32, 3, 3)  # fan_in = 288, fan_out = 576
    init.xavier_uniform_(w, gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / (288 + 576))
    v = vals(w)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.99 * bound
    init.xavier_normal_(w)
    assert abs(vals(w).std() - math.sqrt(2.0 / (288 + 576))) < 0.002
    init.kaiming_uniform_(w, a=0, mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 576)
    v = vals(w)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.99 * bound
    init.kaiming_normal_(w, mode="fan_in", nonlinearity="leaky_relu", a=0.2)
    assert abs(vals(w).std() - math.sqrt(2.0 / (1 + 0.04)) / math.sqrt(288)) < 0.002
    with pytest.raises(ValueError, match="Mode fan_x not supported"):
        init.kaiming_uniform_(w, mode="fan_x")


def test_orthogonal_eye_dirac():
    for shape in [(6, 10), (10, 6), (4, 2, 3)]:
        w = npgrad.empty(*shape)
        init.orthogonal_(w, gain=1.5)
        m = vals(w).reshape(shape[0], -1)
        small = min(m.shape)
        prod = m @ m.T if m.shape[0] == small else m.T @ m
        np.testing.assert_allclose(prod, 2.25 * np.eye(small), atol=1e-5)
    e = npgrad.empty(3, 4)
    init.eye_(e)
    np.testing.assert_array_equal(e.numpy(), np.eye(3, 4))
    d = npgrad.empty(2, 2, 3, 3)
    init.dirac_(d)
    x = npgrad.randn(1, 2, 5, 5)
    np.testing.assert_allclose(nn.functional.conv2d(x, d, padding=1).numpy(), x.numpy(), rtol=1e-6)


def test_calculate_gain_and_fans():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("leaky_relu", 0.3) == math.sqrt(2.0 / (1 + 0.09))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope"):
        init.calculate_gain("leaky_relu", "x")
    assert init._calculate_fan_in_and_fan_out(npgrad.empty(8, 3, 5, 5)) == (75, 200)
    assert init._calculate_fan_in_and_fan_out(npgrad.empty(4, 6)) == (6, 4)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2 "
                                         "dimensions"):
        init._calculate_fan_in_and_fan_out(npgrad.empty(4))


if HAS_TORCH:
    def test_gains_and_fans_match_torch():
        for nl, p in [("linear", None), ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
                      ("selu", None), ("conv_transpose2d", None)]:
            assert init.calculate_gain(nl, p) == torch.nn.init.calculate_gain(nl, p)
        for shape in [(3, 4), (8, 3, 5), (2, 6, 3, 3)]:
            assert init._calculate_fan_in_and_fan_out(npgrad.empty(*shape)) == \
                torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_init_on_parameters_is_untracked_and_reproducible():
    p = nn.Parameter(npgrad.empty(5, 5))
    init.normal_(p)
    assert p.requires_grad and p.grad_fn is None
    g1, g2 = npgrad.Generator().manual_seed(3), npgrad.Generator().manual_seed(3)
    a, b = npgrad.empty(4), npgrad.empty(4)
    init.uniform_(a, generator=g1)
    init.uniform_(b, generator=g2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    npgrad.manual_seed(0)
    l1 = nn.Linear(3, 3)
    npgrad.manual_seed(0)
    l2 = nn.Linear(3, 3)
    np.testing.assert_array_equal(l1.weight.detach().numpy(), l2.weight.detach().numpy())
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.uniform_(npgrad.empty(0, 3))


# -- default layer initialisation -------------------------------------------------------------------------------

def _uniform_bound_ok(t, bound):
    """Within the bound, reaching close to it, with the spread of U(-bound, bound) (looser for small tensors)."""
    v = vals(t)
    slack = 0.05 if v.size >= 1000 else 0.3
    return np.abs(v).max() <= bound * (1 + 1e-6) and np.abs(v).max() > (1 - slack) * bound and \
        abs(v.std() - bound / math.sqrt(3)) < slack * bound / math.sqrt(3)


def test_linear_and_conv_default_init():
    lin = nn.Linear(200, 100)
    assert _uniform_bound_ok(lin.weight, 1 / math.sqrt(200)) and _uniform_bound_ok(lin.bias, 1 / math.sqrt(200))
    conv = nn.Conv2d(16, 32, 3)
    assert _uniform_bound_ok(conv.weight, 1 / math.sqrt(16 * 9))
    assert _uniform_bound_ok(conv.bias, 1 / math.sqrt(16 * 9))
    convt = nn.ConvTranspose2d(16, 32, 3, groups=2)  # weight (16, 16, 3, 3): fan_in = 16 * 9
    assert _uniform_bound_ok(convt.weight, 1 / math.sqrt(16 * 9))
    c1 = nn.Conv1d(8, 40, 5, groups=4)  # weight (40, 2, 5): fan_in = 10
    assert _uniform_bound_ok(c1.weight, 1 / math.sqrt(10))
    bil = nn.Bilinear(30, 20, 50)
    assert _uniform_bound_ok(bil.weight, 1 / math.sqrt(30)) and _uniform_bound_ok(bil.bias, 1 / math.sqrt(30))


def test_norm_embedding_attention_default_init():
    bn = nn.BatchNorm2d(4)
    assert np.all(vals(bn.weight) == 1) and np.all(vals(bn.bias) == 0)
    assert np.all(vals(bn.running_mean) == 0) and np.all(vals(bn.running_var) == 1)
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype == npgrad.int64
    ln = nn.LayerNorm((2, 3))
    assert np.all(vals(ln.weight) == 1) and np.all(vals(ln.bias) == 0)
    assert np.all(vals(nn.RMSNorm(3).weight) == 1)
    gn = nn.GroupNorm(2, 4)
    assert np.all(vals(gn.weight) == 1) and np.all(vals(gn.bias) == 0)
    emb = nn.Embedding(300, 40, padding_idx=3)
    v = vals(emb.weight).reshape(300, 40)
    assert np.all(v[3] == 0)
    others = np.delete(v, 3, axis=0)
    assert abs(others.mean()) < 0.03 and abs(others.std() - 1) < 0.03
    mha = nn.MultiheadAttention(32, 4)
    bound = math.sqrt(6.0 / (32 + 96))
    v = vals(mha.in_proj_weight)
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.95 * bound
    assert np.all(vals(mha.in_proj_bias) == 0) and np.all(vals(mha.out_proj.bias) == 0)
    assert _uniform_bound_ok(mha.out_proj.weight, 1 / math.sqrt(32))
    sep = nn.MultiheadAttention(32, 4, kdim=16, vdim=8, add_bias_kv=True)
    assert sep.in_proj_weight is None and sep.q_proj_weight.shape == (32, 32) and sep.k_proj_weight.shape == (32, 16)
    assert sep.bias_k.shape == (1, 1, 32)
    assert np.all(vals(nn.PReLU(3).weight) == np.float32(0.25))


if HAS_TORCH:
    def test_default_init_statistics_match_torch():
        # Same distribution: compare spreads of large layers between the two libraries.
        for make in [lambda l: l.nn.Linear(400, 300), lambda l: l.nn.Conv2d(32, 64, 3),
                     lambda l: l.nn.Embedding(500, 64), lambda l: l.nn.MultiheadAttention(64, 4),
                     lambda l: l.nn.ConvTranspose2d(32, 16, 4)]:
            n, t = make(npgrad), make(torch)
            for (k, a), (k2, b) in zip(n.named_parameters(), t.named_parameters()):
                assert k == k2 and tuple(a.shape) == tuple(b.shape)
                va, vb = vals(a), b.detach().numpy().astype(np.float64).ravel()
                if vb.std() == 0:  # a constant initialisation must be the same constant
                    np.testing.assert_array_equal(va, vb)
                    continue
                # Sample spreads agree to within sampling noise (tight for big tensors, loose for biases).
                rel = 0.05 if va.size >= 2000 else 0.3
                assert abs(va.std() - vb.std()) <= rel * vb.std(), k
                assert abs(va.mean() - vb.mean()) <= 4 * vb.std() / math.sqrt(va.size), k


@pytest.mark.parametrize("shape,groups", [((6, 3, 3, 3), 2), ((6, 5, 2, 3, 3), 3), ((2, 4, 5), 1), ((8, 2, 3, 4), 4)])
def test_dirac_groups(shape, groups):
    got = init.dirac_(npgrad.empty(*shape), groups).numpy()
    if HAS_TORCH:
        np.testing.assert_array_equal(got, torch.nn.init.dirac_(torch.empty(*shape), groups).numpy())
    per = shape[0] // groups
    # each group's first min(per, in) output channels copy input channel d at the centre: one 1 each
    assert got.sum() == groups * min(per, shape[1]) and got.max() == 1


def test_deprecated_aliases_warn_and_delegate():
    with pytest.warns(FutureWarning, match=r"`nn.init.kaiming_normal` is now deprecated in favor of "
                                           r"`nn.init.kaiming_normal_`"):
        t = init.kaiming_normal(npgrad.empty(3, 4))
    assert init.kaiming_normal.__name__ == "kaiming_normal" and t.std().item() > 0
