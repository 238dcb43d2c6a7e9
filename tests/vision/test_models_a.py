"""vision.models, first half: ResNet/ResNeXt/Wide ResNet, VGG, AlexNet, SqueezeNet, DenseNet, GoogLeNet and
Inception v3 against torchvision (state_dict keys and shapes, parameter counts, outputs and gradients from the
same weights, checkpoints loaded from the hub cache, the registry and weights enums), and without it against
the architecture's own facts (the published parameter counts, output shapes, initialisation statistics)."""
import inspect
import re
import warnings

import numpy as np
import pytest

import npgrad
from npgrad import nn
from npgrad.vision import models as M
from tv_oracle import HAS_TV, torch, tv, needs_tv


BUILDERS = ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d", "resnext101_32x8d",
            "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn",
            "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "alexnet", "squeezenet1_0", "squeezenet1_1", "densenet121",
            "densenet161", "densenet169", "densenet201", "googlenet", "inception_v3"]
# the two Inception nets warn about their default initialisation unless told
QUIET = {"googlenet": {"init_weights": True}, "inception_v3": {"init_weights": True}}
# one per family (and the grouped bottleneck) for the numerical comparisons, at a small input
OUTPUT_CASES = [("resnet18", 32), ("resnext50_32x4d", 32), ("vgg11_bn", 32), ("alexnet", 63), ("squeezenet1_0", 32),
                ("squeezenet1_1", 32), ("densenet121", 32), ("googlenet", 32), ("inception_v3", 75)]
_INITS = ["uniform_", "normal_", "trunc_normal_", "kaiming_uniform_", "kaiming_normal_"]


@pytest.fixture
def np_no_init(monkeypatch):
    """Build npgrad models without drawing their random values (they are overwritten, or only the structure is
    looked at): the 100M-parameter ones would spend seconds in the generator."""
    for name in _INITS:
        monkeypatch.setattr(nn.init, name, lambda tensor, *a, **k: tensor)


@pytest.fixture
def no_init(np_no_init, monkeypatch):
    if HAS_TV:
        for name in _INITS:
            monkeypatch.setattr(torch.nn.init, name, lambda tensor, *a, **k: tensor)


def _numel(model):
    return sum(p.numel() for p in model.parameters())


def _copy_from_tv(model, tv_model):
    model.load_state_dict({k: npgrad.from_numpy(v.detach().numpy().copy()) for k, v in tv_model.state_dict().items()})


@pytest.mark.parametrize("name", BUILDERS)
def test_structure_and_parameter_count(name, no_init):
    """The published parameter count is the architecture's (no oracle needed); with torchvision, the state_dict
    keys, their order and every shape are its. (GoogLeNet's count is without the auxiliary heads, which the
    pretrained model drops.)"""
    kw = {"aux_logits": False} if name == "googlenet" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model = M.get_model(name, **kw)
    assert _numel(model) == M.get_model_weights(name).DEFAULT.meta["num_params"]
    if HAS_TV:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            ref = tv.models.get_model(name, **kw)
        ours, theirs = model.state_dict(), ref.state_dict()
        assert list(ours) == list(theirs)
        assert [tuple(v.shape) for v in ours.values()] == [tuple(v.shape) for v in theirs.values()]
        assert [type(m).__name__ for m in model.modules()] == [type(m).__name__ for m in ref.modules()]


def _close(a, b):
    # random-init batch norm in eval mode (mean 0, var 1) lets activations grow with depth; compare relative to
    # the output's scale
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(b).max())))


