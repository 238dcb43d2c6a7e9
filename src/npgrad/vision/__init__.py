"""torchvision's API on npgrad: ``npgrad.vision`` is what ``import torchvision`` gives under ``npgrad run``.

Its submodules (datasets, transforms, models, ops, utils, io) are imported on first use, so that
``import npgrad.vision`` costs nothing until a script touches one; ``torchvision.transforms`` and friends
then read as attributes, as they do after ``import torchvision``.
"""
import importlib

# torchvision's release paired with the PyTorch version npgrad reports (2.13 <-> 0.28).
__version__ = "0.28.0+npgrad"

_SUBMODULES = ("datasets", "io", "models", "ops", "transforms", "utils")
_image_backend = "PIL"


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))


def get_image_backend():
    """The package that loads images for the datasets: only ``"PIL"`` here (torchvision's accimage is absent)."""
    return _image_backend


def set_image_backend(backend):
    if backend == "accimage":
        raise ValueError("npgrad.vision has no accimage backend: images load through PIL")
    if backend != "PIL":
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' and 'accimage'")

