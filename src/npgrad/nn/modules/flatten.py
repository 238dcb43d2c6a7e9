"""Flatten and Unflatten."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)) or \
                    not all(isinstance(e, int) for e in unflattened_size):
                raise TypeError("unflattened_size must be tuple of ints, but found type "
                                f"{type(unflattened_size).__name__}")
        elif isinstance(dim, str):
            raise TypeError("named tensors are not supported by npgrad")
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size) if isinstance(unflattened_size, list) else unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
