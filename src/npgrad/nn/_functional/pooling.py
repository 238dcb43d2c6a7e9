"""Pooling over 1, 2 or 3 spatial dims: max_pool, avg_pool, lp_pool, adaptive_avg_pool and adaptive_max_pool.

Windowed pools walk the kernel offsets: each offset is one strided slice of the padded input, so the forward
is prod(kernel) elementwise passes (a running max that remembers which offset won, or a running sum) and the
backward is as many slice-adds. The max pool's gradient is linear in the upstream gradient for fixed winners, so
``MaxPoolScatter``/``MaxPoolGather`` (and the average pool and its adjoint) form pairs of Ops that differentiate
into each other under ``create_graph=True``. 1-D inputs are pooled as images of height 1, as PyTorch does.
"""
import functools
import itertools
import math

import numpy as np

from ... import dtypes as _dt
from ... import kernels as _kernels
from ...autograd.function import Op
from ...kernels import pooling as _kpool
from ...ops import _poly as P
from ...tensor import Tensor
from .conv import geometry, _cropped as _crop, _offset_slices as _offset_slices_cached, _padded as _pad_zero
from ._utils import as_ints


def _offset_slices(geo):
    return _slices_only(geo.k, geo.d, geo.s, geo.out)


@functools.lru_cache(maxsize=512)
def _slices_only(k, d, s, out):
    return tuple([sl for _, sl in _offset_slices_cached(k, d, s, out)])


def _padded_shape(shape, geo):
    return tuple(shape[:2]) + geo.psize


# -- max pooling ---------------------------------------------------------------------------------------------------

def _index_type(K):
    return np.uint8 if K < 256 else np.uint16 if K < 65536 else np.uint32


def _max_pool_arrays(x, geo):
    """(values, winner) of the pool: the compiled 2-D kernel where it applies (the same bits), else NumPy's."""
    if len(geo.k) == 2 and _kernels.fits(x):
        got = _kpool.max_pool2d(x, geo.k, geo.s, geo.d, geo.lo, geo.out, _index_type(math.prod(geo.k)))
        if got is not None:
            return got
    return _max_pool_np(x, geo)


def _max_pool_np(x, geo):
    """(values, winner): winner is the index of the first kernel offset holding each window's maximum."""
    lowest = -np.inf if x.dtype.kind == "f" or x.dtype in _dt.LOW_PRECISION_NP else np.iinfo(x.dtype).min
    xp = _pad_zero(x, geo, lowest)
    slices = _offset_slices(geo)
    K = len(slices)
    best = xp[slices[0]].copy()
    for sl in slices[1:]:
        np.maximum(best, xp[sl], out=best)  # NaN propagates, as in PyTorch
    # Winners without masked writes (slow in NumPy): the first offset k equal to the max is
    # ne0 * (1 + ne1 * (1 + ... ne[K-2])) with ne_k = (x_k != max), evaluated from the inside out
    # (3 passes an offset, was 5; K - 1 where no offset equals the max, as a NaN window, fixed below).
    # LeNet's 2x2 pool of 64x16x28x28: 1.29 -> 1.04 ms.
    itype = _index_type(K)
    ne = np.empty(best.shape, bool)
    if K == 1:
        arg = np.zeros(best.shape, itype)
    else:
        np.not_equal(xp[slices[K - 2]], best, out=ne)
        arg = ne.astype(itype)
    for k in range(K - 3, -1, -1):
        arg += itype(1)
        np.not_equal(xp[slices[k]], best, out=ne)
        np.multiply(arg, ne, out=arg)
    if (x.dtype.kind == "f" or x.dtype in _dt.LOW_PRECISION_NP) and np.isnan(best).any():  # PyTorch reports the last NaN of a window
        for k, sl in enumerate(slices):
            arg[np.isnan(xp[sl])] = k
    return best, arg


def _winners(values, hit):
    """``values`` where ``hit``, else an exact 0: picked bit for bit (ops._poly.bits_select, as fast as a 0/1
    multiply), so a NaN or inf at a position not hit never leaks in (NaN * 0 = NaN)."""
    r = P.bits_select(hit, True, values, 0.0)
    return np.where(hit, values, 0) if r is None else r


