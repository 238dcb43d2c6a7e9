"""The model registry and the weights enums: ``get_model``, ``list_models``, ``get_weight``, ``Weights``.

Each builder is registered by name with ``@register_model()``; its weights enum is read off the builder's
``weights`` annotation, so that ``get_model_weights("resnet18")`` needs no second table.
"""
import enum
import fnmatch
import functools
import inspect
import sys
import warnings
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

__all__ = ["Weights", "WeightsEnum", "register_model", "get_model", "get_model_builder", "get_model_weights",
           "get_weight", "list_models"]

_BUILTIN_MODELS = {}


@dataclass
class Weights:
    """One set of pretrained weights: where the file is, the preprocessing its model expects, and facts about it."""
    url: str
    transforms: Callable
    meta: dict = field(default_factory=dict)

    def __eq__(self, other):
        # transforms are functools.partial objects, which compare by identity; two enum members with the same file
        # are the same weights (DEFAULT is an alias, not a copy).
        if not isinstance(other, Weights):
            return NotImplemented
        return self.url == other.url and self.meta == other.meta

    __hash__ = None


class WeightsEnum(enum.Enum):
    """Base of every ``<Model>_Weights`` enum; each member's value is a ``Weights``."""

    @classmethod
    def verify(cls, obj):
        if obj is None:
            return None
        if isinstance(obj, str):
            obj = cls[obj.replace(cls.__name__ + ".", "")]
        elif not isinstance(obj, cls):
            raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received "
                            f"{obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args, **kwargs):
        from ... import hub
        return hub.load_state_dict_from_url(self.url, *args, **kwargs)

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self):
        return self.value.url

    @property
    def transforms(self):
        return self.value.transforms

    @property
    def meta(self):
        return self.value.meta


def _quoted_list(names):
    quoted = [f"'{n}'" for n in names]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _accept_positional(fn):
    """A builder that still takes its keyword-only arguments by position (``resnet18(True)`` of scripts written
    before torchvision 0.13), with torchvision's deprecation warning."""
    keyword_only = [p.name for p in inspect.signature(fn).parameters.values() if p.kind is p.KEYWORD_ONLY]
    if not keyword_only:
        return fn

    @functools.wraps(fn)
    def builder(*args, **kwargs):
        if args:
            if len(args) > len(keyword_only):
                raise TypeError(f"{fn.__name__}() takes at most {len(keyword_only)} positional arguments "
                                f"({len(args)} given)")
            named = keyword_only[:len(args)]
            warnings.warn(f"Using {_quoted_list(named)} as positional parameter(s) is deprecated since 0.13 and "
                          "may be removed in the future. Please use keyword parameter(s) instead.")
            kwargs.update(zip(named, args))
        return fn(**kwargs)
    return builder


def register_model(name=None):
    def wrapper(fn):
        key = name if name is not None else fn.__name__
        if key in _BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        fn = _accept_positional(fn)
        _BUILTIN_MODELS[key] = fn
        return fn
    return wrapper


def list_models(module=None, include=None, exclude=None):
    """Registered model names, sorted; ``module`` keeps those defined in that module (e.g. ``models.quantization``),
    ``include``/``exclude`` are Unix shell-style patterns (a string or several)."""
    names = [k for k, fn in _BUILTIN_MODELS.items()
             if module is None or fn.__module__.rsplit(".", 1)[0] == module.__name__]
    if include:
        include = [include] if isinstance(include, str) else list(include)
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in include)]
    if exclude:
        exclude = [exclude] if isinstance(exclude, str) else list(exclude)
        names = [n for n in names if not any(fnmatch.fnmatch(n, p) for p in exclude)]
    return sorted(names)


def get_model_builder(name):
    name = name.lower()
    try:
        return _BUILTIN_MODELS[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name, **config):
    return get_model_builder(name)(**config)


