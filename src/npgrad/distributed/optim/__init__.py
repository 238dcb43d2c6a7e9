"""torch.distributed.optim: ZeroRedundancyOptimizer (optimizer state sharded over ranks, ZeRO stage 1).

The RPC-based DistributedOptimizer and the post-local-SGD optimizers are absent."""
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer  # noqa: F401

__all__ = ["ZeroRedundancyOptimizer"]