def _scatter_disjoint(g, arg, geo, it):
    """_scatter_np where windows do not overlap (stride == kernel, no dilation): each offset's winners are
    written straight into their slice as bits (g's or 0's), with no running sum. ``g + 0.0`` first turns -0.0
    into +0.0 as the sum from zeros does, so the result is bit-identical. LeNet's pools at batch 64, 2x2: 1.42
    -> 1.02 ms (64x16x28x28) and 0.35 -> 0.20 ms (64x32x10x10), 1 thread."""
    gp = np.zeros(_padded_shape(g.shape, geo), g.dtype)
    bits = np.add(g, 0.0, dtype=g.dtype).view(it)
    hit = np.empty(g.shape, bool)
    mask = np.empty(g.shape, it)
    for k, sl in enumerate(_offset_slices(geo)):
        np.equal(arg, k, out=hit)
        np.negative(hit.view(np.int8), out=mask)  # all bits set where hit
        np.bitwise_and(mask, bits, out=gp[sl].view(it))
    return _crop(gp, geo)


def _scatter_np(g, arg, geo):
    """Each window's gradient to its winner (PyTorch's scatter: the other inputs get an exact 0)."""
    if len(geo.k) == 2 and type(g) is np.ndarray and g.size and arg.flags.c_contiguous and _kernels.ready():
        gc = np.ascontiguousarray(g)  # (an upstream gradient may be a broadcast view)
        if _kernels.fits(gc):
            got = _kpool.max_pool2d_scatter(gc, arg, geo.k, geo.s, geo.d, geo.lo, geo.size)
            if got is not None:
                return got
    it = P._SAME_WIDTH_INT.get(g.dtype)
    if it is not None and geo.s == geo.k and all(d == 1 for d in geo.d):
        return _scatter_disjoint(g, arg, geo, it)
    gp = np.zeros(_padded_shape(g.shape, geo), g.dtype)
    hit = np.empty(g.shape, bool)
    for k, sl in enumerate(_offset_slices(geo)):
        np.equal(arg, k, out=hit)
        gp[sl] += _winners(g, hit)
    return _crop(gp, geo)


def _gather_np(gx, arg, geo):
    """Each window's winner's value of gx (the scatter's adjoint)."""
    gp = _pad_zero(gx, geo)
    out = np.zeros(arg.shape, gx.dtype)
    hit = np.empty(arg.shape, bool)
    for k, sl in enumerate(_offset_slices(geo)):
        np.equal(arg, k, out=hit)
        out += _winners(gp[sl], hit)
    return out


MaxPoolScatter, MaxPoolGather = P.adjoint_pair("MaxPoolScatter", _scatter_np, _gather_np, "MaxPoolGather")


class MaxPoolOp(Op):
    __slots__ = ()

    @staticmethod
    def node_name(ctx):  # PyTorch's name for this node
        return f"MaxPool{len(ctx.geo.k)}DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, geo, out, arg):
        # The pooling itself runs before apply (return_indices needs the winners either way).
        ctx.arg, ctx.geo = arg, geo
        return out

    @staticmethod
    def backward(ctx, g):
        return P.kernel_call(MaxPoolScatter, g, ctx.arg, ctx.geo), None, None, None


