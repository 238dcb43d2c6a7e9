"""``npgrad.backends.kernels``: the switch for npgrad's optional compiled kernels (the ``[kernels]`` extra, numba).

``enabled`` is read at every covered call: set it to False to run the NumPy path, True to use the compiled kernels
again where numba is installed (``npgrad.kernels`` says whether it loaded, and why not). Its default comes from the
environment variable ``NPGRAD_KERNELS`` read once at import: ``0``/``false``/``off``/``no`` turns the kernels off,
anything else (or unset) leaves them on whenever numba is importable. npgrad's own name: PyTorch has no such
backend. Nothing here imports numba; ``is_available()`` only asks whether it is installed."""
import importlib.util
import os

enabled = os.environ.get("NPGRAD_KERNELS", "1").strip().lower() not in ("0", "false", "off", "no")


def is_available():
    """Whether the numba package is installed (the kernels compile at their first use)."""
    return importlib.util.find_spec("numba") is not None
