"""Normalization: layer_norm, batch_norm, group_norm, instance_norm, rms_norm, normalize.

``Normalize`` is one fused Op for "subtract the mean and divide by the standard deviation over some
axes, then scale and shift": layer_norm and training-mode batch_norm are both that op with different
axes. A plain backward reuses the normalized input and 1/std kept from the forward; under
``create_graph=True`` they are recomputed from the input Tensor so the gradient is differentiable.
"""
import math
import warnings

import numpy as np

from ... import _parallel
from ... import dtypes as _dt
from ... import kernels as _kernels
from ...kernels import channel_norm as _kchannel
from ...kernels import norm as _knorm
from ...autograd.function import Op
from ...autograd.grad_mode import no_grad
from ...ops import _poly as P
from ...tensor import Tensor

# PyTorch's CPU normalization kernels take float16 moments, the normalization and the affine step in
# float32 and round the output once (in float16 the squares overflow above ~256 and underflow below ~1e-4).
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _mean(x, axes, n):
    return P.sum(x, axis=axes, keepdims=True) * (1.0 / n)


def _np_mean(x, axes, n):
    """np.mean(x, axes, keepdims=True) for a float32/float64 array, bit for bit (its sum, then its division by
    the count as an intp, computed in float64 and cast back), without its ~8 us of Python wrappers: a small
    layer norm (64x128, batch-1 inference) spends its time in such overheads."""
    s = np.add.reduce(x, axis=axes, keepdims=True)
    np.true_divide(s, np.intp(n), out=s, casting="unsafe")
    return s


