"""The volumetric and pooling-family layers (Conv3d, ConvTranspose3d, the 3-D pools, MaxUnpool, FractionalMaxPool,
Fold/Unfold, ChannelShuffle) and the lazy layers against PyTorch: same weights (torch's state_dict copied through
NumPy), same input and upstream gradient; outputs and the gradients of the input and of every parameter, in
float32 and float64. Without torch the input gradients are checked against finite differences.

The lazy layers are also checked for what makes them lazy: placeholders until the first forward, the class they
become, sizing from a loaded state_dict, an optimizer built before the first forward, and PyTorch's errors."""
import copy
import pickle

import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from nn._parity import check_module, copy_state, finite_difference_check, run_module

pytestmark = pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features:UserWarning")

R = np.random.default_rng(5)


def rnd(*shape):
    return R.standard_normal(shape)


_U2 = R.random((2, 3, 2))
_U3 = R.random((2, 3, 3))


def _samples(lib, u):
    return lib.tensor(u)


# (id, make(lib) -> module, inputs)
CASES = [
    ("Conv3d", lambda l: l.nn.Conv3d(3, 4, 2), [rnd(2, 3, 4, 5, 4)]),
    ("Conv3d_options", lambda l: l.nn.Conv3d(4, 6, (2, 3, 1), stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1),
                                             groups=2), [rnd(2, 4, 5, 6, 4)]),
    ("Conv3d_same_reflect", lambda l: l.nn.Conv3d(2, 3, 3, padding="same", padding_mode="reflect"),
     [rnd(2, 2, 4, 4, 5)]),
    ("Conv3d_depthwise_unbatched", lambda l: l.nn.Conv3d(3, 6, 3, padding=1, groups=3, bias=False), [rnd(3, 4, 4, 4)]),
    ("ConvTranspose3d", lambda l: l.nn.ConvTranspose3d(3, 2, 2, stride=2), [rnd(2, 3, 3, 2, 3)]),
    ("ConvTranspose3d_options", lambda l: l.nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=(2, 1, 2), padding=(1, 0, 0),
                                                               output_padding=(1, 0, 0), groups=2, dilation=(1, 2, 1)),
     [rnd(2, 4, 3, 3, 2)]),
    ("MaxPool3d", lambda l: l.nn.MaxPool3d(2), [rnd(2, 3, 4, 6, 4)]),
    ("MaxPool3d_options_indices", lambda l: l.nn.MaxPool3d(3, 2, 1, dilation=(1, 2, 1), ceil_mode=True,
                                                           return_indices=True), [rnd(2, 3, 5, 6, 5)]),
    ("AvgPool3d", lambda l: l.nn.AvgPool3d(2), [rnd(2, 3, 4, 6, 4)]),
    ("AvgPool3d_options", lambda l: l.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False),
     [rnd(2, 3, 5, 6, 5)]),
    ("AvgPool3d_divisor", lambda l: l.nn.AvgPool3d((2, 1, 2), divisor_override=3), [rnd(3, 4, 5, 4)]),
    ("LPPool3d", lambda l: l.nn.LPPool3d(2, 2), [rnd(2, 3, 4, 4, 4)]),
    ("AdaptiveAvgPool3d", lambda l: l.nn.AdaptiveAvgPool3d((3, None, 2)), [rnd(2, 3, 5, 4, 5)]),
    ("AdaptiveMaxPool3d", lambda l: l.nn.AdaptiveMaxPool3d(3, return_indices=True), [rnd(2, 3, 5, 4, 5)]),
    ("MaxUnpool1d", lambda l: _Unpool(l, 1), [rnd(2, 3, 8)]),
    ("MaxUnpool2d", lambda l: _Unpool(l, 2), [rnd(2, 3, 4, 6)]),
    ("MaxUnpool3d", lambda l: _Unpool(l, 3), [rnd(2, 3, 4, 2, 6)]),
    ("FractionalMaxPool2d", lambda l: l.nn.FractionalMaxPool2d(2, (3, 4), _random_samples=_samples(l, _U2)),
     [rnd(2, 3, 6, 7)]),
    ("FractionalMaxPool2d_ratio_indices", lambda l: l.nn.FractionalMaxPool2d(
        (2, 3), output_ratio=0.5, return_indices=True, _random_samples=_samples(l, _U2)), [rnd(2, 3, 7, 8)]),
    ("FractionalMaxPool3d", lambda l: l.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.5),
                                                               _random_samples=_samples(l, _U3)), [rnd(2, 3, 6, 7, 6)]),
    ("Fold", lambda l: l.nn.Fold((4, 5), 2), [rnd(2, 12, 12)]),
    ("Fold_options", lambda l: l.nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1, stride=2), [rnd(2, 6, 6)]),
    ("Unfold", lambda l: l.nn.Unfold((2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), [rnd(2, 3, 5, 6)]),
    ("ChannelShuffle", lambda l: l.nn.ChannelShuffle(3), [rnd(2, 6, 4, 3)]),
]


