"""parameters_to_vector / vector_to_parameters."""
from ...ops.movement import cat
from ...tensor import Tensor


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Point each parameter's data at the matching slice of ``vec`` (as ``param.data = ...``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
