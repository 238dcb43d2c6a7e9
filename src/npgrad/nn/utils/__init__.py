"""torch.nn.utils: gradient clipping, parameter/vector conversion, parametrizations, weight and spectral norm,
conv/linear + batch-norm fusion, skip_init and stateless.functional_call."""
import importlib

from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_  # noqa
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import parametrize  # noqa: F401
from . import rnn  # noqa: F401
# Bound here, not lazily: as in PyTorch, nn.utils.weight_norm is the function, not its submodule.
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401

# Loaded on first use (parametrizations pulls in the linear-algebra ops): name -> (submodule, attribute or None
# for the submodule itself).
_LAZY = {"parametrizations": ("parametrizations", None), "fusion": ("fusion", None), "stateless": ("stateless", None),
         "init": ("init", None), "fuse_conv_bn_eval": ("fusion", "fuse_conv_bn_eval"),
         "fuse_conv_bn_weights": ("fusion", "fuse_conv_bn_weights"), "fuse_linear_bn_eval": ("fusion", "fuse_linear_bn_eval"),
         "fuse_linear_bn_weights": ("fusion", "fuse_linear_bn_weights"), "skip_init": ("init", "skip_init"),
         "memory_format": ("memory_format", None),
         "convert_conv2d_weight_memory_format": ("memory_format", "convert_conv2d_weight_memory_format"),
         "convert_conv3d_weight_memory_format": ("memory_format", "convert_conv3d_weight_memory_format")}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    sub, attr = _LAZY[name]
    mod = importlib.import_module(f".{sub}", __name__)
    value = mod if attr is None else getattr(mod, attr)
    for key, (s, a) in _LAZY.items():
        if s == sub:
            globals()[key] = mod if a is None else getattr(mod, a)
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
