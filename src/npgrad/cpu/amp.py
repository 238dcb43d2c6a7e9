"""``torch.cpu.amp``: PyTorch's deprecated spellings of ``torch.amp`` for the CPU; each warns as PyTorch's does
and then is ``torch.amp``'s object for "cpu" (bfloat16 by default)."""
import warnings

from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler


class autocast(_autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        from .. import dtypes
        super().__init__("cpu", dtype=dtypes.bfloat16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
