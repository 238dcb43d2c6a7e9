"""Utilities: data loading (npgrad.utils.data), activation checkpointing (npgrad.utils.checkpoint),
timing (npgrad.utils.benchmark), and a model's summary table (npgrad.utils.summary, as torchinfo prints it)."""
import importlib

from . import data  # noqa: F401


def __getattr__(name):
    # torch.utils.checkpoint and torch.utils.benchmark are attributes, as in PyTorch, loaded on first use.
    if name in ("checkpoint", "benchmark"):
        return importlib.import_module(f".{name}", __name__)
    if name == "summary":  # npgrad's own (torchinfo's summary): a function, so its module is _summary
        return importlib.import_module("._summary", __name__).summary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
