"""The enums and configuration records of torch.distributed.fsdp (their names, values and reprs)."""
import dataclasses
import enum


class ShardingStrategy(enum.Enum):
    """What FSDP shards: FULL_SHARD parameters, gradients and optimizer state (parameters gathered for
    forward and again for backward); SHARD_GRAD_OP gradients and optimizer state (parameters kept
    gathered from forward until the end of backward); NO_SHARD nothing (DDP's all-reduce). The hybrid
    strategies (sharding within a node, replicating across nodes) are not available."""
    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3


class BackwardPrefetch(enum.Enum):
    """When the next unit's all-gather is issued in backward. npgrad gathers on demand, synchronously,
    so both values give the same schedule."""
    BACKWARD_PRE = 1
    BACKWARD_POST = 2


class StateDictType(enum.Enum):
    """FULL_STATE_DICT: every parameter whole, keyed as in the unwrapped model. SHARDED_STATE_DICT: each
    parameter as this rank's dim-0 chunk (a ``LocalShard``). LOCAL_STATE_DICT (flat shards) is absent."""
    FULL_STATE_DICT = 1
    SHARDED_STATE_DICT = 3


@dataclasses.dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclasses.dataclass
class FullStateDictConfig(StateDictConfig):
    """``rank0_only``: only rank 0 gets the entries; the other ranks get an empty dict."""
    rank0_only: bool = False


@dataclasses.dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclasses.dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclasses.dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclasses.dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


@dataclasses.dataclass
class StateDictSettings:
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
