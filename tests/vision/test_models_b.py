"""The mobile, RegNet, ConvNeXt and transformer model families against torchvision.

Every builder: the state_dict's keys (in order) and shapes, the module tree's repr and the parameter count
equal torchvision's, and the count equals its weights' ``num_params``. The structure checks build the models
with initialisation switched off (random init of the largest models is most of their construction time and
says nothing about structure); one small model per family then checks the init schemes' statistics, the
outputs and gradients from the same (torchvision's) weights, and a training step.
"""
import contextlib
import warnings
from collections import OrderedDict
from unittest import mock

import numpy as np
import pytest
from tv_oracle import HAS_TV, torch, tv

import npgrad
from npgrad import nn
from npgrad.vision import models

BUILDERS = [
    "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small",
    *[f"efficientnet_b{i}" for i in range(8)], "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l",
    "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
    "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
    *[f"regnet_y_{s}" for s in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf", "128gf")],
    *[f"regnet_x_{s}" for s in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")],
    "convnext_tiny", "convnext_small", "convnext_base", "convnext_large",
    "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14",
    "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b",
    "maxvit_t",
]
_INITS = ["kaiming_normal_", "kaiming_uniform_", "normal_", "uniform_", "trunc_normal_", "xavier_uniform_",
          "zeros_", "ones_", "constant_"]


@contextlib.contextmanager
def _no_init(lib):
    """Construction without drawing initial values (the parameters keep whatever memory they got)."""
    layers = [lib.nn.Linear, lib.nn.LayerNorm, lib.nn.MultiheadAttention, lib.nn.Conv2d, lib.nn.BatchNorm2d]
    with contextlib.ExitStack() as stack:
        for cls in layers:
            for klass in cls.__mro__:
                for name in ("reset_parameters", "_reset_parameters"):
                    if name in vars(klass):
                        stack.enter_context(mock.patch.object(klass, name, lambda self: None))
        for name in _INITS:
            stack.enter_context(mock.patch.object(lib.nn.init, name, lambda t, *a, **k: t))
        yield


def _num_params(model):
    return sum(p.numel() for p in model.parameters())


def _meta_num_params(name):
    """The size of a checkpoint for the builder's default image size (ViT's 384/518-pixel SWAG checkpoints
    carry longer position embeddings; the sizes of the other families do not depend on the image)."""
    enum = models.get_model_weights(name)
    fits = [w for w in enum if w.meta["min_size"][0] <= 224]
    return (fits[0] if fits else enum.DEFAULT).meta["num_params"]


def _repr(model):
    # npgrad shows Hardswish's inplace flag, PyTorch's Hardswish shows none
    return repr(model).replace("Hardswish(inplace=True)", "Hardswish()")


@pytest.mark.parametrize("name", BUILDERS)
def test_structure(name):
    with _no_init(npgrad):
        model = models.get_model(name)
    assert _num_params(model) == _meta_num_params(name)
    sd = model.state_dict()
    if HAS_TV:
        with _no_init(torch):
            ref = tv.models.get_model(name)
        ref_sd = ref.state_dict()
        assert list(sd) == list(ref_sd)
        assert [tuple(v.shape) for v in sd.values()] == [tuple(v.shape) for v in ref_sd.values()]
        assert [str(v.dtype).split(".")[-1] for v in sd.values()] == \
               [str(v.dtype).split(".")[-1] for v in ref_sd.values()]
        assert _repr(model) == repr(ref)


def test_registry_and_weights():
    names = models.list_models()
    assert set(BUILDERS) <= set(names)
    w = models.get_weight("MobileNet_V2_Weights.IMAGENET1K_V2")
    assert w is models.MobileNet_V2_Weights.DEFAULT
    assert w.url == "https://download.pytorch.org/models/mobilenet_v2-7ebf99e0.pth"
    assert models.get_model_weights("regnet_y_128gf").DEFAULT is models.RegNet_Y_128GF_Weights.IMAGENET1K_SWAG_E2E_V1
    assert models.ViT_H_14_Weights.IMAGENET1K_SWAG_E2E_V1.meta["min_size"] == (518, 518)
    if HAS_TV:
        for name in BUILDERS:
            mine, theirs = models.get_model_weights(name), tv.models.get_model_weights(name)
            assert list(mine.__members__) == list(theirs.__members__)
            for key, member in mine.__members__.items():
                ref = theirs[key]
                assert member.url == ref.url
                expected = {k: v for k, v in ref.meta.items() if k not in ("categories", "_docs")}
                assert {k: v for k, v in member.meta.items() if k != "categories"} == expected
                if "categories" in member.meta:
                    assert list(member.meta["categories"]) == list(ref.meta["categories"])
                ref_kw = dict(ref.transforms.keywords)
                ref_kw = {k: (v.value if hasattr(v, "value") else v) for k, v in ref_kw.items()}
                mine_kw = {"interpolation": "bilinear", **member.transforms.keywords}
                assert mine_kw == {"interpolation": "bilinear", **ref_kw}


def test_module_names():
    """Each family's module offers torchvision's public names (classes, builders, enums)."""
    from npgrad.vision.models import mobilenet
    assert mobilenet.mobilenet_v3_large is models.mobilenet_v3_large and "MobileNet_V2_Weights" in mobilenet.__all__
    if HAS_TV:
        for family in ("mobilenetv2", "mobilenetv3", "efficientnet", "shufflenetv2", "mnasnet", "regnet", "convnext",
                       "vision_transformer", "swin_transformer", "maxvit", "mobilenet"):
            theirs = getattr(tv.models, family)
            assert sorted(getattr(models, family).__all__) == sorted(theirs.__all__)
            defined = [n for n, v in vars(theirs).items()
                       if not n.startswith("_") and getattr(v, "__module__", None) == theirs.__name__]
            assert [n for n in defined if not hasattr(getattr(models, family), n)] == []


def test_builder_arguments():
    with pytest.raises(ValueError, match="expected value 1000 but got 10"):
        models.mobilenet_v2(weights="IMAGENET1K_V1", num_classes=10)
    with pytest.warns(UserWarning) as record:
        models.shufflenet_v2_x0_5(pretrained=False)
    messages = [str(w.message) for w in record]
    assert "'pretrained' is deprecated" in messages[0] and "equivalent to passing `weights=None`" in messages[1]
    with pytest.raises(ValueError, match="Unsupported model type"):
        models.mobilenetv3._mobilenet_v3_conf("mobilenet_v3_medium")
    with pytest.raises(AssertionError, match="Wrong image height"):
        models.vision_transformer.VisionTransformer(32, 8, 1, 2, 16, 32)(npgrad.zeros(1, 3, 16, 32))
    with pytest.raises(ValueError, match="not divisible by partition size 7"):
        models.maxvit.MaxVit((100, 100), 8, 7, [8], [1], 4, 0.0)
    small = models.mobilenet_v3_small(width_mult=0.5, num_classes=3).eval()
    assert small(npgrad.zeros(1, 3, 32, 32)).shape == (1, 3)


# one small model per family: builder (or class) arguments, input shape
FAMILIES = {
    "mobilenet_v2": (lambda m: m.mobilenet_v2(num_classes=10, width_mult=0.5), (2, 3, 32, 32)),
    "mobilenet_v3": (lambda m: m.mobilenet_v3_small(num_classes=10, width_mult=0.5), (2, 3, 32, 32)),
    "efficientnet": (lambda m: m.efficientnet.EfficientNet(
        [m.efficientnet.FusedMBConvConfig(1, 3, 1, 8, 8, 1), m.efficientnet.FusedMBConvConfig(4, 3, 2, 8, 16, 2),
         m.efficientnet.MBConvConfig(4, 3, 2, 16, 24, 2)], 0.2, last_channel=64, num_classes=10), (2, 3, 32, 32)),
    "shufflenetv2": (lambda m: m.shufflenet_v2_x0_5(num_classes=10), (2, 3, 32, 32)),
    "mnasnet": (lambda m: m.mnasnet0_5(num_classes=10), (2, 3, 32, 32)),
    "regnet": (lambda m: m.regnet_y_400mf(num_classes=10), (2, 3, 32, 32)),
    "convnext": (lambda m: m.convnext.ConvNeXt(
        [m.convnext.CNBlockConfig(16, 32, 1), m.convnext.CNBlockConfig(32, None, 2)], num_classes=10,
        layer_scale=0.5), (2, 3, 32, 32)),
    "vit": (lambda m: m.vision_transformer.VisionTransformer(32, 8, 2, 2, 32, 64, num_classes=10,
                                                             representation_size=24), (2, 3, 32, 32)),
    "swin": (lambda m: m.swin_transformer.SwinTransformer([2, 2], 16, [2, 2], [2, 4], [4, 4], num_classes=10),
             (2, 3, 28, 28)),
    "swin_v2": (lambda m: m.swin_transformer.SwinTransformer(
        [2, 2], 16, [2, 2], [2, 4], [4, 4], num_classes=10, block=m.swin_transformer.SwinTransformerBlockV2,
        downsample_layer=m.swin_transformer.PatchMergingV2), (2, 3, 28, 28)),
    "maxvit": (lambda m: m.maxvit.MaxVit((64, 64), 16, 4, [16, 32], [1, 2], 8, 0.2, num_classes=10),
               (2, 3, 64, 64)),
}


def _spread(state):
    """torchvision's initial state with its constant tensors (unit norms, zero biases and heads) replaced by
    random ones, so that every weight shows in the outputs and gradients."""
    rng = np.random.default_rng(0)
    out = OrderedDict()
    for k, v in state.items():
        a = v.detach().numpy().copy()
        if a.dtype.kind == "f" and a.size and np.all(a == a.flat[0]):
            if k.endswith(("running_var", "weight")) and a.flat[0] == 1:
                a = rng.uniform(0.5, 1.5, a.shape)
            else:
                a = a + rng.normal(0, 0.1, a.shape)
        elif k.endswith("running_mean"):
            a = rng.normal(0, 0.1, a.shape)
        out[k] = torch.from_numpy(np.asarray(a, dtype=v.detach().numpy().dtype))
    out._metadata = getattr(state, "_metadata", None)
    return out


def _to_npgrad(state):
    out = OrderedDict((k, npgrad.tensor(v.numpy())) for k, v in state.items())
    out._metadata = getattr(state, "_metadata", None)
    return out


def _close(mine, ref, scale_tol=1e-5):
    ref = np.asarray(ref)
    np.testing.assert_allclose(np.asarray(mine), ref, rtol=1e-4, atol=scale_tol * max(1.0, np.abs(ref).max()))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_outputs_gradients_training(family):
    build, shape = FAMILIES[family]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    npgrad.manual_seed(0)
    model = build(models)
    if HAS_TV:
        torch.manual_seed(0)
        ref = build(tv.models)
        state = _spread(ref.state_dict())
        ref.load_state_dict(state)
        model.load_state_dict(_to_npgrad(state))
        ref.eval()
    model.eval()
    out = model(npgrad.tensor(x))
    assert out.shape == (shape[0], 10)
    assert np.isfinite(out.detach().numpy()).all()
    upstream = np.random.default_rng(2).standard_normal(out.shape).astype(np.float32)
    (out * npgrad.tensor(upstream)).sum().backward()
    grads = {k: p.grad for k, p in model.named_parameters()}
    assert all(g is not None for g in grads.values())
    if HAS_TV:
        ref_out = ref(torch.from_numpy(x))
        _close(out.detach().numpy(), ref_out.detach().numpy())
        (ref_out * torch.from_numpy(upstream)).sum().backward()
        g_scale = max(np.abs(p.grad.numpy()).max() for p in ref.parameters())
        for k, p in ref.named_parameters():
            np.testing.assert_allclose(grads[k].numpy(), p.grad.numpy(), rtol=1e-3, atol=1e-5 * g_scale,
                                       err_msg=k)
    # a training step: batch statistics, dropout and stochastic depth on
    model.train()
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    opt = npgrad.optim.SGD(model.parameters(), lr=1e-3)
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(npgrad.tensor(x)), npgrad.tensor(np.arange(shape[0]) % 10))
    loss.backward()
    assert all(np.isfinite(p.grad.numpy()).all() for p in model.parameters())
    opt.step()
    after = model.state_dict()
    moved = {k for k, v in before.items() if v.dtype.kind == "f" and not np.array_equal(v, after[k].numpy())}
    # the classifier's last weight always learns; batch statistics update where there are norm layers
    assert list(dict(model.named_parameters()))[-1] in moved or list(dict(model.named_parameters()))[-2] in moved
    running = {k for k in before if k.endswith("running_mean")}
    assert not running or running & moved


@pytest.mark.skipif(not HAS_TV, reason="compares the initial distributions with torchvision's")
@pytest.mark.parametrize("family", list(FAMILIES))
def test_init_statistics(family):
    """Each large parameter starts with torchvision's spread (the init schemes), and exact constants match."""
    build, _ = FAMILIES[family]
    model, ref = build(models), build(tv.models)
    ref_params = dict(ref.named_parameters())
    for k, p in model.named_parameters():
        a, b = p.detach().numpy(), ref_params[k].detach().numpy()
        if np.all(b == b.flat[0]):
            assert np.all(a == b.flat[0]), k
        elif a.size >= 2000:
            assert abs(a.std() - b.std()) < 0.1 * b.std(), k
            assert abs(a.mean() - b.mean()) < 0.1 * b.std() + 1e-3, k


@pytest.mark.skipif(not HAS_TV, reason="compares with torchvision's BatchNorm statistics")
def test_train_mode_batch_statistics():
    """In training mode the running statistics update as torchvision's (no dropout before the last BN)."""
    torch.manual_seed(0)
    ref = tv.models.mnasnet0_5(num_classes=10)
    state = _spread(ref.state_dict())
    ref.load_state_dict(state)
    model = models.mnasnet0_5(num_classes=10)
    model.load_state_dict(_to_npgrad(state))
    x = np.random.default_rng(4).standard_normal((4, 3, 64, 64)).astype(np.float32)
    ref.train()
    model.train()
    ref(torch.from_numpy(x))
    model(npgrad.tensor(x))
    ref_sd = ref.state_dict()
    for k, v in model.state_dict().items():
        if "running" in k:
            _close(v.numpy(), ref_sd[k].numpy())


def _v1_mnasnet_state():
    """A checkpoint of the first MNASNet version at alpha 0.5: its stem keeps the 32/16 widths of alpha 1."""
    old = models.mnasnet0_5()
    for i, layer in enumerate(models.mnasnet._stem(models.mnasnet._get_depths(0.5), first=(32, 16))):
        old.layers[i] = layer
    state = old.state_dict()
    state._metadata[""]["version"] = 1
    return state


def test_mnasnet_version1_checkpoint():
    state = _v1_mnasnet_state()
    model = models.mnasnet0_5()
    with pytest.warns(UserWarning, match="A new version of MNASNet model has been implemented"):
        model.load_state_dict(state)
    assert model.layers[0].out_channels == 32 and model._version == 1
    x = np.random.default_rng(5).standard_normal((1, 3, 32, 32)).astype(np.float32)
    model.eval()
    out = model(npgrad.tensor(x)).detach().numpy()
    if HAS_TV:
        ref_state = OrderedDict((k, torch.from_numpy(v.numpy())) for k, v in state.items())
        ref_state._metadata = state._metadata
        ref = tv.models.mnasnet0_5()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref.load_state_dict(ref_state)
        ref.eval()
        _close(out, ref(torch.from_numpy(x)).detach().numpy())


def test_vit_interpolate_embeddings():
    vt = models.vision_transformer
    state = vt.VisionTransformer(32, 8, 1, 2, 16, 32, num_classes=10).state_dict()
    new = vt.interpolate_embeddings(48, 8, OrderedDict(state), reset_heads=True)
    assert tuple(new["encoder.pos_embedding"].shape) == (1, 37, 16)
    assert not any(k.startswith("heads") for k in new)
    # the class token's embedding is kept as it was
    np.testing.assert_array_equal(new["encoder.pos_embedding"].numpy()[:, 0], state["encoder.pos_embedding"].numpy()[:, 0])
    bigger = vt.VisionTransformer(48, 8, 1, 2, 16, 32, num_classes=10)
    bigger.load_state_dict(new, strict=False)
    if HAS_TV:
        ref_state = OrderedDict((k, torch.from_numpy(v.numpy())) for k, v in state.items())
        ref = tv.models.vision_transformer.interpolate_embeddings(48, 8, ref_state, reset_heads=True)
        _close(new["encoder.pos_embedding"].numpy(), ref["encoder.pos_embedding"].numpy())


def test_weights_load_from_hub_cache(tmp_path, monkeypatch):
    """``weights=`` reads the checkpoint from the hub cache by its file name, without a network."""
    from npgrad import hub
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    assert hub.get_dir() == str(tmp_path / "hub")
    weights = models.ShuffleNet_V2_X0_5_Weights.IMAGENET1K_V1
    source = models.shufflenet_v2_x0_5()
    (tmp_path / "hub" / "checkpoints").mkdir(parents=True)
    npgrad.save(source.state_dict(), tmp_path / "hub" / "checkpoints" / weights.url.rsplit("/", 1)[1])
    loaded = models.shufflenet_v2_x0_5(weights=weights)
    for (k, a), b in zip(source.state_dict().items(), loaded.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_vit_mlp_version1_keys():
    """Checkpoints from before MLPBlock became an MLP name its linears linear_1/linear_2; they still load."""
    vt = models.vision_transformer
    model = vt.VisionTransformer(32, 8, 1, 2, 16, 32, num_classes=10)
    state = model.state_dict()
    old = OrderedDict((k.replace("mlp.0.", "mlp.linear_1.").replace("mlp.3.", "mlp.linear_2."), v)
                      for k, v in state.items())
    old._metadata = OrderedDict((k, dict(v, version=1) if k.endswith("mlp") else v)
                                for k, v in state._metadata.items())
    assert any("linear_1" in k for k in old)
    fresh = vt.VisionTransformer(32, 8, 1, 2, 16, 32, num_classes=10)
    fresh.load_state_dict(old)
    np.testing.assert_array_equal(fresh.encoder.layers[0].mlp[3].weight.detach().numpy(),
                                  model.encoder.layers[0].mlp[3].weight.detach().numpy())


VARIANTS = {
    "mobilenet_v3_large": dict(reduced_tail=True, dilated=True, width_mult=0.75),
    "mobilenet_v3_small": dict(reduced_tail=True, num_classes=7),
    "mobilenet_v2": dict(width_mult=1.4, round_nearest=4),
    "efficientnet_b3": dict(num_classes=5, dropout=0.1),
    "vit_b_32": dict(image_size=96),
    "convnext_tiny": dict(stochastic_depth_prob=0.2, layer_scale=0.5),
    "maxvit_t": dict(input_size=(448, 448)),
}


@pytest.mark.skipif(not HAS_TV, reason="compares the module trees with torchvision's")
@pytest.mark.parametrize("name", list(VARIANTS))
def test_builder_keyword_variants(name):
    with _no_init(npgrad):
        model = models.get_model(name, **VARIANTS[name])
    with _no_init(torch):
        ref = tv.models.get_model(name, **VARIANTS[name])
    assert [(k, tuple(v.shape)) for k, v in model.state_dict().items()] == \
           [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    assert _repr(model) == repr(ref)


@pytest.mark.skipif(not HAS_TV, reason="compares with torchvision's ViT")
def test_vit_conv_stem_outputs():
    vt = models.vision_transformer
    stem = lambda m: [m.vision_transformer.ConvStemConfig(8, 3, 2), m.vision_transformer.ConvStemConfig(16, 3, 2)]
    model = vt.VisionTransformer(32, 4, 1, 2, 16, 32, num_classes=10, conv_stem_configs=stem(models))
    ref = tv.models.vision_transformer.VisionTransformer(32, 4, 1, 2, 16, 32, num_classes=10,
                                                         conv_stem_configs=stem(tv.models))
    state = _spread(ref.state_dict())
    ref.load_state_dict(state)
    model.load_state_dict(_to_npgrad(state))
    model.eval()
    ref.eval()
    x = np.random.default_rng(6).standard_normal((2, 3, 32, 32)).astype(np.float32)
    _close(model(npgrad.tensor(x)).detach().numpy(), ref(torch.from_numpy(x)).detach().numpy())


@pytest.mark.skipif(not HAS_TV, reason="compares with torchvision's function")
@pytest.mark.parametrize("shift", [[0, 2], [3, 1]])
def test_shifted_window_attention_function(shift):
    """The functional form with shifts along one axis or both, on a map that needs padding."""
    rng = np.random.default_rng(7)
    x, qkv_w, proj_w = (rng.standard_normal(s).astype(np.float32) for s in [(2, 9, 11, 8), (24, 8), (8, 8)])
    bias = rng.standard_normal((1, 2, 16, 16)).astype(np.float32)
    args = dict(window_size=[4, 4], num_heads=2, shift_size=shift, training=False)
    mine = models.swin_transformer.shifted_window_attention(
        *(npgrad.tensor(a) for a in (x, qkv_w, proj_w, bias)), **args)
    ref = tv.models.swin_transformer.shifted_window_attention(
        *(torch.from_numpy(a) for a in (x, qkv_w, proj_w, bias)), **args)
    _close(mine.numpy(), ref.numpy())


def _signature(fn):
    import inspect
    params = inspect.signature(fn).parameters.values()
    return [(p.name, p.kind, None if p.default is p.empty else
             getattr(p.default, "__name__", repr(p.default) if not callable(p.default) else type(p.default).__name__))
            for p in params]


@pytest.mark.skipif(not HAS_TV, reason="compares with torchvision's signatures")
@pytest.mark.parametrize("family", ["mobilenetv2", "mobilenetv3", "efficientnet", "shufflenetv2", "mnasnet", "regnet",
                                    "convnext", "vision_transformer", "swin_transformer", "maxvit"])
def test_signatures(family):
    """The public classes (constructor and forward) and functions take torchvision's arguments and defaults."""
    theirs, mine = getattr(tv.models, family), getattr(models, family)
    for name, ref in vars(theirs).items():
        if name.startswith("_") or getattr(ref, "__module__", None) != theirs.__name__ or not callable(ref):
            continue
        ours = getattr(mine, name)
        if isinstance(ref, type):
            if "__init__" in vars(ref):
                assert _signature(ours.__init__) == _signature(ref.__init__), name
            if "forward" in vars(ref):
                assert _signature(ours.forward) == _signature(ref.forward), name
        else:
            assert _signature(ours) == _signature(ref), name
