"""The layer classes of npgrad.nn, one family per module."""
from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .linear import Identity, Linear, Bilinear  # noqa: F401
from .activation import *  # noqa: F401,F403
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: F401
from .pooling import *  # noqa: F401,F403
from .unpooling import *  # noqa: F401,F403
from .fold import Fold, Unfold  # noqa: F401
from .channelshuffle import ChannelShuffle  # noqa: F401
from .lazy import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .normalization import LayerNorm, GroupNorm, RMSNorm  # noqa: F401
from .dropout import *  # noqa: F401,F403
from .deprecated_container import Container  # noqa: F401
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .padding import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .loss import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .loss_extra import *  # noqa: F401,F403
from .lrn import *  # noqa: F401,F403
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
