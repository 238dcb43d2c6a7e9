"""Utilities: data loading (npgrad.utils.data), activation checkpointing (npgrad.utils.checkpoint)."""
import importlib

from . import data  # noqa: F401


def __getattr__(name):
    # torch.utils.checkpoint is reachable as an attribute, as in PyTorch; it loads on first use.
    if name == "checkpoint":
        return importlib.import_module(".checkpoint", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
