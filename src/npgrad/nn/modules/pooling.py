"""Pooling modules."""
from operator import attrgetter

from .. import functional as F
from .._functional._utils import _single
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d"]


class _Pool(Module):
    """A pooling module: F.<_fn>(input, *settings), the settings being the attributes ``_args`` names in the
    function's positional order (F is read at each call: vmap swaps its functions)."""

    _fn = None
    _args = ()

    def __init__(self, **settings):
        super().__init__()
        for name, value in settings.items():
            setattr(self, name, value)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_args" in cls.__dict__:  # one C-level getter per argument list (one name gives a bare value)
            get = attrgetter(*cls._args)
            cls._settings = staticmethod(get if len(cls._args) > 1 else (lambda m: (get(m),)))

    def forward(self, input):
        return getattr(F, self._fn)(input, *self._settings(self))

    def _show(self, *names):
        return ", ".join(f"{n}={getattr(self, n)}" for n in names)


class _MaxPoolNd(_Pool):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]
    _args = ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__(kernel_size=kernel_size, stride=kernel_size if stride is None else stride, padding=padding,
                         dilation=dilation, return_indices=return_indices, ceil_mode=ceil_mode)

    def extra_repr(self):
        return self._show("kernel_size", "stride", "padding", "dilation", "ceil_mode")


class MaxPool1d(_MaxPoolNd):
    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    _fn = "max_pool3d"


class _AvgPoolNd(_Pool):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]
    _args = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size=kernel_size, stride=kernel_size if stride is None else stride, padding=padding,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override)

    def extra_repr(self):
        return self._show("kernel_size", "stride", "padding")


class AvgPool1d(_AvgPoolNd):
    # 1-d keeps its sizes as 1-tuples and has no divisor_override, as in PyTorch.
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]
    _fn, _args = "avg_pool1d", _AvgPoolNd._args[:-1]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        _Pool.__init__(self, kernel_size=_single(kernel_size),
                       stride=_single(kernel_size if stride is None else stride), padding=_single(padding),
                       ceil_mode=ceil_mode, count_include_pad=count_include_pad)


class AvgPool2d(_AvgPoolNd):
    _fn = "avg_pool2d"


class AvgPool3d(_AvgPoolNd):
    _fn = "avg_pool3d"


class _AdaptivePool(_Pool):
    __constants__ = ["output_size"]
    _args = ("output_size",)

    def __init__(self, output_size):
        super().__init__(output_size=output_size)

    def extra_repr(self):
        return self._show("output_size")


class AdaptiveAvgPool1d(_AdaptivePool):
    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptivePool):
    _fn = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptivePool):
    _fn = "adaptive_avg_pool3d"


class _AdaptiveMaxPool(_AdaptivePool):
    _args = ("output_size", "return_indices")

    def __init__(self, output_size, return_indices=False):
        _Pool.__init__(self, output_size=output_size, return_indices=return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    _fn = "adaptive_max_pool3d"


class _LPPoolNd(_Pool):
    _args = ("norm_type", "kernel_size", "stride", "ceil_mode")

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__(norm_type=norm_type, kernel_size=kernel_size, stride=stride, ceil_mode=ceil_mode)

    def forward(self, input):
        # the norm goes to the function as a float, whatever was stored
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return self._show(*self._args)


class LPPool1d(_LPPoolNd):
    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    _fn = "lp_pool3d"
