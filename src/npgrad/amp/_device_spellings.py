"""``torch.cuda.amp`` / ``torch.cpu.amp``: PyTorch's deprecated per-device spellings of ``torch.amp``'s
``autocast`` and ``GradScaler``. Each warns as PyTorch's does, then is ``torch.amp``'s object for its device."""
import warnings

from . import autocast_mode, grad_scaler


def deprecated(what, device):
    warnings.warn(f"`torch.{device}.amp.{what}(args...)` is deprecated. Please use "
                  f"`torch.amp.{what}('{device}', args...)` instead.", FutureWarning, stacklevel=3)


def spellings(device, default_dtype):
    """The ``autocast`` and ``GradScaler`` classes of ``torch.<device>.amp``; ``default_dtype()`` is autocast's
    dtype when none is given (float16 for CUDA, bfloat16 for the CPU)."""

    class autocast(autocast_mode.autocast):
        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            deprecated("autocast", device)
            super().__init__(device, dtype=default_dtype() if dtype is None else dtype, enabled=enabled,
                             cache_enabled=cache_enabled)

    class GradScaler(grad_scaler.GradScaler):
        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            deprecated("GradScaler", device)
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)

    for cls in (autocast, GradScaler):
        cls.__module__ = f"npgrad.{device}.amp"
    return autocast, GradScaler
