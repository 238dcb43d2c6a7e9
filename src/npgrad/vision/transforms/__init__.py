"""torchvision.transforms on npgrad."""
from . import functional
from .functional import InterpolationMode
