"""v2's containers (RandomApply/RandomChoice/RandomOrder), the small pass-through transforms, and the
batch-mixing MixUp and CutMix of classification training."""
from collections.abc import Sequence

import numpy as np

from ....tensor import Tensor
from .. import _pil_ops as P
from .. import functional as F
from . import functional as F2
from ._core import Transform, _flatten, _hw, _rand, _to_dtype


def _unpacked(inputs):
    return inputs if len(inputs) > 1 else inputs[0]


class Identity(Transform):
    def forward(self, *inputs):
        return _unpacked(inputs)


class Lambda(Transform):
    """Apply ``lambd`` to the sample's leaves of ``types`` (every leaf by default)."""

    def __init__(self, lambd, *types):
        super().__init__()
        self.lambd = lambd
        self.types = types or (object,)

    def _wanted(self, leaf):
        return isinstance(leaf, self.types)

    def transform(self, inpt, params):
        return self.lambd(inpt)

    def extra_repr(self):
        name = getattr(self.lambd, "__name__", None) or repr(self.lambd)
        return f"{name}, types={[t.__name__ for t in self.types]}"


class RGB(Transform):
    def transform(self, inpt, params):
        return F2.grayscale_to_rgb(inpt)


class ConvertImageDtype(Transform):
    def __init__(self, dtype=None):
        from ....dtypes import float32
        super().__init__()
        self.dtype = float32 if dtype is None else dtype

    def _wanted(self, leaf):
        return isinstance(leaf, Tensor)

    def transform(self, inpt, params):
        return _to_dtype(inpt, self.dtype, scale=True)


class FiveCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _hw(size)

    def transform(self, inpt, params):
        return F.five_crop(inpt, list(self.size))


class TenCrop(Transform):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _hw(size)
        self.vertical_flip = vertical_flip

    def transform(self, inpt, params):
        return F.ten_crop(inpt, list(self.size), vertical_flip=self.vertical_flip)


def _run_all(transforms, inputs):
    unpack = len(inputs) > 1
    out = _unpacked(inputs)
    for step in transforms:
        out = step(*inputs)
        inputs = out if unpack else (out,)
    return out


