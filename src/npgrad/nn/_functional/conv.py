"""Convolutions by im2col: conv1d, conv2d, conv_transpose1d/2d, unfold and fold.

``im2col`` pads the input once and copies every kernel window out of a strided view into a
``(N, groups, C/groups * KH * KW, OH * OW)`` array, so a convolution is one batched GEMM with the
``(groups, O/groups, C/groups * KH * KW)`` weight and lands directly in NCHW layout. ``col2im`` is its
adjoint: KH * KW strided slice-adds into a padded buffer. A transposed convolution is the same pair
used the other way round (GEMM then col2im forward, im2col then GEMM backward).

``Im2Col`` and ``Col2Im`` are also Ops, each the other's gradient; under ``create_graph=True`` the
fused convolutions' backward is built from them and ordinary matmuls, so it is differentiable again.
conv1d is conv2d over a height-1 image.
"""
import collections

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import dtypes as _dt
from ...autograd.function import Op
from ...ops import _poly as P
from ...tensor import Tensor
from ._utils import as_ints

# Everything about one convolution's index mapping between an "image" (N, C, H, W) and its grid of
# kernel windows (OH, OW). pads are (top, bottom, left, right).
Geometry = collections.namedtuple("Geometry", "N C H W KH KW sh sw dh dw pt pb pl pr OH OW G")


def _padded(x, geo):
    pt, pb, pl, pr = geo.pt, geo.pb, geo.pl, geo.pr
    if not (pt or pb or pl or pr):
        return x
    N, C, H, W = x.shape
    out = np.zeros((N, C, H + pt + pb, W + pl + pr), x.dtype)
    out[:, :, pt:pt + H, pl:pl + W] = x
    return out


