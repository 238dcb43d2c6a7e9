"""Lazy modules: layers whose input size is read from their first input (LazyLinear, LazyConv1d/2d/3d,
LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d).

Until then their parameters and buffers are ``UninitializedParameter``/``UninitializedBuffer`` placeholders. A
forward pre-hook sizes them from the first input (``initialize_parameters``), runs the layer's own
``reset_parameters``, removes itself and turns the module into its ``cls_to_become`` (LazyLinear becomes a
Linear). Loading a state_dict first sizes the placeholders from the loaded tensors instead. The placeholders are
materialised in place, so an optimizer built before the first forward steps the real parameters.

Each family says three things and the mixin does the rest: which attribute holds the size read from the input
(``_size_attr``), how to read it (``_read_size``), and the shape of every placeholder for that size
(``_placeholder_shapes``).
"""
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


def _slots(layer):
    """(name, tensor) for every parameter and buffer the layer holds, placeholders included."""
    yield from layer._parameters.items()
    yield from layer._buffers.items()


def _size_from_loaded(layer, state_dict, prefix, *_):
    # load_state_dict pre-hook: a placeholder meeting a real tensor takes its shape, so the copy can follow.
    for name, held in _slots(layer):
        loaded = state_dict.get(prefix + name)
        if held is not None and loaded is not None and is_lazy(held) and not is_lazy(loaded):
            held.materialize(loaded.shape)


def _size_on_first_call(layer, args, kwargs):
    # forward pre-hook: runs once, then the layer is an ordinary one of its final class.
    layer.initialize_parameters(*args, **kwargs)
    if layer.has_uninitialized_params():
        raise RuntimeError(f"module {layer._get_name()} has not been fully initialized")
    for handle in layer.__dict__.pop("_lazy_handles"):
        handle.remove()
    final = layer.cls_to_become
    if final is not None:
        layer.__class__ = final