class Normalize(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, w, b, axes, eps, want_stats, recentre):
        if x.size == 0:  # an empty batch: an empty output, NaN moments (np.mean would warn on the empty slices)
            stat = np.full([1 if a in axes else s for a, s in enumerate(x.shape)], np.nan, x.dtype)
            ctx.save_for_backward(x, w)
            ctx.xhat, ctx.rstd, ctx.axes, ctx.eps, ctx.recentre = x.copy(), stat, axes, eps, recentre
            ctx.n = max(int(np.prod([x.shape[a] for a in axes])), 1)
            return (x.copy(), stat.reshape(-1), stat.reshape(-1)) if want_stats else x.copy()
        if x.dtype is _F16:
            out = Normalize.forward(ctx, x.astype(_F32), _wide(w), _wide(b), axes, eps, want_stats, recentre)
            ctx.save_for_backward(x, w)  # (xhat and rstd stay float32 for the backward)
            if want_stats:
                return (out[0].astype(_F16),) + out[1:]
            return out.astype(_F16)
        # Two full-size allocations (the normalized input, kept for backward, and the output); every other
        # step is in place or a reduction. layer_norm's rows of a large input are split over the threads.
        n = math.prod([x.shape[a] for a in axes])
        if (recentre and not want_stats and _last_axis(x, axes)
                and all(a is None or a.shape == x.shape[-1:] for a in (w, b))
                and _kernels.fits(x, *[a for a in (w, b) if a is not None])):
            got = _knorm.layer_norm_forward(x, w, b, eps)  # (compiled; corrected two-pass moments in float64)
            if got is not None:
                # Only the rows' mean and 1/std are kept: the backward rebuilds xhat from x (saved anyway), which
                # spares a write of x's size here and keeps the step's memory as PyTorch's.
                y, ctx.stats = got
                ctx.save_for_backward(x, w)
                ctx.xhat, ctx.rstd, ctx.axes, ctx.eps, ctx.recentre, ctx.n = None, None, axes, eps, recentre, n
                return y
        if _channel_layout(x, axes):
            return _channel_forward(ctx, x, w, b, axes, n, eps, want_stats)
        xhat, y = np.empty_like(x), np.empty_like(x)
        rows = _rows_split_applies(x, axes)
        if rows:
            mean, var, rstd = _by_rows(lambda *a: _moments_into(*a, (1,), n, eps), (x, xhat, y), n_out=3)
        else:
            mean, var, rstd = _moments_into(x, xhat, y, axes, n, eps)
        if recentre and _far_from_zero(mean, rstd):  # (between the phases: it sees every row)
            mean, var, rstd = _recentre(xhat, y, mean, axes, eps)
        if rows:
            _by_rows(lambda xh, r, out: _affine_into(xh, r, w, b, out), (xhat, rstd, y))
        else:
            _affine_into(xhat, rstd, w, b, y)
        ctx.save_for_backward(x, w)
        ctx.xhat, ctx.rstd, ctx.axes, ctx.eps, ctx.recentre = xhat, rstd, axes, eps, recentre
        ctx.n = n
        if want_stats:
            m, v = mean.reshape(-1), var.reshape(-1)
            ctx.mark_non_differentiable(m, v)
            return y, m, v
        return y

    @staticmethod
    def backward(ctx, g, *unused_stat_grads):
        x, w = ctx.saved_tensors
        axes, n = ctx.axes, ctx.n
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        if P.data_of(x).dtype is _F16:  # the engine rounds the float32 gradients back to float16
            x, w, g = P.cast(x, _F32), _wide(w), P.cast(g, _F32)
        if not P.is_tensor(g):
            # Fused NumPy kernels on the forward's saved xhat/rstd: ~1.4x faster than the general formula below
            # on arrays (layer_norm backward of 256x4096 float32: 3.4 vs 4.8 ms); test_two_formulas.py checks
            # they agree. (An empty batch's means warn in NumPy; PyTorch is silent.)
            if getattr(ctx, "centred", False):
                return _channel_backward(ctx, g, w, need_x, need_w, need_b)
            if ctx.xhat is None:  # the forward ran the layer norm kernel
                got = _layer_norm_backward_kernel(ctx, g, P.data_of(x), w, need_x, need_w, need_b)
                if got is not None:
                    return got
                ctx.xhat, ctx.rstd = _knorm.saved_xhat(P.data_of(x), ctx.stats)
            if g.size == 0:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    return _normalize_backward_np(g, w, ctx.xhat, ctx.rstd, axes, need_x, need_w, need_b, ctx)
            return _normalize_backward_np(g, w, ctx.xhat, ctx.rstd, axes, need_x, need_w, need_b, ctx)
        mean = _mean(x, axes, n)
        xc = x - mean
        rstd = 1.0 / P.sqrt(_mean(xc * xc, axes, n) + ctx.eps)
        if ctx.recentre and _far_from_zero(P.data_of(mean), P.data_of(rstd)):  # as in forward
            xc = xc - _mean(xc, axes, n)
            rstd = 1.0 / P.sqrt(_mean(xc * xc, axes, n) + ctx.eps)
        xhat = xc * rstd
        gx = gw = gb = None
        if need_x:
            gxhat = g * w if w is not None else g
            gx = (gxhat - _mean(gxhat, axes, n) - xhat * _mean(gxhat * xhat, axes, n)) * rstd
        if need_w:
            gw = g * xhat  # the engine sums it down to the weight's shape
        if need_b:
            gb = g
        return gx, gw, gb, None, None, None, None


# The mean's rounding error c (up to a few ulps of |mean|) is left in x - mean; it matters only where it is not
# small next to the standard deviation, i.e. where the values sit far from 0 compared with their spread
# (equal huge values: x - mean is then all rounding error, and would normalize to +-1 instead of 0).
# PyTorch's layer_norm and group_norm (Welford moments) get those right, so ``recentre`` does too: the
# deviations are recentred on their own mean, the corrected two-pass algorithm; elsewhere that extra pass
# would change nothing visible and is skipped (layer_norm is on the training hot path). batch_norm and
# instance_norm keep the plain two passes, which PyTorch's batch-norm kernel uses as well.
_RECENTRE_RATIO = 4.0


def _far_from_zero(mean, rstd):
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.abs(mean)
        r *= rstd
        return bool((r > _RECENTRE_RATIO).any())


def _recentre(xc, sq, mean, axes, eps):
    """Subtract the mean of the deviations ``xc`` in place; the corrected (mean, var, rstd)."""
    c = np.mean(xc, axis=axes, keepdims=True)
    xc -= c
    np.square(xc, out=sq)
    var = np.mean(sq, axis=axes, keepdims=True)
    return mean + c, var, 1.0 / np.sqrt(var + np.asarray(eps, xc.dtype))


class NativeLayerNorm(Normalize):
    __slots__ = ()
    node_name = "NativeLayerNormBackward0"  # PyTorch's name for this node


