"""``torch.amp``: automatic mixed precision. ``GradScaler`` scales losses and unscales gradients as
PyTorch's does (on the CPU; asked for CUDA it disables itself as a CPU-only PyTorch does). ``autocast`` on the
CPU runs the ops PyTorch's CPU autocast lists in bfloat16 or float16 and keeps its float32 ones in float32
(ops/_lowp.py); on another device it disables itself with PyTorch's warning."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
