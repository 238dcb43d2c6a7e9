"""Local response normalization across channels: local_response_norm (LocalResponseNorm) and the legacy
cross-map form of CrossMapLRN2d.

Both divide each value by (k + alpha / size * a windowed sum of squares over neighbouring channels) ** beta,
composed of differentiable operators (so they differentiate again); CrossMapLRN2d's window is a constant
0/1 matrix over the channels, as its legacy kernel's running sum defines it.
"""
import numpy as np

from ...autograd.function import Op
from ...ops import _poly as P
from ...ops.movement import cat
from ...tensor import Tensor


def _channel_mix(a, mat):
    """out[:, c] = sum_j mat[c, j] * a[:, j] for (N, C, L) ``a`` (an array or a Tensor) and a constant
    (C, C) array ``mat``."""
    mat_t = mat.T
    if P.is_tensor(a):
        mat_t = Tensor._wrap(np.ascontiguousarray(mat_t))
    return P.swapaxes(P.matmul(P.swapaxes(a, 1, 2), mat_t), 1, 2)


def _band(C, lo, hi, dtype):
    """(C, C) 0/1 matrix: row c sums channels c + lo .. c + hi (those that exist)."""
    d = np.arange(C)[None, :] - np.arange(C)[:, None]
    return ((d >= lo) & (d <= hi)).astype(dtype)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x**2 over a window of ``size`` channels, zero-padded) ** beta; the window
    is the channel, size // 2 before it and (size - 1) // 2 after, over (N, C, ...) inputs."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    shape = tuple(input.shape)
    N, C = shape[:2]
    x = input.reshape(N, C, -1)
    sq = x * x
    # the window sum as a sum of shifted slices of the zero-padded squares (not a product with a band
    # matrix, whose zeros would spread an inf or NaN to every channel)
    before, after = size // 2, (size - 1) // 2
    zeros = Tensor._wrap(np.zeros((N, 1, sq.shape[2]), sq._data.dtype))
    padded = cat([zeros] * before + [sq] + [zeros] * after, 1) if size > 1 else sq
    total = padded[:, :C]
    for i in range(1, size):
        total = total + padded[:, i:i + C]
    div = (total / size * alpha + k) ** beta
    return (x / div).reshape(shape)


# -- CrossMapLRN2d ---------------------------------------------------------------------------------------------------

def _legacy_window(C, size, dtype):
    """The channels PyTorch's CrossMapLRN2d sums for each output channel. Its running-sum loop never takes
    the first channel back out, so channel 0 stays in every window beside c - pre_pad + 1 .. c + pre_pad - 1."""
    pre_pad = int((size - 1) / 2 + 1)
    mat = _band(C, -(pre_pad - 1), pre_pad - 1, dtype)
    mat[:, 0] = 1
    return mat


class CrossMapLRN2dOp(Op):
    """PyTorch's CrossMapLRN2d, forward and backward as its legacy kernel computes them.

    That backward is not the derivative of that forward: it sums the ratios g * out / scale over channels
    c - (size - (size - 1) / 2) .. c + size - 1 - (size - (size - 1) / 2) (a window shifted from the
    forward's) and ignores the first-channel term. npgrad returns the same numbers as PyTorch; the module's
    tests compare both and check the formula below against a NumPy transcription of the kernel.
    """

    __slots__ = ()
    node_name = "CrossMapLRN2dBackward"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, size, alpha, beta, k):
        ctx.save_for_backward(x)
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        scale = CrossMapLRN2dOp.scale(x, size, alpha, k)
        return (x * scale ** -beta).astype(x.dtype, copy=False)

    @staticmethod
    def scale(x, size, alpha, k):
        N, C = x.shape[:2]
        dt = P.data_of(x).dtype
        flat = P.reshape(x, (N, C, int(np.prod(x.shape[2:]))))
        mixed = _channel_mix(flat * flat, _legacy_window(C, size, dt))
        return P.reshape(mixed * (alpha / size) + k, tuple(x.shape))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        size, alpha, beta, k = ctx.size, ctx.alpha, ctx.beta, ctx.k
        N, C = x.shape[:2]
        dt = P.data_of(x).dtype
        scale = CrossMapLRN2dOp.scale(x, size, alpha, k)
        out = x * scale ** -beta
        ratio = P.reshape(g * out / scale, (N, C, int(np.prod(x.shape[2:]))))
        start = int(size - (size - 1) / 2)
        window = _band(C, -start, size - 1 - start, dt)
        summed = P.reshape(_channel_mix(ratio, window), tuple(x.shape))
        return scale ** -beta * g - (2 * alpha * beta / size) * x * summed, None, None, None, None


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    return CrossMapLRN2dOp.apply(input, int(size), float(alpha), float(beta), float(k))