class NativeBatchNorm(Normalize):
    __slots__ = ()
    node_name = "NativeBatchNormBackward0"


def _last_axis(x, axes):
    """Normalizing over the last axis only (layer_norm, group_norm's groups): per-row sums and row dot products
    are then einsum calls, ~2.5x faster than NumPy's per-row reduce on short rows (2048x128 float32: 44 vs 117
    us; the dot product of two rows 76 us instead of a product pass and a reduce, 170) and no scratch pass."""
    return len(axes) == 1 and axes[0] == x.ndim - 1 and x.dtype.kind == "f" and x.dtype.itemsize >= 4


def _row_sums(x, scale):
    s = np.einsum("...i->...", x)[..., None]
    s *= scale
    return s


def _row_dots(a, b, scale):
    s = np.einsum("...i,...i->...", a, b)[..., None]
    s *= scale
    return s


def _moments_into(x, xhat, sq, axes, n, eps):
    """Normalize.forward's first phase: xhat = x - mean (and, off the last-axis path, sq = xhat^2) into the given
    arrays; (mean, var, rstd)."""
    if _last_axis(x, axes):
        inv = np.asarray(1.0 / n, x.dtype)
        mean = _row_sums(x, inv)
        np.subtract(x, mean, out=xhat)
        var = _row_dots(xhat, xhat, inv)
    else:
        mean = _np_mean(x, axes, n)
        np.subtract(x, mean, out=xhat)
        np.square(xhat, out=sq)
        var = _np_mean(sq, axes, n)
    return mean, var, 1.0 / np.sqrt(var + np.asarray(eps, x.dtype))


def _affine_into(xhat, rstd, w, b, y):
    """The second phase: xhat *= rstd (kept for backward), y = xhat * w + b, either of w and b optional."""
    xhat *= rstd
    if w is not None:
        np.multiply(xhat, w, out=y)
        if b is not None:
            y += b
    elif b is not None:
        np.add(xhat, b, out=y)
    else:
        np.copyto(y, xhat)


def _input_grad_into(gx, tmp, g, w, xhat, rstd, axes, n):
    """dL/dx of the normalization into ``gx``, with ``tmp`` as scratch (both like g)."""
    if w is not None:
        np.multiply(g, w, out=gx)
    else:
        np.copyto(gx, g)
    if _last_axis(gx, axes):
        inv = np.asarray(1.0 / n, gx.dtype)
        m2 = _row_dots(gx, xhat, inv)
        m1 = _row_sums(gx, inv)
    else:
        np.multiply(gx, xhat, out=tmp)
        m2 = _np_mean(tmp, axes, n)
        m1 = _np_mean(gx, axes, n)
    gx -= m1
    np.multiply(xhat, m2, out=tmp)
    gx -= tmp
    gx *= rstd


def _rows_split_applies(x, axes):
    """Normalizing over the last axis only (layer_norm) of a large contiguous array: rows are independent, so
    they can be split over the threads (``_parallel``), each row going through the same steps (bit-identical).
    A GPT's layer norm (2048x128 float32) forward: ~1.2 -> ~0.7 ms on two threads."""
    return _last_axis(x, axes) and x.flags.c_contiguous and _parallel.worth(x.size)


def _by_rows(fn, arrays, n_out=0):
    """``fn(*row_slices)`` over the rows (last axis) of same-leading-shape arrays (a per-row array such as rstd,
    shaped (..., 1), is sliced alike), split over the threads; the ``n_out`` per-row arrays fn returns are
    gathered, shaped (..., 1)."""
    lead = arrays[0].shape[:-1]
    flat = [a.reshape((-1, a.shape[-1])) for a in arrays]
    outs = [np.empty((flat[0].shape[0], 1), arrays[0].dtype) for _ in range(n_out)]

    def rows(lo, hi):
        got = fn(*[a[lo:hi] for a in flat])
        for o, r in zip(outs, got if n_out else ()):
            o[lo:hi] = r

    _parallel.split(rows, flat[0].shape[0], per=flat[0].shape[1])
    return tuple([o.reshape(lead + (1,)) for o in outs])


