"""Higher-order gradients through nn layers: WGAN-GP-style gradient penalties and Hessian-vector products
against PyTorch, plus second derivatives of fused ops against finite differences of first derivatives."""
import numpy as np
import pytest

import npgrad
from oracle import HAS_TORCH, torch
from nn._parity import copy_state, to_np

R = np.random.default_rng(5)


def _penalty(lib, model, x_arr, loss_fn):
    """Gradient penalty: || d loss / d (x, params) ||^2, differentiated again w.r.t. x and the params."""
    x = lib.tensor(x_arr, requires_grad=True)
    out = loss_fn(lib, model(x))
    grads = lib.autograd.grad(out, [x] + list(model.parameters()), create_graph=True)
    pen = sum((g * g).sum() for g in grads)
    pen.backward()
    return to_np(pen), to_np(x.grad), [to_np(p.grad) for p in model.parameters()]


def _compare(make, x, loss_fn, rtol=1e-8):
    tm, nm = make(torch).double(), make(npgrad).double()
    copy_state(tm, nm)
    a, b = _penalty(npgrad, nm, x, loss_fn), _penalty(torch, tm, x, loss_fn)
    np.testing.assert_allclose(a[0], b[0], rtol=rtol)
    np.testing.assert_allclose(a[1], b[1], rtol=rtol, atol=1e-10)
    for ga, gb in zip(a[2], b[2]):
        np.testing.assert_allclose(ga, gb, rtol=rtol, atol=1e-10)


ACTS = ["Tanh", "ReLU", "LeakyReLU", "GELU", "SiLU", "ELU", "Softplus", "Sigmoid", "Mish", "LogSigmoid", "CELU",
        "SELU", "Hardtanh"]
TARGET = R.integers(0, 3, (5,))
LOSSES = {
    "cross_entropy": lambda lib, o: lib.nn.functional.cross_entropy(o, lib.tensor(TARGET), label_smoothing=0.1),
    "cross_entropy_weighted": lambda lib, o: lib.nn.functional.cross_entropy(
        o, lib.tensor(TARGET), weight=lib.tensor([1.0, 2.0, 0.5]).double(), reduction="sum"),
    "mse": lambda lib, o: lib.nn.functional.mse_loss(o, lib.tensor(np.ones((5, 3)))),
    "softmax_mix": lambda lib, o: (lib.nn.functional.log_softmax(o, 1) * lib.nn.functional.softmax(o, 0)).sum(),
    "bce_logits": lambda lib, o: lib.nn.functional.binary_cross_entropy_with_logits(o, lib.tensor(np.full((5, 3), .3))),
    "nll": lambda lib, o: lib.nn.functional.nll_loss(lib.nn.functional.log_softmax(o, 1), lib.tensor(TARGET)),
}

