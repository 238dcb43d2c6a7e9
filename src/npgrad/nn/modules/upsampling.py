"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle."""
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]


def _as_float_factor(scale_factor):
    # Stored as floats (each entry of a tuple); a falsy factor (None, 0) means "use size".
    if isinstance(scale_factor, tuple):
        return tuple(map(float, scale_factor))
    return float(scale_factor) if scale_factor else None


class Upsample(Module):
    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size, self.scale_factor, self.mode = size, _as_float_factor(scale_factor), mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        by = ("scale_factor", self.scale_factor) if self.scale_factor is not None else ("size", self.size)
        return f"{by[0]}={by[1]!r}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size=size, scale_factor=scale_factor)


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size=size, scale_factor=scale_factor, mode="bilinear", align_corners=True)


class _Rearrange(Module):
    """PixelShuffle and PixelUnshuffle: F.<_fn>(input, factor), the factor kept under the name ``_factor``."""

    _fn = _factor = None

    def __init__(self, factor):
        super().__init__()
        setattr(self, self._factor, factor)

    def forward(self, input):
        return getattr(F, self._fn)(input, getattr(self, self._factor))

    def extra_repr(self):
        return f"{self._factor}={getattr(self, self._factor)}"


class PixelShuffle(_Rearrange):
    _fn, _factor = "pixel_shuffle", "upscale_factor"

    def __init__(self, upscale_factor):
        super().__init__(upscale_factor)


class PixelUnshuffle(_Rearrange):
    _fn, _factor = "pixel_unshuffle", "downscale_factor"

    def __init__(self, downscale_factor):
        super().__init__(downscale_factor)