def _Unpool(lib, n):
    """max_poolNd then MaxUnpoolNd: the layer's input and indices come from a pooling of the test's input."""
    pool = getattr(lib.nn, f"MaxPool{n}d")(2, return_indices=True)
    unpool = getattr(lib.nn, f"MaxUnpool{n}d")(2)

    class PoolUnpool(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.pool, self.unpool = pool, unpool

        def forward(self, x):
            v, i = self.pool(x)
            return self.unpool(v, i, output_size=x.shape[-n:])
    return PoolUnpool()


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
    def test_layer_matches_torch(name, make, inputs, dtype):
        # .float(): the fractional pools' _random_samples buffer follows the layer's dtype, as the input must
        check_module(lambda lib: make(lib).float() if dtype == np.float32 else make(lib), inputs, dtype=dtype,
                     what=name)


@pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
def test_layer_finite_differences(name, make, inputs):
    npgrad.manual_seed(0)
    mod = make(npgrad).double()
    finite_difference_check(lambda lib, *xs: mod(*xs), inputs, tol=1e-5, what=name)


def test_reprs():
    nn = npgrad.nn
    assert repr(nn.Conv3d(2, 3, 2, stride=(1, 2, 1))) == "Conv3d(2, 3, kernel_size=(2, 2, 2), stride=(1, 2, 1))"
    assert repr(nn.MaxUnpool2d(2)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"
    assert repr(nn.Fold(4, 2)) == "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
    assert repr(nn.AvgPool3d(2)) == "AvgPool3d(kernel_size=2, stride=2, padding=0)"
    if HAS_TORCH:
        for make in (lambda l: l.nn.ConvTranspose3d(2, 3, 2, output_padding=1, stride=2),
                     lambda l: l.nn.MaxPool3d(2, 1, 1), lambda l: l.nn.LPPool3d(2, 3),
                     lambda l: l.nn.AdaptiveMaxPool3d((2, 3, 4)), lambda l: l.nn.AdaptiveAvgPool3d(2),
                     lambda l: l.nn.FractionalMaxPool3d(2, output_size=3), lambda l: l.nn.MaxUnpool1d(3, 2, 1)):
            assert repr(make(npgrad)) == repr(make(torch))


def test_fractional_without_samples_draws_windows_from_npgrads_generator():
    x = npgrad.tensor(rnd(2, 3, 9, 9))
    pool = npgrad.nn.FractionalMaxPool2d(3, output_size=4, return_indices=True)
    npgrad.manual_seed(7)
    out, idx = pool(x)
    npgrad.manual_seed(7)
    out2, idx2 = pool(x)
    assert np.array_equal(idx.numpy(), idx2.numpy()) and np.array_equal(out.numpy(), out2.numpy())
    # every output is the maximum of a 3x3 window of its plane, and equals the input at its index
    flat = x.numpy().reshape(2, 3, -1)
    assert np.array_equal(np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), -1), out.numpy().reshape(2, 3, -1))
    rows, cols = np.divmod(idx.numpy(), 9)
    assert np.all(np.diff(rows, axis=2) >= 0) and np.all(np.diff(cols, axis=3) >= 0)  # windows move forward
    xs = x.numpy()
    for n, c, i, j in np.ndindex(2, 3, 4, 4):
        r, q = rows[n, c, i, j], cols[n, c, i, j]
        assert any(xs[n, c, a:a + 3, b:b + 3].max() == out.numpy()[n, c, i, j]
                   for a in range(max(r - 2, 0), r + 1) for b in range(max(q - 2, 0), q + 1))