def _normalize_backward_np(g, w, xhat, rstd, axes, need_x, need_w, need_b, ctx):
    """The same formulas as Normalize.backward on arrays, with two full-size buffers and in-place steps."""
    shapes = ctx._in_meta
    if (_last_axis(g, axes) and g.ndim >= 2 and (w is None or w.shape == g.shape[-1:])
            and _kernels.fits(g, xhat, *([] if w is None else [w]))):
        got = _normalize_backward_kernels(g, w, xhat, rstd, need_x, need_w, need_b, shapes)
        if got is not None:
            return got
    gw = gb = gx = tmp = None
    # layer_norm over one axis: the weight and bias gradients are column sums, the weight's without a product pass
    per_column = _last_axis(g, axes) and g.ndim >= 2 and g.dtype == xhat.dtype
    if need_w:
        if per_column and tuple(shapes[1][0]) == g.shape[-1:]:
            gw = np.einsum("ij,ij->j", g.reshape(-1, g.shape[-1]), xhat.reshape(-1, g.shape[-1]))
        else:
            tmp = np.multiply(g, xhat)
            gw = _sum_to(tmp, shapes[1][0])
            if gw is tmp:  # nothing to sum over (the input is one normalized block): the gradient is not scratch
                tmp = None
    if need_b:
        if per_column and tuple(shapes[2][0]) == g.shape[-1:]:
            gb = np.einsum("ij->j", g.reshape(-1, g.shape[-1]))
        else:
            gb = _sum_to(g, shapes[2][0])
    if need_x:
        gx = np.empty_like(g)
        if _rows_split_applies(g, axes) and xhat.flags.c_contiguous and g.dtype == xhat.dtype:
            _by_rows(lambda gxr, gr, xr, rr: _input_grad_into(gxr, np.empty_like(gxr), gr, w, xr, rr, (1,), ctx.n),
                     (gx, g, xhat, rstd))
        else:
            _input_grad_into(gx, np.empty_like(g) if tmp is None else tmp, g, w, xhat, rstd, axes, ctx.n)
    return gx, gw, gb, None, None, None, None


def _layer_norm_backward_kernel(ctx, g, x, w, need_x, need_w, need_b):
    """Normalize.backward after the layer norm kernel's forward, in one compiled pass; None where it does not
    apply (the caller rebuilds xhat and runs the NumPy formulas)."""
    D = g.shape[-1]
    shapes = ctx._in_meta
    if (g.shape != x.shape or (need_w and tuple(shapes[1][0]) != (D,)) or (need_b and tuple(shapes[2][0]) != (D,))
            or not _kernels.fits(g, x, *([] if w is None else [w]))):
        return None
    got = _knorm.layer_norm_backward(g, x, w, ctx.stats, need_x, need_w, need_b)
    return None if got is None else got + (None, None, None, None)


def _normalize_backward_kernels(g, w, xhat, rstd, need_x, need_w, need_b, shapes):
    """_normalize_backward_np over the last axis with npgrad.kernels.norm; None where a kernel does not apply."""
    D = g.shape[-1]
    if (need_w and tuple(shapes[1][0]) != (D,)) or (need_b and tuple(shapes[2][0]) != (D,)):
        return None
    gx = _knorm.norm_input_grad(g, w, xhat, rstd) if need_x else None
    gw = _knorm.column_sums(g, xhat) if need_w else None
    gb = _knorm.column_sums(g) if need_b else None
    if (need_x and gx is None) or (need_w and gw is None) or (need_b and gb is None):
        return None
    return gx, gw, gb, None, None, None, None


# -- batch norm's layout: per-channel statistics of an (N, C, *spatial) array ----------------------------------
# Reductions over (0, 2, ...) and per-channel broadcasts are where a batch norm's time goes, so this path keeps
# the number of full passes down: each per-(sample, channel) block sum is one BLAS product with a ones vector
# (~4x faster than NumPy's strided multi-axis reduce, and pairwise-accurate enough: SIMD partial sums), the
# forward keeps the centred input x - mean rather than xhat (the backward folds 1/std into per-channel
# constants), and the backward uses that batch norm's weight is constant over the reduced axes, so
# mean(g*w*xhat) and mean(g*w) come from the weight and bias gradients' sums. Forward: 4 passes (was 7),
# backward: 5 (was 11). The results agree with the general path within float32 rounding, not bit for bit.

def _channel_layout(x, axes):
    return (x.ndim >= 3 and axes == (0,) + tuple(range(2, x.ndim)) and x.flags.c_contiguous
            and x.dtype.kind == "f" and x.dtype.itemsize >= 4)


