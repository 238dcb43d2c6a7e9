"""``torchvision.models.mobilenet``: MobileNetV2's and V3's names in one module, as torchvision offers them."""
from . import mobilenetv2, mobilenetv3
from .mobilenetv2 import *  # noqa: F401,F403
from .mobilenetv3 import *  # noqa: F401,F403

__all__ = mobilenetv2.__all__ + mobilenetv3.__all__
