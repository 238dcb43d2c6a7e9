"""Multi-scale RoI Align (the FPN paper's RoI-to-level assignment): each box is pooled from the pyramid
level that matches its size, level k = floor(k0 + log2(sqrt(area) / 224)), clamped to the levels given."""
import math

import numpy as np

from ... import nn
from ... import ops as _ops
from ...factories import full_like
from ...tensor import Tensor
from .roi_align import roi_align

__all__ = ["LevelMapper", "MultiScaleRoIAlign", "initLevelMapper"]


class LevelMapper:
    """Maps boxes to pyramid levels (0 = ``k_min``) by the FPN paper's equation 1."""

    def __init__(self, k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
        self.k_min = k_min
        self.k_max = k_max
        self.s0 = canonical_scale
        self.lvl0 = canonical_level
        self.eps = eps

    def __call__(self, boxlists):
        b = np.concatenate([np.asarray(bl._data, np.float64) for bl in boxlists]) if boxlists else np.zeros((0, 4))
        side = np.sqrt((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]))
        with np.errstate(divide="ignore"):
            level = np.floor(self.lvl0 + np.log2(side / self.s0) + self.eps)
        level = np.clip(level, self.k_min, self.k_max)
        return Tensor._wrap(level.astype(np.int64) - self.k_min)


def initLevelMapper(k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
    return LevelMapper(k_min, k_max, canonical_scale, canonical_level, eps)


def _infer_scale(feature, original_size):
    """The power of two nearest to feature size / image size (along the first axis)."""
    ratio = float(feature.shape[-2]) / float(original_size[0])
    return 2.0 ** round(math.log2(ratio))


class MultiScaleRoIAlign(nn.Module):
    """RoI Align over the feature maps named ``featmap_names`` of an ordered dict: each box pooled from its
    level, at that level's scale (inferred from the feature and image sizes). ``forward(x, boxes,
    image_shapes)``: ``boxes`` a list of per-image Tensor[L, 4], ``image_shapes`` the (height, width) of each
    image as fed to the backbone."""

    def __init__(self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224, canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale = canonical_scale
        self.canonical_level = canonical_level

    def _setup(self, features, image_shapes):
        largest = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
        self.scales = [_infer_scale(f, largest) for f in features]
        self.map_levels = initLevelMapper(int(-math.log2(self.scales[0])), int(-math.log2(self.scales[-1])),
                                          self.canonical_scale, self.canonical_level)

    def forward(self, x, boxes, image_shapes):
        features = [v for k, v in x.items() if k in self.featmap_names]
        self._setup(features, image_shapes)
        rois = _ops.cat([_ops.cat([full_like(b[:, :1], i), b], 1) for i, b in enumerate(boxes)], 0)
        if len(features) == 1:
            return roi_align(features[0], rois, self.output_size, self.scales[0], self.sampling_ratio)
        levels = np.asarray(self.map_levels(boxes)._data)
        parts, order = [], []
        for level, (feat, scale) in enumerate(zip(features, self.scales)):
            members = np.flatnonzero(levels == level)
            parts.append(roi_align(feat, rois[Tensor._wrap(members)], self.output_size, scale, self.sampling_ratio))
            order.append(members)
        # the boxes were pooled level by level; put them back in their given order
        back = np.argsort(np.concatenate(order), kind="stable")
        return _ops.cat(parts, 0)[Tensor._wrap(back)]

    def __repr__(self):
        return (f"{self.__class__.__name__}(featmap_names={self.featmap_names}, output_size={self.output_size}, "
                f"sampling_ratio={self.sampling_ratio})")