if HAS_TORCH:
    @pytest.mark.parametrize("loss", list(LOSSES))
    @pytest.mark.parametrize("act", ACTS)
    def test_gradient_penalty_through_mlp_matches_torch(act, loss):
        make = lambda l: l.nn.Sequential(l.nn.Linear(4, 6), getattr(l.nn, act)(), l.nn.Linear(6, 3),
                                         l.nn.LayerNorm(3), l.nn.Linear(3, 3))
        _compare(make, R.standard_normal((5, 4)), LOSSES[loss])

    CONV_MODELS = [
        ("conv_maxpool", lambda l: l.nn.Sequential(l.nn.Conv2d(2, 3, 3, padding=1, stride=2), l.nn.Tanh(),
                                                   l.nn.MaxPool2d(2), l.nn.Flatten(), l.nn.Linear(3, 2)), (2, 2, 4, 4)),
        ("grouped_dilated_avgpool", lambda l: l.nn.Sequential(l.nn.Conv2d(2, 4, 3, padding=1, dilation=2, groups=2),
                                                              l.nn.SiLU(), l.nn.AvgPool2d(2, ceil_mode=True),
                                                              l.nn.Flatten(), l.nn.Linear(4, 2)), (2, 2, 4, 4)),
        ("transposed_batchnorm", lambda l: l.nn.Sequential(l.nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1,
                                                                                output_padding=1), l.nn.GELU(),
                                                           l.nn.BatchNorm2d(4), l.nn.AdaptiveAvgPool2d(1),
                                                           l.nn.Flatten(), l.nn.Linear(4, 2)), (2, 2, 4, 4)),
        ("conv1d_norms", lambda l: l.nn.Sequential(l.nn.Conv1d(2, 3, 3, padding=1), l.nn.Tanh(), l.nn.GroupNorm(3, 3),
                                                   l.nn.RMSNorm(4), l.nn.Flatten(), l.nn.Linear(12, 2)), (2, 2, 4)),
        ("embedding_attention", None, None),
    ]

    @pytest.mark.parametrize("name,make,shape", CONV_MODELS[:-1], ids=[c[0] for c in CONV_MODELS[:-1]])
    def test_gradient_penalty_through_conv_nets_matches_torch(name, make, shape):
        _compare(make, R.standard_normal(shape), lambda lib, o: (o * o).sum(), rtol=1e-7)

    def test_gradient_penalty_through_attention_matches_torch():
        # need_weights=True keeps PyTorch on its differentiable math path (its fused kernel has no double backward).
        def make(lib):
            class Block(lib.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.attn = lib.nn.MultiheadAttention(4, 2, batch_first=True)
                    self.norm = lib.nn.LayerNorm(4)
                    self.ff = lib.nn.Linear(4, 4)

                def forward(self, x):
                    h = self.norm(x + self.attn(x, x, x)[0])
                    return self.ff(lib.nn.functional.gelu(h))
            return Block()
        _compare(make, R.standard_normal((2, 3, 4)), lambda lib, o: (o * o).sum(), rtol=1e-7)

    def test_hessian_vector_product_matches_torch():
        make = lambda l: l.nn.Sequential(l.nn.Linear(3, 5), l.nn.Tanh(), l.nn.Linear(5, 2))
        tm, nm = make(torch).double(), make(npgrad).double()
        copy_state(tm, nm)
        x = R.standard_normal((4, 3))
        y = R.integers(0, 2, (4,))
        vs = [R.standard_normal(tuple(p.shape)) for p in tm.parameters()]
        res = []
        for lib, m in ((npgrad, nm), (torch, tm)):
            loss = lib.nn.functional.cross_entropy(m(lib.tensor(x)), lib.tensor(y))
            params = list(m.parameters())
            gs = lib.autograd.grad(loss, params, create_graph=True)
            dot = sum((g * lib.tensor(v)).sum() for g, v in zip(gs, vs))
            res.append([to_np(h) for h in lib.autograd.grad(dot, params)])
        for a, b in zip(*res):
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)

    def test_double_backward_via_backward_create_graph():
        # grad with create_graph, then .backward() on a function of that gradient (Linear + tanh/relu + loss).
        for act in ("Tanh", "ReLU"):
            make = lambda l: l.nn.Sequential(l.nn.Linear(3, 4), getattr(l.nn, act)(), l.nn.Linear(4, 1))
            tm, nm = make(torch).double(), make(npgrad).double()
            copy_state(tm, nm)
            x = R.standard_normal((6, 3))
            out = []
            for lib, m in ((npgrad, nm), (torch, tm)):
                xt = lib.tensor(x, requires_grad=True)
                loss = lib.nn.functional.mse_loss(m(xt), lib.tensor(np.zeros((6, 1))))
                loss.backward(create_graph=True)
                gnorm = sum((p.grad ** 2).sum() for p in m.parameters()) + (xt.grad ** 2).sum()
                m.zero_grad()
                xt.grad = None
                gnorm.backward()
                out.append([to_np(xt.grad)] + [to_np(p.grad) for p in m.parameters()])
            for a, b in zip(*out):
                np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


