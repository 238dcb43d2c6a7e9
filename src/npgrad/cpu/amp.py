"""``torch.cpu.amp``: PyTorch's deprecated spellings of ``torch.amp`` for the CPU; each warns as PyTorch's does
and then is ``torch.amp``'s object for "cpu" (bfloat16 by default)."""
from .. import dtypes as _dtypes
from ..amp._device_spellings import spellings

autocast, GradScaler = spellings("cpu", lambda: _dtypes.bfloat16)
