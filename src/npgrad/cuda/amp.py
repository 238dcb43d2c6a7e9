"""``torch.cuda.amp``: PyTorch's deprecated spellings of ``torch.amp`` for CUDA. Each warns as PyTorch's does
and then behaves as ``torch.amp``'s object for "cuda" on a machine without CUDA: disabled, with its warning."""
import functools
import warnings

from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler


class GradScaler(_grad_scaler.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


class autocast(_autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        from .. import dtypes
        super().__init__("cuda", dtype=dtypes.float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


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
