"""ReLU's gradient: g where the output is not <= 0 (a NaN output passes it, as in PyTorch), else an exact 0.

Replaces (and is tested against, bit for bit) ``ops.unary._relu_grad_into``, which builds the selection as a
mask in four passes (compare, widen, decrement, AND) over the tensor; here one pass reads y and g and writes the
result. The selection is by value, not arithmetic: g's own bits pass, and a NaN or inf gradient where the output
is 0 gives 0. Pieces of the flat arrays split over the threads; every element is on its own.
"""
import numpy as np

from .. import _parallel
from ._jit import entry, kernel


@kernel()
def _relu_grad(g, y, out, lo, hi):
    zero = out.dtype.type(0)
    gs, ys, outs = g[lo:hi], y[lo:hi], out[lo:hi]
    for i in range(gs.size):  # (both loads unconditional and the index from 0: LLVM selects, and vectorises)
        v = gs[i]
        outs[i] = zero if ys[i] <= 0 else v


@entry
def relu_grad(g, y):
    """dL/dx of relu, from the upstream gradient and relu's output (both C-contiguous, one shape and dtype)."""
    gf, yf = g.reshape(-1), y.reshape(-1)
    out = np.empty_like(gf)
    _parallel.split(lambda lo, hi: _relu_grad(gf, yf, out, lo, hi), gf.size, 1024, piece_min=_parallel.ONE_PASS_PIECE)
    return out.reshape(g.shape)
