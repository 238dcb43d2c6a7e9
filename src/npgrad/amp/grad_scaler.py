"""``torch.amp.GradScaler``: multiplies the loss by a scale so that small float16 gradients do not flush to
zero, divides the gradients back before the optimizer step, skips the step when any gradient is inf/NaN,
and adapts the scale (back off on an overflow, grow after ``growth_interval`` clean steps)."""
import warnings

import numpy as np

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        from ..tensor import Device
        self._device = Device(device).type
        if enabled and self._device != "cpu":
            warnings.warn(f"torch.{self._device}.amp.GradScaler is enabled, but {self._device.upper()} is not "
                          "available.  Disabling.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        if enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
        self._init_scale, self._scale = float(init_scale), None
        self._growth_factor, self._backoff_factor = float(growth_factor), float(backoff_factor)
        self._growth_interval, self._growth_tracker = int(growth_interval), 0
        self._per_optimizer = {}  # id(optimizer) -> {"stage": ..., "found_inf": bool}

    def is_enabled(self):
        return self._enabled

    def _current_scale(self):
        if self._scale is None:
            self._scale = np.float32(self._init_scale)
        return self._scale

    def scale(self, outputs):
        """``outputs`` (a Tensor, or nested lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        from ..tensor import Tensor
        s = self._current_scale()
        if isinstance(outputs, Tensor):
            return outputs * float(s)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": False})

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place, and note whether any is inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = np.float32(1.0 / np.float64(self._current_scale()))
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g._data.dtype == np.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                with np.errstate(invalid="ignore", over="ignore"):
                    g._data *= inv.astype(g._data.dtype)
                found = found or not np.isfinite(g._data).all()
        state["found_inf"], state["stage"] = found, _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients hold an inf or NaN (then the step is skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Set the scale for the next iteration: ``new_scale``, or backed off after an overflow, grown after
        ``growth_interval`` steps without one."""
        if not self._enabled:
            return
        if new_scale is not None:
            from ..tensor import Tensor
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1:
                    raise AssertionError("new_scale should be a single-element tensor, not "
                                         f"{list(new_scale.shape)}")
                new_scale = new_scale.item()
            self._scale = np.float32(new_scale)
        else:
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            found = any(s["found_inf"] for s in self._per_optimizer.values())
            s = self._current_scale()
            if found:
                self._scale, self._growth_tracker = np.float32(s * self._backoff_factor), 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale, self._growth_tracker = np.float32(s * self._growth_factor), 0
        self._per_optimizer = {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale)

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        self._scale = np.float32(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
