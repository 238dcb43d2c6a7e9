"""Shorthand for the weights tables of the mobile, RegNet, ConvNeXt and transformer families: one call per
torchvision checkpoint, giving the ``Weights`` with its URL, ImageNet preprocessing and metadata.

The preprocessing preset lives in ``transforms`` and is imported when a weights' ``transforms()`` is called,
so that building a model never imports the transforms package."""
import importlib
from functools import partial

from ._api import Weights

_URL = "https://download.pytorch.org/models/"
_VISION = "https://github.com/pytorch/vision/"
_REFS = _VISION + "tree/main/references/classification"
_SWAG_LICENSE = "https://github.com/facebookresearch/SWAG/blob/main/LICENSE"


def _image_classification(*, interpolation="bilinear", **kwargs):
    # imported by name when called: building a model must not need the transforms package (nor its Pillow)
    presets = importlib.import_module("..transforms._presets", __package__)
    return presets.ImageClassification(interpolation=presets.InterpolationMode(interpolation), **kwargs)


def _categories():
    try:  # the ImageNet class names, shared with the other families' weights
        return importlib.import_module("._meta", __package__)._IMAGENET_CATEGORIES
    except ImportError:
        return None


def _imagenet(file, num_params, acc, ops, file_size, recipe, crop, resize=None, interpolation="bilinear",
              mean=None, std=None, min_size=(1, 1), license=None):
    preset = {"crop_size": crop}
    if resize is not None:
        preset["resize_size"] = resize
    if interpolation != "bilinear":
        preset["interpolation"] = interpolation
    if mean is not None:
        preset.update(mean=mean, std=std)
    meta = {"num_params": num_params, "min_size": min_size, "recipe": recipe,
            "_metrics": {"ImageNet-1K": {"acc@1": acc[0], "acc@5": acc[1]}}, "_ops": ops, "_file_size": file_size}
    categories = _categories()
    if categories is not None:
        meta["categories"] = categories
    if license is not None:
        meta["license"] = license
    return Weights(url=_URL + file, transforms=partial(_image_classification, **preset), meta=meta)


def _num_classes(weights, kwargs):
    """Pretrained weights fix the classifier's width: the caller's ``num_classes`` must agree with them."""
    from ._api import override_param
    if weights is not None:
        # every checkpoint here is an ImageNet-1K classifier
        override_param(kwargs, "num_classes", len(weights.meta.get("categories") or range(1000)))


def _load(model, weights, progress):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
