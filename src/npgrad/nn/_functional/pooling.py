"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d, adaptive_max_pool1d/2d.

Windowed pools walk the KH * KW kernel offsets: each offset is one strided slice of the padded input,
so the forward is KH * KW elementwise passes (a running max that remembers which offset won, or a
running sum) and the backward is KH * KW slice-adds. The max pool's gradient is linear in the upstream
gradient for fixed winners, so ``MaxPoolScatter``/``MaxPoolGather`` (and the average pool and its
adjoint) form pairs of Ops that differentiate into each other under ``create_graph=True``.
"""
import numpy as np

from ...autograd.function import Op
from ...ops import _poly as P
from ...tensor import Tensor
from .conv import Geometry, offset_slices
from ._utils import as_ints


def _offset_slices(geo):
    return [sl for _, _, sl in offset_slices(geo)]


def _pad(x, geo, value):
    if not (geo.pt or geo.pb or geo.pl or geo.pr):
        return x
    N, C, H, W = x.shape
    out = np.full((N, C, H + geo.pt + geo.pb, W + geo.pl + geo.pr), value, x.dtype)
    out[:, :, geo.pt:geo.pt + H, geo.pl:geo.pl + W] = x
    return out


def _crop(xp, geo):
    if not (geo.pt or geo.pb or geo.pl or geo.pr):
        return xp
    return xp[:, :, geo.pt:geo.pt + geo.H, geo.pl:geo.pl + geo.W]


# -- max pooling ---------------------------------------------------------------------------------------------------

def _max_pool_np(x, geo):
    """(values, winner): winner is the index of the first kernel offset holding each window's maximum."""
    xp = _pad(x, geo, -np.inf)
    slices = _offset_slices(geo)
    K = len(slices)
    best = xp[slices[0]].copy()
    for sl in slices[1:]:
        np.maximum(best, xp[sl], out=best)  # NaN propagates, as in PyTorch
    # Winners without masked writes (slow in NumPy): add k where offset k is the first to equal the max.
    itype = np.uint8 if K < 256 else np.uint16 if K < 65536 else np.uint32
    arg = np.zeros(best.shape, itype)
    found = np.zeros(best.shape, bool)
    eq = np.empty(best.shape, bool)
    first = np.empty(best.shape, bool)
    for k, sl in enumerate(slices):
        np.equal(xp[sl], best, out=eq)
        if k:
            np.greater(eq, found, out=first)  # eq and not found
            arg += first.view(np.uint8).astype(itype, copy=False) * itype(k)
        found |= eq
    if np.isnan(best).any():  # PyTorch reports the last NaN of a window
        for k, sl in enumerate(slices):
            arg[np.isnan(xp[sl])] = k
    return best, arg


def _winners(values, hit):
    """``values`` where ``hit``, else an exact 0: picked bit for bit (ops._poly.bits_select, as fast as a 0/1
    multiply), so a NaN or inf at a position not hit never leaks in (NaN * 0 = NaN)."""
    r = P.bits_select(hit, True, values, 0.0)
    return np.where(hit, values, 0) if r is None else r


def _scatter_np(g, arg, geo):
    """Each window's gradient to its winner (PyTorch's scatter: the other inputs get an exact 0)."""
    N, C = g.shape[:2]
    gp = np.zeros((N, C, geo.H + geo.pt + geo.pb, geo.W + geo.pl + geo.pr), g.dtype)
    hit = np.empty(g.shape, bool)
    for k, sl in enumerate(_offset_slices(geo)):
        np.equal(arg, k, out=hit)
        gp[sl] += _winners(g, hit)
    return _crop(gp, geo)


def _gather_np(gx, arg, geo):
    """Each window's winner's value of gx (the scatter's adjoint)."""
    gp = _pad(gx, geo, 0)
    out = np.zeros(arg.shape, gx.dtype)
    hit = np.empty(arg.shape, bool)
    for k, sl in enumerate(_offset_slices(geo)):
        np.equal(arg, k, out=hit)
        out += _winners(gp[sl], hit)
    return out


MaxPoolScatter, MaxPoolGather = P.adjoint_pair("MaxPoolScatter", _scatter_np, _gather_np, "MaxPoolGather")


class MaxPool2dOp(Op):
    __slots__ = ()
    node_name = "MaxPool2DWithIndicesBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, geo, out, arg):
        # The pooling itself runs before apply (return_indices needs the winners either way).
        ctx.arg, ctx.geo = arg, geo
        return out

    @staticmethod
    def backward(ctx, g):
        return P.kernel_call(MaxPoolScatter, g, ctx.arg, ctx.geo), None, None, None


def _flat_indices(arg, geo):
    """The winners as flat indices into each (H, W) input plane, as return_indices reports them."""
    kh, kw = np.divmod(arg.astype(np.int64), geo.KW)
    oh = np.arange(geo.OH).reshape(-1, 1)
    ow = np.arange(geo.OW).reshape(1, -1)
    h = oh * geo.sh - geo.pt + kh * geo.dh
    w = ow * geo.sw - geo.pl + kw * geo.dw
    return h * geo.W + w


