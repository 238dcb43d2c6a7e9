"""The vision library that goes with ``lib``: npgrad.vision for npgrad, torchvision for torch.

The torchvision wheel served here is built for CUDA PyTorch, so on the CPU torch wheel its import stops at
its first C++ operator registration. Declaring the two operator schemas it looks up first (as
tests/vision/tv_oracle.py does for the tests) lets its Python models import and run; the benchmarks use
nothing of its compiled ops.
"""
import importlib

_LIBRARIES = []  # a torch.library.Library drops its definitions when garbage collected


def vision_for(lib):
    if lib.__name__.split(".")[0] == "npgrad":
        return importlib.import_module("npgrad.vision")
    try:
        return importlib.import_module("torchvision")
    except RuntimeError:  # "operator torchvision::nms does not exist"
        pass
    import sys
    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    defs = lib.library.Library("torchvision", "DEF")
    defs.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    defs.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIBRARIES.append(defs)
    return importlib.import_module("torchvision")
