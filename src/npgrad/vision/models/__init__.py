"""torchvision.models: the classification architectures, with torchvision's module names and state_dict keys,
and the registry (``get_model``, ``list_models``, ``get_weight``)."""
from ._api import Weights, WeightsEnum, get_model, get_model_builder, get_model_weights, get_weight, list_models
from .resnet import *
from .vgg import *
from .alexnet import *
from .squeezenet import *
from .densenet import *
from .googlenet import *
from .inception import *
