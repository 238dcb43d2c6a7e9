"""Helpers behind DataLoader, at the import paths PyTorch code uses (``torch.utils.data._utils.collate``)."""
from . import collate  # noqa: F401
