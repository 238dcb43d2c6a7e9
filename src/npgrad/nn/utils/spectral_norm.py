"""torch.nn.utils.spectral_norm / remove_spectral_norm: the older, hook-based spectral normalisation.

``weight`` becomes ``weight_orig`` (the parameter) plus buffers ``weight_u`` and ``weight_v`` (the singular
vector estimates); a forward pre-hook sets ``module.weight = weight_orig / sigma`` before every call, first
refining u and v by power iteration when the module is in training mode. The state dict records the
hook's version under metadata['spectral_norm'], as PyTorch's does, so checkpoints load either way.
"""
from ... import factories as _f
from ...autograd import no_grad
from .. import functional as F
from ..parameter import Parameter
from ._norm_helpers import as_matrix as _as_matrix, is_conv_transpose as _is_conv_transpose

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


def _find(registry, kind, name):
    """(key, hook) of the first hook in ``registry`` that is a ``kind`` for parameter ``name``, or None. Load
    pre-hooks are stored as partial(hook, module): the hook is the partial's func."""
    for key, hook in registry.items():
        target = getattr(hook, "func", hook)
        owner = getattr(target, "fn", target)  # the state-dict hooks carry the SpectralNorm as .fn
        if isinstance(target, kind) and getattr(owner, "name", None) == name:
            return key, hook
    return None


class SpectralNorm:
    """The forward pre-hook computing ``module.<name>`` from ``<name>_orig``, ``<name>_u`` and ``<name>_v``."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def _parts(self):
        # the parameter, then the two singular-vector buffers
        return tuple(self.name + suffix for suffix in ("_orig", "_u", "_v"))

    def reshape_weight_to_matrix(self, weight):
        return _as_matrix(weight, self.dim)

    def compute_weight(self, module, do_power_iteration):
        weight, u, v = (getattr(module, part) for part in self._parts())
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # In place, so the buffers keep the estimate; v first, then u (this hook's order, unlike the
            # parametrization's).
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mat.mv(v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        return weight / u.dot(mat.mv(v))

    def remove(self, module):
        with no_grad():
            folded = self.compute_weight(module, do_power_iteration=False)
        for attr in (self.name, *self._parts()):
            delattr(module, attr)
        module.register_parameter(self.name, Parameter(folded.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, mat, u, target_sigma):
        # The v that, with u, gives back sigma for a checkpoint saved before v was stored (version 0).
        v = (mat.t().mm(mat).pinverse() @ mat.t() @ u.unsqueeze(1)).squeeze(1)
        return v * (target_sigma / u.dot(mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        if _find(module._forward_pre_hooks, SpectralNorm, name) is not None:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        hook = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            # random unit starting vectors for the left and right singular vectors, u drawn first
            u, v = (F.normalize(_f.randn(n, dtype=weight.dtype), dim=0, eps=hook.eps)
                    for n in hook.reshape_weight_to_matrix(weight).shape)
        orig, u_name, v_name = hook._parts()
        delattr(module, name)
        module.register_parameter(orig, weight)
        setattr(module, name, weight.detach())
        for buffer, value in ((u_name, u), (v_name, v)):
            module.register_buffer(buffer, value)
        module.register_forward_pre_hook(hook)
        module.register_state_dict_post_hook(SpectralNormStateDictHook(hook))
        module.register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(hook))
        return hook


class SpectralNormLoadStateDictPreHook:
    """Loads checkpoints written before ``<name>_v`` was saved (version 0): derives v from the stored weight."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and all(key + s in state_dict for s in ("_orig", "_u", "_v")) and key not in state_dict:
            return
        missing = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            mat = fn.reshape_weight_to_matrix(weight_orig)
            state_dict[key + "_v"] = fn._solve_v_and_rescale(mat, state_dict[key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Writes the hook's version into the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        entry = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in entry:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        entry[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration before each
    training-mode forward. ``dim`` defaults to 1 for ConvTranspose layers, else 0."""
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: ``<name>`` becomes a parameter again, holding the normalised value."""
    found = _find(module._forward_pre_hooks, SpectralNorm, name)
    if found is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    found[1].remove(module)
    del module._forward_pre_hooks[found[0]]
    for registry, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                           (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        found = _find(registry, kind, name)
        if found is not None:
            del registry[found[0]]
    return module
