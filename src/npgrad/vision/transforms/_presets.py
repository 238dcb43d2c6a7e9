"""The inference transforms that the models' ``Weights.transforms()`` return."""
from ... import nn
from ...tensor import Tensor
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ImageClassification"]


class ImageClassification(nn.Module):
    """Resize the shorter edge to ``resize_size``, centre-crop ``crop_size``, scale to [0, 1], normalise."""

    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        settings = dict(crop_size=[crop_size], resize_size=[resize_size], mean=list(mean), std=list(std),
                        interpolation=interpolation, antialias=antialias)
        for key, value in settings.items():
            setattr(self, key, value)

    def forward(self, img):
        from ...dtypes import float32
        small = F.resize(img, self.resize_size, self.interpolation, antialias=self.antialias)
        patch = F.center_crop(small, output_size=self.crop_size)
        pixels = patch if isinstance(patch, Tensor) else F.pil_to_tensor(patch)
        img = F.convert_image_dtype(pixels, float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        fields = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}", f"mean={self.mean}",
                  f"std={self.std}", f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(" + "".join(f"\n    {f}" for f in fields) + "\n)"

    def describe(self):
        return (
            "Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` objects. "
            f"The images are resized to ``resize_size={self.resize_size}`` using ``interpolation={self.interpolation}``, "
            f"followed by a central crop of ``crop_size={self.crop_size}``. Finally the values are first rescaled to "
            f"``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and ``std={self.std}``."
        )