def _flat_indices(arg, geo):
    """The winners as flat indices into each input plane, as return_indices reports them."""
    n = len(geo.k)
    offs = np.unravel_index(arg.astype(np.int64), geo.k)
    flat = 0
    for i in range(n):
        grid = np.arange(geo.out[i]).reshape((-1,) + (1,) * (n - 1 - i))
        flat = flat * geo.size[i] + (grid * geo.s[i] - geo.lo[i] + offs[i] * geo.d[i])
    return flat


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
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input" if n > 1 else
                           f"{name}() Expected 2D or 3D input tensor, but got {list(x.shape)}")
    if x.numel() == 0 and (nd == n + 1 or 0 in x.shape[1:]):  # only an empty batch passes, as in PyTorch
        _empty_pool_error(x, n, name)
    if n == 3 and (isinstance(kernel_size, (list, tuple)) and len(kernel_size) not in (1, 3)):
        raise RuntimeError(f"{name}: kernel_size must {'either ' if max_pool else ''}be a single int, or a tuple of "
                           "three ints")
    k = as_ints(kernel_size, n, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else as_ints(stride, n, "stride")
    p = as_ints(padding, n, "padding")
    d = as_ints(dilation, n, "dilation")
    if n == 3:
        if 0 in s:
            raise RuntimeError("stride should not be zero")
        for what, vals in (("kernel size", k), ("stride", s)):
            if any(v <= 0 for v in vals):
                tag = "k" if what == "kernel size" else "d"
                raise RuntimeError(f"{what} should be greater than zero, but got " +
                                   " ".join(f"{tag}{a}: {v}" for a, v in zip("THW", vals)))
        if any(v <= 0 for v in d):
            raise RuntimeError("dilation should be greater than zero, but got " +
                               " ".join(f"dilation{a}: {v}" for a, v in zip("THW", d)))
    if min(k) <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           " ".join(f"k{a}: {v}" for a, v in zip("HW"[-n:], k)))
    if min(s) <= 0:
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
    if n == 3 and not max_pool and any(sz + 2 * pp < kk for sz, pp, kk in zip(spatial, p, k)):
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if min(outs) <= 0:
        cs = xb.shape[1]
        raise RuntimeError(f"Given input size: ({cs}x{'x'.join(str(v) for v in spatial)}). Calculated output size: "
                           f"({cs}x{'x'.join(str(v) for v in outs)}). Output size is too small")
    if n == 1:  # pooled as an image of height 1, as PyTorch does
        k, s, p, d, outs, spatial = (1,) + k, (1,) + s, (0,) + p, (1,) + d, [1] + outs, (1,) + spatial
    # Padding after the input covers ceil-mode windows that run past it.
    hi = tuple([max((o - 1) * ss + dd * (kk - 1) + 1 - sz - pp, 0)
                for sz, kk, ss, pp, dd, o in zip(spatial, k, s, p, d, outs)])
    geo = geometry(xb.shape[0], xb.shape[1], spatial, k, s, d, p, hi, tuple(outs), 1)
    return xb, unbatched, geo, p


def _empty_pool_error(x, n, name):
    shape = list(x.shape)
    if n == 3:
        dim = next(i for i, v in enumerate(shape[-4:]) if v == 0)
        where = "max_pool3d_with_indices_out_cpu_template" if name == "max_pool3d" else name
        raise RuntimeError(f"{where}(): Expected input's non-batch dimensions to have positive length, but input has "
                           f"a shape of {shape} and non-batch dimension {dim} has length zero!")
    if n == 1 and name == "max_pool1d":
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape}")
    if n == 1:  # PyTorch's avg_pool1d runs avg_pool2d on the input with a unit height
        shape.insert(len(shape) - 1, 1)
    raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                       f"got:{shape}")


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n, name):
    x, unbatched, geo, _ = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, n, name, True)
    kind = x._data.dtype.kind
    if kind == "b" or (kind != "f" and n == 1):
        where = "max_pool1d_impl" if n == 1 else f"max_pool{n}d"
        raise NotImplementedError(f'"{where}" not implemented for \'{_dt.scalar_name(x.dtype)}\'')
    xg = x.unsqueeze(2) if n == 1 else x
    vals, arg = _max_pool_arrays(xg._data, geo)
    out = MaxPoolOp.apply(xg, geo, vals, arg)
    idx = Tensor._wrap(_flat_indices(arg, geo)) if return_indices else None
    if n == 1:
        out = out.squeeze(2)
        idx = idx.squeeze(2) if idx is not None else None
    if unbatched:
        out = out.squeeze(0)
        idx = idx.squeeze(0) if idx is not None else None
    return (out, idx) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3, "max_pool3d")


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# -- average pooling ------------------------------------------------------------------------------------------------

