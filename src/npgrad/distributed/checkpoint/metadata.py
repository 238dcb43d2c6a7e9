"""What a checkpoint holds, as ``torch.distributed.checkpoint.metadata`` describes it: for each flattened
key either a tensor (its dtype, global size and the chunks it was saved in) or an opaque object."""
from dataclasses import dataclass, field
from typing import Any, Optional

from ..._layout import contiguous_format, strided
from ...dtypes import float32


@dataclass
class ChunkStorageMetadata:
    """One saved piece of a global tensor: where it starts (``offsets``) and its extent (``sizes``)."""
    offsets: Any
    sizes: Any


@dataclass
class TensorProperties:
    dtype: Any = field(default_factory=lambda: float32)
    layout: Any = strided
    requires_grad: bool = False
    memory_format: Any = contiguous_format
    pin_memory: bool = False


@dataclass
class TensorStorageMetadata:
    properties: TensorProperties
    size: Any
    chunks: list


@dataclass
class BytesStorageMetadata:
    pass


@dataclass(frozen=True)
class MetadataIndex:
    """Names one stored item: a key, and for a tensor chunk its offsets (and the chunk's index)."""
    fqn: str
    offset: Optional[tuple] = None
    index: Optional[int] = field(default=None, hash=False, compare=False)

    def __post_init__(self):
        if self.offset is not None:
            object.__setattr__(self, "offset", tuple(self.offset))


@dataclass
class StorageMeta:
    checkpoint_id: Any = None
    save_id: Optional[str] = None
    load_id: Optional[str] = None
    modules: list = field(default_factory=list)


@dataclass
class Metadata:
    """A checkpoint's table of contents: ``state_dict_metadata`` maps every flattened key to its
    ``TensorStorageMetadata`` or ``BytesStorageMetadata``; ``planner_data`` maps it to its path in the
    nested state dict; ``storage_data`` maps each ``MetadataIndex`` to where its bytes are."""
    state_dict_metadata: dict
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: Optional[StorageMeta] = None
    version: Optional[str] = None
