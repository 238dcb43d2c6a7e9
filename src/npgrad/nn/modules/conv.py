"""Conv1d/2d/3d and ConvTranspose1d/2d/3d."""
from .. import functional as F
from .._functional._utils import _pair, _single, _triple
from ..parameter import Parameter
from ._factory import empty, fan_in_reset_, optional_parameter
from .module import Module, _weight_and_bias

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        for name, channels in (("in_channels", in_channels), ("out_channels", out_channels)):
            if channels % groups:
                raise ValueError(f"{name} must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation, self.transposed = stride, padding, dilation, transposed
        self.output_padding, self.groups, self.padding_mode = output_padding, groups, padding_mode
        # What F.pad takes for the non-zero padding modes: per dim from the last, (before, after); "same" splits
        # each dim's total d * (k - 1) with the smaller half first.
        if isinstance(padding, str):
            pads = []
            for d, k in zip(reversed(dilation), reversed(kernel_size)):
                total = d * (k - 1) if padding == "same" else 0
                pads += [total // 2, total - total // 2]
        else:
            pads = [p for p in reversed(padding) for _ in (0, 1)]
        self._reversed_padding_repeated_twice = pads
        if transposed:
            shape = (in_channels, out_channels // groups) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + tuple(kernel_size)
        self.weight = Parameter(empty(shape, dtype, device))
        self.register_parameter("bias", optional_parameter(bias, (out_channels,), dtype, device))
        self.reset_parameters()

    def reset_parameters(self):
        fan_in_reset_(self.weight, self.bias, draw_bias_without_fan_in=False)

    def extra_repr(self):
        parts = [f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"]
        # each shown unless at its default (tuples of the layer's dimensionality)
        for name, default in (("padding", 0), ("dilation", 1), ("output_padding", 0)):
            value = getattr(self, name)
            if value != (default,) * len(value):
                parts.append(f"{name}={value}")
        if self.groups != 1:
            parts.append(f"groups={self.groups}")
        if self.bias is None:
            parts.append("bias=False")
        if self.padding_mode != "zeros":
            parts.append(f"padding_mode={self.padding_mode}")
        return ", ".join(parts)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    """Conv1d, Conv2d and Conv3d: the same layer over one or two spatial dims (a subclass gives ``_ntuple``, which
    turns an int into a size per dim, and ``_conv``, the functional form)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        n = self._ntuple
        padding_ = padding if isinstance(padding, str) else n(padding)
        super().__init__(in_channels, out_channels, n(kernel_size), n(stride), padding_, n(dilation), False, n(0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return self._conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight,
                              bias, self.stride, self._ntuple(0), self.dilation, self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        w, b = _weight_and_bias(self)
        return self._conv_forward(input, w, b)


class Conv1d(_Conv):
    _ntuple = staticmethod(_single)

    def _conv(self, *args):
        return F.conv1d(*args)


class Conv2d(_Conv):
    _ntuple = staticmethod(_pair)

    def _conv(self, *args):
        return F.conv2d(*args)


class Conv3d(_Conv):
    _ntuple = staticmethod(_triple)

    def _conv(self, *args):
        return F.conv3d(*args)


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d/2d/3d (a subclass gives ``_ntuple`` and ``_conv_transpose``)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        n = self._ntuple
        super().__init__(in_channels, out_channels, n(kernel_size), n(stride), n(padding), n(dilation), True,
                         n(output_padding), groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                  len(self.kernel_size), self.dilation)
        return self._conv_transpose(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                    self.dilation)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return tuple(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        output_size = list(output_size)
        if len(output_size) == num_spatial_dims + (2 if has_batch else 1):
            output_size = output_size[-num_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_spatial_dims + (2 if has_batch else 1)} elements "
                             f"(got {len(output_size)})")
        res = []
        for d in range(num_spatial_dims):
            dim_size = input.shape[d + (2 if has_batch else 1)]
            dil = 1 if dilation is None else dilation[d]
            min_size = (dim_size - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1
            max_size = min_size + stride[d] - 1
            if not min_size <= output_size[d] <= max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_size} "
                                 f"to {max_size} (for an input of {list(input.shape[-num_spatial_dims:])})")
            res.append(output_size[d] - min_size)
        return tuple(res)


class ConvTranspose1d(_ConvTransposeNd):
    _ntuple = staticmethod(_single)

    def _conv_transpose(self, *args):
        return F.conv_transpose1d(*args)


class ConvTranspose2d(_ConvTransposeNd):
    _ntuple = staticmethod(_pair)

    def _conv_transpose(self, *args):
        return F.conv_transpose2d(*args)


class ConvTranspose3d(_ConvTransposeNd):
    _ntuple = staticmethod(_triple)

    def _conv_transpose(self, *args):
        return F.conv_transpose3d(*args)
