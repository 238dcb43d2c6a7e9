"""nn.Module's API: registration through attributes, iteration, state_dict / load_state_dict (keys and
errors as PyTorch's), repr, hooks, train/eval, zero_grad, requires_grad_, apply, conversions, Parameter."""
import copy
import pickle

import numpy as np
import pytest

import npgrad
import npgrad.nn as nn
from oracle import HAS_TORCH, torch


class Net(nn.Module):
    def __init__(self, lib=npgrad):
        super().__init__()
        self.conv = lib.nn.Conv2d(1, 2, 3)
        self.bn = lib.nn.BatchNorm2d(2)
        self.head = lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(8, 3), lib.nn.ReLU())
        self.scale = lib.nn.Parameter(lib.ones(1))
        self.register_buffer("steps", lib.zeros(1))
        self.register_buffer("cache", lib.zeros(2), persistent=False)

    def forward(self, x):
        return self.head(self.bn(self.conv(x))) * self.scale


def _torch_net():
    class Net(torch.nn.Module):  # same class name, so reprs compare
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 2, 3)
            self.bn = torch.nn.BatchNorm2d(2)
            self.head = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(8, 3), torch.nn.ReLU())
            self.scale = torch.nn.Parameter(torch.ones(1))
            self.register_buffer("steps", torch.zeros(1))
            self.register_buffer("cache", torch.zeros(2), persistent=False)

        def forward(self, x):
            return self.head(self.bn(self.conv(x))) * self.scale
    return Net()


def test_registration_through_attributes():
    m = Net()
    assert [n for n, _ in m.named_parameters()] == ["scale", "conv.weight", "conv.bias", "bn.weight", "bn.bias",
                                                    "head.1.weight", "head.1.bias"]
    assert [n for n, _ in m.named_buffers()] == ["steps", "cache", "bn.running_mean", "bn.running_var",
                                                 "bn.num_batches_tracked"]
    assert [n for n, _ in m.named_children()] == ["conv", "bn", "head"]
    assert [n for n, _ in m.named_modules()] == ["", "conv", "bn", "head", "head.0", "head.1", "head.2"]
    assert len(list(m.modules())) == 7 and len(list(m.children())) == 3
    assert all(isinstance(p, nn.Parameter) for p in m.parameters())
    assert m.conv is m._modules["conv"] and m.scale is m._parameters["scale"] and m.steps is m._buffers["steps"]
    assert "scale" not in m.__dict__ and "conv" not in m.__dict__
    assert [n for n, _ in m.named_parameters(prefix="model", recurse=False)] == ["model.scale"]
    assert len(list(m.buffers(recurse=False))) == 2


