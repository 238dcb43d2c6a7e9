"""The IDX reader lives with the datasets that read IDX files (``npgrad.vision.datasets``); re-exported here."""
from ..vision.datasets._idx import IDXError, parse_idx, read_idx

__all__ = ["read_idx", "parse_idx", "IDXError"]
