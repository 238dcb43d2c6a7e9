"""nn.utils.fuse_conv_bn_eval / fuse_linear_bn_eval (and their *_weights), skip_init, stateless.functional_call.

Oracles without torch: the fused layer computes bn(layer(x)); functional_call equals the module with its
tensors replaced by hand, and restores them. Parity with torch for the same weights and statistics."""
import warnings

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from npgrad.nn.utils import stateless
from oracle import HAS_TORCH, torch

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed: no oracle to compare with")


def _bn_with_stats(lib, kind, n):
    bn = getattr(lib.nn, kind)(n)
    rng = np.random.default_rng(3)
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(rng.standard_normal(n), dtype=bn.running_mean.dtype))
        bn.running_var.copy_(lib.tensor(rng.uniform(0.5, 2, n), dtype=bn.running_var.dtype))
        bn.weight.copy_(lib.tensor(rng.standard_normal(n), dtype=bn.weight.dtype))
        bn.bias.copy_(lib.tensor(rng.standard_normal(n), dtype=bn.bias.dtype))
    return bn.eval()


CASES = [("Conv2d", (3, 4, 3), "BatchNorm2d", 4, (2, 3, 6, 6), False),
         ("Conv1d", (3, 5, 2), "BatchNorm1d", 5, (2, 3, 7), False),
         ("ConvTranspose2d", (3, 4, 2), "BatchNorm2d", 4, (2, 3, 5, 5), True),
         ("Linear", (6, 4), "BatchNorm1d", 4, (5, 6), None)]


@pytest.mark.parametrize("layer,args,bn_kind,n,x_shape,transpose", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_fused_layer_equals_layer_then_bn(layer, args, bn_kind, n, x_shape, transpose, bias):
    npgrad.manual_seed(0)
    mod = getattr(nn, layer)(*args, bias=bias).double().eval()
    bn = _bn_with_stats(npgrad, bn_kind, n).double()
    if transpose is None:
        fused = nn.utils.fuse_linear_bn_eval(mod, bn)
    else:
        fused = nn.utils.fuse_conv_bn_eval(mod, bn, transpose=transpose)
    assert type(fused) is type(mod) and fused is not mod and isinstance(fused.bias, nn.Parameter)
    x = npgrad.randn(*x_shape, dtype=npgrad.float64)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(mod(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    assert (mod.bias is None) == (not bias)  # the original is left alone


def test_fusion_needs_eval():
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2).eval())
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(4).eval())