if HAS_TORCH:
    def test_names_and_state_dict_keys_match_torch():
        m, t = Net(), _torch_net()
        assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
        assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()]
        assert [n for n, _ in m.named_modules()] == [n for n, _ in t.named_modules()]
        assert list(m.state_dict()) == list(t.state_dict())
        assert m.state_dict()._metadata == t.state_dict()._metadata

    def test_repr_matches_torch():
        assert repr(Net()) == repr(_torch_net())
        for make in [lambda l: l.nn.Sequential(l.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
                                               l.nn.BatchNorm2d(8, momentum=None), l.nn.LeakyReLU(0.1, inplace=True),
                                               l.nn.MaxPool2d(2, ceil_mode=True), l.nn.Dropout(0.25),
                                               l.nn.AdaptiveAvgPool2d((1, 1)), l.nn.Flatten(), l.nn.Linear(8, 4)),
                     lambda l: l.nn.ModuleList([l.nn.Linear(2, 2) for _ in range(3)] + [l.nn.GELU()]),
                     lambda l: l.nn.ModuleDict({"a": l.nn.Tanh(), "b": l.nn.Sequential(l.nn.Identity())}),
                     lambda l: l.nn.TransformerEncoder(l.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                                       enable_nested_tensor=False),
                     lambda l: l.nn.MultiheadAttention(8, 2, kdim=3, vdim=4),
                     lambda l: l.nn.Sequential(l.nn.Embedding(10, 3, padding_idx=0), l.nn.LayerNorm(3),
                                               l.nn.GroupNorm(1, 3), l.nn.RMSNorm(3), l.nn.Softmax(dim=-1),
                                               l.nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1),
                                               l.nn.Conv1d(3, 4, 3, padding="same", padding_mode="circular"),
                                               l.nn.AvgPool2d(3, 2, 1), l.nn.Upsample(scale_factor=2),
                                               l.nn.Unflatten(1, (2, 2)), l.nn.GELU("tanh"), l.nn.Softplus(2.0),
                                               l.nn.ELU(), l.nn.Hardtanh(), l.nn.Bilinear(2, 3, 4))]:
            assert repr(make(npgrad)) == repr(make(torch))

    def test_activation_module_reprs_and_outputs_match_torch():
        def mods(L):
            n = L.nn
            return [n.Threshold(0.1, 2.0, True), n.Threshold(0.1, 2), n.Hardtanh(-2, 3, True), n.ReLU6(True),
                    n.ReLU6(), n.LeakyReLU(0.2, True), n.RReLU(0.1, 0.3), n.ELU(2.0), n.CELU(0.5, True),
                    n.GELU("tanh"), n.Softplus(2, 10), n.Softshrink(0.3), n.Hardshrink(), n.GLU(1), n.PReLU()]
        x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
        for ours, theirs in zip(mods(npgrad), mods(torch)):
            assert repr(ours) == repr(theirs)
            ours.eval(), theirs.eval()  # RReLU's slope is fixed in eval
            np.testing.assert_allclose(ours(npgrad.tensor(x)).detach().numpy(),
                                       theirs(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
        with pytest.warns(FutureWarning, match="keyword argument `max_value` is deprecated and renamed to `max_val`"):
            assert nn.Hardtanh(max_value=2.0).max_val == 2.0

    def test_resampling_module_reprs_match_torch():
        def mods(L):
            n = L.nn
            return [n.Upsample(scale_factor=(2, 3)), n.Upsample(size=4, mode="bilinear"), n.Upsample(scale_factor=0),
                    n.UpsamplingNearest2d(scale_factor=2), n.UpsamplingBilinear2d(size=(3, 3)), n.PixelShuffle(2),
                    n.PixelUnshuffle(3)]
        assert [repr(m) for m in mods(npgrad)] == [repr(m) for m in mods(torch)]
        x = np.arange(36, dtype=np.float32).reshape(1, 4, 3, 3)
        for ours, theirs in zip(mods(npgrad)[-2:], mods(torch)[-2:]):
            y = x if isinstance(ours, nn.PixelShuffle) else np.tile(x, (1, 1, 2, 2))
            np.testing.assert_array_equal(ours(npgrad.tensor(y)).numpy(), theirs(torch.tensor(y)).numpy())

    def test_pooling_module_reprs_and_outputs_match_torch():
        def mods(L):
            n = L.nn
            return [n.MaxPool1d(3), n.MaxPool2d(2, 1, 1, 2, True, True), n.MaxPool3d(2), n.AvgPool1d(3, 2, 1, True, False),
                    n.AvgPool2d(2, divisor_override=3), n.AvgPool3d(2, 1), n.AdaptiveAvgPool2d((2, None)),
                    n.AdaptiveMaxPool1d(3, True), n.LPPool2d(2, 3, 2, True), n.LPPool1d(1, 2)]
        x = np.random.default_rng(0).standard_normal((1, 2, 8, 8)).astype(np.float32)
        for ours, theirs in zip(mods(npgrad), mods(torch)):
            assert repr(ours) == repr(theirs)
            kind = type(ours).__name__
            xs = x[..., 0, :] if "1d" in kind else np.repeat(x[:, :, None], 2, 2) if "3d" in kind else x
            xs = np.abs(xs) if kind.startswith("LP") else xs
            got, want = ours(npgrad.tensor(xs)), theirs(torch.tensor(xs))
            got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)

    def test_load_torch_state_dict_and_back():
        m, t = Net(), _torch_net()
        t.bn.running_mean.fill_(0.5)
        m.load_state_dict({k: npgrad.tensor(v.numpy()) for k, v in t.state_dict().items()})
        x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
        m.eval(), t.eval()
        np.testing.assert_allclose(m(npgrad.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
        t2 = _torch_net()
        t2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
        for (k, a), (_, b) in zip(t.state_dict().items(), t2.state_dict().items()):
            np.testing.assert_array_equal(a.numpy(), b.numpy())

    def test_load_state_dict_error_message_matches_torch():
        sd = {"0.weight": np.zeros((2, 2), np.float32), "foo": np.zeros(1, np.float32)}
        msgs = []
        for lib in (npgrad, torch):
            m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), lib.nn.ReLU())
            with pytest.raises(RuntimeError) as info:
                m.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
            msgs.append(str(info.value).replace("npgrad", "torch"))
        assert msgs[0] == msgs[1]


def test_load_state_dict_errors():
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict({"0.weight": npgrad.zeros(2, 2), "foo": npgrad.zeros(1)})
    msg = str(info.value)
    assert msg.startswith("Error(s) in loading state_dict for Sequential:\n\t")
    assert 'Missing key(s) in state_dict: "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var". ' in msg
    assert 'Unexpected key(s) in state_dict: "foo". ' in msg
    assert ("size mismatch for 0.weight: copying a param with shape torch.Size([2, 2]) from checkpoint, the shape in "
            "current model is torch.Size([3, 2]).") in msg
    # strict=False loads what matches and returns the rest (size mismatches would still raise).
    res = m.load_state_dict({"0.weight": npgrad.ones(3, 2), "bar.x": npgrad.ones(1)}, strict=False)
    assert res.missing_keys == ["0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var"]
    assert res.unexpected_keys == ["bar.x"]
    assert type(res).__name__ == "_IncompatibleKeys" and res._fields == ("missing_keys", "unexpected_keys")
    assert np.all(m[0].weight.detach().numpy() == 1)
    assert repr(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"
    with pytest.raises(RuntimeError, match='While copying the parameter named "0.bias", expected torch.Tensor'):
        m.load_state_dict({**m.state_dict(), "0.bias": [1.0, 2.0, 3.0]})
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        m.load_state_dict([1, 2])


def test_state_dict_detaches_and_shares_memory():
    m = nn.Linear(2, 2)
    sd = m.state_dict()
    assert not sd["weight"].requires_grad and sd["weight"].grad_fn is None
    sd["weight"].zero_()
    assert np.all(m.weight.detach().numpy() == 0)
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    sd2 = m.state_dict(prefix="p.")
    assert list(sd2) == ["p.weight", "p.bias"]


def test_load_state_dict_copies_values_and_assign():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    w = b.weight
    b.load_state_dict(a.state_dict())
    assert b.weight is w  # copied in place: optimizers keep working
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())
    a.weight.data.fill_(3.0)
    assert not np.all(b.weight.detach().numpy() == 3.0)
    b.load_state_dict({"weight": npgrad.ones(2, 3), "bias": npgrad.zeros(2)}, assign=True)
    assert b.weight is not w and isinstance(b.weight, nn.Parameter) and b.weight.requires_grad


def test_non_persistent_buffer_and_none_entries():
    m = nn.Module()
    m.register_buffer("a", npgrad.ones(2))
    m.register_buffer("b", npgrad.ones(2), persistent=False)
    m.register_buffer("c", None)
    m.register_parameter("p", None)
    assert list(m.state_dict()) == ["a"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]
    assert m.c is None and m.p is None and list(m.parameters()) == []
    m.b = npgrad.zeros(3)  # assigning a Tensor to a buffer name replaces the buffer, keeping it non-persistent
    assert m._buffers["b"].shape == (3,) and "b" in m._non_persistent_buffers_set
    m.d = nn.Buffer(npgrad.ones(1), persistent=False)
    assert "d" in m._buffers and "d" not in m.state_dict()
    assert isinstance(m.d, npgrad.Tensor) and isinstance(m.d, nn.Buffer) and not isinstance(npgrad.ones(1), nn.Buffer)


def test_setattr_getattr_delattr_semantics():
    m = nn.Linear(2, 3)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.weight = npgrad.ones(3, 2)
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'foo'"):
        m.foo
    m.weight = None
    assert list(m.state_dict()) == ["bias"]
    m.weight = nn.Parameter(npgrad.ones(3, 2))
    m.sub = nn.ReLU()
    assert "sub" in m._modules
    m.sub = nn.Parameter(npgrad.ones(1))  # re-registered as a parameter: removed from modules
    assert "sub" not in m._modules and "sub" in m._parameters
    del m.sub
    assert "sub" not in m._parameters
    m.plain = 3
    assert m.plain == 3 and "plain" in m.__dict__
    del m.plain
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'sub2'"):
        m.sub2 = nn.ReLU()
        m.sub2 = 3
    with pytest.raises(KeyError, match="attribute 'bias' already exists"):
        m.register_buffer("bias", npgrad.ones(1))
    with pytest.raises(KeyError) as info:
        m.register_buffer("a.b", npgrad.ones(1))
    assert info.value.args[0] == 'buffer name can\'t contain "."'
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' object to parameter 'x' "
                                        r"\(torch.nn.Parameter or None required\)"):
        m.register_parameter("x", npgrad.ones(1))
    with pytest.raises(TypeError, match=r"cannot assign 'int' object to buffer 'x' \(torch Tensor or None required\)"):
        m.register_buffer("x", 3)
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.add_module("x", 3)
    assert "weight" in dir(m) and "sub2" in dir(m)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(npgrad.ones(1))
    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        nn.Module()(1)