# -- geometry and argument checks ----------------------------------------------------------------------------------

def _out_size(n, k, s, p, d, ceil_mode):
    eff = d * (k - 1) + 1
    num = n + 2 * p - eff
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1  # the last window must start inside the input or the left padding
    return o


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, n, name, max_pool):
    nd = x.dim()
    if nd not in (n + 1, n + 2):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input" if n == 2 else
                           f"{name}() Expected 2D or 3D input tensor, but got {list(x.shape)}")
    if x.numel() == 0 and (nd == n + 1 or 0 in x.shape[1:]):  # only an empty batch passes, as in PyTorch
        _empty_pool_error(x, n, name)
    k = as_ints(kernel_size, n, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else as_ints(stride, n, "stride")
    p = as_ints(padding, n, "padding")
    d = as_ints(dilation, n, "dilation")
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           " ".join(f"k{a}: {v}" for a, v in zip("HW"[-n:], k)))
    if any(v <= 0 for v in s):
        raise RuntimeError("stride should be greater than zero, but got " +
                           " ".join(f"s{a}: {v}" for a, v in zip("HW"[-n:], s)))
    for kk, pp, dd in zip(k, p, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    unbatched = nd == n + 1
    xb = x.unsqueeze(0) if unbatched else x
    spatial = tuple(xb.shape[2:])
    outs = [_out_size(sz, kk, ss, pp, dd, ceil_mode) for sz, kk, ss, pp, dd in zip(spatial, k, s, p, d)]
    if any(o <= 0 for o in outs):
        cs = xb.shape[1]
        raise RuntimeError(f"Given input size: ({cs}x{'x'.join(str(v) for v in spatial)}). Calculated output size: "
                           f"({cs}x{'x'.join(str(v) for v in outs)}). Output size is too small")
    if n == 1:
        k, s, p, d, outs, spatial = (1,) + k, (1,) + s, (0,) + p, (1,) + d, [1] + outs, (1,) + spatial
    # Padding after the input covers ceil-mode windows that run past it.
    pads = []
    for sz, kk, ss, pp, dd, o in zip(spatial, k, s, p, d, outs):
        need = (o - 1) * ss + dd * (kk - 1) + 1
        pads.append((pp, max(need - sz - pp, 0)))
    N, C = xb.shape[0], xb.shape[1]
    geo = Geometry(N, C, spatial[0], spatial[1], k[0], k[1], s[0], s[1], d[0], d[1], pads[0][0], pads[0][1],
                   pads[1][0], pads[1][1], outs[0], outs[1], 1)
    return xb, unbatched, geo, p


def _empty_pool_error(x, n, name):
    shape = list(x.shape)
    if n == 1 and name == "max_pool1d":
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape}")
    if n == 1:  # PyTorch's avg_pool1d runs avg_pool2d on the input with a unit height
        shape.insert(len(shape) - 1, 1)
    raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                       f"got:{shape}")


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n, name):
    x, unbatched, geo, _ = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, n, name, True)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f'"max_pool2d" not implemented for \'{x.dtype}\'')
    x4 = x.unsqueeze(2) if n == 1 else x
    vals, arg = _max_pool_np(x4._data, geo)
    out = MaxPool2dOp.apply(x4, geo, vals, arg)
    idx = Tensor._wrap(_flat_indices(arg, geo)) if return_indices else None
    if n == 1:
        out = out.squeeze(2)
        idx = idx.squeeze(2) if idx is not None else None
    if unbatched:
        out = out.squeeze(0)
        idx = idx.squeeze(0) if idx is not None else None
    return (out, idx) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# -- average pooling ------------------------------------------------------------------------------------------------

def _divisor(geo, real_pads, count_include_pad, divisor_override, dtype):
    if divisor_override:
        return np.asarray(divisor_override, dtype)

    def one(n_out, stride, k, pad, size):
        start = np.arange(n_out) * stride - pad
        end = np.minimum(start + k, size + pad)
        full = end - start
        real = np.minimum(end, size) - np.maximum(start, 0)
        return full if count_include_pad else real

    dh = one(geo.OH, geo.sh, geo.KH, real_pads[0], geo.H)
    dw = one(geo.OW, geo.sw, geo.KW, real_pads[1], geo.W)
    return (dh[:, None] * dw[None, :]).astype(dtype)


def _avg_np(x, geo, div):
    xp = _pad(x, geo, 0)
    slices = list(_offset_slices(geo))
    acc = xp[slices[0]].copy()
    for sl in slices[1:]:
        acc += xp[sl]
    acc /= div
    return acc


def _avg_adjoint_np(g, geo, div):
    N, C = g.shape[:2]
    gd = g / div
    gp = np.zeros((N, C, geo.H + geo.pt + geo.pb, geo.W + geo.pl + geo.pr), gd.dtype)
    for sl in _offset_slices(geo):
        gp[sl] += gd
    return _crop(gp, geo)


