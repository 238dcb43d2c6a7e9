"""torch.distributed.fsdp on MPI: FullyShardedDataParallel (flat parameters per wrapped unit) and
fully_shard (per-parameter dim-0 shards), both gathering parameters just in time and reduce-scattering
gradients, so parameters, gradients and optimizer state take 1/N of the memory on each of N ranks.

Absent: HYBRID_SHARD strategies, CPU offload and mixed precision policies, LOCAL_STATE_DICT, DeviceMesh
(``fully_shard`` shards over the default group).
"""
from .api import (BackwardPrefetch, FullOptimStateDictConfig, FullStateDictConfig, OptimStateDictConfig,  # noqa
                  ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy, StateDictConfig,
                  StateDictSettings, StateDictType)
from .fully_sharded_data_parallel import FullyShardedDataParallel  # noqa: F401
from ._fully_shard import FSDPModule, UnshardHandle, fully_shard  # noqa: F401
from . import wrap  # noqa: F401

__all__ = ["BackwardPrefetch", "FullOptimStateDictConfig", "FullStateDictConfig", "FullyShardedDataParallel",
           "OptimStateDictConfig", "ShardedOptimStateDictConfig", "ShardedStateDictConfig", "ShardingStrategy",
           "StateDictConfig", "StateDictSettings", "StateDictType", "FSDPModule", "UnshardHandle", "fully_shard"]
