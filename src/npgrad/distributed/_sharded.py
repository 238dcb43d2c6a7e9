"""One rank's piece of a tensor that is split across ranks: the value type of a sharded state dict.

npgrad has no DTensor/ShardedTensor. ``FSDP.state_dict()`` under ``StateDictType.SHARDED_STATE_DICT`` (and
``fully_shard``'s state dict) gives each rank a ``LocalShard`` per parameter instead; any reader of sharded
state dicts (``npgrad.distributed.checkpoint``) treats a value with ``.tensor``, ``.global_shape`` and
``.offsets`` as such a piece.
"""


class LocalShard:
    """``tensor`` (this rank's piece, possibly empty) sits at ``offsets`` (one start index per dimension)
    inside a tensor of shape ``global_shape``; the piece spans ``tensor.shape`` from there."""
    __slots__ = ("tensor", "global_shape", "offsets")

    def __init__(self, tensor, global_shape, offsets):
        global_shape = tuple(int(s) for s in global_shape)
        offsets = tuple(int(o) for o in offsets)
        shape = tuple(tensor.shape)
        if len(offsets) != len(global_shape) or len(shape) != len(global_shape):
            raise ValueError(f"LocalShard: a piece of shape {list(shape)} at offsets {list(offsets)} does not have "
                             f"the {len(global_shape)} dimensions of the global shape {list(global_shape)}")
        for o, s, g in zip(offsets, shape, global_shape):
            if o < 0 or o + s > g:
                raise ValueError(f"LocalShard: a piece of shape {list(shape)} at offsets {list(offsets)} does not "
                                 f"fit in the global shape {list(global_shape)}")
        self.tensor = tensor
        self.global_shape = global_shape
        self.offsets = offsets

    def __repr__(self):
        return (f"LocalShard(shape={list(self.tensor.shape)}, global_shape={list(self.global_shape)}, "
                f"offsets={list(self.offsets)})")
