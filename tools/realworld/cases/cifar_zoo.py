"""kuangliu/pytorch-cifar: the most-forked CIFAR-10 model zoo (ResNet, VGG, MobileNet, EfficientNet, ...)."""
from corpus import Job, case, import_package_module
from ._util import images, labels

REPO = "kuangliu/pytorch-cifar"
MODELS = {  # case name -> (module file, constructor call)
    "ResNet18": ("resnet", "ResNet18()"), "PreActResNet18": ("preact_resnet", "PreActResNet18()"),
    "VGG11": ("vgg", "VGG('VGG11')"), "GoogLeNet": ("googlenet", "GoogLeNet()"),
    "DenseNet121": ("densenet", "DenseNet121()"), "ResNeXt29_2x64d": ("resnext", "ResNeXt29_2x64d()"),
    "MobileNet": ("mobilenet", "MobileNet()"), "MobileNetV2": ("mobilenetv2", "MobileNetV2()"),
    "DPN26": ("dpn", "DPN26()"),
    "ShuffleNetV2": ("shufflenetv2", "ShuffleNetV2(1)"), "SENet18": ("senet", "SENet18()"),
    "EfficientNetB0": ("efficientnet", "EfficientNetB0()"), "RegNetX_200MF": ("regnet", "RegNetX_200MF()"),
    "SimpleDLA": ("dla_simple", "SimpleDLA()"), "DLA": ("dla", "DLA()"), "PNASNetA": ("pnasnet", "PNASNetA()"),
    "LeNet": ("lenet", "LeNet()"),
}
FILES = [f"models/{f}.py" for f in ("__init__", "shufflenet", *sorted({m for m, _ in MODELS.values()}))]
# ShuffleNetG2 is left out: it fails under PyTorch itself (a float channel count from `/` in Python 3).
FLOAT64 = ("model and batches in float64: BatchNorm over a batch of 4 at 1x1-2x2 maps is ill-conditioned, so "
           "float32 rounding differences (PyTorch's own, between two BLAS builds) grow past 1e-3 in one SGD step")


def _no_stochastic_depth(net):
    """EfficientNet's drop_connect and classifier dropout draw masks; their rates are set to 0."""
    for m in net.modules():
        if hasattr(m, "drop_rate"):
            m.drop_rate = 0.0
    if isinstance(getattr(net, "cfg", None), dict):
        net.cfg["dropout_rate"] = 0.0


def _build(module, call):
    def build(torch, src, rng):
        models = import_package_module(src, "", f"models.{module}")
        net = eval(call, vars(models)).double()
        _no_stochastic_depth(net)
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
        crit = torch.nn.CrossEntropyLoss()
        batches = [(images(rng, 4, 3, 32, 32).astype("float64"), labels(rng, 4, 10)) for _ in range(2)]
        return Job(net, opt, lambda b: crit(net(b[0]), b[1]), batches,
                   scheduler=torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=200))
    return build


for _name, (_module, _call) in MODELS.items():
    case(f"cifar/{_name}", REPO, FILES,
         [f"models.{_module}.{_call}", FLOAT64] + (["drop_connect and dropout rates 0"] if _module == "efficientnet" else []) +
         ["synthetic 4-image CIFAR-sized batches (no torchvision download)",
          "main.py's SGD (lr 0.1, momentum 0.9, weight decay 5e-4), CrossEntropyLoss and CosineAnnealingLR(T_max=200)"],
         steps=2)(_build(_module, _call))
