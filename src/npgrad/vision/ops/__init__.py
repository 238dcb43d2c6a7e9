"""torchvision.ops: box operations, NMS, RoI pooling, losses and the layers the models are built from."""
from .misc import Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, MLP, Permute, SqueezeExcitation
from .stochastic_depth import StochasticDepth, stochastic_depth