def im2col(x, geo):
    """(N, C, H, W) -> (N, G, C/G*KH*KW, OH*OW): every kernel window of the padded input."""
    xp = _padded(x, geo)
    s0, s1, s2, s3 = xp.strides
    view = as_strided(xp, (geo.N, geo.C, geo.KH, geo.KW, geo.OH, geo.OW),
                      (s0, s1, s2 * geo.dh, s3 * geo.dw, s2 * geo.sh, s3 * geo.sw), writeable=False)
    return view.reshape(geo.N, geo.G, (geo.C // geo.G) * geo.KH * geo.KW, geo.OH * geo.OW)


def col2im(cols, geo):
    """The adjoint of im2col: add every window back into place; (N, G, C/G*KH*KW, L) -> (N, C, H, W)."""
    N, C, H, W = geo.N, geo.C, geo.H, geo.W
    c6 = np.reshape(cols, (N, C, geo.KH, geo.KW, geo.OH, geo.OW))
    Hp, Wp = H + geo.pt + geo.pb, W + geo.pl + geo.pr
    out = np.zeros((N, C, Hp, Wp), c6.dtype)
    hspan, wspan = geo.sh * (geo.OH - 1) + 1, geo.sw * (geo.OW - 1) + 1
    for kh in range(geo.KH):
        h0 = kh * geo.dh
        for kw in range(geo.KW):
            w0 = kw * geo.dw
            out[:, :, h0:h0 + hspan:geo.sh, w0:w0 + wspan:geo.sw] += c6[:, :, kh, kw]
    if geo.pt or geo.pb or geo.pl or geo.pr:
        out = out[:, :, geo.pt:geo.pt + H, geo.pl:geo.pl + W]
    return out


def offset_slices(geo):
    """For each kernel offset (kh, kw), the strided slice of the padded image that it sees at every output."""
    hspan, wspan = geo.sh * (geo.OH - 1) + 1, geo.sw * (geo.OW - 1) + 1
    for kh in range(geo.KH):
        h0 = kh * geo.dh
        for kw in range(geo.KW):
            w0 = kw * geo.dw
            yield kh, kw, (Ellipsis, slice(h0, h0 + hspan, geo.sh), slice(w0, w0 + wspan, geo.sw))


# -- depthwise convolutions (one input channel per group) ---------------------------------------------------------
# A GEMM per (image, group) would be tiny; instead each kernel offset is one broadcast multiply-add over the
# whole batch, reading a strided slice of the padded input (KH * KW passes, like a pooling layer).

def _depthwise_forward(xp, w, geo):
    G, m = geo.G, w.shape[0] // geo.G
    out = np.zeros((geo.N, G, m, geo.OH, geo.OW), xp.dtype)
    buf = np.empty_like(out)
    w5 = w.reshape(G, m, geo.KH, geo.KW)
    for kh, kw, sl in offset_slices(geo):
        np.multiply(xp[sl][:, :, None], w5[None, :, :, kh, kw, None, None], out=buf)
        out += buf
    return out.reshape(geo.N, G * m, geo.OH, geo.OW)


def _depthwise_backward(xp, w, g, geo, need_x, need_w):
    G, m = geo.G, w.shape[0] // geo.G
    g5 = g.reshape(geo.N, G, m, geo.OH, geo.OW)
    w5 = w.reshape(G, m, geo.KH, geo.KW)
    buf = np.empty(g5.shape, g.dtype)
    gxp = np.zeros(xp.shape, g.dtype) if need_x else None
    gw = np.empty((G, m, geo.KH, geo.KW), g.dtype) if need_w else None
    for kh, kw, sl in offset_slices(geo):
        if need_x:
            np.multiply(g5, w5[None, :, :, kh, kw, None, None], out=buf)
            gxp[sl] += buf.sum(2) if m > 1 else buf[:, :, 0]
        if need_w:
            np.multiply(g5, xp[sl][:, :, None], out=buf)
            # Reduce the contiguous spatial axis first (fast), then the batch.
            gw[:, :, kh, kw] = buf.reshape(geo.N, G * m, -1).sum(-1).sum(0).reshape(G, m)
    gx = None
    if need_x:
        gx = gxp[:, :, geo.pt:geo.pt + geo.H, geo.pl:geo.pl + geo.W] if (geo.pt or geo.pb or geo.pl or geo.pr) else gxp
    return gx, (gw.reshape(w.shape) if need_w else None)


Im2Col, Col2Im = P.adjoint_pair("Im2Col", im2col, col2im, "Col2Im")


def im2col_poly(x, geo):
    return P.kernel_call(Im2Col, x, geo)


def col2im_poly(cols, geo):
    return P.kernel_call(Col2Im, cols, geo)


def _bias_view(b):
    return P.reshape(b, (1, -1, 1, 1))


class Conv2dOp(Op):
    __slots__ = ()
    node_name = "ConvolutionBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, w, b, geo):
        G = geo.G
        ctx.save_for_backward(x, w)
        ctx.geo = geo
        if G > 1 and geo.C == G:
            xp = _padded(x, geo)
            out = _depthwise_forward(xp, w, geo)
            ctx.xp = xp
        else:
            cols = im2col(x, geo)
            w3 = w.reshape(G, w.shape[0] // G, -1)
            out = np.matmul(w3, cols).reshape(geo.N, w.shape[0], geo.OH, geo.OW)
            ctx.cols = cols
        if b is not None:
            out += b.reshape(1, -1, 1, 1)
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        geo = ctx.geo
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        G, O = geo.G, w.shape[0]
        if not P.is_tensor(g) and G > 1 and geo.C == G:
            # Depthwise: per-tap multiply-adds instead of im2col + batched GEMM with 1-row matrices, ~1.5x faster
            # (8x64x32x32, 3x3: 9.7 vs 14.9 ms); test_two_formulas.py checks the two agree.
            gx, gw = _depthwise_backward(ctx.xp, w, g, geo, need_x, need_w)
            return gx, gw, (np.sum(g, axis=(0, 2, 3)) if need_b else None), None
        g4 = P.reshape(g, (geo.N, G, O // G, geo.OH * geo.OW))
        w3 = P.reshape(w, (G, O // G, -1))
        gx = gw = gb = None
        if need_x:
            gx = col2im_poly(P.swapaxes(w3, 1, 2) @ g4, geo)
        if need_w:
            cols = P.from_forward(g, ctx, "cols", lambda: im2col_poly(x, geo))
            gw = P.reshape(P.sum(g4 @ P.swapaxes(cols, 2, 3), axis=0), tuple(w.shape))
        if need_b:
            gb = P.sum(g, axis=(0, 2, 3))
        return gx, gw, gb, None


class ConvTranspose2dOp(Op):
    """The adjoint of Conv2dOp in its input: GEMM to windows, then col2im. ``geo`` maps the output image
    (as a conv2d input) to the grid of the transposed convolution's input."""

    __slots__ = ()
    node_name = "ConvolutionBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, w, b, geo):
        G = geo.G
        cin_g = w.shape[0] // G
        w3 = w.reshape(G, cin_g, -1)
        x4 = x.reshape(geo.N, G, cin_g, geo.OH * geo.OW)
        out = col2im(np.matmul(w3.transpose(0, 2, 1), x4), geo)
        if b is not None:
            out = out + b.reshape(1, -1, 1, 1)
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
                x4 = P.reshape(x, (geo.N, G, cin_g, geo.OH * geo.OW))
                gw = P.reshape(P.sum(x4 @ P.swapaxes(cols, 2, 3), axis=0), tuple(w.shape))
        if need_b:
            gb = P.sum(g, axis=(0, 2, 3))
        return gx, gw, gb, None


# -- argument checking ----------------------------------------------------------------------------------------------

def _size(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_types(input, weight, bias):
    if not isinstance(input, Tensor):
        raise TypeError(f"conv(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(weight, Tensor):
        raise TypeError(f"conv(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    dt = input._data.dtype
    if bias is not None and bias._data.dtype != dt:
        raise RuntimeError(f"Input type ({_type_word(dt)}) and bias type ({_type_word(bias._data.dtype)}) should be "
                           "the same")
    if weight._data.dtype != dt:
        raise RuntimeError(f"expected scalar type {_dt.scalar_name(input.dtype)} but found "
                           f"{_dt.scalar_name(weight.dtype)}")
    if dt.kind != "f":
        raise RuntimeError(f'"slow_conv2d_cpu" not implemented for \'{_dt.scalar_name(input.dtype)}\'')


def _type_word(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(np.dtype(dt).name, str(dt))


def _same_padding(k, d):
    total = d * (k - 1)
    return total // 2, total - total // 2


def _resolve_padding(padding, n, kernel, dilation, stride):
    """Padding as ((before, after) per spatial dim); handles 'same' and 'valid'."""
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            return [_same_padding(k, d) for k, d in zip(kernel, dilation)]
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    pads = as_ints(padding, n, "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return [(p, p) for p in pads]


def _conv_args(input, weight, bias, stride, padding, dilation, groups, n, name):
    """Validate a conv1d/conv2d call; returns (batched input, was_unbatched, geometry over 2-D)."""
    _check_types(input, weight, bias)
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
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
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
    pads = _resolve_padding(padding, n, kernel, dilation, stride)
    spatial = bx[2:]
    padded = [s + a + b for s, (a, b) in zip(spatial, pads)]
    eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(str(p) for p in padded)}). "
                           f"Kernel size: ({' x '.join(str(e) for e in eff)}). Kernel size can't be greater than "
                           "actual input size")
    outs = [(p - e) // s + 1 for p, e, s in zip(padded, eff, stride)]
    if n == 1:  # a height-1 image
        geo = Geometry(bx[0], bx[1], 1, bx[2], 1, kernel[0], 1, stride[0], 1, dilation[0], 0, 0,
                       pads[0][0], pads[0][1], 1, outs[0], groups)
    else:
        geo = Geometry(bx[0], bx[1], bx[2], bx[3], kernel[0], kernel[1], stride[0], stride[1], dilation[0],
                       dilation[1], pads[0][0], pads[0][1], pads[1][0], pads[1][1], outs[0], outs[1], groups)
    x = input.unsqueeze(0) if unbatched else input
    return x, unbatched, geo


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x, unbatched, geo = _conv_args(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")
    out = Conv2dOp.apply(x, weight, bias, geo)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x, unbatched, geo = _conv_args(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")
    out = Conv2dOp.apply(x.unsqueeze(2), weight.unsqueeze(2), bias, geo).squeeze(2)
    return out.squeeze(0) if unbatched else out


def _conv_transpose_args(input, weight, bias, stride, padding, output_padding, groups, dilation, n, name):
    _check_types(input, weight, bias)
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
        dims = ("height", "width") if n == 2 else ("width",)
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
    if n == 1:
        geo = Geometry(bx[0], cout, 1, outs[0], 1, kernel[0], 1, stride[0], 1, dilation[0], 0, 0, pads[0], pads[0],
                       1, spatial[0], groups)
    else:
        geo = Geometry(bx[0], cout, outs[0], outs[1], kernel[0], kernel[1], stride[0], stride[1], dilation[0],
                       dilation[1], pads[0], pads[0], pads[1], pads[1], spatial[0], spatial[1], groups)
    x = input.unsqueeze(0) if unbatched else input
    return x, unbatched, geo


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    x, unbatched, geo = _conv_transpose_args(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                             2, "conv_transpose2d")
    out = ConvTranspose2dOp.apply(x, weight, bias, geo)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    x, unbatched, geo = _conv_transpose_args(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                             1, "conv_transpose1d")
    out = ConvTranspose2dOp.apply(x.unsqueeze(2), weight.unsqueeze(2), bias, geo).squeeze(2)
    return out.squeeze(0) if unbatched else out


# -- unfold / fold ---------------------------------------------------------------------------------------------------

def _fold_geometry(N, C, H, W, kernel_size, dilation, padding, stride):
    kh, kw = as_ints(kernel_size, 2, "kernel_size")
    dh, dw = as_ints(dilation, 2, "dilation")
    ph, pw = as_ints(padding, 2, "padding")
    sh, sw = as_ints(stride, 2, "stride")
    oh = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return Geometry(N, C, H, W, kh, kw, sh, sw, dh, dw, ph, ph, pw, pw, oh, ow, 1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * KH * KW, L)."""
    if input.dim() != 4:
        if input.dim() == 3:
            return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    N, C, H, W = input.shape
    geo = _fold_geometry(N, C, H, W, kernel_size, dilation, padding, stride)
    if geo.OH <= 0 or geo.OW <= 0:
        raise RuntimeError(f"Given input with spatial size ({H}, {W}), kernel_size={(geo.KH, geo.KW)}, "
                           f"dilation={(geo.dh, geo.dw)}, padding={(geo.pt, geo.pl)}, calculated shape of the array of "
                           f"sliding blocks as ({geo.OH}, {geo.OW}), but its components must be at least one.")
    return Im2Col.apply(input, geo).reshape(N, C * geo.KH * geo.KW, geo.OH * geo.OW)


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
    if geo.OH * geo.OW != L:
        raise RuntimeError(f"Given output_size=({H}, {W}), kernel_size={(kh, kw)}, dilation={(geo.dh, geo.dw)}, "
                           f"padding={(geo.pt, geo.pl)}, stride={(geo.sh, geo.sw)}, expected size of input's dimension "
                           f"2 to match the calculated number of sliding blocks {geo.OH} * {geo.OW} = "
                           f"{geo.OH * geo.OW}, but got input.size(2)={L}.")
    return Col2Im.apply(input.reshape(N, 1, CKK, L), geo)
