"""The layers of npgrad.vision.ops: Conv2d/3dNormActivation, SqueezeExcitation, MLP, Permute,
FrozenBatchNorm2d, StochasticDepth and the FeaturePyramidNetwork with its extra blocks.

With torchvision installed each is built on both sides, torchvision's weights copied in, and the
state_dict keys, repr, outputs and input gradients compared; without it, the outputs are checked against
the same computation written with npgrad's plain layers or NumPy, and stochastic depth by its statistics.
"""
import collections

import numpy as np
import pytest

import npgrad
from npgrad.vision import ops
from npgrad.vision.ops.feature_pyramid_network import (ExtraFPNBlock, FeaturePyramidNetwork, LastLevelMaxPool,
                                                       LastLevelP6P7)
from tv_oracle import HAS_TV, torch, tv, needs_tv



def T(a, **kw):
    return npgrad.tensor(np.asarray(a), **kw)


def copy_weights(tv_module, np_module):
    state = {k: T(v.detach().numpy().copy()) for k, v in tv_module.state_dict().items()}
    np_module.load_state_dict(state)


def compare(tv_module, np_module, *shapes, train=False, seed=0):
    """Same weights in; keys, repr, output and the input's gradient out."""
    assert list(np_module.state_dict()) == list(tv_module.state_dict())
    assert repr(np_module) == repr(tv_module)
    copy_weights(tv_module, np_module)
    tv_module.train(train)
    np_module.train(train)
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(s) for s in shapes]
    txs = [torch.tensor(x, requires_grad=True) for x in xs]
    nxs = [T(x, requires_grad=True) for x in xs]
    tv_module.double()
    np_module.double()
    want, got = tv_module(*txs), np_module(*nxs)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(T(g))
    for n, t in zip(nxs, txs):
        np.testing.assert_allclose(n.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


CONV_CASES = [dict(), dict(kernel_size=(3, 5), dilation=2), dict(kernel_size=1, norm_layer=None),
              dict(stride=2, groups=2, activation_layer=None, bias=True), dict(padding=0, inplace=False),
              dict(kernel_size=5, dilation=(1, 2), activation_layer="SiLU")]


@needs_tv
@pytest.mark.parametrize("kw", CONV_CASES)
@pytest.mark.parametrize("dims", [2, 3])
def test_conv_norm_activation_matches_torchvision(kw, dims):
    kw = dict(kw)
    if kw.get("activation_layer") == "SiLU":
        kw_t, kw_n = dict(kw, activation_layer=torch.nn.SiLU), dict(kw, activation_layer=npgrad.nn.SiLU)
    else:
        kw_t = kw_n = kw
    if "norm_layer" not in kw:
        kw_t = dict(kw_t, norm_layer=getattr(torch.nn, f"BatchNorm{dims}d"))
        kw_n = dict(kw_n, norm_layer=getattr(npgrad.nn, f"BatchNorm{dims}d"))
    if dims == 3:
        kw_t = {k: (v + (v[-1],) if isinstance(v, tuple) else v) for k, v in kw_t.items()}
        kw_n = {k: (v + (v[-1],) if isinstance(v, tuple) else v) for k, v in kw_n.items()}
    name = f"Conv{dims}dNormActivation"
    spatial = (9, 10) if dims == 2 else (6, 7, 5)
    compare(getattr(tv.ops, name)(4, 6, **kw_t), getattr(ops, name)(4, 6, **kw_n), (2, 4) + spatial,
            train=True)


def test_conv_norm_activation_structure():
    block = ops.Conv2dNormActivation(3, 8, kernel_size=5, dilation=2)
    conv, bn, act = block
    assert conv.padding == (4, 4) and conv.bias is None and isinstance(bn, npgrad.nn.BatchNorm2d)
    assert act.inplace and block.out_channels == 8
    plain = ops.Conv2dNormActivation(3, 8, norm_layer=None, activation_layer=None)
    assert len(plain) == 1 and plain[0].bias is not None
    x = T(np.random.default_rng(0).standard_normal((1, 3, 6, 6)).astype(np.float32))
    np.testing.assert_allclose(plain(x).detach().numpy(), plain[0](x).detach().numpy())
    block3 = ops.Conv3dNormActivation(2, 4, kernel_size=(3, 1, 5))
    assert block3[0].padding == (1, 0, 2) and isinstance(block3[1], npgrad.nn.BatchNorm3d)


@needs_tv
def test_squeeze_excitation_mlp_permute_match_torchvision():
    compare(tv.ops.SqueezeExcitation(6, 3), ops.SqueezeExcitation(6, 3), (2, 6, 5, 4))
    compare(tv.ops.SqueezeExcitation(6, 2, torch.nn.SiLU, torch.nn.Hardsigmoid),
            ops.SqueezeExcitation(6, 2, npgrad.nn.SiLU, npgrad.nn.Hardsigmoid), (2, 6, 3, 3))
    compare(tv.ops.MLP(5, [7, 4, 3]), ops.MLP(5, [7, 4, 3]), (6, 5))
    compare(tv.ops.MLP(5, [7, 3], norm_layer=torch.nn.LayerNorm, activation_layer=torch.nn.GELU, dropout=0.2,
                       bias=False),
            ops.MLP(5, [7, 3], norm_layer=npgrad.nn.LayerNorm, activation_layer=npgrad.nn.GELU, dropout=0.2,
                    bias=False), (6, 5))
    compare(tv.ops.MLP(5, [4], inplace=False), ops.MLP(5, [4], inplace=False), (2, 5))
    compare(tv.ops.Permute([0, 2, 3, 1]), ops.Permute([0, 2, 3, 1]), (2, 3, 4, 5))


def test_squeeze_excitation_and_mlp_by_hand():
    rng = np.random.default_rng(1)
    se = ops.SqueezeExcitation(4, 2)
    x = rng.standard_normal((2, 4, 3, 3))
    w1, b1 = se.fc1.weight.detach().numpy()[:, :, 0, 0], se.fc1.bias.detach().numpy()
    w2, b2 = se.fc2.weight.detach().numpy()[:, :, 0, 0], se.fc2.bias.detach().numpy()
    s = np.maximum(x.mean((2, 3)) @ w1.T + b1, 0) @ w2.T + b2
    want = x * (1 / (1 + np.exp(-s)))[:, :, None, None]
    np.testing.assert_allclose(se.double()(T(x)).detach().numpy(), want, rtol=1e-10)
    mlp = ops.MLP(3, [5, 2], dropout=0.5)
    kinds = [type(m).__name__ for m in mlp]
    assert kinds == ["Linear", "ReLU", "Dropout", "Linear", "Dropout"]
    assert list(mlp.state_dict()) == ["0.weight", "0.bias", "3.weight", "3.bias"]
    assert ops.Permute([1, 0])(T(np.zeros((2, 3)))).shape == (3, 2)


def test_frozen_batch_norm():
    rng = np.random.default_rng(2)
    bn = npgrad.nn.BatchNorm2d(3)
    bn.train()
    bn(T(rng.standard_normal((4, 3, 5, 5)).astype(np.float32)))  # moves the running statistics
    bn.weight.data = T(rng.standard_normal(3).astype(np.float32))
    bn.eval()
    frozen = ops.FrozenBatchNorm2d(3)
    assert repr(frozen) == "FrozenBatchNorm2d(3, eps=1e-05)"
    assert list(frozen.state_dict()) == ["weight", "bias", "running_mean", "running_var"]
    assert list(frozen.parameters()) == []
    frozen.load_state_dict(bn.state_dict())  # num_batches_tracked is accepted and dropped
    x = T(rng.standard_normal((2, 3, 4, 4)).astype(np.float32))
    np.testing.assert_allclose(frozen(x).numpy(), bn(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    if HAS_TV:
        ref = tv.ops.FrozenBatchNorm2d(3, eps=1e-3)
        ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
        mine = ops.FrozenBatchNorm2d(3, eps=1e-3)
        mine.load_state_dict(bn.state_dict())
        assert repr(mine) == repr(ref)
        np.testing.assert_allclose(mine(x).numpy(), ref(torch.tensor(x.numpy())).numpy(), rtol=1e-5, atol=1e-6)


# -- stochastic depth -----------------------------------------------------------------------------------------------

def test_stochastic_depth_statistics():
    npgrad.manual_seed(0)
    x = T(np.ones((4000, 3, 2), np.float32))
    out = ops.stochastic_depth(x, 0.3, "row").numpy()
    per_row = out.reshape(4000, -1)
    assert np.all(per_row == per_row[:, :1])  # a row is dropped or kept whole
    kept = per_row[:, 0] != 0
    np.testing.assert_allclose(per_row[kept, 0], 1 / 0.7, rtol=1e-6)  # survivors rescaled
    assert abs(kept.mean() - 0.7) < 0.03
    batch = [np.unique(ops.stochastic_depth(x, 0.5, "batch").numpy()) for _ in range(200)]
    assert all(len(u) == 1 for u in batch)  # the whole batch shares one draw
    frac = np.mean([u[0] != 0 for u in batch])
    assert 0.38 < frac < 0.62
    assert np.all(ops.stochastic_depth(x, 1.0, "row").numpy() == 0)
    assert ops.stochastic_depth(x, 0.0, "row") is x
    assert ops.stochastic_depth(x, 0.9, "row", training=False) is x
    m = ops.StochasticDepth(0.9, "row")
    m.eval()
    assert m(x) is x
    assert repr(m) == "StochasticDepth(p=0.9, mode=row)"
    if HAS_TV:
        assert repr(tv.ops.StochasticDepth(0.9, "row")) == repr(m)


def test_stochastic_depth_gradient_follows_the_mask():
    npgrad.manual_seed(3)
    x = T(np.random.default_rng(0).standard_normal((50, 4)), requires_grad=True)
    out = ops.stochastic_depth(x, 0.4, "row")
    out.sum().backward()
    scale = out.detach().numpy() / x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), scale, rtol=1e-12)


@pytest.mark.parametrize("p, mode, msg", [(-0.1, "row", "drop probability has to be between 0 and 1, but got -0.1"),
                                          (1.5, "batch", "drop probability has to be between 0 and 1, but got 1.5"),
                                          (0.5, "foo", "mode has to be either 'batch' or 'row', but got foo")])
def test_stochastic_depth_errors(p, mode, msg):
    with pytest.raises(ValueError, match=msg):
        ops.stochastic_depth(T(np.zeros(3)), p, mode)
    if HAS_TV:
        with pytest.raises(ValueError, match=msg):
            tv.ops.stochastic_depth(torch.zeros(3), p, mode)


# -- feature pyramid network ----------------------------------------------------------------------------------------

def fpn_inputs(rng, channels, sizes):
    return collections.OrderedDict((f"feat{i}", rng.standard_normal((2, c, s, s + 1)))
                                   for i, (c, s) in enumerate(zip(channels, sizes)))


@needs_tv
@pytest.mark.parametrize("extra", [None, "maxpool", "p6p7", "p6p7_c5"])
def test_fpn_matches_torchvision(extra):
    from torchvision.ops import feature_pyramid_network as tfpn
    channels, sizes = [3, 5, 8], [16, 8, 3]
    blocks = {None: (None, None), "maxpool": (tfpn.LastLevelMaxPool(), LastLevelMaxPool()),
              "p6p7": (tfpn.LastLevelP6P7(6, 6), LastLevelP6P7(6, 6)),
              "p6p7_c5": (tfpn.LastLevelP6P7(8, 6), LastLevelP6P7(8, 6))}[extra]
    ref = tv.ops.FeaturePyramidNetwork(channels, 6, extra_blocks=blocks[0]).double()
    mine = FeaturePyramidNetwork(channels, 6, extra_blocks=blocks[1])
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert repr(mine) == repr(ref)
    copy_weights(ref, mine)
    mine.double()
    feats = fpn_inputs(np.random.default_rng(4), channels, sizes)
    tin = collections.OrderedDict((k, torch.tensor(v, requires_grad=True)) for k, v in feats.items())
    nin = collections.OrderedDict((k, T(v, requires_grad=True)) for k, v in feats.items())
    want, got = ref(tin), mine(nin)
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_allclose(got[k].detach().numpy(), want[k].detach().numpy(), rtol=1e-10, atol=1e-12)
    sum(v.sum() for v in want.values()).backward()
    sum(v.sum() for v in got.values()).backward()
    for k in feats:
        np.testing.assert_allclose(nin[k].grad.numpy(), tin[k].grad.numpy(), rtol=1e-9, atol=1e-10)


@needs_tv
def test_fpn_with_norm_layer_and_initialisation_statistics():
    ref = tv.ops.FeaturePyramidNetwork([4, 8], 5, norm_layer=torch.nn.BatchNorm2d)
    mine = FeaturePyramidNetwork([4, 8], 5, norm_layer=npgrad.nn.BatchNorm2d)
    assert list(mine.state_dict()) == list(ref.state_dict()) and repr(mine) == repr(ref)
    big = FeaturePyramidNetwork([64], 64)
    w = big.layer_blocks[0][0].weight.detach().numpy()
    bound = np.sqrt(6 / ((1 + 1) * 64 * 9))  # kaiming_uniform_ with a=1: gain sqrt(2 / (1 + a^2)) = 1
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.all(big.layer_blocks[0][0].bias.detach().numpy() == 0)


def test_fpn_top_down_by_hand():
    fpn = FeaturePyramidNetwork([2, 3], 4, extra_blocks=LastLevelMaxPool()).double()
    rng = np.random.default_rng(5)
    feats = collections.OrderedDict([("a", T(rng.standard_normal((1, 2, 6, 4)))),
                                     ("b", T(rng.standard_normal((1, 3, 3, 2))))])
    out = fpn(feats)
    assert list(out) == ["a", "b", "pool"]
    top = fpn.inner_blocks[1](feats["b"])
    np.testing.assert_allclose(out["b"].detach().numpy(), fpn.layer_blocks[1](top).detach().numpy())
    up = np.repeat(np.repeat(top.detach().numpy(), 2, axis=2), 2, axis=3)  # nearest, 3x2 -> 6x4
    merged = fpn.inner_blocks[0](feats["a"]).detach().numpy() + up
    np.testing.assert_allclose(out["a"].detach().numpy(), fpn.layer_blocks[0](T(merged)).detach().numpy(),
                               rtol=1e-12)
    np.testing.assert_array_equal(out["pool"].detach().numpy(), out["b"].detach().numpy()[:, :, ::2, ::2])
    assert fpn.get_result_from_inner_blocks(feats["b"], -1).shape == (1, 4, 3, 2)


def test_fpn_loads_version_1_keys_and_errors():
    fpn = FeaturePyramidNetwork([2, 3], 4)
    old = collections.OrderedDict((k.replace(".0.weight", ".weight").replace(".0.bias", ".bias"), v * 0 + 1)
                                  for k, v in fpn.state_dict().items())
    old._metadata = {"": {"version": 1}}
    fpn.load_state_dict(old)
    assert all(np.all(v.numpy() == 1) for v in fpn.state_dict().values())
    with pytest.raises(TypeError, match="extra_blocks should be of type ExtraFPNBlock not <class 'int'>"):
        FeaturePyramidNetwork([2], 4, extra_blocks=3)
    with pytest.raises(ValueError, match="in_channels=0 is currently not supported"):
        FeaturePyramidNetwork([0, 2], 4)
    assert isinstance(LastLevelMaxPool(), ExtraFPNBlock)


def test_ops_namespace_has_torchvisions_names():
    import importlib
    names = set(ops.__all__)
    assert all(hasattr(ops, n) for n in names)
    for sub in ("boxes", "misc", "poolers", "feature_pyramid_network", "focal_loss", "giou_loss", "diou_loss",
                "ciou_loss", "drop_block", "stochastic_depth", "deform_conv"):
        importlib.import_module(f"npgrad.vision.ops.{sub}")  # torchvision.ops' module paths, as scripts import them
    if HAS_TV:
        assert names == set(tv.ops.__all__)
