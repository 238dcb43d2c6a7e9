"""Identity, Linear, Bilinear."""
import math

from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._factory import empty, fan_in_reset_, optional_parameter
from .module import Module, _weight_and_bias

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input; accepts (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


def _layer(module, sizes, weight_shape, bias, dtype, device):
    """Linear's and Bilinear's construction: the sizes as attributes, a weight of ``weight_shape``, a bias of
    one entry per output (or None), then reset_parameters()."""
    for name, size in sizes.items():
        setattr(module, name, size)
    module.weight = Parameter(empty(weight_shape, dtype, device))
    module.register_parameter("bias", optional_parameter(bias, weight_shape[:1], dtype, device))
    module.reset_parameters()


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features), initialised as PyTorch does."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        _layer(self, dict(in_features=in_features, out_features=out_features), (out_features, in_features), bias,
               dtype, device)

    def reset_parameters(self):
        fan_in_reset_(self.weight, self.bias, draw_bias_without_fan_in=True)

    def forward(self, input):
        w, b = _weight_and_bias(self)
        return F.linear(input, w, b)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """The name MultiheadAttention's output projection carries in PyTorch (it prints in repr)."""


class Bilinear(Module):
    """y = x1^T A x2 + b, A of shape (out_features, in1_features, in2_features)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        _layer(self, dict(in1_features=in1_features, in2_features=in2_features, out_features=out_features),
               (out_features, in1_features, in2_features), bias, dtype, device)

    def reset_parameters(self):
        # weight and bias ~ U(+-1/sqrt(in1_features)), in that order
        bound = 1 / math.sqrt(self.in1_features)
        for p in (self.weight, self.bias):
            if p is not None:
                init.uniform_(p, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, *_weight_and_bias(self))

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
