"""Convolutions by im2col over any number of spatial dims: conv1d/2d/3d, conv_transpose1d/2d/3d, unfold and fold.

``im2col`` pads the input once and copies every kernel window out of a strided view into a
``(N, groups, C/groups * prod(kernel), prod(out))`` array, so a convolution is one batched GEMM with the
``(groups, O/groups, C/groups * prod(kernel))`` weight and lands directly in (N, C, *spatial) layout. ``col2im``
is its adjoint: one strided slice-add per kernel offset into a padded buffer. A transposed convolution is the
same pair used the other way round (GEMM then col2im forward, im2col then GEMM backward).

``Im2Col`` and ``Col2Im`` are also Ops, each the other's gradient; under ``create_graph=True`` the
fused convolutions' backward is built from them and ordinary matmuls, so it is differentiable again.
"""
import collections
import functools
import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import _parallel
from ... import dtypes as _dt
from ...autograd.function import Op
from ...kernels import conv3x3 as _kconv3
from ...ops import _poly as P
from ...tensor import Tensor
from . import _winograd
from ._utils import as_ints

# Everything about one convolution's index mapping between an "image" (N, C, *size) and its grid of kernel
# windows (*out), over n spatial dims: per dim a kernel size k, stride s, dilation d and padding lo/hi (before and
# after). Every field but N, C and G is a tuple of n ints.
Geometry = collections.namedtuple("Geometry", "N C size k s d lo hi out G psize inner")


@functools.lru_cache(maxsize=1024)
def geometry(N, C, size, k, s, d, lo, hi, out, G):
    """A Geometry, with the padded size and the slices of the input inside the padded buffer worked out once
    (cached: a layer calls with the same arguments every step, and this is per-op Python overhead)."""
    psize = tuple([n + a + b for n, a, b in zip(size, lo, hi)])
    inner = (Ellipsis,) + tuple([slice(a, a + n) for a, n in zip(lo, size)])
    return Geometry(N, C, size, k, s, d, lo, hi, out, G, psize, inner)


def _padded(x, geo, value=0):
    if geo.psize == geo.size:
        return x
    shape = x.shape[:2] + geo.psize
    out = np.zeros(shape, x.dtype) if value == 0 else np.full(shape, value, x.dtype)
    out[geo.inner] = x
    return out


def _cropped(xp, geo):
    return xp if geo.psize == geo.size else xp[geo.inner]