def test_fractional_module_errors():
    nn = npgrad.nn
    with pytest.raises(ValueError, match="FractionalMaxPool2d requires specifying either an output size, or a pooling"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
        nn.FractionalMaxPool3d(2, 3, 0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)


# -- lazy layers ---------------------------------------------------------------------------------------------------

LAZY = [
    ("LazyLinear", lambda l: l.nn.LazyLinear(3), [rnd(4, 5)], "Linear"),
    ("LazyLinear_nobias", lambda l: l.nn.LazyLinear(3, bias=False), [rnd(2, 4, 5)], "Linear"),
    ("LazyConv1d", lambda l: l.nn.LazyConv1d(4, 3, padding=1, groups=2), [rnd(2, 6, 7)], "Conv1d"),
    ("LazyConv2d", lambda l: l.nn.LazyConv2d(4, (2, 3), stride=2), [rnd(2, 3, 6, 7)], "Conv2d"),
    ("LazyConv3d_unbatched", lambda l: l.nn.LazyConv3d(2, 2, bias=False), [rnd(3, 4, 3, 4)], "Conv3d"),
    ("LazyConvTranspose1d", lambda l: l.nn.LazyConvTranspose1d(4, 3, stride=2), [rnd(2, 3, 5)], "ConvTranspose1d"),
    ("LazyConvTranspose2d", lambda l: l.nn.LazyConvTranspose2d(4, 2, groups=2), [rnd(2, 4, 3, 4)], "ConvTranspose2d"),
    ("LazyConvTranspose3d", lambda l: l.nn.LazyConvTranspose3d(2, 2, output_padding=1, stride=2),
     [rnd(2, 3, 2, 3, 2)], "ConvTranspose3d"),
    ("LazyBatchNorm1d", lambda l: l.nn.LazyBatchNorm1d(), [rnd(4, 3, 5)], "BatchNorm1d"),
    ("LazyBatchNorm2d", lambda l: l.nn.LazyBatchNorm2d(momentum=None), [rnd(4, 3, 2, 5)], "BatchNorm2d"),
    ("LazyBatchNorm3d_plain", lambda l: l.nn.LazyBatchNorm3d(affine=False, track_running_stats=False),
     [rnd(2, 3, 2, 2, 3)], "BatchNorm3d"),
    ("LazyInstanceNorm1d", lambda l: l.nn.LazyInstanceNorm1d(), [rnd(2, 3, 6)], "InstanceNorm1d"),
    ("LazyInstanceNorm2d_nobias", lambda l: l.nn.LazyInstanceNorm2d(bias=False), [rnd(2, 3, 4, 5)],
     "InstanceNorm2d"),
    ("LazyInstanceNorm3d_plain", lambda l: l.nn.LazyInstanceNorm3d(affine=False, track_running_stats=False),
     [rnd(2, 3, 2, 3, 4)], "InstanceNorm3d"),
]
_LAZY_IDS = [c[0] for c in LAZY]


def _materialized(make, lib, inputs, dtype):
    """A lazy layer of ``lib`` after one forward (no grad) on ``inputs``."""
    mod = make(lib).to(dtype=getattr(lib, np.dtype(dtype).name))
    with lib.no_grad():
        mod(*[lib.tensor(a.astype(dtype)) for a in inputs])
    return mod


@pytest.mark.parametrize("name,make,inputs,becomes", LAZY, ids=_LAZY_IDS)
def test_lazy_layer_becomes_its_class(name, make, inputs, becomes):
    mod = make(npgrad)
    assert type(mod).__name__ == name.split("_")[0]
    plain = name.endswith("_plain")  # no affine parameters and no running statistics: nothing to size
    assert mod.has_uninitialized_params() is not plain
    lazy = [n for n, t in list(mod.named_parameters()) + list(mod.named_buffers())
            if isinstance(t, (npgrad.nn.UninitializedParameter, npgrad.nn.UninitializedBuffer))]
    assert bool(lazy) is not plain, "a lazy layer holds placeholders before its first forward"
    assert all(repr(mod.state_dict()[n]).startswith("<Uninitialized") for n in lazy)
    params_before = list(mod.parameters())
    mod(npgrad.tensor(inputs[0].astype(np.float32)))
    assert type(mod) is getattr(npgrad.nn, becomes)
    assert not hasattr(mod, "_initialize_hook") and not mod._forward_pre_hooks
    assert all(type(p) is npgrad.nn.Parameter for p in mod.parameters())
    assert [id(p) for p in mod.parameters()] == [id(p) for p in params_before]  # materialised in place
    if HAS_TORCH:
        t = _materialized(make, torch, inputs, np.float32)
        assert type(t).__name__ == becomes and repr(mod) == repr(t)
        assert {k: tuple(v.shape) for k, v in mod.state_dict().items()} == \
            {k: tuple(v.shape) for k, v in t.state_dict().items()}


if HAS_TORCH:
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("name,make,inputs,becomes", LAZY, ids=_LAZY_IDS)
    def test_lazy_layer_matches_torch(name, make, inputs, becomes, dtype):
        """Materialised in both libraries by a first forward, torch's weights copied over: the same layer."""
        check_module(lambda lib: _materialized(make, lib, inputs, dtype), inputs, dtype=dtype, what=name)

    @pytest.mark.parametrize("name,make,inputs,becomes", LAZY, ids=_LAZY_IDS)
    def test_lazy_layer_sized_by_load_state_dict(name, make, inputs, becomes):
        """A still-lazy layer takes its shapes from a loaded state_dict, then runs as torch's."""
        t = _materialized(make, torch, inputs, np.float64)
        n = make(npgrad).double()
        copy_state(t, n)
        assert not n.has_uninitialized_params()
        t_out, t_in, t_p = run_module(t, torch, inputs, [True])
        n_out, n_in, n_p = run_module(n, npgrad, inputs, [True])
        assert type(n).__name__ == becomes
        np.testing.assert_allclose(n_out[0], t_out[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(n_in[0], t_in[0], rtol=1e-10, atol=1e-12)
        for k in t_p:
            np.testing.assert_allclose(n_p[k], t_p[k], rtol=1e-10, atol=1e-12)

    @pytest.mark.parametrize("opt", ["SGD", "Adam"])
    def test_optimizer_built_before_the_first_forward(opt):
        x = rnd(6, 5)
        mods = {}
        for lib in (torch, npgrad):
            lib.manual_seed(0)
            m = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.Tanh(), lib.nn.LazyLinear(2)).double()
            o = getattr(lib.optim, opt)(m.parameters(), lr=0.1, **({"momentum": 0.9} if opt == "SGD" else {}))
            mods[lib] = (m, o)
        with torch.no_grad():
            mods[torch][0](torch.tensor(x))
        with npgrad.no_grad():
            mods[npgrad][0](npgrad.tensor(x))
        copy_state(mods[torch][0], mods[npgrad][0])
        for _ in range(3):
            for lib, (m, o) in mods.items():
                o.zero_grad()
                m(lib.tensor(x)).pow(2).sum().backward()
                o.step()
        for (k, a), b in zip(mods[npgrad][0].state_dict().items(), mods[torch][0].state_dict().values()):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, err_msg=k)

    def test_lazy_errors_like_torch():
        def errors(lib):
            out = []
            for call in (lambda: lib.nn.LazyLinear(3).weight.shape,
                         lambda: lib.nn.LazyConv2d(4, 3)(lib.ones(3, 4)),
                         lambda: lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5)),
                         lambda: lib.nn.LazyConvTranspose3d(4, 3)(lib.ones(3, 4))):
                with pytest.raises(Exception) as info:
                    call()
                out.append((type(info.value), str(info.value)))
            return out
        assert errors(npgrad) == errors(torch)


