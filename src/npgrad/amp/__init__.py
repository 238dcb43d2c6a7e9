"""``torch.amp``: automatic mixed precision. ``GradScaler`` scales losses and unscales gradients as
PyTorch's does (on the CPU; asked for CUDA it disables itself as a CPU-only PyTorch does). ``autocast``
behaves as PyTorch's wherever it would not cast anything (``enabled=False``, or a device that is not
available); npgrad does not yet cast operations to lower precision, so enabling it on the CPU raises
instead of silently computing in float32."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