def _divisor(geo, real_pads, count_include_pad, divisor_override, dtype):
    if divisor_override:
        return np.asarray(divisor_override, dtype)
    div = np.ones((), np.int64)
    n = len(geo.k)
    for i, (o, st, k, pad, size) in enumerate(zip(geo.out, geo.s, geo.k, real_pads, geo.size)):
        start = np.arange(o) * st - pad
        end = np.minimum(start + k, size + pad)
        along = end - start if count_include_pad else np.minimum(end, size) - np.maximum(start, 0)
        div = div[..., None] * along.reshape((1,) * i + (-1,))
    return div.reshape(div.shape[-n:]).astype(dtype)


def _avg_np(x, geo, div):
    xp = _pad_zero(x, geo)
    slices = _offset_slices(geo)
    acc = xp[slices[0]].copy()
    for sl in slices[1:]:
        acc += xp[sl]
    if acc.dtype.kind == "i":  # int64: PyTorch's integer average rounds toward zero
        q = np.abs(acc) // div
        return np.where(acc < 0, -q, q)
    acc /= div
    return acc


def _avg_adjoint_np(g, geo, div):
    gd = g / div
    gp = np.zeros(_padded_shape(g.shape, geo), gd.dtype)
    for sl in _offset_slices(geo):
        gp[sl] += gd
    return _crop(gp, geo)


AvgPoolOp, AvgPoolAdjoint = P.adjoint_pair("AvgPool", _avg_np, _avg_adjoint_np, "AvgPoolAdjoint",
                                           node_name=lambda node: f"AvgPool{len(node.args[0].k)}DBackward0")


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, n, name):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x, unbatched, geo, p = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, n, name, False)
    if x._data.dtype.kind != "f" and x._data.dtype != np.int64 and x._data.dtype not in _dt.LOW_PRECISION_NP:
        where = "avg_pool3d_out_frame" if n == 3 else "avg_pool2d"
        raise NotImplementedError(f'"{where}" not implemented for \'{_dt.scalar_name(x.dtype)}\'')
    div = _divisor(geo, p, count_include_pad, divisor_override, x._data.dtype)
    xg = x.unsqueeze(2) if n == 1 else x
    out = AvgPoolOp.apply(xg, geo, div)
    if n == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3,
                     "avg_pool3d")


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


def _adaptive_sizes(input, output_size, n, name, max_pool=False):
    if input.dim() not in (n + 1, n + 2):
        colon = ":" if max_pool and n == 3 else ""
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got{colon} {list(input.shape)}")
    if isinstance(output_size, (list, tuple)):
        sizes = list(output_size)
        if len(sizes) != n:
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be {n}" if max_pool and n == 3 else
                               f"{name}: output_size must be {n}")
    else:
        sizes = [output_size] * n
    sizes = [s if o is None else int(o) for o, s in zip(sizes, input.shape[-n:])]
    if not max_pool and all(o == 1 for o in sizes):
        return sizes   # PyTorch takes a mean for output size 1, empty dims and all (a NaN)
    shape = list(input.shape)
    if name == "adaptive_avg_pool1d":  # PyTorch runs it as the 2-D pool on a height-1 image, and says so
        name, shape = "adaptive_avg_pool2d", shape[:-1] + [1] + shape[-1:]
    for d in range(1, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shape} with dimension {d} being empty")
    return sizes