class RandomApply(Transform):
    def __init__(self, transforms, p=0.5):
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables or a `nn.ModuleList`")
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.transforms = list(transforms)
        self.p = p

    def forward(self, *inputs):
        if _rand() >= self.p:
            return _unpacked(inputs)
        return _run_all(self.transforms, inputs)

    def __repr__(self):
        if len(self.transforms) == 1:
            return f"{type(self).__name__}(    {self.transforms[0]})"
        body = "".join(f"\n      {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class RandomChoice(Transform):
    def __init__(self, transforms, p=None):
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        total = sum(p)
        self.transforms = transforms
        self.p = [v / total for v in p]

    def forward(self, *inputs):
        return self.transforms[_multinomial(self.p)](*inputs)

    def __repr__(self):
        return f"{type(self).__name__}(transforms={list(self.transforms)}, p={self.p})"


def _multinomial(weights):
    from ...._convert import tensor
    return int(tensor(weights).multinomial(1).item())


class RandomOrder(Transform):
    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        self.transforms = transforms

    def forward(self, *inputs):
        from ....factories import randperm
        order = randperm(len(self.transforms)).tolist()
        return _run_all([self.transforms[k] for k in order], inputs)

    def __repr__(self):
        return f"{type(self).__name__}(transforms={list(self.transforms)})"


class _BatchMix(Transform):
    """Shared by MixUp and CutMix: find the batch and its labels, one-hot them, draw lambda ~ Beta(alpha, alpha)."""

    def __init__(self, *, alpha=1.0, num_classes=None, labels_getter="default"):
        super().__init__()
        self.alpha = float(alpha)
        self.num_classes = num_classes
        if labels_getter != "default" and not callable(labels_getter):
            raise ValueError(f"labels_getter should either be 'default', a callable, or None, but got {labels_getter}.")
        self._labels_getter = labels_getter
        from ....distributions import Beta
        from ...._convert import tensor
        self._dist = Beta(tensor([self.alpha]), tensor([self.alpha]))

    def _labels(self, sample):
        if self._labels_getter != "default":
            return self._labels_getter(sample)
        if isinstance(sample, (tuple, list)) and len(sample) > 1:
            return sample[1]
        if isinstance(sample, dict):
            for key in sample:
                if isinstance(key, str) and key.lower() == "labels":
                    return sample[key]
        if isinstance(sample, Tensor):  # a lone tensor is taken for the labels, and then refused by its shape
            return sample
        raise ValueError("Could not infer where the labels are in the sample. Try passing a callable as the "
                         "labels_getter parameter?If there are no labels in the sample by design, pass "
                         "labels_getter=None.")

    def forward(self, *inputs):
        sample = _unpacked(inputs)
        labels = self._labels(sample)
        if labels.dim() not in (1, 2):
            raise ValueError("labels should be index based with shape (batch_size,) or probability based with shape "
                             f"(batch_size, num_classes), but got a tensor of shape {labels.shape} instead.")
        leaves = []
        rebuild = _flatten(sample, leaves)
        image_at = next((k for k, leaf in enumerate(leaves) if isinstance(leaf, Tensor) and leaf is not labels), None)
        if image_at is None:
            raise ValueError("Could not find an image tensor in the sample")
        images = leaves[image_at]
        if images.dim() != 4:
            raise ValueError(f"Expected a batched input with 4 dims, but got {images.dim()} dimensions instead.")
        if labels.dim() == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        if labels.shape[0] != images.shape[0]:
            raise ValueError("The batch size of the image or video does not match the batch size of the labels: "
                             f"{images.shape[0]} != {labels.shape[0]}.")
        lam = float(self._dist.sample(()).item())
        mixed_images, weight = self._mix(images, lam)
        if labels.dim() == 1:
            from ....nn.functional import one_hot
            if labels.dtype.is_floating_point:
                raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
            labels_out = one_hot(labels, num_classes=self.num_classes).float()
        else:
            labels_out = labels.float() if not labels.dtype.is_floating_point else labels
        mixed_labels = labels_out.roll(1, 0) * (1.0 - weight) + labels_out * weight
        out = [mixed_images if k == image_at else (mixed_labels if leaf is labels else leaf)
               for k, leaf in enumerate(leaves)]
        return rebuild(iter(out))


class MixUp(_BatchMix):
    """Blend each image (and label) with the previous one in the batch: lam * x + (1 - lam) * roll(x)."""

    def _mix(self, images, lam):
        mixed = images.roll(1, 0) * (1.0 - lam) + images * lam
        return mixed.to(images.dtype), lam


class CutMix(_BatchMix):
    """Paste a box of the previous image of the batch into each image; labels weighted by the areas kept."""

    def _mix(self, images, lam):
        from ....factories import randint
        h, w = images.shape[-2:]
        cx, cy = int(randint(w, ()).item()), int(randint(h, ()).item())
        r = 0.5 * np.sqrt(1.0 - lam)
        half_w, half_h = int(r * w), int(r * h)
        x1, y1 = max(cx - half_w, 0), max(cy - half_h, 0)
        x2, y2 = min(cx + half_w, w), min(cy + half_h, h)
        out = images.clone()
        out[..., y1:y2, x1:x2] = images.roll(1, 0)[..., y1:y2, x1:x2]
        return out, 1.0 - (x2 - x1) * (y2 - y1) / (w * h)


class ToTensor(Transform):
    """Deprecated in v2 as in torchvision: PIL image / ndarray -> float tensor in [0, 1]."""

    def __init__(self):
        import warnings
        warnings.warn("The transform `ToTensor()` is deprecated and will be removed in a future release. Instead, "
                      "please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`.Output is "
                      "equivalent up to float precision.")
        super().__init__()

    def _wanted(self, leaf):
        return P.is_pil(leaf) or isinstance(leaf, np.ndarray)

    def transform(self, inpt, params):
        return F.to_tensor(inpt)


class RandomChannelPermutation(Transform):
    """Shuffle the image's channels (one permutation per sample)."""

    def make_params(self, flat_inputs):
        from ....factories import randperm
        channels = F.get_dimensions(flat_inputs[0])[0] if flat_inputs else 0
        return {"order": randperm(channels).tolist()}

    def _wanted(self, leaf):
        return isinstance(leaf, Tensor)

    def transform(self, inpt, params):
        return inpt[..., params["order"], :, :]


def _interp(value):
    from ._core import _mode
    return _mode(value)


class RandomResize(Transform):
    """Resize the shorter edge to a size drawn uniformly from [min_size, max_size)."""

    def __init__(self, min_size, max_size, interpolation="bilinear", antialias=True):
        super().__init__()
        self.min_size = min_size
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        from ....factories import randint
        return {"size": [int(randint(self.min_size, self.max_size, ()).item())]}

    def transform(self, inpt, params):
        return F.resize(inpt, params["size"], _interp(self.interpolation), antialias=self.antialias)


class RandomShortestSize(Transform):
    """Resize so the shorter edge is one of ``min_size`` (picked uniformly), the longer kept within ``max_size``."""

    def __init__(self, min_size, max_size=None, interpolation="bilinear", antialias=True):
        super().__init__()
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        from ....factories import randint
        from ._core import _image_size
        _, h, w = _image_size(flat_inputs)
        shortest = self.min_size[int(randint(len(self.min_size), ()).item())]
        ratio = shortest / min(h, w)
        if self.max_size is not None:
            ratio = min(ratio, self.max_size / max(h, w))
        return {"size": [int(h * ratio), int(w * ratio)]}

    def transform(self, inpt, params):
        return F.resize(inpt, params["size"], _interp(self.interpolation), antialias=self.antialias)
