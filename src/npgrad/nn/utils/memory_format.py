"""torch.nn.utils.convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format.

They re-lay the weights of every (transposed) convolution in a module tree in the given memory format, keeping
the same Parameter objects. npgrad's tensors answer every memory-format query as contiguous (NumPy arrays,
no channels-last kernels), so the re-layout is a copy through ``clone(memory_format=...)``; values, identity
and the returned module are as in PyTorch.
"""
__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, names):
    from ..modules import conv
    kinds = tuple(getattr(conv, n) for n in names if hasattr(conv, n))
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, names)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Convert the weights of every Conv2d / ConvTranspose2d in ``module`` to ``memory_format``."""
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Convert the weights of every Conv3d / ConvTranspose3d in ``module`` to ``memory_format``."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
