"""``torch.cuda.amp``: PyTorch's deprecated spellings of ``torch.amp`` for CUDA. Each warns as PyTorch's does
and then behaves as ``torch.amp``'s object for "cuda" on a machine without CUDA: disabled, with its warning."""
import functools
import warnings

from .. import dtypes as _dtypes
from ..amp import _device_spellings
from ..amp import autocast_mode as _autocast_mode


autocast, GradScaler = _device_spellings.spellings("cuda", lambda: _dtypes.float16)


def custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    if fwd is None:
        return functools.partial(_autocast_mode.custom_fwd, device_type="cuda", cast_inputs=cast_inputs)
    return _autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    if bwd is None:
        return functools.partial(_autocast_mode.custom_bwd, device_type="cuda")
    return _autocast_mode.custom_bwd(bwd, device_type="cuda")
