"""v2 spellings of the random augmentations whose v1 classes already implement the sampling: the v1
transform runs on each image of a sample with the random state rewound between images, so a sample's
images all get the same draw (what v2's make_params gives), and the state advances once per sample."""
import inspect
import random
from enum import Enum

import numpy as np

from ...transforms import autoaugment as _aa
from ...transforms import transforms as _v1
from ....tensor import Tensor
from ..functional import InterpolationMode
from ...transforms import _array_ops as K
from ...transforms import functional as F
from ....dtypes import uint8
from ....factories import from_numpy
from ._core import Transform, _flatten, _to_dtype


def _float_list(value):
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, (int, float)):
        return [float(value)]
    return [float(v) for v in value]


class _Replayed(Transform):
    _v1 = None
    _fields = ()  # the attributes torchvision's v2 repr lists, in its order
    _shown = {}  # name -> how v2 stores (and shows) that setting

    def __init__(self, *args, **kwargs):
        super().__init__()
        bound = inspect.signature(self._v1.__init__).bind(None, *args, **kwargs)
        passed = set(bound.arguments)
        bound.apply_defaults()
        given = dict(list(bound.arguments.items())[1:])
        if "interpolation" in given and "interpolation" not in passed:
            given["interpolation"] = self._interpolation  # v2 spells its default as the mode's string
        v1_args = dict(given)
        if isinstance(v1_args.get("interpolation"), str):
            v1_args["interpolation"] = InterpolationMode(v1_args["interpolation"])
        self._delegate = self._v1(**v1_args)
        for name in self._fields:
            show = self._shown.get(name)
            if show is not None:
                value = show(given[name])
            elif name == "interpolation":
                value = given[name]
            else:
                value = getattr(self._delegate, name, given[name])
            setattr(self, name, value)

    def forward(self, *inputs):
        from ....random import get_rng_state, set_rng_state
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = []
        rebuild = _flatten(sample, leaves)
        chosen, tensor_taken = [], False
        for leaf in leaves:
            take = self._wanted(leaf)
            if take and isinstance(leaf, Tensor):
                take, tensor_taken = not tensor_taken, True
            chosen.append(take)
        start = (get_rng_state(), random.getstate())
        out = []
        for leaf, take in zip(leaves, chosen):
            if take:
                set_rng_state(start[0])
                random.setstate(start[1])
                leaf = self._delegate(leaf)
            out.append(leaf)
        return rebuild(iter(out))

    def extra_repr(self):
        parts = []
        for name in self._fields:
            value = getattr(self, name)
            if isinstance(value, (bool, int, float, str, tuple, list, Enum)):
                parts.append(f"{name}={value}")
        return ", ".join(parts)


def _make(v1_cls, fields, shown=None, interpolation=None, name=None, tensors_only=False):
    attrs = {"_v1": v1_cls, "_fields": fields, "_shown": shown or {}, "_interpolation": interpolation,
             "__doc__": v1_cls.__doc__, "__module__": __name__}
    if tensors_only:  # PIL images pass through, as torchvision's v2 leaves them
        attrs["_wanted"] = lambda self, leaf: isinstance(leaf, Tensor)
    return type(name or v1_cls.__name__, (_Replayed,), attrs)


# v2's kernels that differ from v1's: autocontrast divides by (max - min) / bound; posterize and equalize
# also take float images.
def _autocontrast(img):
    if not isinstance(img, Tensor):
        return F.autocontrast(img)
    arr = img.numpy()
    K.check_channels(arr, [1, 3])
    bound = np.float32(K.max_value(arr.dtype))
    x = arr if arr.dtype.kind == "f" else arr.astype(np.float32)
    lo = x.min(axis=(-2, -1), keepdims=True)
    hi = x.max(axis=(-2, -1), keepdims=True)
    flat = hi == lo
    inv_scale = np.where(flat, x.dtype.type(1), (hi - lo) * x.dtype.type(1.0 / bound))
    out = np.clip((x - np.where(flat, 0, lo)) / inv_scale, 0, bound)
    return from_numpy(np.ascontiguousarray(out.astype(arr.dtype) if arr.dtype.kind == "f"
                                           else K.cast_float(out, arr.dtype)))


def _posterize(img, bits):
    if not isinstance(img, Tensor) or not img.dtype.is_floating_point:
        return F.posterize(img, bits)
    levels = 1 << bits
    return (img * levels).floor().clamp(0, levels - 1) * (1.0 / levels)


def _equalize(img):
    if not isinstance(img, Tensor) or not img.dtype.is_floating_point:
        return F.equalize(img)
    return _to_dtype(F.equalize(_to_dtype(img, uint8, True)), img.dtype, True)


class _Autocontrast(_v1.RandomAutocontrast):
    def _op(self, img):
        return _autocontrast(img)


class _Posterize(_v1.RandomPosterize):
    def _op(self, img):
        return _posterize(img, self.bits)


class _Equalize(_v1.RandomEqualize):
    def _op(self, img):
        return _equalize(img)


_NEAREST, _BILINEAR = {"interpolation": "nearest"}, {"interpolation": "bilinear"}
_AUG_FIELDS = ("interpolation", "fill")

RandomErasing = _make(_v1.RandomErasing, ("p", "scale", "ratio", "value", "inplace"), {"value": _float_list},
                      tensors_only=True)
RandomRotation = _make(_v1.RandomRotation, ("degrees", "interpolation", "expand", "fill", "center"), **_NEAREST)
RandomAffine = _make(_v1.RandomAffine, ("degrees", "translate", "scale", "shear", "interpolation", "fill", "center"),
                     **_NEAREST)
RandomPerspective = _make(_v1.RandomPerspective, ("p", "distortion_scale", "interpolation", "fill"), **_BILINEAR)
GaussianBlur = _make(_v1.GaussianBlur, ("kernel_size", "sigma"),
                     {"sigma": lambda s: _float_list([s, s] if isinstance(s, (int, float)) else s)})
RandomGrayscale = _make(_v1.RandomGrayscale, ("p",))
RandomInvert = _make(_v1.RandomInvert, ("p",))
RandomPosterize = _make(_Posterize, ("p", "bits"), name="RandomPosterize")
RandomSolarize = _make(_v1.RandomSolarize, ("p", "threshold"))
RandomAdjustSharpness = _make(_v1.RandomAdjustSharpness, ("p", "sharpness_factor"))
RandomAutocontrast = _make(_Autocontrast, ("p",), name="RandomAutocontrast")
RandomEqualize = _make(_Equalize, ("p",), name="RandomEqualize")
AutoAugment = _make(_aa.AutoAugment, _AUG_FIELDS + ("policy",), **_NEAREST)
RandAugment = _make(_aa.RandAugment, _AUG_FIELDS + ("num_ops", "magnitude", "num_magnitude_bins"), **_NEAREST)
TrivialAugmentWide = _make(_aa.TrivialAugmentWide, _AUG_FIELDS + ("num_magnitude_bins",), **_NEAREST)
AugMix = _make(_aa.AugMix, _AUG_FIELDS + ("severity", "mixture_width", "chain_depth", "alpha", "all_ops"),
               **_BILINEAR)
ElasticTransform = _make(_v1.ElasticTransform, ("alpha", "sigma", "interpolation", "fill"),
                         {"alpha": lambda a: [float(a)] * 2 if isinstance(a, (int, float)) else list(a),
                          "sigma": lambda s: [float(s)] * 2 if isinstance(s, (int, float)) else list(s),
                          "fill": lambda f: f}, **_BILINEAR)
