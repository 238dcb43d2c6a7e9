"""torchvision as the vision tests' oracle, where it can be imported.

The served torchvision wheel is built for CUDA PyTorch, so on the CPU wheel its C++ operators do not load
and its import stops at the first operator registration that refers to them. Declaring the two schemas it
looks for (``torchvision::nms`` and ``torchvision::qnms``) before importing it lets its Python models,
transforms and datasets run; its compiled ops (nms, roi_align, ...) stay unusable, so ops tests compare
against NumPy oracles written here.

``tv`` is the torchvision module, or None (``HAS_TV``) when torch or torchvision is missing.
"""
import pytest

from oracle import HAS_TORCH, torch


def _import_torchvision():
    if not HAS_TORCH:
        return None
    try:
        import torchvision
        return torchvision
    except ImportError:
        return None
    except RuntimeError:  # "operator torchvision::nms does not exist": declare the schemas, then retry
        pass
    import sys
    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIBRARIES.append(lib)  # a Library deregisters its definitions when garbage collected
    import torchvision
    return torchvision


_LIBRARIES = []
tv = _import_torchvision()
HAS_TV = tv is not None
needs_tv = pytest.mark.skipif(not HAS_TV, reason="torchvision (the oracle) is not importable")


def message(err):
    """An error's text with the package name in dtype/Size reprs made the same (torch.x and npgrad.x)."""
    return str(err).replace("npgrad.", "torch.")