SECOND_ORDER_FNS = {
    "gelu": lambda F, x: F.gelu(x), "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x), "elu": lambda F, x: F.elu(x, 0.5), "softplus": lambda F, x: F.softplus(x, 2.0),
    "mish": lambda F, x: F.mish(x), "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softmax": lambda F, x: F.softmax(x, 1), "log_softmax": lambda F, x: F.log_softmax(x, 0),
    "layer_norm": lambda F, x: F.layer_norm(x, (4,)), "rms_norm": lambda F, x: F.rms_norm(x, (4,)),
    "batch_norm": lambda F, x: F.batch_norm(x, None, None, training=True),
    "cross_entropy": lambda F, x: F.cross_entropy(x, npgrad.tensor([0, 3, 1]), label_smoothing=0.2),
    "cross_entropy_none_kdim": lambda F, x: F.cross_entropy(x.reshape(1, 3, 4), npgrad.tensor([[0, 2, 1, 2]]),
                                                            reduction="none", weight=npgrad.tensor([1.0, 2.0, .5])
                                                            .double(), label_smoothing=0.1, ignore_index=1),
    "nll_none": lambda F, x: F.nll_loss(F.log_softmax(x, 1), npgrad.tensor([0, 3, 1]), reduction="none") * x.sum(),
    "mse": lambda F, x: F.mse_loss(x, npgrad.tensor(np.linspace(-1, 1, 12).reshape(3, 4))),
    "bce_logits": lambda F, x: F.binary_cross_entropy_with_logits(x, npgrad.full((3, 4), 0.25, dtype=npgrad.float64)),
    "bce": lambda F, x: F.binary_cross_entropy(x.sigmoid(), npgrad.full((3, 4), 0.25, dtype=npgrad.float64)),
    "conv2d": lambda F, x: F.conv2d(x.reshape(1, 1, 3, 4), npgrad.tensor(np.arange(4.0).reshape(1, 1, 2, 2)),
                                    padding=1).tanh(),
    "max_pool": lambda F, x: F.max_pool2d((x * x).reshape(1, 1, 3, 4), 2, ceil_mode=True),
    "avg_pool": lambda F, x: F.avg_pool2d((x * x).reshape(1, 1, 3, 4), 2, 1, 1),
    "erf": lambda F, x: npgrad.erf(x),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER_FNS))
def test_second_derivative_against_finite_differences(name):
    """d/dx of <v, d f/dx . u> computed by double backward equals the finite difference of the first derivative."""
    F = npgrad.nn.functional
    fn = SECOND_ORDER_FNS[name]
    x0 = R.standard_normal((3, 4))
    out0 = fn(F, npgrad.tensor(x0))
    u = R.standard_normal(tuple(out0.shape))

    def first(xa, create_graph=False):
        x = npgrad.tensor(xa, requires_grad=True)
        (g,) = npgrad.autograd.grad(fn(F, x), x, npgrad.tensor(u), create_graph=create_graph)
        return x, g

    v = R.standard_normal(x0.shape)
    x, g = first(x0, create_graph=True)
    (hv,) = npgrad.autograd.grad((g * npgrad.tensor(v)).sum(), x)
    eps = 1e-6
    num = np.zeros_like(x0)
    for j in range(x0.size):
        p, m = x0.copy(), x0.copy()
        p.flat[j] += eps
        m.flat[j] -= eps
        num.flat[j] = np.sum(v * (first(p)[1].numpy() - first(m)[1].numpy())) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda: npgrad.nn.Conv2d(2, 3, 3), lambda: npgrad.nn.MaxPool2d(2),
                                  lambda: npgrad.nn.Sequential(npgrad.nn.BatchNorm2d(2), npgrad.nn.GELU())],
                         ids=["conv", "maxpool", "batchnorm_gelu"])
def test_intermediates_are_freed_after_backward(make):
    m = make()
    x = npgrad.randn(2, 2, 4, 4, requires_grad=True)
    out = m(x).sum()
    node = m(x).grad_fn
    out.backward(retain_graph=True)
    out.backward()  # retained once: a second pass works
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()
    # What forward kept for the array backward is gone once the graph is released.
    big = [k for k, v in node.__dict__.items() if isinstance(v, np.ndarray) and v.size > 1]
    assert node.__dict__.get("_released") is not True or not big
    y = m(x)
    y.sum().backward()
    leftovers = [k for k, v in y.grad_fn.__dict__.items() if not k.startswith("_") and isinstance(v, np.ndarray)]
    assert leftovers == []
