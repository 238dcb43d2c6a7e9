"""The in-place spellings nn.functional has for celu, selu and rrelu (``F.celu_`` ...): each writes its result
into ``input`` through the same in-place machinery as ``F.elu_``, so autograd sees an in-place op."""
import numpy as np

from ...autograd.function import Op
from ...ops import _poly as P
from ...ops.inplace import inplace as _inplace
from .activation import _float, rrelu, selu


class _CeluResultOp(Op):
    """celu whose derivative is taken from its result, as PyTorch's in-place celu_ does (the input is
    overwritten): ``(y + alpha) / float32(alpha)`` where y <= 0, else 1. Out-of-place celu differentiates
    from the input; the two agree to rounding, and each matches its PyTorch counterpart exactly."""

    __slots__ = ()
    node_name = "EluBackward1"

    @staticmethod
    def forward(ctx, x, alpha):
        dt = x.dtype
        y = np.where(x > 0, x, np.expm1(np.minimum(x, 0) * np.asarray(1.0 / alpha, dt)) * np.asarray(alpha, dt))
        ctx.save_for_backward(y)
        ctx.params = alpha
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        alpha = ctx.params
        d = P.where(P.data_of(y) <= 0, (y + alpha) * (1.0 / float(np.float32(alpha))), 1.0)
        return g * d, None


def celu_(input, alpha=1.0):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _inplace(input, lambda t, a: _CeluResultOp.apply(_float(t, "celu"), a), float(alpha))


def selu_(input):
    return selu(input, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    # training draws one slope per element, so the out-of-place result is computed once and written back
    return _inplace(input, lambda t, lo, up, tr: rrelu(t, lo, up, tr, inplace=False), lower, upper, training)