def get_model_weights(name):
    """The weights enum of a model, given its name or its builder."""
    fn = get_model_builder(name) if isinstance(name, str) else name
    annotation = inspect.signature(fn).parameters["weights"].annotation
    if isinstance(annotation, str):  # postponed annotations ("Optional[ResNet18_Weights]")
        annotation = eval(annotation, sys.modules[fn.__module__].__dict__)  # noqa: S307 - the module's own text
    candidates = getattr(annotation, "__args__", (annotation,))
    for c in candidates:
        if isinstance(c, type) and issubclass(c, WeightsEnum):
            return c
    raise ValueError(f"The weight enum '{annotation}' for the specific method couldn't be retrieved.")


def get_weight(name):
    """A weights member from its full name, ``"ResNet50_Weights.IMAGENET1K_V2"``."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    enum_cls = None
    # the enums live in the builders' modules, all under this package (models.quantization's too)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith(__package__ + "."):
            candidate = getattr(module, enum_name, None)
            if isinstance(candidate, type) and issubclass(candidate, WeightsEnum):
                enum_cls = candidate
                break
    if enum_cls is None:
        raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be retrieved.")
    return enum_cls[value_name]


def handle_weights(builder_name, weights_enum, weights, kwargs, default_weights=None):
    """The weights a builder was asked for, after the deprecated spellings PyTorch still accepts:
    ``pretrained=True/False`` and ``weights=True/False`` (or any other non-enum, read by its truth value) warn
    and map to the first published weights or none; a string names a member. Returns the verified member (or None)."""
    if "pretrained" in kwargs:
        warnings.warn("The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
                      "please use 'weights' instead.")
        weights = kwargs.pop("pretrained")
    if weights is not None and not isinstance(weights, (WeightsEnum, str)):
        # anything else stands for a bool, by its truth value (torchvision's reading of pretrained=1, weights=[])
        default = default_weights if default_weights is not None else weights_enum.DEFAULT
        chosen = default if weights else None
        msg = ("Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 and may be "
               f"removed in the future. The current behavior is equivalent to passing `weights={chosen}`.")
        if weights:
            msg += f" You can also use `weights={weights_enum.__name__}.DEFAULT` to get the most up-to-date weights."
        warnings.warn(msg)
        weights = chosen
    return weights_enum.verify(weights)


def override_param(kwargs, name, value):
    """Set ``kwargs[name] = value`` for pretrained weights, refusing a conflicting value the caller gave."""
    if name in kwargs:
        if kwargs[name] != value:
            raise ValueError(f"The parameter '{name}' expected value {value} but got {kwargs[name]} instead.")
    else:
        kwargs[name] = value



class _LazyPreset:
    """A preprocessing class of ``transforms._presets``, imported when first called: a weights enum names its
    transforms at import time, and the models must import without the transforms package loaded."""

    def __init__(self, name):
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        from ..transforms import _presets
        return getattr(_presets, self.__name__)(*args, **kwargs)

    def __repr__(self):
        return f"<transforms preset {self.__name__}>"


ImageClassification = _LazyPreset("ImageClassification")
_DOWNLOADS = "https://download.pytorch.org/models/"


def imagenet_weights(file, *, num_params, min_size, recipe, acc1, acc5, ops, file_size, docs, **preset):
    """The ``Weights`` of an ImageNet-1K classifier stored at download.pytorch.org/models/<file>: its meta as
    torchvision lists it, and ``ImageClassification`` with the preset's crop/resize sizes as its transforms."""
    from ._meta import _IMAGENET_CATEGORIES
    meta = {"categories": _IMAGENET_CATEGORIES, "num_params": num_params, "min_size": min_size, "recipe": recipe,
            "_metrics": {"ImageNet-1K": {"acc@1": acc1, "acc@5": acc5}}, "_ops": ops, "_file_size": file_size,
            "_docs": docs}
    return Weights(url=_DOWNLOADS + file, transforms=partial(ImageClassification, **preset), meta=meta)


def load_weights(model, weights, progress, remap=None):
    """Load a weights member's checkpoint (from the hub cache, downloaded there when missing) into ``model``;
    ``remap`` rewrites an old checkpoint's dict in place first."""
    state = weights.get_state_dict(progress=progress, check_hash=True)
    if remap is not None:
        remap(state)
    model.load_state_dict(state)
    return model
