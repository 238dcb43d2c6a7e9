"""``torch.version``: what was built. npgrad is built for no accelerator, as a CPU-only PyTorch is.

``__version__`` is ``torch.__version__``'s text as a plain ``str`` (PyTorch's is one too): the PyTorch API
release with npgrad's version as local part. ``npgrad_version`` is npgrad's own release.
"""
__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu", "npgrad_version"]

from .torch_version import NPGRAD_VERSION as npgrad_version, __version__ as _tv  # noqa: E402
__version__ = str(_tv)
debug = False
cuda = None
hip = None
rocm = None
xpu = None
git_version = "Unknown"
