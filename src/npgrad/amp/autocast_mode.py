"""``torch.autocast`` / ``torch.amp.autocast`` and the custom-Function decorators that follow its state."""
import functools
import warnings

from .. import dtypes as _dt
from ..tensor import Device


def is_autocast_available(device_type):
    """Whether autocast can cast operations on ``device_type``: the CPU (npgrad's one device)."""
    return Device(device_type).type == "cpu"  # (Device: PyTorch's error for an unknown device type)


class autocast:
    """Runs the ops PyTorch's CPU autocast lists in ``dtype`` (bfloat16 by default, or float16) and the ones it
    keeps in float32 in float32, inside a ``with`` block or a decorated function; ops/_lowp.py does the casting.
    On a device npgrad does not have it disables itself with PyTorch's warning, as a CPU-only PyTorch does."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = Device(device_type).type
        self.fast_dtype = _dt.get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        self._enabled = bool(enabled)
        if self._enabled and self.device != "cpu":
            name = "CUDA is not available or torch_xla is imported" if self.device == "cuda" else \
                f"{self.device} is not available"
            warnings.warn(f"{name}. Disabling autocast.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in (_dt.bfloat16, _dt.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self):
        if self.device not in _dt._AUTOCAST:  # (a device npgrad has no state for: nothing to switch)
            return self
        self._prev = (_dt.is_autocast_enabled(self.device), _dt.get_autocast_dtype(self.device))
        if self._enabled:
            _dt.set_autocast_dtype(self.device, self.fast_dtype)
        _dt.set_autocast_enabled(self.device, self._enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        prev = self.__dict__.pop("_prev", None)
        if prev is not None:
            _dt.set_autocast_dtype(self.device, prev[1])
            _dt.set_autocast_enabled(self.device, prev[0])
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return wrapped


def _cast_floats(value, dtype):
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floats(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floats(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom Function's ``forward`` for autocast. It records on ``ctx`` whether autocast was on (so
    ``custom_bwd`` runs backward the same way) and, with ``cast_inputs``, runs forward with autocast off on its
    floating inputs cast to that dtype (only when autocast is on, as PyTorch's)."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    Device(device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        on = device_type in _dt._AUTOCAST and _dt.is_autocast_enabled(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = on
            if on:
                args[0]._dtype = _dt.get_autocast_dtype(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(*_cast_floats(args, cast_inputs), **_cast_floats(kwargs, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom Function's ``backward``: runs it with the autocast state its forward had."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    Device(device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type, getattr(args[0], "_dtype", None), getattr(args[0], "_fwd_used_autocast", False)):
            return bwd(*args, **kwargs)
    return decorate_bwd
