"""torch.nn.parallel: data-parallel training across processes (DistributedDataParallel)."""
from .distributed import DistributedDataParallel  # noqa: F401
