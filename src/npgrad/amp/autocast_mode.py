"""``torch.autocast`` / ``torch.amp.autocast`` (see the package docstring for what npgrad does with it)."""
import functools
import warnings

from ..tensor import Device


def is_autocast_available(device_type):
    """Whether autocast can cast operations on ``device_type``: not yet in npgrad, on any device."""
    Device(device_type)  # PyTorch's error for an unknown device type
    return False


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = Device(device_type).type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if self._enabled and self.device != "cpu":
            name = "CUDA is not available or torch_xla is imported" if self.device == "cuda" else \
                f"{self.device} is not available"
            warnings.warn(f"{name}. Disabling autocast.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            from .. import dtypes
            if dtype is not None and dtype is not dtypes.float16:
                warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                              "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              UserWarning, stacklevel=2)
                self._enabled = False
            else:
                raise RuntimeError("npgrad's autocast does not cast operations to lower precision yet (and npgrad "
                                   "has no bfloat16, CPU autocast's default): run without it (enabled=False), or "
                                   "convert the model and inputs with .half() yourself")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapped


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom Function's ``forward`` for autocast. It records on ``ctx`` whether autocast was on (so
    ``custom_bwd`` runs backward the same way) and, with ``cast_inputs``, runs forward with autocast off on
    inputs cast to that dtype. npgrad never has autocast on, so forward runs as written, as PyTorch's does
    whenever autocast is off."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    Device(device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._fwd_used_autocast = False
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom Function's ``backward``: runs it with the autocast state its forward had (off, in npgrad)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    Device(device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type, enabled=getattr(args[0], "_fwd_used_autocast", False)):
            return bwd(*args, **kwargs)
    return decorate_bwd
