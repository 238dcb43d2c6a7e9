"""The optional packages npgrad's features import when they run, and the extra of npgrad that installs each.

Every such import goes through ``require``, so a missing package always says what to install
(``pip install "npgrad[onnx]"``) instead of a bare ``No module named 'onnx'``.
"""
import importlib

# top-level package -> the extra in pyproject.toml's [project.optional-dependencies] that brings it
EXTRAS = {"onnx": "onnx", "onnxruntime": "onnx", "tensorboard": "tensorboard", "mpi4py": "distributed",
          "tqdm": "examples", "matplotlib": "examples", "safetensors": "safetensors", "threadpoolctl": "threads"}


def install_hint(package):
    """The pip command that installs ``package`` (a top-level name in EXTRAS) with npgrad."""
    return f'pip install "npgrad[{EXTRAS[package]}]"'


def _importable(name):
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def require(module, feature, message=None):
    """Import and return ``module`` (e.g. ``"onnx"``, ``"matplotlib.figure"``) for ``feature`` (what needs
    it, e.g. ``"npgrad.onnx.export"``). When the optional package is missing, a ModuleNotFoundError says
    which package and which extra installs it, prefixed by ``message`` where a feature has a traditional
    one (TensorBoard's). A module missing *inside* an installed package is that package's error, re-raised."""
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is None or e.name.partition(".")[0] != top or (e.name != top and _importable(top)):
            raise
        lead = f"{message}: " if message else ""
        raise ModuleNotFoundError(f"{lead}{feature} needs the optional package {top!r}, which is not installed: "
                                  f"{install_hint(top)}", name=top) from None
