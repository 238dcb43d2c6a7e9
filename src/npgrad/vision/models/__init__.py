"""torchvision.models: the classification architectures, with torchvision's module names and state_dict keys,
and the registry (``get_model``, ``list_models``, ``get_weight``)."""
from ._api import Weights, WeightsEnum, get_model, get_model_builder, get_model_weights, get_weight, list_models
from .resnet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .alexnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .googlenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenetv2 import *  # noqa: F401,F403
from .mobilenetv3 import *  # noqa: F401,F403
from .efficientnet import *  # noqa: F401,F403
from .shufflenetv2 import *  # noqa: F401,F403
from .mnasnet import *  # noqa: F401,F403
from .regnet import *  # noqa: F401,F403
from .convnext import *  # noqa: F401,F403
from .vision_transformer import *  # noqa: F401,F403
from .swin_transformer import *  # noqa: F401,F403
from .maxvit import *  # noqa: F401,F403
from . import mobilenet  # noqa: F401
