"""Layers: linear, convolutions, pooling, normalizations, embeddings, recurrent layers."""
import numpy as np

from ._graph import export_error
from ._table import _float_only, _out_dtype, _reduce, _shape, emits

def _transposed(g, w):
    """w.T: folded into an initializer when w is a constant, else a Transpose node."""
    if g.is_live(w):
        return g.op("Transpose", g.val(w), perm=[1, 0])
    arr = w._data if hasattr(w, "_data") else np.asarray(w)
    base = g.param_names.get(id(arr))
    return g.const(np.ascontiguousarray(arr.T), (base + "_t") if base else "const")


@emits("LinearOp")
def _linear(g, s):
    x, w, b = s.args
    if _shape(x).__len__() == 2:
        return [g.op("Gemm", g.val(x), g.val(w), g.val(b), transB=1)]
    y = g.op("MatMul", g.val(x), _transposed(g, w))
    return [y if b is None else g.op("Add", y, g.val(b))]


@emits("ConvNdOp")
def _conv(g, s):
    x, w, b, geo = s.args
    _float_only(s, "Conv")
    ins = [g.val(x), g.val(w)] + ([g.val(b)] if b is not None else [])
    return [g.op("Conv", *ins, kernel_shape=list(geo.k), strides=list(geo.s), dilations=list(geo.d),
                 pads=list(geo.lo) + list(geo.hi), group=int(geo.G))]


@emits("MaxPoolOp")
def _max_pool(g, s):
    x, geo = s.args[:2]
    _float_only(s, "MaxPool")
    return [g.op("MaxPool", g.val(x), kernel_shape=list(geo.k), strides=list(geo.s), dilations=list(geo.d),
                 pads=list(geo.lo) + list(geo.hi))]


@emits("AvgPool")
def _avg_pool(g, s):
    x, geo, div = s.args
    _float_only(s, "AveragePool")
    # Every window lies inside the explicitly padded input (the ceil-mode overhang is padding too), so ONNX
    # divides by the kernel size; rescaling by kernel size / npgrad's divisor then gives any divisor exactly
    # (count_include_pad=False, ceil mode's clipped windows, divisor_override).
    full = float(np.prod(geo.k))
    y = g.op("AveragePool", g.val(x), kernel_shape=list(geo.k), strides=list(geo.s),
             pads=list(geo.lo) + list(geo.hi), count_include_pad=1)
    div = np.asarray(div)
    if np.all(div == full):
        return [y]
    return [g.op("Mul", y, g.const((full / div.astype(np.float64)).astype(s.outs[0].dtype)))]


@emits("NativeLayerNorm")
def _layer_norm(g, s):
    x, w, b, axes, eps = s.args[:5]
    dt = _out_dtype(s)
    nd = len(_shape(x))
    if g.opset >= 17:
        scale = g.val(w) if w is not None else g.const(np.ones(_shape(x)[axes[0]:], dt))
        ins = [g.val(x), scale] + ([g.val(b)] if b is not None else [])
        return [g.op("LayerNormalization", *ins, axis=int(axes[0]) - nd, epsilon=float(eps))]
    xv = g.val(x)
    neg_axes = [a - nd for a in axes]
    mean = _reduce(g, "ReduceMean", xv, neg_axes, True)
    d = g.op("Sub", xv, mean)
    var = _reduce(g, "ReduceMean", g.op("Mul", d, d), neg_axes, True)
    y = g.op("Div", d, g.op("Sqrt", g.op("Add", var, g.val(float(eps), dt))))
    if w is not None:
        y = g.op("Mul", y, g.val(w))
    if b is not None:
        y = g.op("Add", y, g.val(b))
    return [y]


@emits("EmbeddingOp")
def _embedding(g, s):
    w, idx = s.args[:2]
    return [g.op("Gather", g.val(w), g.val(idx), axis=0)]


def _reorder(w, H, order):
    """Gate blocks of H rows, from PyTorch's order into ONNX's: ``order`` lists PyTorch's block for each of
    ONNX's (LSTM: PyTorch i, f, g, o -> ONNX i, o, f, c; GRU: r, z, n -> z, r, h)."""
    return np.concatenate([w[k * H:(k + 1) * H] for k in order])