@needs_torch
@pytest.mark.parametrize("layer,args,bn_kind,n,x_shape,transpose", CASES)
def test_fusion_matches_torch(layer, args, bn_kind, n, x_shape, transpose):
    torch.manual_seed(0)
    mt = getattr(torch.nn, layer)(*args).eval()
    mn = getattr(nn, layer)(*args).eval()
    mn.load_state_dict({k: npgrad.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    bt, bn = _bn_with_stats(torch, bn_kind, n), _bn_with_stats(npgrad, bn_kind, n)
    if transpose is None:
        ft, fn = torch.nn.utils.fuse_linear_bn_eval(mt, bt), nn.utils.fuse_linear_bn_eval(mn, bn)
    else:
        ft = torch.nn.utils.fuse_conv_bn_eval(mt, bt, transpose)
        fn = nn.utils.fuse_conv_bn_eval(mn, bn, transpose)
    for k, v in ft.state_dict().items():
        np.testing.assert_allclose(fn.state_dict()[k].numpy(), v.numpy(), rtol=1e-6, atol=1e-6)
        assert fn.state_dict()[k].dtype == npgrad.float32


def test_skip_init_leaves_the_random_stream_alone():
    npgrad.manual_seed(5)
    expected = npgrad.randn(3).numpy()
    npgrad.manual_seed(5)
    m = nn.utils.skip_init(nn.Linear, 4, 3, bias=False)
    assert isinstance(m, nn.Linear) and m.weight.shape == (3, 4) and m.bias is None
    np.testing.assert_array_equal(npgrad.randn(3).numpy(), expected)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(nn.Identity)
    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        nn.utils.skip_init(int)


def test_functional_call_replaces_and_restores():
    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    w = npgrad.randn(2, 3, requires_grad=True)
    x = npgrad.randn(4, 3)
    old_w = m[0].weight
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        y = stateless.functional_call(m, {"0.weight": w * 2, "1.running_mean": npgrad.ones(2)}, x)
    assert m[0].weight is old_w and np.array_equal(m[1].running_mean.numpy(), np.zeros(2))
    ref = nn.functional.batch_norm(x @ (w * 2).t() + m[0].bias, npgrad.zeros(2), npgrad.ones(2), m[1].weight,
                                   m[1].bias, training=True)
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
    y.sum().backward()
    assert w.grad is not None and m[0].weight.grad is None


def test_functional_call_ties_strict_and_errors():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m = Tied()
    x = npgrad.randn(1, 2)
    eye = npgrad.eye(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        np.testing.assert_allclose(stateless.functional_call(m, {"a.weight": eye}, (x,)).numpy(), x.numpy())
        untied = stateless.functional_call(m, {"a.weight": eye}, (x,), tie_weights=False).detach().numpy()
        np.testing.assert_allclose(untied, (x @ m.a.weight.t()).detach().numpy(), rtol=1e-6)
        with pytest.raises(ValueError, match="functional_call got multiple values for keys"):
            stateless.functional_call(m, {"a.weight": eye, "b.weight": eye * 2}, (x,))
        with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Linear:\n\tUnexpected key\\(s\\): "
                                               "'foo'.\n\tMissing key\\(s\\): 'bias'."):
            stateless.functional_call(nn.Linear(2, 3), {"weight": npgrad.zeros(3, 2), "foo": npgrad.zeros(1)},
                                      npgrad.ones(1, 2), strict=True)
        lin = nn.Linear(2, 2)

        def boom(module, inputs):
            raise KeyError("stop")
        lin.register_forward_pre_hook(boom)
        w0 = lin.weight
        with pytest.raises(KeyError):
            stateless.functional_call(lin, {"weight": npgrad.zeros(2, 2)}, npgrad.ones(1, 2))
        assert lin.weight is w0


@needs_torch
def test_functional_call_matches_torch():
    torch.manual_seed(0)
    mt = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    mn = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    mn.load_state_dict({k: npgrad.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    w = np.random.default_rng(0).standard_normal((4, 3))
    x = np.random.default_rng(1).standard_normal((5, 3))
    wt, wn = torch.tensor(w, dtype=torch.float32, requires_grad=True), npgrad.tensor(w, dtype=npgrad.float32,
                                                                                     requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yt = torch.nn.utils.stateless.functional_call(mt, {"0.weight": wt}, torch.tensor(x, dtype=torch.float32))
        yn = stateless.functional_call(mn, {"0.weight": wn}, npgrad.tensor(x, dtype=npgrad.float32))
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    yt.pow(2).sum().backward()
    yn.pow(2).sum().backward()
    np.testing.assert_allclose(wn.grad.numpy(), wt.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"])
def test_convert_weight_memory_format(fn):
    npgrad.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Sequential(nn.ConvTranspose2d(3, 2, 2)), nn.Linear(2, 2))
    params = list(m.parameters())
    values = [p.detach().numpy().copy() for p in params]
    x = npgrad.randn(1, 2, 6, 6)
    y = m[1](m[0](x)).detach().numpy()
    assert getattr(nn.utils, fn)(m, npgrad.channels_last) is m
    assert list(m.parameters()) == params  # the same Parameter objects
    for p, v in zip(params, values):
        np.testing.assert_array_equal(p.detach().numpy(), v)
        assert p.requires_grad
    assert m[0].weight.is_contiguous(memory_format=npgrad.channels_last)
    np.testing.assert_array_equal(m[1](m[0](x)).detach().numpy(), y)
    if HAS_TORCH:
        mt = torch.nn.Conv2d(2, 3, 3)
        w = mt.weight
        assert getattr(torch.nn.utils, fn)(mt, torch.channels_last) is mt and mt.weight is w
