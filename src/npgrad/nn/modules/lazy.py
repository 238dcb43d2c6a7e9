"""Lazy modules: layers whose input size is read from their first input (LazyLinear, LazyConv1d/2d/3d,
LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d).

Until then their parameters and buffers are ``UninitializedParameter``/``UninitializedBuffer`` placeholders. A
forward pre-hook sizes them from the first input (``initialize_parameters``), runs the layer's own
``reset_parameters``, removes itself and turns the module into its ``cls_to_become`` (LazyLinear becomes a
Linear). Loading a state_dict first sizes the placeholders from the loaded tensors instead. The placeholders are
materialised in place, so an optimizer built before the first forward steps the real parameters.
"""
import itertools

from ... import dtypes as _dt
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                        _NormBase)
from ._factory import zeros
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


def _lazy_load_hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    for name, t in itertools.chain(module._parameters.items(), module._buffers.items()):
        key = prefix + name
        if t is not None and key in state_dict and is_lazy(t) and not is_lazy(state_dict[key]):
            t.materialize(state_dict[key].shape)


def _infer_parameters(module, args, kwargs):
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    module._load_hook.remove()
    del module._initialize_hook
    del module._load_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """The lazy behaviour; a lazy layer calls ``_lazy_init()`` once its placeholders are registered."""

    cls_to_become = None

    def _lazy_init(self):
        self._load_hook = self.register_load_state_dict_pre_hook(_lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            if is_lazy(t) and prefix + name in destination:
                destination[prefix + name] = t  # a placeholder is saved as itself, never detached

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A placeholder loaded into a placeholder stays one (nothing to copy, no shape to compare).
        both = {prefix + name for name, t in itertools.chain(self._parameters.items(), self._buffers.items())
                if is_lazy(t) and is_lazy(state_dict.get(prefix + name))}
        if both:
            state_dict = {k: v for k, v in state_dict.items() if k not in both}
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        if both:
            missing_keys[:] = [k for k in missing_keys if k not in both]

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._lazy_init()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
        if self.in_features == 0:  # sized by load_state_dict
            self.in_features = input.shape[-1]


class _LazyConvMixin(LazyModuleMixin):
    """The lazy convolutions: ``in_channels`` from the first input, then the weight and bias are sized."""

    def _lazy_conv_init(self, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = self._out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._lazy_init()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        n = len(self.kernel_size) + 1  # channels and spatial dims
        if input.dim() not in (n, n + 1):
            raise RuntimeError(f"Expected {n}D (unbatched) or {n + 1}D (batched) input to {self.__class__.__name__}, "
                               f"but got input of size: torch.Size({list(input.shape)})")
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]


def _lazy_conv(name, base):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        # in_channels 0 and no bias: nothing is allocated that the first input would replace
        base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self._out_channels = out_channels
        self._lazy_conv_init(bias, device, dtype)
    return type(name, (_LazyConvMixin, base), {"cls_to_become": base, "__init__": __init__,
                                               "__module__": __name__, "__doc__": f"{base.__name__}, sized lazily."})


def _lazy_conv_transpose(name, base):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode)
        self._out_channels = out_channels
        self._lazy_conv_init(bias, device, dtype)
    return type(name, (_LazyConvMixin, base), {"cls_to_become": base, "__init__": __init__,
                                               "__module__": __name__, "__doc__": f"{base.__name__}, sized lazily."})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d)


class _LazyNormBase(LazyModuleMixin):
    """The lazy batch and instance norms: ``num_features`` from dim 1 of the first input (as PyTorch, also for
    an unbatched instance-norm input)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        # Built with nothing allocated (affine and running stats off), then given placeholders.
        _NormBase.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = zeros((), _dt.int64, device)
        self._lazy_init()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name, base):
    return type(name, (_LazyNormBase, base), {"cls_to_become": base, "__module__": __name__,
                                              "__doc__": f"{base.__name__}, sized lazily."})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d)