def test_lazy_placeholders_follow_dtype_conversions_and_copies():
    m = npgrad.nn.LazyBatchNorm1d().double()
    assert isinstance(m.running_mean, npgrad.nn.UninitializedBuffer) and m.running_mean.dtype == npgrad.float64
    assert isinstance(m.weight, npgrad.nn.UninitializedParameter) and m.weight.dtype == npgrad.float64
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(npgrad.nn.LazyLinear(2)))):
        assert clone.has_uninitialized_params()
    m(npgrad.ones(2, 3, dtype=npgrad.float64))
    assert m.running_mean.dtype == npgrad.float64 and tuple(m.running_mean.shape) == (3,)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        npgrad.nn.UninitializedParameter().shape
    p = npgrad.nn.UninitializedParameter(dtype=npgrad.float64)
    p.materialize((2, 3))
    assert type(p) is npgrad.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == npgrad.float64
    assert p.requires_grad


def test_lazy_state_dicts_load_into_lazy_layers_and_not_into_sized_ones():
    lazy = npgrad.nn.LazyConv2d(4, 3)
    other = npgrad.nn.LazyConv2d(4, 3)
    assert not other.load_state_dict(lazy.state_dict()).missing_keys
    assert other.has_uninitialized_params()
    sized = npgrad.nn.Conv2d(2, 4, 3)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
        sized.load_state_dict(lazy.state_dict())
    other.load_state_dict(sized.state_dict())  # sized by the loaded tensors
    assert np.array_equal(other.weight.detach().numpy(), sized.weight.detach().numpy())
    assert type(other).__name__ == "LazyConv2d" and other(npgrad.ones(1, 2, 5, 5)).shape == (1, 4, 3, 3)
    # PyTorch leaves in_channels at 0 here (only a forward that sizes the placeholders sets it); so does npgrad
    assert type(other) is npgrad.nn.Conv2d and other.in_channels == 0