def _adaptive_avg_last(x, n_out):
    """Adaptive average over the last axis: a mean of equal blocks, or a product with an averaging matrix."""
    n_in = x.shape[-1]
    if n_out == n_in:
        return x
    if n_in % n_out == 0:
        return x.reshape(tuple(x.shape[:-1]) + (n_out, n_in // n_out)).mean(-1)
    if not np.isfinite(x._data).all():  # a matrix product would smear a NaN or inf over every bin
        from ...ops.movement import stack
        return stack([x[..., a:b].mean(-1) for a, b in zip(*_bins(n_in, n_out))], -1)
    m = Tensor._wrap(_averaging_matrix(n_in, n_out, x._data.dtype).T.copy())
    lead = tuple(x.shape[:-1])
    return (x.reshape(math.prod(lead), n_in) @ m).reshape(lead + (n_out,))


def _adaptive_avg(input, sizes, name):
    n = len(sizes)
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_dt.scalar_name(input.dtype)}\'')
    spatial = tuple(input.shape[-n:])
    axes = tuple(range(-n, 0))
    if 0 in sizes:  # nothing to average: an empty result that still belongs to the graph
        return input[(Ellipsis,) + tuple(slice(0, o) for o in sizes)]
    if all(o == 1 for o in sizes):
        return input.mean(axes, keepdim=True)
    if all(s % o == 0 for s, o in zip(spatial, sizes)):  # equal blocks: one reshape and one mean
        lead = tuple(input.shape[:-n])
        blocks = tuple(v for o, s in zip(sizes, spatial) for v in (o, s // o))
        return input.reshape(lead + blocks).mean(tuple(range(-2 * n + 1, 0, 2)))
    y = _adaptive_avg_last(input, sizes[-1])
    for i, o in zip(range(-2, -n - 1, -1), reversed(sizes[:-1])):  # one axis at a time, moved last
        y = _adaptive_avg_last(y.transpose(i, -1), o).transpose(i, -1)
    return y


def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg(input, _adaptive_sizes(input, output_size, 1, "adaptive_avg_pool1d"), "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg(input, _adaptive_sizes(input, output_size, 2, "adaptive_avg_pool2d"), "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg(input, _adaptive_sizes(input, output_size, 3, "adaptive_avg_pool3d"), "adaptive_avg_pool3d")


def _adaptive_max(input, sizes, return_indices, name):
    n = len(sizes)
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_dt.scalar_name(input.dtype)}\'')
    spatial = tuple(input.shape[-n:])
    if 0 in sizes:  # no bins: an empty result that still belongs to the graph, and no indices
        out = input[(Ellipsis,) + tuple(slice(0, o) for o in sizes)]
        return (out, Tensor._wrap(np.zeros(tuple(out.shape), np.int64))) if return_indices else out
    if all(s % o == 0 for s, o in zip(spatial, sizes)):
        k = tuple(s // o for s, o in zip(spatial, sizes))
        return (max_pool1d, max_pool2d, max_pool3d)[n - 1](input, k, k, return_indices=return_indices)
    # Uneven bins: one max per output cell over its (possibly overlapping) region.
    from ...ops.movement import stack
    from ...ops.reduce import amax
    bins = [list(zip(*_bins(s, o))) for s, o in zip(spatial, sizes)]
    axes = tuple(range(-n, 0))
    cells, flat = [], []
    for cell in itertools.product(*bins):
        seg = input[(Ellipsis,) + tuple(slice(a, b) for a, b in cell)]
        cells.append(amax(seg, axes))
        local = np.unravel_index(seg._data.reshape(tuple(seg.shape[:-n]) + (math.prod(seg.shape[-n:]),)).argmax(-1),
                                 tuple(b - a for a, b in cell))
        index = 0
        for (a, _), i, size in zip(cell, local, spatial):
            index = index * size + i + a
        flat.append(index)
    lead = tuple(input.shape[:-n])
    out = stack(cells, -1).reshape(lead + tuple(sizes))
    idx = np.stack(flat, -1).reshape(lead + tuple(sizes))
    return (out, Tensor._wrap(idx.astype(np.int64))) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    sizes = _adaptive_sizes(input, output_size, 1, "adaptive_max_pool1d", True)
    return _adaptive_max(input, sizes, return_indices, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    sizes = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d", True)
    return _adaptive_max(input, sizes, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    sizes = _adaptive_sizes(input, output_size, 3, "adaptive_max_pool3d", True)
    return _adaptive_max(input, sizes, return_indices, "adaptive_max_pool3d")


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool3d(input, output_size, True)


# -- power-average pooling --------------------------------------------------------------------------------------------

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n):
    k = as_ints(kernel_size, n, "kernel_size")
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[n - 1]
    out = avg(input.pow(norm_type), k if n > 1 else k[0], stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)