class LazyModuleMixin:
    """The lazy behaviour; a lazy layer calls ``_lazy_init()`` once its placeholders are registered."""

    cls_to_become = None
    _size_attr = None
    _resize_after_load = False  # Linear only: a layer sized by load_state_dict still learns in_features

    def _lazy_init(self):
        self._lazy_handles = (self.register_load_state_dict_pre_hook(_size_from_loaded),
                              self.register_forward_pre_hook(_size_on_first_call, with_kwargs=True))

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for key, held in ((prefix + n, t) for n, t in _slots(self) if is_lazy(t)):
            if key in destination:
                destination[key] = held  # a placeholder is saved as itself, never detached

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A placeholder loaded into a placeholder stays one (nothing to copy, no shape to compare).
        skip = {prefix + n for n, t in _slots(self) if is_lazy(t) and is_lazy(state_dict.get(prefix + n))}
        kept = {k: v for k, v in state_dict.items() if k not in skip} if skip else state_dict
        super()._load_from_state_dict(kept, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        if skip:
            missing_keys[:] = [k for k in missing_keys if k not in skip]

    def initialize_parameters(self, *args, **kwargs):
        if self._size_attr is None:
            raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")
        return self._materialize_from(*args, **kwargs)

    def _materialize_from(self, input):
        lazy_now = self.has_uninitialized_params()
        if lazy_now or (self._resize_after_load and getattr(self, self._size_attr) == 0):
            setattr(self, self._size_attr, self._read_size(input))
        if lazy_now:
            for name, shape in self._placeholder_shapes(getattr(self, self._size_attr)):
                getattr(self, name).materialize(shape)
            self.reset_parameters()

    def reset_parameters(self):
        # Called by the base __init__ too, before anything is sized: only a fully sized layer is initialised.
        # A lazy class of another kind (no _size_attr) keeps its base's reset_parameters as it is.
        if self._size_attr is not None:
            if getattr(self, self._size_attr) == 0 or self.has_uninitialized_params():
                return
        super().reset_parameters()

    def has_uninitialized_params(self):
        return any(is_lazy(t) for _, t in _slots(self))

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear
    _size_attr = "in_features"
    _resize_after_load = True

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.out_features = out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._lazy_init()

    def initialize_parameters(self, input):
        self._materialize_from(input)

    @staticmethod
    def _read_size(input):
        return input.shape[-1]

    def _placeholder_shapes(self, n):
        yield "weight", (self.out_features, n)
        if self.bias is not None:
            yield "bias", (self.out_features,)


class _LazyConvMixin(LazyModuleMixin):
    """The lazy convolutions: ``in_channels`` from the first input, then the weight and bias are sized."""

    _size_attr = "in_channels"

    def _lazy_conv_init(self, out_channels, bias, device, dtype):
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._lazy_init()

    def initialize_parameters(self, input, *args, **kwargs):
        self._materialize_from(input)

    def _read_size(self, input):
        spatial = len(self.kernel_size)
        rank = input.dim()
        if rank - spatial not in (1, 2):
            raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: torch.Size({list(input.shape)})")
        return input.shape[rank - spatial - 1]

    def _placeholder_shapes(self, n):
        if n % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        # transposed weights are (in, out/groups, *k); ordinary ones (out, in/groups, *k)
        lead = (n, self.out_channels // self.groups) if self.transposed else (self.out_channels, n // self.groups)
        yield "weight", lead + tuple(self.kernel_size)
        if self.bias is not None:
            yield "bias", (self.out_channels,)


def _lazy_conv(name, base, transposed):
    # Built with in_channels 0 and no bias, so nothing is allocated that the first input would replace.
    if transposed:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                          padding_mode)
            self._lazy_conv_init(out_channels, bias, device, dtype)
    else:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
            self._lazy_conv_init(out_channels, bias, device, dtype)
    return type(name, (_LazyConvMixin, base), {"cls_to_become": base, "__init__": __init__,
                                               "__module__": __name__, "__doc__": f"{base.__name__}, sized lazily."})


class _LazyNormBase(LazyModuleMixin):
    """The lazy batch and instance norms: ``num_features`` from dim 1 of the first input (as PyTorch, also for
    an unbatched instance-norm input)."""

    _size_attr = "num_features"

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        # Built with nothing allocated (affine and running stats off), then given placeholders.
        _NormBase.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        wanted = {"weight": affine, "bias": affine and bias}
        for name, on in wanted.items():
            if on:
                setattr(self, name, UninitializedParameter(device=device, dtype=dtype))
        if track_running_stats:
            for name in ("running_mean", "running_var"):
                setattr(self, name, UninitializedBuffer(device=device, dtype=dtype))
            self.num_batches_tracked = zeros((), _dt.int64, device)
        self._lazy_init()

    def initialize_parameters(self, input):
        self._materialize_from(input)

    @staticmethod
    def _read_size(input):
        return input.shape[1]

    def _placeholder_shapes(self, n):
        names = []
        if self.affine:
            names += ["weight"] if self.bias is None else ["weight", "bias"]
        if self.track_running_stats:
            names += ["running_mean", "running_var"]
        return [(name, (n,)) for name in names]


def _lazy_norm(name, base):
    return type(name, (_LazyNormBase, base), {"cls_to_become": base, "__module__": __name__,
                                              "__doc__": f"{base.__name__}, sized lazily."})


_CONVS = {"LazyConv1d": (Conv1d, False), "LazyConv2d": (Conv2d, False), "LazyConv3d": (Conv3d, False),
          "LazyConvTranspose1d": (ConvTranspose1d, True), "LazyConvTranspose2d": (ConvTranspose2d, True),
          "LazyConvTranspose3d": (ConvTranspose3d, True)}
_NORMS = {"LazyBatchNorm1d": BatchNorm1d, "LazyBatchNorm2d": BatchNorm2d, "LazyBatchNorm3d": BatchNorm3d,
          "LazyInstanceNorm1d": InstanceNorm1d, "LazyInstanceNorm2d": InstanceNorm2d,
          "LazyInstanceNorm3d": InstanceNorm3d}

LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv(n, *spec) for n, spec in _CONVS.items())
LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy_norm(n, base) for n, base in _NORMS.items())
