"""torch.vander: the Vandermonde matrix of a 1-D tensor, differentiable.

Built as PyTorch builds it, a cumulative product along each row of [1, x, x, ...] (flipped for decreasing
powers), so its gradient is cumprod's: exact where x is 0, where the power rule's k * x**(k-1) would need
0 * 0**-1.
"""
from .. import dtypes as _dt
from ._registry import op
from .movement import cat, flip
from .reduce import cumprod


@op(methods=())
def vander(x, N=None, increasing=False):
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "biu":  # integer (and bool) inputs give int64, as PyTorch promotes them
        x = x._cast(_dt.int64)
    rows = x._data.shape[0]
    if n == 0 or rows == 0:
        return x.new_empty((rows, n))
    ones = x.new_ones((rows, 1))
    col = x.unsqueeze(1)
    out = cumprod(cat([ones, col.expand(rows, n - 1)], 1), 1) if n > 1 else ones
    return out if increasing else flip(out, (1,))
