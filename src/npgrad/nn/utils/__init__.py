"""torch.nn.utils: gradient clipping, parameter/vector conversion, parametrizations, weight and spectral norm,
conv/linear + batch-norm fusion, skip_init and stateless.functional_call."""
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_  # noqa
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import parametrize, parametrizations  # noqa: F401,E402
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401,E402
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401,E402
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa
from .init import skip_init  # noqa: F401,E402
from . import fusion, stateless  # noqa: F401,E402
