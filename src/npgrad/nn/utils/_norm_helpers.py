"""Shapes shared by the weight-norm and spectral-norm forms (hook-based and parametrization-based)."""


def norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim``, kept broadcastable to ``v``; the whole norm for dim=-1."""
    if dim == -1:
        return v.norm()
    dim = dim + v.dim() if dim < 0 else dim
    others = [d for d in range(v.dim()) if d != dim]
    return (v * v).sum(dim=others, keepdim=True).sqrt() if others else v.abs()


def as_matrix(weight, dim):
    """``weight`` as (size of ``dim``, everything else): the matrix whose largest singular value is sigma."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.dim()) if d != dim])
    return weight.flatten(1)


def is_conv_transpose(module):
    from ..modules import conv
    names = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")  # (3d where npgrad has it)
    return isinstance(module, tuple(getattr(conv, n) for n in names if hasattr(conv, n)))
