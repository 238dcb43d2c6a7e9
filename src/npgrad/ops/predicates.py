"""torch.* spellings of Tensor queries, loaded on first use: is_floating_point, is_complex, is_signed, is_nonzero,
is_same_size, get_device, and torch.detach."""
from ..tensor import Tensor
from ._registry import op


def _require_tensor(fname, x, argname="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}")


@op(methods=())  # the Tensor methods are the class's own
def is_floating_point(input):
    _require_tensor("is_floating_point", input)
    return input.is_floating_point()


@op(methods=())
def is_complex(input):
    _require_tensor("is_complex", input)
    return input.is_complex()


@op(methods=())
def is_signed(input):
    _require_tensor("is_signed", input)
    return input.is_signed()


@op()
def is_nonzero(input):
    _require_tensor("is_nonzero", input)
    return bool(input)


@op()
def is_same_size(input, other):
    _require_tensor("is_same_size", input)
    _require_tensor("is_same_size", other, "other", 2)
    return input._data.shape == other._data.shape


@op()
def get_device(input):
    _require_tensor("get_device", input)
    return -1  # PyTorch's answer for a CPU tensor, the only kind npgrad has


@op(methods=())
def detach(input):
    _require_tensor("detach", input)
    return input.detach()
