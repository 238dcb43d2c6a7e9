"""The building blocks torchvision's models share: conv-norm-activation stacks, squeeze-and-excitation,
the MLP, a permute layer and frozen batch norm. Module names and state_dict keys are torchvision's, so its
checkpoints load into models built from these."""
from ... import nn
from ...ops import permute

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "SqueezeExcitation", "MLP", "Permute",
           "FrozenBatchNorm2d"]


def _activation_kwargs(inplace):
    # None leaves the activation's own default (ReLU's inplace=False, say); a bool is passed through
    return {} if inplace is None else {"inplace": inplace}


class _ConvNormActivation(nn.Sequential):
    _conv = None
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=None, activation_layer=None, dilation=1, inplace=True, bias=None):
        if padding is None:
            # "same" for odd kernels at stride 1: half the dilated kernel's reach on each side
            if isinstance(kernel_size, int) and isinstance(dilation, int):
                padding = (kernel_size - 1) // 2 * dilation
            else:
                ks = (kernel_size,) * self._dims if isinstance(kernel_size, int) else tuple(kernel_size)
                dl = (dilation,) * len(ks) if isinstance(dilation, int) else tuple(dilation)
                padding = tuple((k - 1) // 2 * d for k, d in zip(ks, dl))
        if bias is None:
            bias = norm_layer is None  # a norm layer right after makes a conv bias redundant
        layers = [self._conv(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                             groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**_activation_kwargs(inplace)))
        super().__init__(*layers)
        self.out_channels = out_channels


class Conv2dNormActivation(_ConvNormActivation):
    """Conv2d, then an optional norm layer (BatchNorm2d by default), then an optional activation (ReLU)."""
    _conv = nn.Conv2d

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1, inplace=True, bias=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups, norm_layer,
                         activation_layer, dilation, inplace, bias)


class Conv3dNormActivation(_ConvNormActivation):
    """Conv3d, then an optional norm layer (BatchNorm3d by default), then an optional activation (ReLU)."""
    _conv = nn.Conv3d
    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm3d, activation_layer=nn.ReLU, dilation=1, inplace=True, bias=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups, norm_layer,
                         activation_layer, dilation, inplace, bias)


class SqueezeExcitation(nn.Module):
    """Channel attention (Hu et al.): global-average-pool, two 1x1 convolutions, and the input scaled by the
    result."""

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, x):
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))

    def forward(self, input):
        return self._scale(input) * input


class MLP(nn.Sequential):
    """Linear layers of the given widths; each but the last followed by an optional norm layer, the activation
    and dropout; the last by dropout alone."""

    def __init__(self, in_channels, hidden_channels, norm_layer=None, activation_layer=nn.ReLU, inplace=None,
                 bias=True, dropout=0.0):
        kw = _activation_kwargs(inplace)
        layers = []
        width = in_channels
        for hidden in hidden_channels[:-1]:
            layers.append(nn.Linear(width, hidden, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden))
            layers.append(activation_layer(**kw))
            layers.append(nn.Dropout(dropout, **kw))
            width = hidden
        layers.append(nn.Linear(width, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **kw))
        super().__init__(*layers)


class Permute(nn.Module):
    """``input.permute(dims)`` as a layer (channels-last blocks in ConvNeXt and Swin)."""

    def __init__(self, dims):
        super().__init__()
        self.dims = list(dims)

    def forward(self, x):
        return permute(x, self.dims)


class FrozenBatchNorm2d(nn.Module):
    """Batch norm with fixed statistics and affine parameters, all buffers (nothing trains, nothing updates)."""

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        from ...factories import ones, zeros
        self.eps = eps
        self.register_buffer("weight", ones(num_features))
        self.register_buffer("bias", zeros(num_features))
        self.register_buffer("running_mean", zeros(num_features))
        self.register_buffer("running_var", ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # a BatchNorm2d checkpoint carries a step counter frozen statistics have no use for
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, x):
        scale = self.weight * (self.running_var + self.eps).rsqrt()
        shift = self.bias - self.running_mean * scale
        return x * scale.reshape(1, -1, 1, 1) + shift.reshape(1, -1, 1, 1)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"