def test_get_submodule_parameter_buffer():
    m = Net()
    assert m.get_submodule("head.1") is m.head[1]
    assert m.get_parameter("head.1.weight") is m.head[1].weight
    assert m.get_buffer("bn.running_mean") is m.bn.running_mean
    with pytest.raises(AttributeError, match="Sequential has no attribute `7`"):
        m.get_submodule("head.7")


def test_train_eval_and_propagation():
    m = Net()
    assert m.training and m.bn.training
    assert m.eval() is m
    assert not m.training and not m.head[1].training
    m.train()
    assert all(mod.training for mod in m.modules())
    m.head.train(False)
    assert m.training and not m.head.training and not m.head[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")


def test_zero_grad_and_requires_grad_():
    m = nn.Linear(3, 2)
    m(npgrad.randn(4, 3)).sum().backward()
    assert m.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert np.all(m.weight.grad.numpy() == 0)
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None
    assert m.requires_grad_(False) is m
    assert not m.weight.requires_grad
    out = m(npgrad.randn(4, 3))
    assert not out.requires_grad
    m.requires_grad_()
    assert m.weight.requires_grad


def test_apply_and_conversions():
    m = Net()
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Conv2d", "BatchNorm2d", "Flatten", "Linear", "ReLU", "Sequential", "Net"]
    w = m.conv.weight
    assert m.double() is m
    assert m.conv.weight is w and m.conv.weight.dtype == npgrad.float64
    assert m.bn.running_mean.dtype == npgrad.float64 and m.bn.num_batches_tracked.dtype == npgrad.int64
    assert m.float() is m and w.dtype == npgrad.float32
    assert m.to(npgrad.float64) is m and w.dtype == npgrad.float64
    assert m.to("cpu") is m and m.cpu() is m and m.to(npgrad.device("cpu"), npgrad.float32) is m
    assert w.dtype == npgrad.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(npgrad.int64)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):  # as a CPU-only PyTorch
        m.to("cuda")
    m(npgrad.randn(2, 1, 4, 4)).sum().backward()
    m.double()
    assert w.grad.dtype == npgrad.float64


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append(("pre", args[0].shape)))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(("post", out.shape)))
    x = npgrad.randn(3, 2)
    m(x)
    assert calls == [("pre", (3, 2)), ("post", (3, 2))]
    h1.remove()
    h2.remove()
    m(x)
    assert len(calls) == 2
    # A pre-hook can replace the input, a hook the output.
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h = m.register_forward_hook(lambda mod, args, out: out + 100)
    np.testing.assert_allclose(m(x).detach().numpy(), np.broadcast_to(m.bias.detach().numpy() + 100, (3, 2)),
                               rtol=1e-6)
    h.remove()
    # with_kwargs / prepend / always_call
    order = []
    m2 = nn.Identity()
    m2.register_forward_hook(lambda mod, args, kwargs, out: order.append("kw"), with_kwargs=True)
    m2.register_forward_hook(lambda mod, args, out: order.append("first"), prepend=True)
    m2(x)
    assert order == ["first", "kw"]

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    b = Boom()
    seen = []
    b.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError):
        b(x)
    assert seen == [None]
    with b.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"y": 1}), with_kwargs=True):
        pass  # the handle is a context manager that removes the hook


