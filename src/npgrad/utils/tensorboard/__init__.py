"""torch.utils.tensorboard: ``SummaryWriter`` writes TensorBoard event files from npgrad.

The optional ``tensorboard`` package (``pip install npgrad[tensorboard]``) supplies the protocol buffers
and the event-file writer; neither TensorFlow nor PyTorch is needed. ``import npgrad`` never loads this
module: it is imported on ``import npgrad.utils.tensorboard`` (or ``torch.utils.tensorboard`` under
``npgrad run``), and says so when tensorboard is missing, as PyTorch does.
"""
from ..._optional import require

# PyTorch's sentence, then what is really missing and how to install it.
require("tensorboard", "npgrad.utils.tensorboard", "TensorBoard logging requires TensorBoard version 1.15 or above")

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
