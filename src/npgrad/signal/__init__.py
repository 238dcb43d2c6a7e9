"""``torch.signal``: signal-processing helpers; today its ``windows`` submodule."""
from . import windows  # noqa: F401

__all__ = ["windows"]
