"""``torch.version``: what was built. npgrad is built for no accelerator, as a CPU-only PyTorch is."""
__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

from . import __version__  # noqa: E402 (one version string, the package's)
debug = False
cuda = None
hip = None
rocm = None
xpu = None
git_version = "Unknown"