def test_full_backward_hooks():
    m = nn.Linear(3, 2)
    seen = {}

    def pre(mod, grad_out):
        seen["pre"] = grad_out[0].shape

    def post(mod, grad_in, grad_out):
        seen["post"] = (grad_in[0].shape, grad_out[0].shape)
        return (grad_in[0] * 10,)
    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(post)
    x = npgrad.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert seen == {"pre": (4, 2), "post": ((4, 3), (4, 2))}
    expected = 10 * np.broadcast_to(m.weight.detach().numpy().sum(0), (4, 3))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5)


def test_call_passes_kwargs_and_returns_forward_result():
    class M(nn.Module):
        def forward(self, a, b=1, *, c=2):
            return a + b + c
    assert M()(1, b=2, c=3) == 6


def test_deepcopy_and_pickle_keep_structure():
    m = Net()
    c = copy.deepcopy(m)
    assert c is not m and c.conv.weight is not m.conv.weight
    assert isinstance(c.conv.weight, nn.Parameter) and c.conv.weight.requires_grad
    np.testing.assert_array_equal(c.conv.weight.detach().numpy(), m.conv.weight.detach().numpy())
    assert list(c.state_dict()) == list(m.state_dict())
    p = pickle.loads(pickle.dumps(m))
    assert isinstance(p.head[1].weight, nn.Parameter)
    x = npgrad.randn(2, 1, 4, 4)
    np.testing.assert_allclose(p.eval()(x).detach().numpy(), m.eval()(x).detach().numpy())


