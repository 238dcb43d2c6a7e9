"""``torch.types``: the type aliases PyTorch's signatures and user annotations use (``Number``, ``Device``,
``_size``, ...), naming npgrad's classes."""
from typing import Any, Sequence, Tuple, Union  # noqa: F401

from .dtypes import dtype as _dtype
from .tensor import Device, Size, Tensor

__all__ = ["Device", "Number", "Size", "Tensor"]

_int, _float, _bool, _complex, _str, _bytes = int, float, bool, complex, str, bytes
_device = Device
_size = Union[Size, Sequence[int]]
Number = Union[int, float, bool]
_Number = (int, float, bool)
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]], None]
IntLikeType, FloatLikeType, BoolLikeType = int, float, bool
_layout = Any
del Any, Tuple