def _randomize(ref):
    """Fresh values for every parameter and running statistic of a model built without its initialisation."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, t in ref.state_dict().items():
            if not t.is_floating_point():
                continue
            noise = torch.randn(t.shape, generator=g)
            if name.endswith("running_var"):
                t.copy_(noise.abs() * 0.5 + 0.5)
            elif t.dim() > 1:  # He scaling keeps the activations' size through the ReLUs
                t.copy_(noise * (2.0 / t[0].numel()) ** 0.5)
            else:
                t.copy_(noise * 0.1 + (1.0 if name.endswith("weight") else 0.0))


@needs_tv
@pytest.mark.parametrize("name,size", OUTPUT_CASES)
def test_outputs_and_gradients_match_torchvision(name, size, no_init):
    """Outputs in float32 within 1e-5; gradients in float64, where float32 rounding cannot flip which element a
    max pool picks among near-ties (that reroutes a gradient whole). For VGG and AlexNet the gradients are the
    feature extractor's: their 100M-parameter classifiers are plain Linear layers, costly to copy to float64."""
    ref = tv.models.get_model(name, **QUIET.get(name, {})).eval()
    _randomize(ref)
    model = M.get_model(name, **QUIET.get(name, {})).eval()
    model.load_state_dict({k: npgrad.from_numpy(v.numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 3, size, size)).astype(np.float32)
    out_ref = ref(torch.from_numpy(x)).detach().numpy()
    out = model(npgrad.from_numpy(x))
    assert out.shape == out_ref.shape == (2, 1000)
    _close(out.detach().numpy(), out_ref)
    assert np.ptp(out_ref, axis=0).mean() > 1e-2 * np.abs(out_ref).max()  # the logits depend on the input
    if name.startswith(("vgg", "alexnet")):
        ref, model = ref.features, model.features
    ref, model = ref.double(), model.double()
    x64 = x[:1].astype(np.float64)
    y_ref = ref(torch.from_numpy(x64))
    w = np.random.default_rng(1).standard_normal(tuple(y_ref.shape))
    (y_ref * torch.from_numpy(w)).sum().backward()
    (model(npgrad.from_numpy(x64)) * npgrad.from_numpy(w)).sum().backward()
    params, ref_params = dict(model.named_parameters()), dict(ref.named_parameters())
    names = list(params)
    for key in (names[0], names[len(names) // 2], names[-1]):
        g = ref_params[key].grad.numpy()
        np.testing.assert_allclose(params[key].grad.numpy(), g, rtol=1e-9, atol=1e-9 * np.abs(g).max(), err_msg=key)


@needs_tv
@pytest.mark.parametrize("name", ["resnet18", "densenet121"])
def test_train_mode_batch_statistics_match(name):
    """Training mode: batch norm normalises by the batch's statistics and updates its running ones."""
    ref = tv.models.get_model(name).train()
    model = M.get_model(name).train()
    _copy_from_tv(model, ref)
    # batch 4 at 64x64: layer4 still sees 8 values per channel, so the batch variance is well away from eps
    x = np.random.default_rng(2).standard_normal((4, 3, 64, 64)).astype(np.float32)
    _close(model(npgrad.from_numpy(x)).detach().numpy(), ref(torch.from_numpy(x)).detach().numpy())
    for key, value in ref.state_dict().items():
        if key.endswith("running_var"):
            _close(model.state_dict()[key].numpy(), value.numpy())


def test_train_mode_auxiliary_outputs():
    g = M.googlenet(init_weights=True).train()
    out = g(npgrad.randn(2, 3, 64, 64))
    assert isinstance(out, M.GoogLeNetOutputs) and out._fields == ("logits", "aux_logits2", "aux_logits1")
    assert [tuple(o.shape) for o in out] == [(2, 1000)] * 3
    assert tuple(g.eval()(npgrad.randn(1, 3, 64, 64)).shape) == (1, 1000)
    g = M.googlenet(aux_logits=False, init_weights=True, num_classes=7).train()
    assert g.aux1 is None and g.aux2 is None and tuple(g(npgrad.randn(2, 3, 64, 64)).shape) == (2, 7)


@pytest.mark.parametrize("aux,size", [(True, 299), (False, 75)])
def test_inception_train_outputs(aux, size, np_no_init):
    """The auxiliary head needs a 17x17 grid before it: 299x299 inputs."""
    model = M.inception_v3(init_weights=False, aux_logits=aux, num_classes=10).train()
    for t in model.parameters():
        t.data.normal_(0, 0.05)
    out = model(npgrad.randn(2, 3, size, size))
    if not aux:
        assert model.AuxLogits is None and tuple(out.shape) == (2, 10)
        return
    assert isinstance(out, M.InceptionOutputs) and out._fields == ("logits", "aux_logits")
    assert tuple(out.logits.shape) == tuple(out.aux_logits.shape) == (2, 10)


@needs_tv
def test_inception_aux_head_matches(no_init):
    ref = tv.models.inception_v3(init_weights=True, num_classes=10).eval()
    _randomize(ref)
    model = M.inception_v3(init_weights=True, num_classes=10).eval()
    model.load_state_dict({k: npgrad.from_numpy(v.numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(3).standard_normal((2, 768, 17, 17)).astype(np.float32)
    _close(model.AuxLogits(npgrad.from_numpy(x)).detach().numpy(), ref.AuxLogits(torch.from_numpy(x)).detach().numpy())


def test_transform_input_rescales_imagenet_normalisation():
    """transform_input maps (x - mean) / std to (x - 0.5) / 0.5: feeding both spellings of one image agrees."""
    raw = np.random.default_rng(4).random((1, 3, 64, 64)).astype(np.float32)
    mean = np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1)
    std = np.array([0.229, 0.224, 0.225], np.float32).reshape(1, 3, 1, 1)
    npgrad.manual_seed(0)
    plain = M.googlenet(init_weights=False, aux_logits=False).eval()
    npgrad.manual_seed(0)
    scaled = M.googlenet(init_weights=False, aux_logits=False, transform_input=True).eval()
    a = scaled(npgrad.from_numpy((raw - mean) / std)).detach().numpy()
    b = plain(npgrad.from_numpy((raw - 0.5) / 0.5)).detach().numpy()
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- initialisation: each family's scheme, checked by its statistics ----

def _std(t):
    return float(t.detach().numpy().std())


def test_resnet_init():
    npgrad.manual_seed(0)
    m = M.resnet18()
    w = m.layer3[0].conv1.weight  # 256 x 128 x 3 x 3: kaiming normal, fan_out
    assert abs(_std(w) / np.sqrt(2.0 / (256 * 9)) - 1) < 0.02
    assert abs(float(w.detach().numpy().mean())) < 1e-3
    assert np.all(m.bn1.weight.detach().numpy() == 1) and np.all(m.bn1.bias.detach().numpy() == 0)
    assert np.all(m.layer1[0].bn2.weight.detach().numpy() == 1)
    z = M.resnet50(zero_init_residual=True)
    assert all(np.all(b.bn3.weight.detach().numpy() == 0) for b in z.modules() if isinstance(b, M.resnet.Bottleneck))
    assert np.all(z.layer1[0].bn2.weight.detach().numpy() == 1)
    z.eval()
    # with the residual branches zeroed, each block is relu(shortcut): a block without downsampling is the
    # identity on its (non-negative) input
    x = npgrad.rand(1, 256, 8, 8)
    np.testing.assert_allclose(z.layer1[1](x).detach().numpy(), x.numpy())


def test_vgg_init(monkeypatch):
    """VGG's draws are checked by what it asks nn.init for (its 100M-parameter classifier would spend most of
    the test drawing): kaiming normal (fan_out) for convolutions, N(0, 0.01) for linear layers, zero biases."""
    calls = []
    for name in _INITS:
        monkeypatch.setattr(nn.init, name, lambda t, *a, _n=name, **k: calls.append((_n, tuple(t.shape), a, k)) or t)
    vgg = M.vgg11_bn()
    drawn = {shape: (name, a, k) for name, shape, a, k in calls if name != "kaiming_uniform_"}
    for m in vgg.modules():
        if isinstance(m, nn.Conv2d):
            assert drawn[tuple(m.weight.shape)] == ("kaiming_normal_", (), {"mode": "fan_out", "nonlinearity": "relu"})
        elif isinstance(m, nn.Linear):
            assert drawn[tuple(m.weight.shape)] == ("normal_", (0, 0.01), {})
        if isinstance(m, (nn.Conv2d, nn.Linear, nn.BatchNorm2d)):
            assert np.all(m.bias.detach().numpy() == 0)
        if isinstance(m, nn.BatchNorm2d):
            assert np.all(m.weight.detach().numpy() == 1)


def test_squeezenet_densenet_inception_googlenet_init():
    npgrad.manual_seed(0)
    sq = M.squeezenet1_1()
    assert abs(_std(sq.classifier[1].weight) / 0.01 - 1) < 0.05
    e = sq.features[3].expand3x3.weight  # kaiming uniform (a=0, fan_in): bound sqrt(6 / fan_in)
    bound = np.sqrt(6.0 / (16 * 9))
    assert np.abs(e.detach().numpy()).max() <= bound and np.abs(e.detach().numpy()).max() > 0.95 * bound
    dn = M.densenet121()
    c = dn.features.denseblock2.denselayer3.conv1.weight  # kaiming normal, fan_in
    assert abs(_std(c) / np.sqrt(2.0 / c.shape[1]) - 1) < 0.03
    assert np.all(dn.classifier.bias.detach().numpy() == 0)
    inc = M.inception_v3(init_weights=True)
    big = inc.Mixed_6b.branch7x7dbl_2.conv.weight.detach().numpy()  # trunc normal, std 0.1 cut at +-2
    assert np.abs(big).max() <= 2 and abs(big.std() / 0.1 - 1) < 0.02
    # torchvision's 0.01 for the head's 5x5 sits on the conv-bn block, which its init loop never visits: the
    # conv inside gets the 0.1 of every other conv
    assert abs(_std(inc.AuxLogits.conv1.conv.weight) / 0.1 - 1) < 0.02
    assert abs(_std(inc.AuxLogits.fc.weight) / 0.001 - 1) < 0.05
    g = M.googlenet(init_weights=True)
    assert abs(_std(g.inception4a.branch2[1].conv.weight) / 0.01 - 1) < 0.02


# ---- weights: checkpoints in the hub cache ----

@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.setattr(npgrad.hub, "_hub_dir", None)
    ckpt = tmp_path / "hub" / "checkpoints"
    ckpt.mkdir(parents=True)
    return ckpt


def _file_of(weights):
    return weights.url.rsplit("/", 1)[-1]


@needs_tv
@pytest.mark.parametrize("zip_format", [True, False])
def test_torchvision_checkpoint_loads_and_gives_its_outputs(hub_dir, zip_format):
    """Both of PyTorch's file formats: most published checkpoints predate the zip one."""
    ref = tv.models.squeezenet1_1().eval()
    torch.save(ref.state_dict(), hub_dir / _file_of(M.SqueezeNet1_1_Weights.DEFAULT),
               _use_new_zipfile_serialization=zip_format)
    model = M.squeezenet1_1(weights=M.SqueezeNet1_1_Weights.IMAGENET1K_V1).eval()
    x = np.random.default_rng(5).standard_normal((1, 3, 64, 64)).astype(np.float32)
    _close(model(npgrad.from_numpy(x)).detach().numpy(), ref(torch.from_numpy(x)).detach().numpy())
    assert M.get_model("squeezenet1_1", weights="DEFAULT").state_dict().keys() == model.state_dict().keys()


@needs_tv
def test_densenet_checkpoint_with_old_keys(hub_dir):
    """The published DenseNet files (2017, before batch norm counted its steps) spell
    "denselayer1.norm.1.weight" and have no num_batches_tracked; they load."""
    ref = tv.models.densenet121().eval()
    old = {re.sub(r"(denselayer\d+\.(?:norm|relu|conv))([12])\.", r"\1.\2.", k): v for k, v in ref.state_dict().items()
           if not k.endswith("num_batches_tracked")}
    assert any(".norm.1." in k for k in old)
    torch.save(old, hub_dir / _file_of(M.DenseNet121_Weights.DEFAULT))
    model = M.densenet121(weights="DEFAULT").eval()
    x = np.random.default_rng(6).standard_normal((1, 3, 32, 32)).astype(np.float32)
    _close(model(npgrad.from_numpy(x)).detach().numpy(), ref(torch.from_numpy(x)).detach().numpy())


@needs_tv
@pytest.mark.parametrize("kwargs", [{}, {"aux_logits": True}, {"transform_input": False}])
def test_googlenet_weights_options_follow_torchvision(hub_dir, kwargs):
    torch.save(tv.models.googlenet(init_weights=False).state_dict(), hub_dir / _file_of(M.GoogLeNet_Weights.DEFAULT))
    with warnings.catch_warnings(record=True) as ref_w:
        warnings.simplefilter("always")
        ref = tv.models.googlenet(weights="DEFAULT", **kwargs)
    with warnings.catch_warnings(record=True) as our_w:
        warnings.simplefilter("always")
        model = M.googlenet(weights="DEFAULT", **kwargs)
    assert [str(w.message) for w in our_w] == [str(w.message) for w in ref_w]
    for attr in ("aux_logits", "transform_input"):
        assert getattr(model, attr) == getattr(ref, attr)
    assert (model.aux1 is None) == (ref.aux1 is None)
    x = np.random.default_rng(7).standard_normal((1, 3, 64, 64)).astype(np.float32)
    _close(model.eval()(npgrad.from_numpy(x)).detach().numpy(), ref.eval()(torch.from_numpy(x)).detach().numpy())


def test_npgrad_saved_checkpoint_loads(hub_dir):
    """Without torch: a file npgrad.save wrote under the URL's name is what weights= reads."""
    src = M.squeezenet1_0()
    npgrad.save(src.state_dict(), str(hub_dir / _file_of(M.SqueezeNet1_0_Weights.DEFAULT)))
    model = M.squeezenet1_0(weights=M.SqueezeNet1_0_Weights.DEFAULT)
    for (k, a), b in zip(src.state_dict().items(), model.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_offline_error_names_the_file_and_where_to_put_it(hub_dir, monkeypatch):
    import urllib.error
    import urllib.request

    def offline(*a, **k):
        raise urllib.error.URLError("no network")
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(RuntimeError) as err:
        M.resnet18(weights=M.ResNet18_Weights.IMAGENET1K_V1)
    msg = str(err.value)
    assert M.ResNet18_Weights.IMAGENET1K_V1.url in msg
    assert str(hub_dir / "resnet18-f37072fd.pth") in msg
    assert list(hub_dir.iterdir()) == []  # no partial file left behind


# ---- the registry and the weights enums ----

def test_registry_lists_and_builds():
    names = M.list_models()
    assert set(BUILDERS) <= set(names) and names == sorted(names)
    assert M.list_models(include="resnet*", exclude="resnet1*") == ["resnet34", "resnet50"]
    assert M.list_models(module=M, include=["vgg11*", "alexnet"]) == ["alexnet", "vgg11", "vgg11_bn"]
    assert M.get_model_builder("ResNet18") is M.resnet18
    assert M.get_model_weights(M.resnet50) is M.ResNet50_Weights
    assert M.get_weight("ResNet50_Weights.IMAGENET1K_V2") is M.ResNet50_Weights.DEFAULT
    assert M.ResNet50_Weights.verify("IMAGENET1K_V1") is M.ResNet50_Weights.IMAGENET1K_V1
    m = M.get_model("squeezenet1_1", num_classes=5)
    assert isinstance(m, M.SqueezeNet) and m.classifier[1].out_channels == 5
    with pytest.raises(ValueError, match="Unknown model nonet"):
        M.get_model("nonet")
    with pytest.raises(TypeError, match="Invalid Weight class provided; expected ResNet18_Weights"):
        M.resnet18(weights=M.ResNet34_Weights.DEFAULT)


@needs_tv
@pytest.mark.parametrize("name", BUILDERS)
def test_weights_enum_and_signature_match_torchvision(name):
    ours, theirs = M.get_model_weights(name), tv.models.get_model_weights(name)
    assert ours.__name__ == theirs.__name__
    assert [w.name for w in ours] == [w.name for w in theirs] and ours.DEFAULT.name == theirs.DEFAULT.name
    for a, b in zip(ours, theirs):
        assert a.url == b.url
        assert a.transforms.keywords == b.transforms.keywords
        meta, ref_meta = dict(a.meta), dict(b.meta)
        assert " ".join(meta.pop("_docs").split()) == " ".join(ref_meta.pop("_docs").split())
        nan_free = lambda d: {k: (v if k != "_metrics" or v["ImageNet-1K"]["acc@1"] == v["ImageNet-1K"]["acc@1"]
                                  else "nan") for k, v in d.items()}
        assert nan_free(meta) == nan_free(ref_meta)
    sig, ref_sig = inspect.signature(M.get_model_builder(name)), inspect.signature(tv.models.get_model_builder(name))
    assert [(p.name, p.kind, p.default) for p in sig.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in ref_sig.parameters.values()]


@needs_tv
@pytest.mark.parametrize("cls", ["ResNet", "VGG", "AlexNet", "SqueezeNet", "DenseNet", "GoogLeNet", "Inception3"])
def test_model_class_signatures(cls):
    sig, ref = inspect.signature(getattr(M, cls)), inspect.signature(getattr(tv.models, cls))
    assert [(p.name, p.default) for p in sig.parameters.values()] == [(p.name, p.default) for p in ref.parameters.values()]


def _warnings_and_error(fn, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(**kwargs)
            err = None
        except (ValueError, TypeError) as e:
            err = (type(e), str(e))
    return [str(w.message) for w in caught], err


@needs_tv
@pytest.mark.parametrize("kwargs", [{"pretrained": False}, {"weights": False}, {"pretrained": True, "num_classes": 10},
                                    {"weights": True, "num_classes": 3}, {"weights": 0}, {"weights": [1], "num_classes": 3},
                                    {"weights": "IMAGENET1K_V1", "num_classes": 10}])
@pytest.mark.parametrize("name", ["resnet50", "vgg16", "inception_v3"])
def test_deprecated_spellings_and_override_errors_match_torchvision(name, kwargs, no_init):
    """pretrained=/weights=bool warn as torchvision does (pretrained=True meaning the first weights, not DEFAULT);
    a num_classes that contradicts the weights is refused before any file is read."""
    if name == "inception_v3" and not kwargs.get("pretrained", kwargs.get("weights")):
        kwargs = {**kwargs, "init_weights": True}
    ours = _warnings_and_error(M.get_model_builder(name), **kwargs)
    assert ours == _warnings_and_error(tv.models.get_model_builder(name), **kwargs)


@needs_tv
@pytest.mark.parametrize("args", [(None,), (None, False)])
def test_positional_weights_and_progress_warn_as_torchvision(args, no_init):
    """Scripts from before 0.13 pass ``resnet18(True)``: it still works, with torchvision's warning."""
    ours = _warnings_and_error(lambda: M.squeezenet1_0(*args))
    assert ours == _warnings_and_error(lambda: tv.models.squeezenet1_0(*args))
    assert ours[1] is None and "as positional parameter(s) is deprecated" in ours[0][0]


@needs_tv
@pytest.mark.parametrize("module", ["resnet", "vgg", "alexnet", "squeezenet", "densenet", "googlenet", "inception"])
def test_module_names_match_torchvision(module):
    import importlib
    ours = importlib.import_module(f"npgrad.vision.models.{module}")
    theirs = importlib.import_module(f"torchvision.models.{module}")  # tv.models.alexnet is the builder
    assert sorted(ours.__all__) == sorted(theirs.__all__)
    assert all(hasattr(M, n) for n in ours.__all__)


def test_override_error_without_torchvision():
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 1000 but got 10 instead."):
        M.resnet18(weights="DEFAULT", num_classes=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = M.squeezenet1_1(pretrained=False, num_classes=4)
    assert [str(w.message)[:40] for w in caught] == ["The parameter 'pretrained' is deprecated",
                                                     "Arguments other than a weight enum or `N"]
    assert "equivalent to passing `weights=None`" in str(caught[1].message)
    assert m.classifier[1].out_channels == 4
    with pytest.raises(ValueError, match="replace_stride_with_dilation should be None or a 3-element tuple"):
        M.resnet50(replace_stride_with_dilation=[True])
    with pytest.raises(ValueError, match="Unsupported SqueezeNet version 2_0"):
        M.SqueezeNet("2_0")
    with pytest.raises(ValueError, match="BasicBlock only supports groups=1"):
        M.resnet18(groups=2)


def test_dilation_keeps_the_resolution():
    m = M.resnet50(replace_stride_with_dilation=[False, True, True]).eval()
    feats = {}
    m.layer4.register_forward_hook(lambda mod, i, o: feats.update(x=o.shape))
    assert tuple(m(npgrad.randn(1, 3, 64, 64)).shape) == (1, 1000)
    assert feats["x"] == (1, 2048, 8, 8)  # output stride 8 instead of 32
    assert m.layer4[1].conv2.dilation == (4, 4)


def test_weights_transforms_are_the_preset():
    pytest.importorskip("PIL")
    try:
        from npgrad.vision.transforms._presets import ImageClassification
    except ImportError:
        pytest.skip("npgrad.vision.transforms is not built yet")
    t = M.ResNet50_Weights.IMAGENET1K_V2.transforms()
    assert isinstance(t, ImageClassification)
    assert (t.crop_size, t.resize_size) == ([224], [232])


def test_densenet_memory_efficient_recomputes_the_same_gradients(monkeypatch):
    """memory_efficient checkpoints each layer's concatenation and bottleneck; values and gradients are the same."""
    import npgrad.utils.checkpoint as ckpt
    calls = []
    real = ckpt.checkpoint
    monkeypatch.setattr(ckpt, "checkpoint", lambda *a, **k: calls.append(1) or real(*a, **k))
    kw = dict(growth_rate=8, block_config=(2, 3), num_init_features=16, num_classes=5)
    plain, lean = M.DenseNet(**kw).train(), M.DenseNet(memory_efficient=True, **kw).train()
    lean.load_state_dict(plain.state_dict())
    x = np.random.default_rng(8).standard_normal((2, 3, 32, 32)).astype(np.float32)
    outs = []
    for model in (plain, lean):
        inp = npgrad.tensor(x, requires_grad=True)
        out = model(inp)
        out.pow(2).sum().backward()
        outs.append((out.detach().numpy(), inp.grad.numpy(), model.features.conv0.weight.grad.numpy()))
    assert len(calls) == 5  # once per dense layer, only in the memory-efficient model
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