def test_shared_parameters_are_reported_once():
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(m.parameters())) == 2
    assert len(list(m.named_parameters(remove_duplicate=False))) == 4
    assert [n for n, _ in m.named_modules()] == ["", "0", "1"]
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_extra_state_round_trip():
    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 0

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]
    a, b = WithState(), WithState()
    a.value = 7
    sd = a.state_dict()
    assert list(sd) == ["_extra_state"]
    b.load_state_dict(sd)
    assert b.value == 7


def test_parameter_behaviour():
    t = npgrad.ones(2, 3)
    p = nn.Parameter(t)
    assert isinstance(p, npgrad.Tensor) and p.requires_grad and p.is_leaf
    p.data.fill_(2.0)
    assert np.all(t.numpy() == 2.0)  # shares memory with the tensor it wraps
    assert repr(nn.Parameter(npgrad.tensor([1.0, 2.0]))) == \
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(nn.Parameter(npgrad.tensor([1.0, 2.0]), requires_grad=False)) == \
        "Parameter containing:\ntensor([1., 2.])"
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(npgrad.tensor([1, 2]))
    q = nn.Parameter(npgrad.tensor([1, 2]), requires_grad=False)
    assert q.dtype == npgrad.int64
    out = p * 2
    assert type(out) is npgrad.Tensor
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter and c.requires_grad


if HAS_TORCH:
    def test_parameter_repr_matches_torch():
        for arr in (np.array([1.5, -2.0], np.float32), np.ones((2, 2), np.float32)):
            assert repr(nn.Parameter(npgrad.tensor(arr))) == repr(torch.nn.Parameter(torch.tensor(arr)))



@pytest.mark.parametrize("make", [lambda: nn.Linear(3, 2), lambda: nn.LayerNorm(3), lambda: nn.Conv1d(3, 3, 1)])
def test_forward_uses_a_weight_that_replaced_the_parameter(make):
    # Linear, LayerNorm and Conv read weight/bias from the parameter dict while both are there; once a parameter
    # is deleted and a plain tensor put in its place (what weight_norm's hook does), forward must use that.
    x = npgrad.tensor(np.random.default_rng(0).standard_normal((2, 3, 3)).astype(np.float32))
    ref, m = make(), make()
    with npgrad.no_grad():
        ref.weight.fill_(0.5)
        ref.bias.zero_()
    shape = tuple(m.weight.shape)
    del m.weight, m.bias
    m.weight, m.bias = npgrad.full(shape, 0.5), None
    assert "weight" not in m._parameters and m.bias is None
    np.testing.assert_array_equal(m(x).detach().numpy(), ref(x).detach().numpy())
    m.bias = npgrad.ones(shape[0])
    np.testing.assert_allclose(m(x).detach().numpy(), ref(x).detach().numpy() + 1, rtol=1e-6)
