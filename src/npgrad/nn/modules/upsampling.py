"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle."""
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]


class Upsample(Module):
    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = "scale_factor=" + repr(self.scale_factor) if self.scale_factor is not None else "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