_RECURRENT = {"LSTM": ("LSTM", (0, 3, 1, 2)), "GRU": ("GRU", (1, 0, 2)), "RNN_TANH": ("RNN", (0,)),
              "RNN_RELU": ("RNN", (0,))}


@emits("RecurrentLayer")
def _recurrent(g, s):
    x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, mode, batch_sizes, reverse = s.args
    op_type, order = _RECURRENT[mode]
    if w_hr is not None or len(set(batch_sizes)) > 1:
        raise export_error(f"{mode} with projections or packed sequences of varying lengths has no ONNX mapping here")
    if any(g.is_live(t) for t in (w_ih, w_hh, b_ih, b_hh)):
        raise export_error(f"{mode} weights that depend on the inputs have no ONNX mapping here")
    wi, wh = np.asarray(w_ih._data), np.asarray(w_hh._data)
    H = wh.shape[1]
    T = len(batch_sizes)
    ins = [g.op("Reshape", g.val(x), g.ints([T, -1, _shape(x)[1]])), g.const(_reorder(wi, H, order)[None]),
           g.const(_reorder(wh, H, order)[None])]
    if b_ih is not None:
        ins.append(g.const(np.concatenate([_reorder(b_ih._data, H, order), _reorder(b_hh._data, H, order)])[None]))
    else:
        ins.append("")
    ins.append("")   # sequence_lens: every sequence is T long
    for st in (h0, c0) if mode == "LSTM" else (h0,):
        # an all-zero constant initial state is ONNX's default (and keeps the batch size free)
        ins.append("" if not g.is_live(st) and not np.any(st._data) else g.op("Unsqueeze", g.val(st), g.ints([0])))
    while ins[-1] == "":
        ins.pop()
    attrs = dict(hidden_size=int(H), direction="reverse" if reverse else "forward")
    if mode == "GRU":
        attrs["linear_before_reset"] = 1   # PyTorch's n = tanh(W x + b + r * (U h + c))
    elif op_type == "RNN":
        attrs["activations"] = ["Relu" if mode == "RNN_RELU" else "Tanh"]
    outs = g.op(op_type, *ins, n_out=3 if mode == "LSTM" else 2, **attrs)
    axis0 = g.ints([0])
    res = [g.op("Reshape", outs[0], g.ints([-1, H]))]   # (T, 1, B, H) -> the packed (T*B, H)
    return res + [g.op("Squeeze", o, axis0) for o in outs[1:]]


@emits("ConvTransposeNdOp")
def _conv_transpose(g, s):
    x, w, b, geo = s.args
    _float_only(s, "ConvTranspose")
    # geo describes the forward convolution this one is the adjoint of: size = our output, out = our input
    opad = [o - ((i - 1) * st - lo - hi + d * (k - 1) + 1)
            for o, i, st, lo, hi, d, k in zip(geo.size, geo.out, geo.s, geo.lo, geo.hi, geo.d, geo.k)]
    ins = [g.val(x), g.val(w)] + ([g.val(b)] if b is not None else [])
    return [g.op("ConvTranspose", *ins, kernel_shape=list(geo.k), strides=list(geo.s), dilations=list(geo.d),
                 pads=list(geo.lo) + list(geo.hi), group=int(geo.G), output_padding=opad)]


@emits("Normalize")
def _normalize(g, s):
    x, w, b, axes, eps, want_stats = s.args[:6]
    dt = _out_dtype(s)
    xv = g.val(x)
    axes = [int(a) for a in axes]
    mean = _reduce(g, "ReduceMean", xv, axes, True)
    d = g.op("Sub", xv, mean)
    var = _reduce(g, "ReduceMean", g.op("Mul", d, d), axes, True)
    y = g.op("Div", d, g.op("Sqrt", g.op("Add", var, g.val(float(eps), dt))))
    if w is not None:
        y = g.op("Mul", y, g.val(w))
    if b is not None:
        y = g.op("Add", y, g.val(b))
    if not want_stats:
        return [y]
    flat = g.ints([-1])
    return [y, g.op("Reshape", mean, flat), g.op("Reshape", var, flat)]