AvgPool2dOp, AvgPoolAdjoint = P.adjoint_pair("AvgPool2d", _avg_np, _avg_adjoint_np, "AvgPoolAdjoint",
                                           node_name="AvgPool2DBackward0")


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, n, name):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x, unbatched, geo, p = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, n, name, False)
    div = _divisor(geo, p, count_include_pad, divisor_override, x._data.dtype)
    x4 = x.unsqueeze(2) if n == 1 else x
    out = AvgPool2dOp.apply(x4, geo, div)
    if n == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


# -- adaptive pooling -------------------------------------------------------------------------------------------------

def _bins(n_in, n_out):
    starts = [(i * n_in) // n_out for i in range(n_out)]
    ends = [-((-(i + 1) * n_in) // n_out) for i in range(n_out)]
    return starts, ends


def _averaging_matrix(n_in, n_out, dtype):
    m = np.zeros((n_out, n_in), np.float64)
    for i, (a, b) in enumerate(zip(*_bins(n_in, n_out))):
        m[i, a:b] = 1.0 / (b - a)
    return m.astype(dtype)


def _adaptive_sizes(input, output_size, n, name):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    if isinstance(output_size, (list, tuple)):
        sizes = list(output_size)
        if len(sizes) != n:
            raise RuntimeError(f"{name}: output_size must be {n}")
    else:
        sizes = [output_size] * n
    spatial = input.shape[-n:]
    return [s if o is None else int(o) for o, s in zip(sizes, spatial)]


def _adaptive_avg_last(x, n_out):
    """Adaptive average over the last axis: a mean of equal blocks, or a product with an averaging matrix."""
    n_in = x.shape[-1]
    if n_out == n_in:
        return x
    if n_in % n_out == 0:
        return x.reshape(tuple(x.shape[:-1]) + (n_out, n_in // n_out)).mean(-1)
    m = Tensor._wrap(_averaging_matrix(n_in, n_out, x._data.dtype).T.copy())
    lead = tuple(x.shape[:-1])
    return (x.reshape(-1, n_in) @ m).reshape(lead + (n_out,))


def adaptive_avg_pool2d(input, output_size):
    oh, ow = _adaptive_sizes(input, output_size, 2, "adaptive_avg_pool2d")
    H, W = input.shape[-2:]
    if oh == 1 and ow == 1:
        return input.mean((-2, -1), keepdim=True)
    if H % oh == 0 and W % ow == 0:
        lead = tuple(input.shape[:-2])
        return input.reshape(lead + (oh, H // oh, ow, W // ow)).mean((-3, -1))
    y = _adaptive_avg_last(input, ow)
    return _adaptive_avg_last(y.transpose(-1, -2), oh).transpose(-1, -2)


def adaptive_avg_pool1d(input, output_size):
    (ol,) = _adaptive_sizes(input, output_size, 1, "adaptive_avg_pool1d")
    return _adaptive_avg_last(input, ol)


def _adaptive_max(input, sizes, return_indices, name):
    n = len(sizes)
    spatial = tuple(input.shape[-n:])
    if all(s % o == 0 for s, o in zip(spatial, sizes)):
        k = tuple(s // o for s, o in zip(spatial, sizes))
        fn = max_pool2d if n == 2 else max_pool1d
        return fn(input, k, k, return_indices=return_indices)
    # Uneven bins: one max per output cell over its (possibly overlapping) region.
    from ...ops.movement import stack
    from ...ops.reduce import amax
    bins = [list(zip(*_bins(s, o))) for s, o in zip(spatial, sizes)]
    cells, flat = [], []
    if n == 1:
        for a, b in bins[0]:
            seg = input[..., a:b]
            cells.append(amax(seg, -1))
            flat.append(seg._data.argmax(-1) + a)
        out = stack(cells, -1)
        idx = np.stack(flat, -1)
    else:
        W = spatial[1]
        rows, irows = [], []
        for a, b in bins[0]:
            row, irow = [], []
            for c, d in bins[1]:
                seg = input[..., a:b, c:d]
                row.append(amax(seg, (-2, -1)))
                loc = seg._data.reshape(seg.shape[:-2] + ((b - a) * (d - c),)).argmax(-1)  # (not -1: empty batches)
                irow.append((loc // (d - c) + a) * W + loc % (d - c) + c)
            rows.append(stack(row, -1))
            irows.append(np.stack(irow, -1))
        out = stack(rows, -2)
        idx = np.stack(irows, -2)
    return (out, Tensor._wrap(idx.astype(np.int64))) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    sizes = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d")
    return _adaptive_max(input, sizes, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    sizes = _adaptive_sizes(input, output_size, 1, "adaptive_max_pool1d")
    return _adaptive_max(input, sizes, return_indices, "adaptive_max_pool1d")


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = as_ints(kernel_size, 2, "kernel_size")
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kh * kw).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)