def im2col(x, geo):
    """(N, C, *size) -> (N, G, C/G * prod(k), prod(out)): every kernel window of the padded input."""
    xp = _padded(x, geo)
    st = xp.strides
    view = as_strided(xp, (geo.N, geo.C) + geo.k + geo.out,
                      st[:2] + tuple([a * d for a, d in zip(st[2:], geo.d)] + [a * s for a, s in zip(st[2:], geo.s)]),
                      writeable=False)
    return _copy_split(view).reshape(geo.N, geo.G, (geo.C // geo.G) * math.prod(geo.k), math.prod(geo.out))


def _copy_split(view):
    """A C-contiguous copy of a strided window view, its first axis split over the threads (``_parallel``):
    the window copies are strided gathers with short runs that leave the second core idle. LeNet's second conv's
    channel-major windows (16x5x5 x 64x10x10 float32): ~4 -> ~2.5 ms on two threads. A copy: bit-identical."""
    out = np.empty(view.shape, view.dtype)
    _parallel.split(lambda lo, hi: np.copyto(out[lo:hi], view[lo:hi]), view.shape[0],
                    per=view.size // max(view.shape[0], 1), piece_min=_parallel.ONE_PASS_PIECE)
    return out


# GEMM depth (C/G * prod(k)) from which the channel-major layout pays: LeNet's first conv (depth 25) lost 1 ms
# a step to the transposes, its second (depth 400) gained 1.2 ms.
_CHANNEL_MAJOR_MIN_K = 64


def _im2col_channel_major(x, geo):
    """im2col laid out (G, C/G * prod(k), N * prod(out)): the batch folded into the GEMM's columns, so a
    convolution's forward and weight gradient are one GEMM per group instead of one small GEMM per image (the
    array-only path of ConvNdOp). LeNet's second conv (64x16x14x14, 5x5 -> 32), CPU time with 1 BLAS thread:
    backward 9.4 -> 8.2 ms, forward unchanged (3.9 ms); the whole cnn step 26-28 -> 21-23 ms with the chunked
    input gradient. The copy out of the strided view costs the same as im2col's."""
    xp = _padded(x, geo)
    st = xp.strides
    n = len(geo.k)
    view = as_strided(xp, (geo.N, geo.C) + geo.k + geo.out,
                      st[:2] + tuple([a * d for a, d in zip(st[2:], geo.d)] + [a * s for a, s in zip(st[2:], geo.s)]),
                      writeable=False)
    view = view.transpose((1,) + tuple(range(2, 2 + n)) + (0,) + tuple(range(2 + n, 2 + 2 * n)))
    return _copy_split(view).reshape(geo.G, (geo.C // geo.G) * math.prod(geo.k), geo.N * math.prod(geo.out))


def col2im(cols, geo):
    """The adjoint of im2col: add every window back into place; (N, G, C/G * prod(k), L) -> (N, C, *size)."""
    c = np.reshape(cols, (geo.N, geo.C) + geo.k + geo.out)
    out = np.zeros((geo.N, geo.C) + geo.psize, c.dtype)
    _col2im_add(c, geo, out)
    return _cropped(out, geo)


def _col2im_add(c, geo, out):
    """col2im's slice-adds of windows ``c`` (n, C, *k, *out) into the padded images ``out`` (n, C, *psize)."""
    for off, sl in offset_slices(geo):
        out[sl] += c[(slice(None), slice(None)) + off]


# Images per chunk in the array-only input gradient: its window gradients (chunk x C*prod(k) x L floats) then stay
# in cache between the GEMM that writes them and col2im's prod(k) passes that read them.
_CHUNK_FLOATS = 1 << 18


def _input_grad_chunked(w3, g4, geo):
    """col2im(w3^T @ g4) a few images at a time: the same GEMMs and adds as the whole-batch formula, in the same
    order per element (bit-identical), but the window gradients never leave cache. GEMM + col2im, 1 BLAS thread:
    LeNet's second conv (64x16x14x14, 5x5 -> 32) 5.0 vs 6.1 ms; a 16-channel 3x3 conv over 32x32 at batch 32
    5.6-6.0 vs 9.5 ms."""
    if all(s == 1 for s in geo.s) and len(geo.k) > 1:
        return _input_grad_long_runs(w3, g4, geo)
    out = np.zeros((geo.N, geo.C) + geo.psize, g4.dtype)
    wt = np.swapaxes(w3, 1, 2)
    per_image = wt.shape[0] * wt.shape[1] * g4.shape[-1]
    step = max(1, _CHUNK_FLOATS // per_image)

    def images(lo, hi):
        for i in range(lo, hi, step):
            j = min(i + step, hi)
            c = _parallel.matmul(wt, g4[i:j]).reshape((-1, geo.C) + geo.k + geo.out)
            _col2im_add(c, geo, out[i:j])
    _by_images(images, geo, per_image * wt.shape[-1])
    return _cropped(out, geo)


def _input_grad_long_runs(w3, g4, geo):
    """_input_grad_chunked for stride 1 (where ConvNdOp does not take _backward_wide), with long inner loops:
    g's trailing spatial dims are zero-padded to the padded image's, so each kernel offset's window gradients of
    an image plane are one contiguous run that adds into the flattened padded plane at a fixed shift (not rows of
    out[-1] elements). The padding columns hold exact zeros and add nothing, so the result is bit-identical. CPU
    time, 1 BLAS thread: LeNet's second conv 5.3 -> 4.2 ms, a 16-channel 3x3 conv over 32x32 at batch 32 5.7 ->
    4.6 ms."""
    N, G, Og, _ = g4.shape
    n = len(geo.k)
    wide = geo.out[:1] + geo.psize[1:]
    gp = np.zeros((N, G, Og) + wide, g4.dtype)
    gp[(Ellipsis,) + tuple([slice(0, o) for o in geo.out[1:]])] = g4.reshape((N, G, Og) + geo.out)
    run = math.prod(wide)
    gp = gp.reshape(N, G, Og, run)
    plane = math.prod(geo.psize)
    shifts = _plane_shifts(geo.k, geo.d, geo.psize)
    if G == 1:
        return _input_grad_channel_runs(w3, gp, geo, run, plane, shifts)
    out = np.zeros((N, geo.C, max(plane, shifts[-1] + run)), g4.dtype)
    wt = np.swapaxes(w3, 1, 2)
    K = len(shifts)
    step = max(1, _CHUNK_FLOATS // (wt.shape[0] * wt.shape[1] * run))

    def images(lo, hi):
        for i in range(lo, hi, step):
            e = min(i + step, hi)
            c = _parallel.matmul(wt, gp[i:e]).reshape(-1, geo.C, K, run)
            o = out[i:e]
            for j, sh in enumerate(shifts):
                o[:, :, sh:sh + run] += c[:, :, j]
    _by_images(images, geo, wt.size * run)
    return _cropped(out[:, :, :plane].reshape((N, geo.C) + geo.psize), geo)


# Window-gradient columns per GEMM in _input_grad_channel_runs (a few images of a small layer: LeNet's second conv
# has 140 per image), and a cap on its window-gradient buffer (floats).
_RUN_COLS, _RUN_BUFFER = 1024, 1 << 20


def _plane_rows(w3, C, K):
    """(K * C, O): the transposed kernel with its GEMM rows ordered (offset, channel)."""
    O = w3.shape[1]
    return np.ascontiguousarray(w3[0].reshape(O, C, K).transpose(2, 1, 0)).reshape(K * C, O)


def _input_grad_channel_runs(w3, gp, geo, run, plane, shifts):
    """_input_grad_long_runs for one group, with every kernel offset's adds one contiguous run per image across all
    channels: each channel's plane gets a stride L >= max(plane, last shift + run), the GEMM writes its window
    gradients (rows ordered offset, channel) into a zeroed buffer of that stride, and offset t adds the buffer's
    (C, L) block at shift(t) into the image's C * L run (an offset's spill past a plane's end is the buffer's
    zero padding, landing in the next plane or the tail). The adds go from one strided add per channel plane to
    one per image. Same sums in the same order, but the GEMM's rows are permuted and OpenBLAS rounds a row by
    where it sits in its blocks: within float32 rounding of the per-channel schedule, not bit-identical to it
    (bit-identical to col2im over this row order, which the tests check). Medians, noisy 2-core VM: LeNet's second
    conv (64x16x14x14, 5x5 -> 32) 9.0-9.6 -> 6.8-7.2 ms; 32x16x32x32 3x3 pad 1 -> 16, 11.5-11.8 -> 7.2-9.8 ms."""
    N, O = gp.shape[0], gp.shape[2]
    C, K = geo.C, len(shifts)
    L = max(plane, shifts[-1] + run)
    span = C * L
    acc = np.zeros((N, span + shifts[-1]), gp.dtype)
    rows = _plane_rows(w3, C, K)
    step = max(1, min(-(-_RUN_COLS // run), _RUN_BUFFER // (K * span), N))  # (N may be 0: an empty batch)

    def images(lo, hi):
        buf = np.zeros((min(step, max(hi - lo, 1)), K, span), gp.dtype)  # (one per thread)
        for i in range(lo, hi, step):
            n = min(step, hi - i)
            _parallel.matmul(rows, gp[i:i + n, 0], out=buf[:n].reshape(n, K * C, L)[:, :, :run])
            a = acc[i:i + n]
            for j, sh in enumerate(shifts):
                a[:, sh:sh + span] += buf[:n, j]
    _by_images(images, geo, rows.size * run)
    return _cropped(acc[:, :span].reshape(N, C, L)[:, :, :plane].reshape((N, C) + geo.psize), geo)


@functools.lru_cache(maxsize=256)
def _plane_shifts(k, d, psize):
    """Each kernel offset's shift into a flattened padded plane, in offset_slices' order."""
    steps = [math.prod(psize[t + 1:]) for t in range(len(k))]
    return tuple([sum([i * dd * st for i, dd, st in zip(off, d, steps)]) for off in itertools.product(*map(range, k))])


# -- stride-1 convolutions on the "wide" grid ----------------------------------------------------------------------
# Flatten each padded image plane. With stride 1, kernel offset t reads the plane at a fixed shift (its dilated
# offset times the plane's strides), so output position p of the flattened plane is sum_t W_t . plane[p + shift_t]:
# the windows of all outputs are ONE strided view (C, *k, run) of the flat image whose copy is long contiguous runs,
# and one GEMM gives the output on the "wide" grid (out[0], *psize[1:]); its leading out[1:] block per row is the
# convolution, the rest (windows wrapping into the next row) is cropped. The input gradient is the same with the
# roles swapped: g placed on the wide grid (zeros outside the valid block, which makes the wrapped windows add
# nothing), front-padded by the largest shift, under the flipped transposed kernel. A few images per GEMM keep the
# window matrix in cache between its copy and the GEMM. Results differ from im2col + col2im only by the order of
# float rounding in the sums (the wide grid's extra products are exact zeros in the gradients, for finite inputs).
# Taken for stride 1, GEMM depth >= _CHANNEL_MAJOR_MIN_K and no more output than input channels (ConvNdOp).

# Window-matrix floats per chunk: ~3 images of the 16-channel 3x3 32x32 layer (2 MB), 10 of LeNet's second conv.
_WIDE_FLOATS = 1 << 19

Wide = collections.namedtuple("Wide", "rest run steps maxshift length")


def _wide(geo):
    return _wide_plan(geo.psize, geo.k, geo.d, geo.out[0])


@functools.lru_cache(maxsize=256)
def _wide_plan(psize, k, d, out0):
    """rest: elements per row of the flat padded plane (prod(psize[1:])); run: wide outputs per image
    (out[0] rows); steps: element step of one dilated kernel offset per dim; maxshift: the last offset's shift;
    length: each flat image's plane plus a zero tail, so that every window read stays inside its own image."""
    rest = math.prod(psize[1:])
    steps = tuple([dd * math.prod(psize[t + 1:]) for t, dd in enumerate(d)])
    maxshift = sum([(kk - 1) * st for kk, st in zip(k, steps)])
    run = out0 * rest
    return Wide(rest, run, steps, maxshift, max(math.prod(psize), maxshift + run))


def _windows_wide(flat, i, n, lead, geo, start, cols):
    """The view (lead, *k, n, cols) of images i..i+n of ``flat`` (N, lead, length; any strides) from element
    ``start``: [c, *t, j, p] = flat[i + j, c, start + p + shift(t)]."""
    st = flat.strides
    return as_strided(flat[i:, :, start:], (lead,) + geo.k + (n, cols),
                      (st[1],) + tuple([s * st[2] for s in _wide(geo).steps]) + (st[0], st[2]), writeable=False)


def _from_wide(y, geo, lo, size):
    """(channels, n, size[0] * rest) on the wide grid -> (n, channels, *size), trailing dims from offsets lo[1:]."""
    y = y.reshape(y.shape[:2] + size[:1] + geo.psize[1:])
    return y[(slice(None),) * 3 + tuple([slice(a, a + s) for a, s in zip(lo[1:], size[1:])])].swapaxes(0, 1)


def _flat_padded(x, geo):
    """(N, C, length): each image's zero-padded planes, flattened, with a zero tail (see _wide)."""
    flat = np.zeros(x.shape[:2] + (_wide(geo).length,), x.dtype)
    flat[:, :, :math.prod(geo.psize)].reshape(x.shape[:2] + geo.psize)[geo.inner] = x
    return flat


def _windows_chunks(flat, geo, lo=0, hi=None):
    """(i, n, windows (G, C/G * prod(k), n * run)) for chunks of n images from images lo..hi: each chunk's window
    matrix is one copy (long runs) small enough to stay in cache for the GEMM that reads it."""
    C, G = geo.C, geo.G
    hi = geo.N if hi is None else hi
    run = _wide(geo).run
    depth = (C // G) * math.prod(geo.k)
    step = max(1, _WIDE_FLOATS // (depth * G * run))
    for i in range(lo, hi, step):
        n = min(step, hi - i)
        yield i, n, np.ascontiguousarray(_windows_wide(flat, i, n, C, geo, 0, run)).reshape(G, depth, n * run)


def _by_images(fn, geo, per_image):
    """``fn(lo, hi)`` over runs of whole images, one run per thread: the window copies, the GEMMs and the scatter of
    a few images stay on one core with their cache, and the copies (a third of a small layer's time) run on every
    thread, where a split of each chunk's GEMM alone would hand off once per chunk. Returns fn's results in image
    order (partial sums for the weight gradient, added up in that order). ``per_image`` is one image's
    multiply-adds. (Run as one piece, each chunk's GEMM may still split, on the caller's thread.)"""
    parts = {}
    _parallel.split(lambda lo, hi: parts.__setitem__(lo, fn(lo, hi)), geo.N, per=per_image,
                    piece_min=_parallel.GEMM_MIN)
    return [parts[k] for k in sorted(parts)]


def _forward_wide(flat, w, b, geo):
    """ConvNdOp's array forward for stride 1, from _flat_padded's images. Median CPU time, 1 BLAS thread, noisy
    shared 2-core machine, vs the channel-major im2col path: 16->16 3x3 pad 1 on 32x16x32x32 7.6-9.6 -> 5.2-7.4
    ms. Keeping the windows for the weight gradient, as that path does, cost ~2.5 ms more (20 MB written to
    fresh memory), so the backward makes its own."""
    O, n_ = w.shape[0], len(geo.k)
    w3 = w.reshape(geo.G, O // geo.G, -1)
    out = np.empty((geo.N, O) + geo.out, flat.dtype)

    def images(lo, hi):
        for i, n, cols in _windows_chunks(flat, geo, lo, hi):
            y = _from_wide(_parallel.matmul(w3, cols).reshape(O, n, -1), geo, (0,) * n_, geo.out)
            if b is None:
                out[i:i + n] = y
            else:
                np.add(y, _channel_view(b, n_), out=out[i:i + n])
    _by_images(images, geo, w3.size * _wide(geo).run)
    return out


def _g_wide(g, geo, front, length, i, n):
    """Images i..i+n of g (N, O, *out) on the wide grid, laid out (O, n, length) from element ``front`` on,
    zeros elsewhere."""
    wd = _wide(geo)
    O = g.shape[1]
    gq = np.zeros((O, n, length), g.dtype)
    gq[:, :, front:front + wd.run].reshape((O, n) + geo.out[:1] + geo.psize[1:])[
        (Ellipsis,) + tuple([slice(0, o) for o in geo.out[1:]])] = g[i:i + n].swapaxes(0, 1)
    return gq


def _weight_grad_wide(flat, g, geo, wshape):
    """dL/dW from _forward_wide's windows (recomputed a chunk at a time), g on the wide grid: its zeros drop the
    wrapped windows. For when dL/dx is not needed (else _backward_wide). 16->16 3x3 32x16x32x32, 1 BLAS thread,
    noisy machine: 4.9-5.4 ms (the channel-major path's GEMM over its saved windows) -> 5.1-6.6 ms."""
    G, O = geo.G, wshape[0]
    run = _wide(geo).run

    def images(lo, hi):
        gw = 0
        for i, n, cols in _windows_chunks(flat, geo, lo, hi):
            gq = _g_wide(g, geo, 0, run, i, n).reshape(G, O // G, n * run)
            gw = gw + _parallel.matmul(gq, cols.swapaxes(1, 2))
        return gw
    parts = _by_images(images, geo, math.prod(wshape) * run)
    return sum(parts[1:], parts[0]).reshape(wshape)


def _backward_wide(flat, w, g, geo, need_w):
    """(dL/dx, dL/dW or None) for stride 1: dL/dx is the convolution of g on the wide grid with the flipped,
    transposed kernel, a few images per GEMM; dL/dW reuses that GEMM's windows of g while they are in cache:
    dW[o, c, t] = sum_q gwin[(o, flip t), q] * x_padded[c, q]. Median CPU time, 1 BLAS thread, noisy shared
    machine, old (GEMM + col2im over long runs, then the weight GEMM over saved channel-major windows) -> new:
    16->16 3x3 32x16x32x32, dL/dx alone 8.7-12.5 -> 5.0-6.6 ms, with dL/dW 14.0-17.0 -> 8.4-11.4 ms."""
    N, C, G, O = geo.N, geo.C, geo.G, w.shape[0]
    Cg, Og, n_ = C // G, O // G, len(geo.k)
    wd = _wide(geo)
    K = math.prod(geo.k)
    flip = (Ellipsis,) + (slice(None, None, -1),) * n_
    wf = np.ascontiguousarray(w[flip].reshape(G, Og, Cg, K).transpose(0, 2, 1, 3)).reshape(G, Cg, Og * K)
    # Flipped offset t' reads g at shift(t') - maxshift: the front pad of maxshift zeros keeps that inside the image.
    start, runx = geo.lo[0] * wd.rest, geo.size[0] * wd.rest  # only the rows of the unpadded input
    length = wd.maxshift + math.prod(geo.psize)
    gx = np.empty((N, C) + geo.size, g.dtype)
    step = max(1, _WIDE_FLOATS // (O * K * runx))

    def images(lo, hi):
        gw = np.zeros((G, Og * K, Cg), g.dtype) if need_w else None
        for i in range(lo, hi, step):
            n = min(step, hi - i)
            gq = _g_wide(g, geo, wd.maxshift, length, i, n).swapaxes(0, 1)
            c = np.ascontiguousarray(_windows_wide(gq, 0, n, O, geo, start, runx)).reshape(G, Og * K, n * runx)
            gx[i:i + n] = _from_wide(_parallel.matmul(wf, c).reshape(C, n, runx), geo, geo.lo, geo.size)
            if need_w:
                xc = np.ascontiguousarray(flat[i:i + n, :, start:start + runx].swapaxes(0, 1))
                gw += _parallel.matmul(c, xc.reshape(G, Cg, n * runx).swapaxes(1, 2))
        return gw
    parts = _by_images(images, geo, 2 * w.size * runx)
    gw = sum(parts[1:], parts[0]) if need_w else None
    if need_w:
        gw = gw.reshape(G, Og, *geo.k, Cg)[(slice(None), slice(None)) + flip[1:]]
        gw = np.moveaxis(gw, -1, 2).reshape(w.shape)
    return gx, gw


def offset_slices(geo):
    """For each kernel offset (a tuple, one index per dim), the strided slice of the padded image that it sees
    at every output."""
    return _offset_slices(geo.k, geo.d, geo.s, geo.out)


@functools.lru_cache(maxsize=512)
def _offset_slices(k, d, s, out):
    # Cached: a layer sees the same geometry on every call, and building the slices is per-op Python overhead.
    spans = [st * (o - 1) + 1 for st, o in zip(s, out)]
    return tuple([(off, (Ellipsis,) + tuple([slice(i * dd, i * dd + span, st) for i, dd, span, st in
                                             zip(off, d, spans, s)]))
                  for off in itertools.product(*[range(kk) for kk in k])])


# -- depthwise convolutions (one input channel per group) ---------------------------------------------------------
# A GEMM per (image, group) would be tiny; instead each kernel offset is one broadcast multiply-add over the
# whole batch, reading a strided slice of the padded input (prod(k) passes, like a pooling layer).

def _tap(w, off, n):
    """The weights of one kernel offset, (G, m, *k) -> (1, G, m, 1, ..., 1) to broadcast over the outputs."""
    return w[(None, slice(None), slice(None)) + off + (None,) * n]


def _depthwise_forward(xp, w, geo):
    G, m, n = geo.G, w.shape[0] // geo.G, len(geo.k)
    out = np.zeros((geo.N, G, m) + geo.out, xp.dtype)
    buf = np.empty_like(out)
    wg = w.reshape((G, m) + geo.k)
    for off, sl in offset_slices(geo):
        np.multiply(xp[sl][:, :, None], _tap(wg, off, n), out=buf)
        out += buf
    return out.reshape((geo.N, G * m) + geo.out)


def _depthwise_backward(xp, w, g, geo, need_x, need_w):
    G, m, n = geo.G, w.shape[0] // geo.G, len(geo.k)
    gg = g.reshape((geo.N, G, m) + geo.out)
    wg = w.reshape((G, m) + geo.k)
    buf = np.empty(gg.shape, g.dtype)
    gxp = np.zeros(xp.shape, g.dtype) if need_x else None
    gw = np.empty((G, m) + geo.k, g.dtype) if need_w else None
    for off, sl in offset_slices(geo):
        if need_x:
            np.multiply(gg, _tap(wg, off, n), out=buf)
            gxp[sl] += buf.sum(2) if m > 1 else buf[:, :, 0]
        if need_w:
            np.multiply(gg, xp[sl][:, :, None], out=buf)
            # Reduce the contiguous spatial axes first (fast), then the batch.
            gw[(slice(None), slice(None)) + off] = buf.reshape(geo.N, G * m, -1).sum(-1).sum(0).reshape(G, m)
    gx = _cropped(gxp, geo) if need_x else None
    return gx, (gw.reshape(w.shape) if need_w else None)


Im2Col, Col2Im = P.adjoint_pair("Im2Col", im2col, col2im, "Col2Im")


def im2col_poly(x, geo):
    return P.kernel_call(Im2Col, x, geo)


def col2im_poly(cols, geo):
    return P.kernel_call(Col2Im, cols, geo)


def _channel_view(b, n):
    """A per-channel vector shaped to broadcast over (N, C, *spatial)."""
    return b.reshape((1, -1) + (1,) * n)


def _spatial_axes(n):
    return (0,) + tuple(range(2, n + 2))


def _direct3x3(x, w, geo):
    """The compiled kernel's forward where it covers this convolution, else None: 3x3 at stride 1, one group, where
    Winograd does not take it (fewer than 64 channels). Forward + both gradients, 2 threads, PyTorch 2.13 in the
    same process (benchmarks' resnet layers): 32x16x32x32 16->16 13.5 -> 7.5 ms (PyTorch 4.9), 32x32x16x16 32->32
    10.4 -> 8.8 (4.6); with 64 channels on 8x8 Winograd stays ahead (12.7 against 13.6)."""
    if len(geo.k) != 2 or _winograd.fits(x, w, geo) or not _kconv3.fits(x, w, geo.s, geo.d, geo.G, geo.lo, geo.hi):
        return None
    return _kconv3.forward(x, w, geo.lo, geo.hi)


class ConvNdOp(Op):
    __slots__ = ()
    node_name = "ConvolutionBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, w, b, geo):
        G = geo.G
        ctx.save_for_backward(x, w)
        ctx.geo = geo
        out = _direct3x3(x, w, geo)
        if out is not None:  # the compiled direct 3x3 convolution (npgrad.kernels.conv3x3; timings in _direct3x3)
            ctx.direct3 = True
        elif G > 1 and geo.C == G:
            xp = _padded(x, geo)
            out = _depthwise_forward(xp, w, geo)
            ctx.xp = xp
        elif _winograd.fits(x, w, geo):  # 3x3 stride 1 with many channels: F(2x2, 3x3), timings in _winograd
            pad = tuple(zip(geo.lo, geo.hi))
            out, v, grid = _winograd.conv3x3(x, w, pad)
            ctx.winograd = (v, grid, pad)
        elif math.prod(w.shape[1:]) < _CHANNEL_MAJOR_MIN_K:  # a short GEMM depth: the transposes below would cost more
            cols = im2col(x, geo)
            w3 = w.reshape(G, w.shape[0] // G, -1)
            out = _parallel.matmul(np.broadcast_to(w3, (geo.N,) + w3.shape), cols).reshape((geo.N, w.shape[0]) + geo.out)
            ctx.cols = cols
        elif all(st == 1 for st in geo.s) and w.shape[0] <= geo.C:
            # Windows on the wide grid (timings at _forward_wide). With more output than input channels the input
            # gradient's windows of g outgrow col2im's adds (LeNet's 16->32 5x5 backward: 12-14 -> 19-20 ms).
            ctx.flat = flat = _flat_padded(x, geo)
            return _forward_wide(flat, w, b, geo)
        else:
            # Channel-major windows: one GEMM per group over the whole batch, not one small GEMM per image.
            cols = _im2col_channel_major(x, geo)
            O = w.shape[0]
            y = _parallel.matmul(w.reshape(G, O // G, -1), cols).reshape(O, geo.N, math.prod(geo.out)).transpose(1, 0, 2)
            ctx.cols_cm = cols
            out = np.empty((geo.N, O) + geo.out, y.dtype)
            if b is None:
                out.reshape(y.shape)[...] = y
            else:  # the bias rides on the pass that puts the GEMM's result in (N, C, *spatial) order
                np.add(y, b.reshape(1, O, 1), out=out.reshape(y.shape))
            return out
        if b is not None:
            out += _channel_view(b, len(geo.k))
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        geo = ctx.geo
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        G, O = geo.G, w.shape[0]
        axes = _spatial_axes(len(geo.k))
        if not P.is_tensor(g) and G > 1 and geo.C == G:
            # Depthwise: per-tap multiply-adds instead of im2col + batched GEMM with 1-row matrices, ~1.5x faster
            # (8x64x32x32, 3x3: 9.7 vs 14.9 ms); test_two_formulas.py checks the two agree.
            gx, gw = _depthwise_backward(ctx.xp, w, g, geo, need_x, need_w)
            return gx, gw, (np.sum(g, axis=axes) if need_b else None), None
        if not P.is_tensor(g) and hasattr(ctx, "direct3") and g.dtype == x.dtype:
            gx = _kconv3.input_grad(g, w, x.shape, geo.lo, geo.hi) if need_x else None
            gw = _kconv3.weight_grad(x, g, geo.lo, geo.hi) if need_w else None
            if (gx is not None or not need_x) and (gw is not None or not need_w):
                return gx, gw, (np.sum(g, axis=axes) if need_b else None), None
            # (numba failed to compile: the kernels are off from here on, and the generic formulas below run)
        if not P.is_tensor(g) and hasattr(ctx, "winograd"):
            v, grid, pad = ctx.winograd
            gx, gw = _winograd.backward(g, w, v, x.shape, pad, grid, need_x, need_w)
            return gx, gw, (np.sum(g, axis=axes) if need_b else None), None
        if not P.is_tensor(g) and hasattr(ctx, "flat"):  # the forward took the wide grid (timings at the functions)
            if need_x:
                gx, gw = _backward_wide(ctx.flat, w, g, geo, need_w)
            else:
                gx, gw = None, (_weight_grad_wide(ctx.flat, g, geo, w.shape) if need_w else None)
            return gx, gw, (np.sum(g, axis=axes) if need_b else None), None
        g4 = P.reshape(g, (geo.N, G, O // G, math.prod(geo.out)))
        w3 = P.reshape(w, (G, O // G, -1))
        gx = gw = gb = None
        if need_x:
            if P.is_tensor(g):
                gx = col2im_poly(P.swapaxes(w3, 1, 2) @ g4, geo)
            else:  # a second, array-only schedule of the same formula (bit-identical; timings at the function)
                gx = _input_grad_chunked(w3, g4, geo)
        if need_w:
            if P.is_tensor(g) or not hasattr(ctx, "cols_cm"):
                cols = P.from_forward(g, ctx, "cols", lambda: im2col_poly(x, geo))
                gw = P.reshape(P.sum(g4 @ P.swapaxes(cols, 2, 3), axis=0), tuple(w.shape))
            else:  # array-only: one GEMM over the batch with the forward's channel-major windows (timings there)
                gT = g4.transpose(1, 2, 0, 3).reshape(G, O // G, -1)
                gw = _parallel.matmul(gT, np.swapaxes(ctx.cols_cm, 1, 2)).reshape(w.shape)
        if need_b:
            gb = P.sum(g, axis=axes)
        return gx, gw, gb, None


class ConvTransposeNdOp(Op):
    """The adjoint of ConvNdOp in its input: GEMM to windows, then col2im. ``geo`` maps the output image
    (as a convolution's input) to the grid of the transposed convolution's input."""

    __slots__ = ()
    node_name = "ConvolutionBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, w, b, geo):
        G = geo.G
        cin_g = w.shape[0] // G
        w3 = w.reshape(G, cin_g, -1)
        x4 = x.reshape(geo.N, G, cin_g, math.prod(geo.out))
        out = col2im(_parallel.matmul(w3.transpose(0, 2, 1), x4), geo)
        if b is not None:
            out = out + _channel_view(b, len(geo.k))
        elif not out.flags.c_contiguous:
            out = np.ascontiguousarray(out)
        ctx.save_for_backward(x, w)
        ctx.geo = geo
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        geo = ctx.geo
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        G = geo.G
        cin_g = w.shape[0] // G
        w3 = P.reshape(w, (G, cin_g, -1))
        gx = gw = gb = None
        if need_x or need_w:
            cols = im2col_poly(g, geo)
            if need_x:
                gx = P.reshape(w3 @ cols, tuple(x.shape))
            if need_w:
                x4 = P.reshape(x, (geo.N, G, cin_g, math.prod(geo.out)))
                gw = P.reshape(P.sum(x4 @ P.swapaxes(cols, 2, 3), axis=0), tuple(w.shape))
        if need_b:
            gb = P.sum(g, axis=_spatial_axes(len(geo.k)))
        return gx, gw, gb, None


# -- argument checking ----------------------------------------------------------------------------------------------

def _size(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_types(input, weight, bias, n=2, transposed=False, pointwise=False):
    if not isinstance(input, Tensor):
        raise TypeError(f"conv(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(weight, Tensor):
        raise TypeError(f"conv(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    dt = input._data.dtype
    if bias is not None and bias._data.dtype != dt:
        raise RuntimeError(f"Input type ({_type_word(dt)}) and bias type ({_type_word(bias._data.dtype)}) should be "
                           "the same")
    if weight._data.dtype != dt and dt.kind == "c":  # PyTorch's complex path checks the types by their old names
        raise RuntimeError(f"Input type ({_legacy_type(dt)}) and weight type ({_legacy_type(weight._data.dtype)}) "
                           "should be the same")
    if weight._data.dtype != dt:
        raise RuntimeError(f"expected scalar type {_dt.scalar_name(input.dtype)} but found "
                           f"{_dt.scalar_name(weight.dtype)}")
    # PyTorch's CPU kernels take floats, complex numbers and integers, but no bool, and its transposed ones no
    # integer but int64.
    if dt.kind == "b" or (transposed and dt.kind in "iu" and dt != np.int64):
        kernel = (f"slow_conv_transpose{max(n, 2)}d_out_cpu" if transposed else
                  ("slow_conv3d_cpu" if pointwise else "compute_columns3d") if n == 3 else "slow_conv2d_cpu")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dt.scalar_name(input.dtype)}\'')


def _type_word(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}.get(np.dtype(dt).name, str(dt))


def _legacy_type(dt):
    name = _dt.scalar_name(_dt.from_numpy_dtype(dt))
    return f"CPU{name}Type" if np.dtype(dt).kind == "c" else f"torch.{name}Tensor"


def _same_padding(k, d):
    total = d * (k - 1)
    return total // 2, total - total // 2


def _resolve_padding(padding, n, kernel, dilation, stride):
    """Padding as (before, after) tuples over the spatial dims; handles 'same' and 'valid'."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * n, (0,) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pairs = [_same_padding(k, d) for k, d in zip(kernel, dilation)]
            return tuple([a for a, _ in pairs]), tuple([b for _, b in pairs])
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    pads = as_ints(padding, n, "padding")
    if min(pads) < 0:
        raise RuntimeError("negative padding is not supported")
    return pads, pads


def _conv_args(input, weight, bias, stride, padding, dilation, groups, n, name):
    """Validate a convolution over n spatial dims; returns (batched input, was_unbatched, geometry)."""
    # PyTorch's 3-D kernel names its error after the path taken: a plain 1x1x1 convolution skips the columns
    pointwise = (n == 3 and groups == 1 and isinstance(weight, Tensor) and all(k == 1 for k in weight.shape[2:])
                 and stride in (1, (1,) * n, [1] * n) and padding in (0, "valid", "same", (0,) * n, [0] * n)
                 and dilation in (1, (1,) * n, [1] * n))
    _check_types(input, weight, bias, n, pointwise=pointwise)
    xs, ws = tuple(input.shape), tuple(weight.shape)
    if len(xs) not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {_size(xs)}")
    if len(ws) != n + 2:
        raise RuntimeError("weight should have at least three dimensions" if len(ws) < 3 else
                           f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input {_size(xs)}, but "
                           f"got {len(ws)}-dimensional weight of size {_size(ws)} instead")
    unbatched = len(xs) == n + 1
    bx = (1,) + xs if unbatched else xs
    stride = as_ints(stride, n, "stride")
    dilation = as_ints(dilation, n, "dilation")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_size(ws)}] instead")
    if bx[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size(ws)}, expected input{_size(bx)} to have "
                           f"{ws[1] * groups} channels, but got {bx[1]} channels instead")
    if bias is not None and tuple(bias.shape) != (ws[0],):
        raise RuntimeError(f"Given weight of size {_size(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_size(bias.shape)} instead")
    kernel = ws[2:]
    lo, hi = _resolve_padding(padding, n, kernel, dilation, stride)
    spatial = bx[2:]
    padded = [s + a + b for s, a, b in zip(spatial, lo, hi)]
    eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    outs = tuple([(p - e) // s + 1 for p, e, s in zip(padded, eff, stride)])
    if min(outs) <= 0:
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(str(p) for p in padded)}). "
                           f"Kernel size: ({' x '.join(str(e) for e in eff)}). Kernel size can't be greater than "
                           "actual input size")
    geo = geometry(bx[0], bx[1], spatial, kernel, stride, dilation, lo, hi, outs, groups)
    x = input.unsqueeze(0) if unbatched else input
    return x, unbatched, geo


def _convolution(input, weight, bias, stride, padding, dilation, groups, n):
    name = f"conv{n}d"
    x, unbatched, geo = _conv_args(input, weight, bias, stride, padding, dilation, groups, n, name)
    out = ConvNdOp.apply(x, weight, bias, geo)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transpose_args(input, weight, bias, stride, padding, output_padding, groups, dilation, n, name):
    _check_types(input, weight, bias, n, transposed=True)
    xs, ws = tuple(input.shape), tuple(weight.shape)
    if len(xs) not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {_size(xs)}")
    if len(ws) != n + 2:
        raise RuntimeError(f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input {_size(xs)}, but got "
                           f"{len(ws)}-dimensional weight of size {_size(ws)} instead")
    unbatched = len(xs) == n + 1
    bx = (1,) + xs if unbatched else xs
    stride = as_ints(stride, n, "stride")
    dilation = as_ints(dilation, n, "dilation")
    pads = as_ints(padding, n, "padding")
    opad = as_ints(output_padding, n, "output_padding")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(o >= s and o >= d for o, s, d in zip(opad, stride, dilation)):
        dims = ("depth", "height", "width")[-n:]
        parts = [f"output_padding_{d}: {o}" for d, o in zip(dims, opad)] + \
                [f"stride_{d}: {s}" for d, s in zip(dims, stride)] + \
                [f"dilation_{d}: {dl}" for d, dl in zip(dims, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))
    if ws[0] != bx[1]:
        raise RuntimeError(f"Given transposed=1, weight of size {_size(ws)}, expected input{_size(bx)} to have "
                           f"{ws[0]} channels, but got {bx[1]} channels instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_size(ws)}] instead")
    cout = ws[1] * groups
    if bias is not None and tuple(bias.shape) != (cout,):
        raise RuntimeError(f"Given transposed=1, weight of size {_size(ws)}, expected bias to be 1-dimensional with "
                           f"{cout} elements, but got bias of size {_size(bias.shape)} instead")
    kernel = ws[2:]
    spatial = bx[2:]
    outs = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1
            for i, s, p, d, k, op in zip(spatial, stride, pads, dilation, kernel, opad)]
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(str(s) for s in spatial)}). Calculated output "
                           f"size per channel: ({' x '.join(str(o) for o in outs)}). Output size is too small")
    geo = geometry(bx[0], cout, tuple(outs), kernel, stride, dilation, pads, pads, spatial, groups)
    x = input.unsqueeze(0) if unbatched else input
    return x, unbatched, geo


def _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, n):
    x, unbatched, geo = _conv_transpose_args(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                             n, f"conv_transpose{n}d")
    out = ConvTransposeNdOp.apply(x, weight, bias, geo)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


# -- unfold / fold ---------------------------------------------------------------------------------------------------

def _fold_geometry(N, C, H, W, kernel_size, dilation, padding, stride):
    k = as_ints(kernel_size, 2, "kernel_size")
    d = as_ints(dilation, 2, "dilation")
    p = as_ints(padding, 2, "padding")
    s = as_ints(stride, 2, "stride")
    out = tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip((H, W), k, d, p, s))
    return geometry(N, C, (H, W), k, s, d, p, p, out, 1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * KH * KW, L)."""
    if input.dim() != 4:
        if input.dim() == 3:
            return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    N, C, H, W = input.shape
    geo = _fold_geometry(N, C, H, W, kernel_size, dilation, padding, stride)
    if min(geo.out) <= 0:
        raise RuntimeError(f"Given input with spatial size ({H}, {W}), kernel_size={geo.k}, dilation={geo.d}, "
                           f"padding={geo.lo}, calculated shape of the array of sliding blocks as "
                           f"({geo.out[0]}, {geo.out[1]}), but its components must be at least one.")
    return Im2Col.apply(input, geo).reshape(N, C * math.prod(geo.k), math.prod(geo.out))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: (N, C * KH * KW, L) -> (N, C, H, W), summing overlapping values."""
    if input.dim() == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    if input.dim() != 3:
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.dim()}D)")
    H, W = as_ints(output_size, 2, "output_size")
    kh, kw = as_ints(kernel_size, 2, "kernel_size")
    N, CKK, L = input.shape
    if CKK % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={CKK} and kernel_size={(kh, kw)}")
    geo = _fold_geometry(N, CKK // (kh * kw), H, W, kernel_size, dilation, padding, stride)
    oh, ow = geo.out
    if oh * ow != L:
        raise RuntimeError(f"Given output_size=({H}, {W}), kernel_size={(kh, kw)}, dilation={geo.d}, "
                           f"padding={geo.lo}, stride={geo.s}, expected size of input's dimension "
                           f"2 to match the calculated number of sliding blocks {oh} * {ow} = "
                           f"{oh * ow}, but got input.size(2)={L}.")
    return Col2Im.apply(input.reshape(N, 1, CKK, L), geo)
