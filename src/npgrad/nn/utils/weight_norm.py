"""torch.nn.utils.weight_norm / remove_weight_norm: the older, hook-based weight normalisation.

``weight`` is replaced by two parameters, ``weight_g`` (the norm of each slice along ``dim``) and ``weight_v``
(the direction), and a forward pre-hook recomputes ``weight = g * v / ||v||`` before every call.
parametrizations.weight_norm is the newer form; PyTorch warns (FutureWarning) that this one is deprecated.
"""
import warnings

from ..parameter import Parameter
from ._norm_helpers import norm_except_dim as _norm_except_dim

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _hook_for(module, name):
    """(key, hook) of the module's WeightNorm pre-hook for ``name``, or None."""
    return next(((k, h) for k, h in module._forward_pre_hooks.items() if isinstance(h, WeightNorm) and h.name == name),
                None)


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def _parts(self):
        return self.name + "_g", self.name + "_v"

    def compute_weight(self, module):
        g, v = (getattr(module, part) for part in self._parts())
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        if _hook_for(module, name) is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        hook = WeightNorm(name, dim)
        original = module._parameters.pop(name)
        magnitude, direction = hook._parts()
        module.register_parameter(magnitude, Parameter(_norm_except_dim(original, hook.dim).detach()))
        module.register_parameter(direction, Parameter(original.detach()))
        hook(module, None)  # module.<name> exists (as a plain tensor) from here on, as after every pre-forward
        module.register_forward_pre_hook(hook)
        return hook

    def remove(self, module):
        folded = self.compute_weight(module)
        delattr(module, self.name)
        for part in self._parts():
            del module._parameters[part]
        setattr(module, self.name, Parameter(folded.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Split ``module.<name>`` into magnitude ``<name>_g`` and direction ``<name>_v`` (``dim=None``: one norm
    for the whole tensor)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one parameter ``<name>``."""
    found = _hook_for(module, name)
    if found is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    key, hook = found
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module