def _by_images(fn, x):
    """``fn(lo, hi)`` over runs of whole samples (axis 0), one per thread where the array is large enough: every
    pass of the channel layout is per (sample, channel) block, and its per-block sums land in rows lo..hi of a
    shared (N, C) array that is reduced over N once, as on one thread."""
    _parallel.split(fn, x.shape[0], per=x[:1].size)


def _sums_into(a, ones, out2, lo, hi):
    """Rows lo..hi of the (N, C) block sums of ``a`` (N, C, *spatial): one BLAS product with a ones vector."""
    np.matmul(a[lo:hi].reshape(-1, ones.shape[0]), ones, out=out2[lo:hi].reshape(-1))


def _channel_forward(ctx, x, w, b, axes, n, eps, want_stats):
    N, C = x.shape[:2]
    bshape = (1, C) + (1,) * (x.ndim - 2)
    got = _kchannel.forward(x, w, b, eps) if _kernels.fits(x, *[a for a in (w, b) if a is not None]) else None
    if got is not None:  # (compiled: 3 passes where the code below makes ~9; float64 block sums)
        y, xc, mean, var, rstd = got
    else:
        y, xc, mean, var, rstd = _channel_moments(x, w, b, n, eps, bshape)
    ctx.save_for_backward(x, w)
    ctx.xhat, ctx.rstd, ctx.axes, ctx.eps, ctx.recentre = xc, rstd.reshape(bshape), axes, eps, False
    ctx.n, ctx.centred = n, True
    if want_stats:
        ctx.mark_non_differentiable(mean, var)
        return y, mean, var
    return y


def _channel_moments(x, w, b, n, eps, bshape):
    N, C = x.shape[:2]
    ones = np.ones(x[:1, :1].size, x.dtype)
    part = np.empty((N, C), x.dtype)
    _by_images(lambda lo, hi: _sums_into(x, ones, part, lo, hi), x)
    mean = np.add.reduce(part, axis=0)
    mean /= np.asarray(n, x.dtype)
    xc, y = np.empty_like(x), np.empty_like(x)
    mb = mean.reshape(bshape)

    def centre(lo, hi):
        np.subtract(x[lo:hi], mb, out=xc[lo:hi])
        np.square(xc[lo:hi], out=y[lo:hi])
        _sums_into(y, ones, part, lo, hi)
    _by_images(centre, x)
    var = np.add.reduce(part, axis=0)
    var /= np.asarray(n, x.dtype)
    rstd = 1.0 / np.sqrt(var + np.asarray(eps, x.dtype))
    k = (rstd if w is None else rstd * w.reshape(-1)).reshape(bshape)

    def affine(lo, hi):
        np.multiply(xc[lo:hi], k, out=y[lo:hi])
        if b is not None:
            y[lo:hi] += b
    _by_images(affine, x)
    return y, xc, mean, var, rstd


def _channel_backward(ctx, g, w, need_x, need_w, need_b):
    """Normalize.backward for the channel layout, from the forward's centred input (ctx.xhat holds x - mean)."""
    xc, rstd = ctx.xhat, ctx.rstd.reshape(-1)
    shapes = ctx._in_meta
    g = np.ascontiguousarray(g, xc.dtype)
    N, C = g.shape[:2]
    bshape = (1, C) + (1,) * (g.ndim - 2)
    n = np.asarray(ctx.n, g.dtype)
    # Compiled: 2 passes where the NumPy code below makes ~13. (None where numba failed to compile: NumPy then.)
    got = _kchannel.grad_sums(g, xc) if _kernels.fits(g, xc) else None
    tmp = None
    if got is not None:
        gsum, gw = got
    else:
        ones = np.ones(g[:1, :1].size, g.dtype)
        gsum_p, gw_p = np.empty((N, C), g.dtype), np.empty((N, C), g.dtype)
        tmp = np.empty_like(g)

        def sums(lo, hi):
            _sums_into(g, ones, gsum_p, lo, hi)
            np.multiply(g[lo:hi], xc[lo:hi], out=tmp[lo:hi])
            _sums_into(tmp, ones, gw_p, lo, hi)
        _by_images(sums, g)
        gsum = np.add.reduce(gsum_p, axis=0)
        gw = np.add.reduce(gw_p, axis=0)
    gw *= rstd  # sum(g * xhat)
    gx = None
    if need_x:
        k = rstd if w is None else rstd * w.reshape(-1)
        # dx = k * (g - mean(g) - xhat * mean(g * xhat)) = g*k + xc*c1 + c2, each constant per channel
        c1 = -(k * rstd * gw / n)
        c2 = -(k * gsum / n)
        if got is not None:
            gx = _kchannel.input_grad(g, xc, k, c1, c2)
        if gx is None:
            c1, c2, kb = c1.reshape(bshape), c2.reshape(bshape), k.reshape(bshape)
            gx = np.empty_like(g)
            tmp = np.empty_like(g) if tmp is None else tmp

            def grad(lo, hi):
                np.multiply(xc[lo:hi], c1, out=gx[lo:hi])
                gx[lo:hi] += c2
                np.multiply(g[lo:hi], kb, out=tmp[lo:hi])
                gx[lo:hi] += tmp[lo:hi]
            _by_images(grad, g)
    gw = gw.reshape(shapes[1][0]) if need_w else None
    gb = gsum.reshape(shapes[2][0]) if need_b else None
    return gx, gw, gb, None, None, None, None


