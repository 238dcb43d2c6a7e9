"""F.pad: constant padding as one Op (negative pads crop), reflect/replicate/circular as index gathers."""
import numpy as np

from ...autograd.function import Op
from ...ops import _poly as P
from ...tensor import Tensor


def _constant_pad_np(x, pads, value):
    """``pads``: (before, after) per dim of x, possibly negative (cropping)."""
    out_shape = tuple(s + b + a for s, (b, a) in zip(x.shape, pads))
    out = np.full(out_shape, value, x.dtype) if value != 0 else np.zeros(out_shape, x.dtype)
    src, dst = [], []
    for s, (b, a) in zip(x.shape, pads):
        src.append(slice(max(-b, 0), s - max(-a, 0)))
        dst.append(slice(max(b, 0), max(b, 0) + max(s - max(-b, 0) - max(-a, 0), 0)))
    out[tuple(dst)] = x[tuple(src)]
    return out


class ConstantPad(Op):
    __slots__ = ()
    node_name = "ConstantPadNdBackward0"  # PyTorch's name for this node

    kernel = staticmethod(_constant_pad_np)

    @staticmethod
    def forward(ctx, x, pads, value):
        ctx.pads = pads
        return _constant_pad_np(x, pads, value)

    @staticmethod
    def backward(ctx, g):
        # The adjoint of padding by p is padding by -p (a crop; cropped-away values get zero gradient).
        neg = tuple((-b, -a) for b, a in ctx.pads)
        return P.kernel_call(ConstantPad, g, neg, 0), None, None


def _pads_per_dim(pad, ndim):
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {ndim}")
    pads = [(0, 0)] * ndim
    for i in range(len(pad) // 2):  # pad lists the last dimension first
        pads[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return tuple(pads)


def _gather_index(n, b, a, mode, dim, shape):
    i = np.arange(-b, n + a)
    if mode == "reflect":
        if b >= n or a >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but "
                               f"got: padding ({b}, {a}) at dimension {dim} of input {list(shape)}")
        i = np.abs(i)
        i = np.where(i >= n, 2 * (n - 1) - i, i)
    elif mode == "replicate":
        if n == 0:
            raise RuntimeError("padding size is too large for an empty dimension")
        i = np.clip(i, 0, n - 1)
    else:  # circular: PyTorch crops the negative sides first, then wraps the positive ones around what is left
        if b > n or a > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        lo, kept = max(-b, 0), n + min(b, 0) + min(a, 0)
        if max(b, 0) > kept or max(a, 0) > kept:  # the cropped dimension would be wrapped around more than once
            raise RuntimeError("Padding value causes wrapping around more than once.")
        i = lo + np.mod(np.arange(-max(b, 0), kept + max(a, 0)), max(kept, 1))
    return i


def _check_output_size(mode, shape, pads, n_padded):
    """PyTorch's refusals of negative pads that leave too little: circular, a dim cropped below nothing;
    reflect/replicate, every padded dim empty (and then any dim negative)."""
    sizes = [s + b + a for s, (b, a) in zip(shape, pads)]
    if mode == "circular":
        if any(s + min(b, 0) + min(a, 0) < 0 for s, (b, a) in zip(shape, pads)):
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    dims = range(len(shape) - n_padded, len(shape))
    if all(sizes[d] < 1 for d in dims):
        names = "DHW"[3 - n_padded:]
        ins = [f"{c}: {shape[d]}" for c, d in zip(names, dims)]
        inp = ins[0] if n_padded == 1 else " ".join(ins[:-1]) + ", " + ins[-1]
        if mode == "replicate" and n_padded == 2:
            inp += " "  # (sic: PyTorch's 2-d replicate message has this space)
        outs = " ".join(f"{c}: {sizes[d]}" for c, d in zip(names, dims))
        raise RuntimeError(f"input ({inp}) is too small. Calculated output {outs}")
    if min(sizes) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {sizes}")


def pad(input, pad, mode="constant", value=None):
    """Pad (or crop, with negative values) the last ``len(pad) // 2`` dimensions."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    pads = _pads_per_dim(pad, input.dim())
    if mode == "constant":
        shape = input.shape
        if any(s + min(b, 0) + min(a, 0) < 0 for s, (b, a) in zip(shape, pads)):
            raise RuntimeError("narrow(): length must be non-negative.")  # PyTorch crops with narrow first
        return ConstantPad.apply(input, pads, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}"" doesn\'t take in value argument.')
    n_padded = len(pad) // 2
    if not 1 <= n_padded <= 3 or input.dim() not in (n_padded + 1, n_padded + 2):
        raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    _check_output_size(mode, input.shape, pads, n_padded)
    out = input
    for d, (b, a) in enumerate(pads):
        if b == 0 and a == 0:
            continue
        idx = _gather_index(input.shape[d], b, a, mode, d, input.shape)
        out = out.index_select(d, Tensor._wrap(idx))
    return out
