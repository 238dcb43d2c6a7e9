"""linear (``x @ W.T + b``) as one fused Op, and bilinear.

Leading dimensions of ``x`` are folded into one so each product is a single GEMM. The backward
formulas use only matmul, reshape, transpose and sum, so they are differentiable again.
"""
import numpy as np

from ... import _parallel
from ... import dtypes as _dt
from ... import kernels as _kernels
from ...autograd.function import Op
from ...autograd.record import _apply_op
from ...kernels import linear as _klinear
from ...kernels import norm as _knorm
from ...ops import _poly as P
from ...ops.broadcast import _expanded_shape, broadcast_error
from ...tensor import Tensor


# Below this many outputs NumPy's ``y += b`` (~1.5 us at 1x512) beats the compiled add's call (its dispatch and
# the checks before it: ~3.2 us there); from ~8x512 the kernel's single pass is the faster.
_BIAS_KERNEL_MIN = 4096


class LinearOp(Op):
    __slots__ = ()
    node_name = "AddmmBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, w, b):
        ctx._saved = (x, w)  # save_for_backward, minus a frame (dropped by the no-grad context)
        flat = x.ndim == 2
        y = _parallel.matmul(x if flat else x.reshape(-1, x.shape[-1]), w.T)
        if b is not None:
            if (y.size < _BIAS_KERNEL_MIN or b.shape != y.shape[-1:] or not _kernels.fits(y, b)
                    or _klinear.add_bias_(y, b) is None):
                y += b
        return y if flat else y.reshape(x.shape[:-1] + (w.shape[0],))

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        in_f, out_f = w.shape[1], w.shape[0]
        nd = len(x.shape)
        g2 = P.reshape(g, (-1, out_f)) if nd != 2 else g
        gx = gw = gb = None
        if need_x:
            gx = _parallel.matmul(g2, w)
            if nd != 2:
                gx = P.reshape(gx, tuple(x.shape))
        if need_w:
            x2 = P.reshape(x, (-1, in_f)) if nd != 2 else x
            gw = _parallel.matmul(P.swapaxes(g2, 0, 1), x2)
        if need_b:
            gb = None
            if not P.is_tensor(g2) and _kernels.fits(g2):
                gb = _knorm.column_sums(g2)  # (compiled, float64 accumulators, deterministic)
            if gb is None:
                gb = P.sum(g2, axis=0)
        return gx, gw, gb


def _dtype_word(t):
    return _dt.scalar_name(t.dtype)


def _check_bias_adds(bs, out_shape):
    err = broadcast_error(out_shape, bs)
    if err is not None:
        raise err
    full = tuple(np.broadcast_shapes(out_shape, bs))
    if full != tuple(out_shape):
        raise RuntimeError(f"output with shape {list(out_shape)} doesn't match the broadcast shape {list(full)}")


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` with PyTorch's shape and dtype errors."""
    if not isinstance(input, Tensor):
        raise TypeError(f"linear(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(weight, Tensor):
        raise TypeError(f"linear(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    xs, ws = input._data.shape, weight._data.shape
    if len(ws) != 2 or len(xs) == 0:
        # PyTorch falls back to matmul here (1-D weight, 0-d input); so do we, with its errors.
        out = input.matmul(weight.t() if len(ws) == 2 else weight)
        return out + bias if bias is not None else out
    if xs[-1] != ws[1]:
        rows = int(np.prod(xs[:-1])) if len(xs) > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{xs[-1]} and {ws[1]}x{ws[0]})")
    if bias is not None and bias._data.dtype != weight._data.dtype:  # addmm checks self against mat2 first
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_dtype_word(bias)} and "
                           f"{_dtype_word(weight)}")
    if input._data.dtype != weight._data.dtype:
        if bias is None:  # PyTorch's mm (matmul) path, whose message names C++ types
            from ...ops.products import cpp_type_name
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{cpp_type_name(input._data.dtype)} != {cpp_type_name(weight._data.dtype)}")
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_word(input)} and "
                           f"{_dtype_word(weight)}")
    if bias is not None:
        bs = bias._data.shape
        if bs not in ((ws[0],), (1,), ()):
            out_shape = xs[:-1] + (ws[0],)
            # PyTorch uses addmm on the folded 2-D product (the bias expanded to it) for 2-D input, and for
            # contiguous input with a bias that holds one row; otherwise matmul, then the bias added in place.
            one_row = len(bs) >= 1 and int(np.prod(bs)) == bs[-1]
            if len(xs) == 2 or (one_row and input._data.flags.c_contiguous):
                rows = int(np.prod(xs[:-1])) if len(xs) > 1 else 1
                _expanded_shape(bs, (rows, ws[0]), bias)  # PyTorch's expand errors
            else:
                _check_bias_adds(bs, out_shape)
            if len(bs) > 1:  # a bias per row: the Op's bias gradient is a column sum, so add it outside
                out = linear(input, weight) + bias
                return out.reshape(out_shape) if out.shape != out_shape else out
    if input._data.dtype.kind not in "fc" and input._data.dtype not in _dt.LOW_PRECISION_NP:  # integer products: PyTorch has no gradient for them
        out = Tensor._wrap(input._data.reshape(-1, xs[-1]) @ weight._data.T)
        out = out.reshape(xs[:-1] + (ws[0],))
        return out + bias if bias is not None else out
    return _apply_op(LinearOp, (input, weight, bias))  # LinearOp.apply, minus its frame


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T W_k x2 + b_k``."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.shape[0]} and "
                           f"{input2.shape[0]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    from ...ops.products import einsum
    from ...autograd.grad_mode import state
    if input1._data.dtype.kind == "c" and state.enabled and any(t._requires_grad for t in (input1, input2, weight)):
        # PyTorch computes the values but defines no complex derivative for its _trilinear kernel
        raise RuntimeError("_trilinear does not support automatic differentiation for outputs with complex dtype.")
    out = einsum("...i,kij,...j->...k", input1, weight, input2)
    return out + bias if bias is not None else out
