"""Utilities: data loading (npgrad.utils.data)."""
from . import data  # noqa: F401
