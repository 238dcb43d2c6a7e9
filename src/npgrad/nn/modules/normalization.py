"""LayerNorm, GroupNorm, RMSNorm."""
import numbers

from .. import functional as F
from .. import init
from ._factory import optional_parameter
from .module import Module, _weight_and_bias

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm"]


def _shape_tuple(normalized_shape):
    dims = [normalized_shape] if isinstance(normalized_shape, numbers.Integral) else normalized_shape
    return tuple(map(int, dims))


def _register_affine(module, shape, weight, bias, dtype, device):
    """``weight`` (and ``bias``, when ``bias`` is not None) registered: Parameters of ``shape`` where asked
    for, None otherwise; then reset_parameters()."""
    module.register_parameter("weight", optional_parameter(weight, shape, dtype, device))
    if bias is not None:
        module.register_parameter("bias", optional_parameter(weight and bias, shape, dtype, device))
    module.reset_parameters()


def _reset_affine(module):
    # The identity transform: weight 1, bias 0 (whichever of them exists).
    for p, fill in ((module.weight, init.ones_), (getattr(module, "bias", None), init.zeros_)):
        if p is not None:
            fill(p)


class LayerNorm(Module):
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, dtype, device)

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        w, b = _weight_and_bias(self)
        return F.layer_norm(input, self.normalized_shape, w, b, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


class GroupNorm(Module):
    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _register_affine(self, (num_channels,), affine, bias, dtype, device)

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        w, b = _weight_and_bias(self)
        return F.group_norm(input, self.num_groups, w, b, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}".format(
            **self.__dict__, use_bias=self.bias is not None)


class RMSNorm(Module):
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, None, dtype, device)

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)