def _wide(a):
    """A float16 weight, bias or gradient (array or Tensor) in float32; anything else as it is."""
    return a if a is None or P.data_of(a).dtype is not _F16 else P.cast(a, _F32)


def _sum_to(a, shape):
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and a.shape[lead + i] != 1)
    return np.sum(a, axis=axes).reshape(shape) if axes else a


def _check_float(input, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise RuntimeError(f'"{fn}" not implemented for \'{_dt.scalar_name(input.dtype)}\'')


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    _check_float(input, "LayerNormKernelImpl")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    else:
        normalized_shape = tuple([int(s) for s in normalized_shape])
    k = len(normalized_shape)
    shape = input._data.shape
    if k == 0 or len(shape) < k or shape[-k:] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    axes = tuple(range(len(shape) - k, len(shape)))
    return NativeLayerNorm.apply(input, weight, bias, axes, float(eps), False, True)


def _channel_view(t, ndim):
    return None if t is None else t.reshape((t.shape[0],) + (1,) * (ndim - 2))


def _verify_batch_size(shape):
    size = shape[0] * int(np.prod(shape[2:]))
    if size == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"torch.Size([{', '.join(str(s) for s in shape)}])")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalize over every axis but the channel axis (1); training mode updates the running stats."""
    _check_float(input, "batch_norm")
    nd = input.dim()
    if nd < 2:
        raise ValueError(f"Expected 2D or more input (got {nd}D input)")
    C = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != C:
            raise RuntimeError(f"{name} should contain {C} elements not {t.numel()}")
    use_batch_stats = training or running_mean is None or running_var is None
    if use_batch_stats:
        if training:
            _verify_batch_size(tuple(input.shape))
        axes = (0,) + tuple(range(2, nd))
        y, mean, var = NativeBatchNorm.apply(input, _channel_view(weight, nd), _channel_view(bias, nd), axes,
                                             float(eps), True, False)
        if training and running_mean is not None and running_var is not None and input.numel():  # (empty: kept)
            n = input.numel() // C
            with no_grad():
                m = momentum
                unbiased = var._data * (n / (n - 1)) if n > 1 else var._data
                rm, rv = running_mean._data, running_var._data
                running_mean.mul_(1 - m).add_(Tensor._wrap(mean._data.astype(rm.dtype) * np.asarray(m, rm.dtype)))
                running_var.mul_(1 - m).add_(Tensor._wrap(unbiased.astype(rv.dtype) * np.asarray(m, rv.dtype)))
        return y
    # Evaluation with running statistics: an affine map y = x * scale + shift, differentiable in w and b.
    dt = input._data.dtype
    inv = (1.0 / np.sqrt(running_var._data.astype(dt) + np.asarray(eps, dt))).astype(dt)
    rm = running_mean._data.astype(dt)
    view = (C,) + (1,) * (nd - 2)
    scale = Tensor._wrap(inv) if weight is None else weight * Tensor._wrap(inv)
    shift = -(Tensor._wrap(rm) * scale) if bias is None else bias - Tensor._wrap(rm) * scale
    return input * scale.reshape(view) + shift.reshape(view)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    _check_float(input, "instance_norm")
    nd = input.dim()
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    axes = tuple(range(2, nd))
    y, mean, var = Normalize.apply(input, _channel_view(weight, nd), _channel_view(bias, nd), axes, float(eps), True,
                                   False)
    if running_mean is not None and running_var is not None:
        n = int(np.prod(input.shape[2:]))
        C = input.shape[1]
        with no_grad():
            m = mean._data.reshape(-1, C).mean(0)
            v = var._data.reshape(-1, C).mean(0) * (n / (n - 1) if n > 1 else 1)
            running_mean.mul_(1 - momentum).add_(Tensor._wrap((m * momentum).astype(running_mean._data.dtype)))
            running_var.mul_(1 - momentum).add_(Tensor._wrap((v * momentum).astype(running_var._data.dtype)))
    return y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    _check_float(input, "group_norm")
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    N, C = input.shape[:2]
    if C % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    xr = input.reshape(N, num_groups, input.numel() // max(N * num_groups, 1))  # (-1 is ambiguous when empty)
    y = Normalize.apply(xr, None, None, (2,), float(eps), False, True).reshape(tuple(input.shape))
    nd = input.dim()
    if weight is not None:
        y = y * _channel_view(weight, nd)
    if bias is not None:
        y = y + _channel_view(bias, nd)
    return y


class RMSNormOp(Op):
    node_name = "RMSNormBackward0"
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, w, axes, eps):
        if x.dtype is _F16:
            y = RMSNormOp.forward(ctx, x.astype(_F32), _wide(w), axes, eps).astype(_F16)
            ctx.save_for_backward(x, w)
            return y
        if (axes == (x.ndim - 1,) and (w is None or w.shape == x.shape[-1:])
                and _kernels.fits(x, *([] if w is None else [w]))):
            got = _knorm.rms_norm_forward(x, w, eps)
            if got is not None:
                ctx.save_for_backward(x, w)
                ctx.r, ctx.axes, ctx.eps, ctx.n = got[1], axes, eps, x.shape[-1]
                return got[0]
        r = 1.0 / np.sqrt(np.mean(np.square(x), axis=axes, keepdims=True) + np.asarray(eps, x.dtype))
        y = x * r
        if w is not None:
            y *= w
        ctx.save_for_backward(x, w)
        ctx.r, ctx.axes, ctx.eps = r, axes, eps
        ctx.n = int(np.prod([x.shape[a] for a in axes]))
        return y

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        axes, n = ctx.axes, ctx.n
        need_x, need_w = ctx.needs_input_grad[:2]
        if P.data_of(x).dtype is _F16:
            x, w, g = P.cast(x, _F32), _wide(w), P.cast(g, _F32)
        r = P.from_forward(g, ctx, "r", lambda: 1.0 / P.sqrt(_mean(x * x, axes, n) + ctx.eps))
        gx = gw = None
        if (need_x and not P.is_tensor(g) and axes == (g.ndim - 1,) and (w is None or w.shape == g.shape[-1:])
                and _kernels.fits(g, x, *([] if w is None else [w]))):
            xhat = x * r
            gx = _knorm.norm_input_grad(g, w, xhat, r, centre=False)
            if gx is not None:
                return gx, (g * xhat if need_w else None), None, None
        if need_x:
            gxw = g * w if w is not None else g
            gx = (gxw - x * (r * r) * _mean(gxw * x, axes, n)) * r
        if need_w:
            gw = g * (x * r)
        return gx, gw, None, None


def rms_norm(input, normalized_shape, weight=None, eps=None):
    _check_float(input, "rms_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    k = len(normalized_shape)
    shape = tuple(input.shape)
    if k == 0 or len(shape) < k or shape[-k:] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(shape)}")
    if eps is None:  # the epsilon of the type PyTorch computes in (float32 for float16)
        eps = float(np.finfo(_F32 if input._data.dtype is _F16 else input._data.dtype).eps)
    axes = tuple(range(len(shape) - k, len(shape)))
    return RMSNormOp.apply(input, weight, axes, float(eps))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(norm(input, p, dim), eps)``."""
    denom = input.norm(p, dim=dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom

