"""torch.autograd.graph: the Node type, for walking and hooking a graph."""
from .function import Function as Node  # noqa: F401
