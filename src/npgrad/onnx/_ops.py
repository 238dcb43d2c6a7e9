"""Each recorded step's ONNX form: step name (the Op class, or an intercepted function) -> emitter.

An emitter gets the graph and the step (its arguments as the model passed them, its output arrays, and,
with dynamic axes, ``step.alt``: the same step recorded at other sizes) and returns its outputs' names.
"""
import math

import numpy as np

from ._graph import export_error

INT_MAX = np.iinfo(np.int64).max
INT_MIN = np.iinfo(np.int64).min
TABLE = {}


def emits(*names):
    def register(fn):
        for n in names:
            TABLE[n] = fn
        return fn
    return register


def _out_dtype(s):
    return s.outs[0].dtype


def _shape(x):
    return tuple(np.shape(x._data if hasattr(x, "_data") else x))


# -- elementwise -------------------------------------------------------------------------------------------

_BINARY = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "Div": "Div", "Pow": "Pow", "Maximum": "Max",
           "Minimum": "Min", "Atan2": None}


def _binary(onnx_op):
    def emit(g, s):
        a, b = s.args[:2]
        dt = _out_dtype(s)
        return [g.op(onnx_op, g.val(a, dt), g.val(b, dt))]
    return emit


for _name, _onnx in _BINARY.items():
    if _onnx:
        TABLE[_name] = _binary(_onnx)

_UNARY = {"Neg": "Neg", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Tanh": "Tanh", "Sigmoid": "Sigmoid",
          "Relu": "Relu", "Abs": "Abs", "Sin": "Sin", "Cos": "Cos", "Tan": "Tan", "Asin": "Asin", "Acos": "Acos",
          "Atan": "Atan", "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh", "Acosh": "Acosh", "Atanh": "Atanh",
          "Floor": "Floor", "Ceil": "Ceil", "Reciprocal": "Reciprocal", "Erf": "Erf", "Clone": "Identity",
          "Round": "Round", "Sign": "Sign"}


def _unary(onnx_op):
    def emit(g, s):
        return [g.op(onnx_op, g.val(s.args[0]))]
    return emit


for _name, _onnx in _UNARY.items():
    TABLE[_name] = _unary(_onnx)


@emits("Rsqrt")
def _rsqrt(g, s):
    return [g.op("Reciprocal", g.op("Sqrt", g.val(s.args[0])))]


@emits("Square")
def _square(g, s):
    x = g.val(s.args[0])
    return [g.op("Mul", x, x)]


@emits("Log1p")
def _log1p(g, s):
    return [g.op("Log", g.op("Add", g.val(s.args[0]), g.val(1, _out_dtype(s))))]


@emits("Expm1")
def _expm1(g, s):
    return [g.op("Sub", g.op("Exp", g.val(s.args[0])), g.val(1, _out_dtype(s)))]


@emits("ToCopy")
def _cast(g, s):
    return [g.op("Cast", g.val(s.args[0]), to=g.dtype(s.args[1]))]


@emits("Where")
def _where(g, s):
    c, a, b = s.args
    dt = _out_dtype(s)
    return [g.op("Where", g.val(c), g.val(a, dt), g.val(b, dt))]


@emits("MaskedFill")
def _masked_fill(g, s):
    x, m, v = s.args
    return [g.op("Where", g.val(m), g.val(v, _out_dtype(s)), g.val(x))]


def _clip(g, s, lo, hi):
    dt = _out_dtype(s)
    return [g.op("Clip", g.val(s.args[0]), "" if lo is None else g.val(lo, dt), "" if hi is None else g.val(hi, dt))]


@emits("Clamp", "ClampMin", "ClampMax", "ClampTensor", "ClampMinTensor", "ClampMaxTensor")
def _clamp(g, s):
    lo, hi = s.args[1:3]
    scalar = all(v is None or not np.ndim(v) for v in (lo, hi))
    if scalar and (lo is None or hi is None or float(lo) <= float(hi)):
        return _clip(g, s, lo, hi)
    # tensor bounds broadcast; with min > max PyTorch gives max, as max-then-min does
    x = g.val(s.args[0])
    dt = _out_dtype(s)
    if lo is not None:
        x = g.op("Max", x, g.val(lo, dt))
    if hi is not None:
        x = g.op("Min", x, g.val(hi, dt))
    return [x]


# -- activations -------------------------------------------------------------------------------------------

@emits("HardtanhOp")
def _hardtanh(g, s):
    return _clip(g, s, s.args[1], s.args[2])


@emits("LeakyReLUOp")
def _leaky_relu(g, s):
    return [g.op("LeakyRelu", g.val(s.args[0]), alpha=float(s.args[1]))]


@emits("ELUOp")
def _elu(g, s):
    x, alpha, scale, input_scale = s.args[:4]
    if scale == 1.0 and input_scale == 1.0:
        return [g.op("Elu", g.val(x), alpha=float(alpha))]
    if input_scale == 1.0:   # selu
        return [g.op("Selu", g.val(x), alpha=float(alpha), gamma=float(scale))]
    return [g.op("Celu", g.val(x), alpha=float(alpha))]


@emits("SiLUOp")
def _silu(g, s):
    x = g.val(s.args[0])
    return [g.op("Mul", x, g.op("Sigmoid", x))]


@emits("GELUOp")
def _gelu(g, s):
    x, approximate = g.val(s.args[0]), s.args[1]
    if g.opset >= 20:
        return [g.op("Gelu", x, approximate=approximate)]
    dt = _out_dtype(s)
    if approximate == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = g.op("Mul", g.op("Mul", x, x), x)
        inner = g.op("Mul", g.op("Add", x, g.op("Mul", cube, g.val(0.044715, dt))), g.val(math.sqrt(2 / math.pi), dt))
        t = g.op("Tanh", inner)
    else:  # 0.5 x (1 + erf(x / sqrt 2))
        t = g.op("Erf", g.op("Mul", x, g.val(1 / math.sqrt(2), dt)))
    return [g.op("Mul", g.op("Mul", x, g.val(0.5, dt)), g.op("Add", t, g.val(1.0, dt)))]


@emits("SoftmaxOp")
def _softmax(g, s):
    return [g.op("Softmax", g.val(s.args[0]), axis=int(s.args[1]))]


@emits("LogSoftmaxOp")
def _log_softmax(g, s):
    return [g.op("LogSoftmax", g.val(s.args[0]), axis=int(s.args[1]))]


# -- linear algebra, convolution, pooling, normalization ---------------------------------------------------

@emits("MatMul")
def _matmul(g, s):
    return [g.op("MatMul", g.val(s.args[0]), g.val(s.args[1]))]


def _float_only(s, what):
    if s.outs[0].dtype.kind != "f":
        raise export_error(f"ONNX's {what} takes floating-point tensors only (got {s.outs[0].dtype})")


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


# -- reductions --------------------------------------------------------------------------------------------

def _reduce(g, op_type, x, axes, keepdim):
    keep = int(bool(keepdim))
    if axes is None:
        return g.op(op_type, x, keepdims=keep)
    axes = [int(a) for a in axes]
    # ReduceSum takes its axes as an input from opset 13, the other reductions from opset 18
    if op_type == "ReduceSum" or g.opset >= 18:
        return g.op(op_type, x, g.ints(axes), keepdims=keep)
    return g.op(op_type, x, axes=axes, keepdims=keep)


def _dims(dims):
    if dims is None:
        return None
    return [dims] if isinstance(dims, (int, np.integer)) else list(dims)


@emits("Sum")
def _sum(g, s):
    x, dims, keepdim = s.args[:3]
    xv = g.val(x)
    if s.outs[0].dtype != _shape_dtype(x):   # sum of bools or with dtype=: accumulate in the result's type
        xv = g.op("Cast", xv, to=g.dtype(s.outs[0].dtype))
    return [_reduce(g, "ReduceSum", xv, _dims(dims), keepdim)]


def _shape_dtype(x):
    return (x._data if hasattr(x, "_data") else np.asarray(x)).dtype


@emits("Mean")
def _mean(g, s):
    x, dims, keepdim = s.args[:3]
    return [_reduce(g, "ReduceMean", g.val(x), _dims(dims), keepdim)]


@emits("AMax")
def _amax(g, s):
    x, dims, keepdim, is_min = s.args
    return [_reduce(g, "ReduceMin" if is_min else "ReduceMax", g.val(x), _dims(dims), keepdim)]


# -- shape and movement ------------------------------------------------------------------------------------

def _dynamic_dims(s, out=0):
    """The output dims that change with the dynamic axes."""
    if s.alt is None:
        return set()
    a, b = s.outs[out].shape, s.alt.outs[out].shape
    return {i for i, (p, q) in enumerate(zip(a, b)) if p != q}


@emits("Reshape")
def _reshape(g, s):
    x = s.args[0]
    target = list(s.outs[0].shape)
    dyn = _dynamic_dims(s)
    if dyn:
        in1, in2 = _shape(x), _shape(s.alt.args[0])
        rest = []
        for i in sorted(dyn):
            if i < len(in1) and in1[i] == target[i] and in2[i] == s.alt.outs[0].shape[i]:
                target[i] = 0   # ONNX's Reshape copies the input's size there
            else:
                rest.append(i)
        if len(rest) > 1:
            raise export_error(f"reshape to {list(s.outs[0].shape)} has {len(rest)} sizes that follow the dynamic "
                               "axes and do not stay in place; only one can be inferred (-1)")
        for i in rest:
            target[i] = -1
    if 0 in s.outs[0].shape:   # a real size 0, not "copy the input's size"
        if 0 in target and dyn:
            raise export_error("reshape to an empty shape along a dynamic axis has no ONNX mapping here")
        return [g.op("Reshape", g.val(x), g.ints(target), allowzero=1)]
    return [g.op("Reshape", g.val(x), g.ints(target))]


@emits("Permute")
def _permute(g, s):
    return [g.op("Transpose", g.val(s.args[0]), perm=[int(p) for p in s.args[1]])]


@emits("Expand")
def _expand(g, s):
    x = s.args[0]
    out = list(s.outs[0].shape)
    xs = _shape(x)
    lead = len(out) - len(xs)
    dyn = _dynamic_dims(s)
    target = []
    for i, n in enumerate(out):
        j = i - lead
        if j >= 0 and xs[j] == n:
            target.append(1)   # broadcasting keeps the input's size, whatever it is at run time
        elif i in dyn:
            raise export_error(f"expand to {out} broadcasts a size-1 dim to a dynamic size")
        else:
            target.append(n)
    return [g.op("Expand", g.val(x), g.ints(target))]


@emits("Tile")
def _tile(g, s):
    x, reps = s.args
    y = g.val(x)
    lead = len(reps) - len(_shape(x))
    if lead > 0:
        y = g.op("Unsqueeze", y, g.ints(range(lead)))
    return [g.op("Tile", y, g.ints(reps))]


@emits("Cat")
def _cat(g, s):
    d, *ts = s.args
    nd = s.outs[0].ndim
    # PyTorch's cat skips a 1-D empty tensor whatever the others' rank (its legacy rule)
    ts = [t for t in ts if not (_shape(t) == (0,) and nd != 1)]
    return [g.op("Concat", *[g.val(t) for t in ts], axis=int(d))]


@emits("Stack")
def _stack(g, s):
    d, *ts = s.args
    axes = g.ints([int(d)])
    return [g.op("Concat", *[g.op("Unsqueeze", g.val(t), axes) for t in ts], axis=int(d))]


@emits("Split")
def _split(g, s):
    x, d, bounds = s.args
    sizes = [b - a for a, b in bounds]
    total = _shape(x)[d]
    if bounds[0][0] != 0 or bounds[-1][1] != total:
        raise export_error("split whose pieces do not cover the dimension")
    outs = g.op("Split", g.val(x), g.ints(sizes), axis=int(d), n_out=len(sizes))
    return [outs] if len(sizes) == 1 else list(outs)


@emits("GetItem")
def _getitem(g, s):
    x, shape, idx = s.args[:3]
    idx = idx if isinstance(idx, tuple) else (idx,)
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    starts, ends, axes, steps, squeeze, unsqueeze, gathers = [], [], [], [], [], [], []
    ax = out_ax = 0
    for item in idx:
        if item is Ellipsis:
            skip = len(shape) - n_real
            ax += skip
            out_ax += skip
        elif item is None:
            unsqueeze.append(out_ax)
            out_ax += 1
        elif isinstance(item, slice):
            if item != slice(None):
                step = 1 if item.step is None else int(item.step)
                start = (0 if step > 0 else INT_MAX) if item.start is None else int(item.start)
                stop = (INT_MAX if step > 0 else INT_MIN) if item.stop is None else int(item.stop)
                starts.append(start), ends.append(stop), axes.append(ax), steps.append(step)
            ax += 1
            out_ax += 1
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            i = int(item)
            starts.append(i), ends.append(INT_MAX if i == -1 else i + 1), axes.append(ax), steps.append(1)
            squeeze.append(ax)
            ax += 1
        elif isinstance(item, np.ndarray) and item.dtype.kind in "iu" and not gathers:
            gathers.append((ax, item))
            ax += 1
            out_ax += item.ndim
        else:
            raise export_error("indexing with a boolean mask or several index tensors has no ONNX mapping here")
    if gathers and (squeeze or unsqueeze or starts):
        raise export_error("indexing that mixes an index tensor with other indices has no ONNX mapping here")
    y = g.val(x)
    if gathers:
        ax, arr = gathers[0]
        return [g.op("Gather", y, g.val(arr), axis=ax)]
    if starts:
        y = g.op("Slice", y, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps))
    if squeeze:
        y = g.op("Squeeze", y, g.ints(squeeze))
    if unsqueeze:
        y = g.op("Unsqueeze", y, g.ints(unsqueeze))
    if y == g.val(x):
        y = g.op("Identity", y)
    return [y]


# -- recurrent layers --------------------------------------------------------------------------------------

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


# -- intercepted functions (no Op of their own) ------------------------------------------------------------

_COMPARE = {"eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater", "ge": "GreaterOrEqual"}


def _compare(onnx_op):
    def emit(g, s):
        a, b = s.args[:2]
        return [g.op(onnx_op, *_common(g, a, b))]
    return emit


def _common(g, a, b):
    """Both operands as values of one dtype (PyTorch compares mixed dtypes; ONNX wants one type)."""
    if not hasattr(b, "_data"):
        return g.val(a), g.val(b, _shape_dtype(a))
    if not hasattr(a, "_data"):
        return g.val(a, _shape_dtype(b)), g.val(b)
    da, db = _shape_dtype(a), _shape_dtype(b)
    dt = np.result_type(da, db)
    return tuple(g.val(t) if d == dt else g.op("Cast", g.val(t), to=g.dtype(dt)) for t, d in ((a, da), (b, db)))


for _name, _onnx in _COMPARE.items():
    TABLE[_name] = _compare(_onnx)


@emits("ne")
def _ne(g, s):
    return [g.op("Not", _compare("Equal")(g, s)[0])]


_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor", "bitwise_and": "And",
            "bitwise_or": "Or"}


def _logical(onnx_op):
    def emit(g, s):
        a, b = s.args[:2]
        if _shape_dtype(a) != np.bool_ or _shape_dtype(b) != np.bool_:
            if onnx_op in ("And", "Or") and s.name.startswith("bitwise"):
                raise export_error(f"no ONNX mapping for operator '{s.name}' on integers")
            a, b = (g.op("Cast", g.val(t), to=g.dtype(np.bool_)) for t in (a, b))
            return [g.op(onnx_op, a, b)]
        return [g.op(onnx_op, g.val(a), g.val(b))]
    return emit


for _name, _onnx in _LOGICAL.items():
    TABLE[_name] = _logical(_onnx)


@emits("logical_not", "bitwise_not")
def _not(g, s):
    x = s.args[0]
    if _shape_dtype(x) != np.bool_:
        if s.name == "bitwise_not":
            raise export_error("no ONNX mapping for operator 'bitwise_not' on integers")
        return [g.op("Not", g.op("Cast", g.val(x), to=g.dtype(np.bool_)))]
    return [g.op("Not", g.val(x))]


@emits("bool_to_bias")
def _bool_to_bias(g, s):
    mask, dtype, masked_when = s.args[:3]
    m = g.val(mask)
    cond = m if masked_when else g.op("Not", m)
    dt = s.outs[0].dtype
    return [g.op("Where", cond, g.const(np.asarray(-np.inf, dt)), g.const(np.asarray(0, dt)))]


@emits("inplace_write")
def _inplace_write(g, s):
    t, r = s.args
    y = g.val(r)
    if r._data.dtype != t._data.dtype:
        y = g.op("Cast", y, to=g.dtype(t._data.dtype))
    if r._data.shape != t._data.shape:
        y = g.op("Expand", y, g.ints(t._data.shape))
    elif y == g.val(t):
        y = g.op("Identity", y)
    return [y]


@emits("inplace_write_to_view")
def _inplace_write_to_view(g, s):
    raise export_error("an in-place operation on a view of another tensor (it changes that tensor too) has no "
                       "ONNX mapping here; use the out-of-place operator")


# -- more operators ----------------------------------------------------------------------------------------

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


@emits("ConstantPad")
def _constant_pad(g, s):
    x, pads, value = s.args
    before, after = [int(p[0]) for p in pads], [int(p[1]) for p in pads]
    return [g.op("Pad", g.val(x), g.ints(before + after), g.val(value, _out_dtype(s)), mode="constant")]


@emits("Flip")
def _flip(g, s):
    x, dims = s.args
    dims = [int(d) for d in dims]
    n = len(dims)
    return [g.op("Slice", g.val(x), g.ints([-1] * n), g.ints([INT_MIN] * n), g.ints(dims), g.ints([-1] * n))]


@emits("Prod")
def _prod(g, s):
    x, dim, keepdim = s.args[:3]
    xv = g.val(x)
    if s.outs[0].dtype != _shape_dtype(x):
        xv = g.op("Cast", xv, to=g.dtype(s.outs[0].dtype))
    return [_reduce(g, "ReduceProd", xv, _dims(dim), keepdim)]


def _static_count(s, x, dims):
    shape = _shape(x)
    dims = range(len(shape)) if dims is None else dims
    if s.alt is not None and any(_shape(x)[d] != _shape(s.alt.args[0])[d] for d in dims):
        raise export_error(f"'{s.name.lower()}' over a dynamic axis has no ONNX mapping here")
    return int(np.prod([shape[d] for d in dims]))


@emits("Var", "Std")
def _var(g, s):
    x, dims, keepdim, correction = s.args
    dims = _dims(dims)
    n = _static_count(s, x, dims)
    xv = g.val(x)
    dt = _out_dtype(s)
    d = g.op("Sub", xv, _reduce(g, "ReduceMean", xv, dims, True))
    y = g.op("Div", _reduce(g, "ReduceSum", g.op("Mul", d, d), dims, keepdim), g.val(float(n - correction), dt))
    return [g.op("Sqrt", y) if s.name == "Std" else y]


@emits("Norm")
def _norm(g, s):
    x, p, dims, keepdim = s.args
    dims, xv, dt = _dims(dims), g.val(x), _out_dtype(s)
    if p == 2:
        return [_reduce(g, "ReduceL2", xv, dims, keepdim)]
    if p == 1:
        return [_reduce(g, "ReduceL1", xv, dims, keepdim)]
    if p == float("inf"):
        return [_reduce(g, "ReduceMax", g.op("Abs", xv), dims, keepdim)]
    if p == float("-inf"):
        return [_reduce(g, "ReduceMin", g.op("Abs", xv), dims, keepdim)]
    if p == 0:
        nz = g.op("Cast", g.op("Not", g.op("Equal", xv, g.val(0, dt))), to=g.dtype(dt))
        return [_reduce(g, "ReduceSum", nz, dims, keepdim)]
    powered = g.op("Pow", g.op("Abs", xv), g.val(float(p), dt))
    return [g.op("Pow", _reduce(g, "ReduceSum", powered, dims, keepdim), g.val(1.0 / float(p), dt))]


@emits("MaxDim")
def _max_dim(g, s):
    x, dim, keepdim, _, is_min = s.args
    return [_reduce(g, "ReduceMin" if is_min else "ReduceMax", g.val(x), [int(dim)], keepdim)]


@emits("CumSum")
def _cumsum(g, s):
    x, dim, _ = s.args
    xv = g.val(x)
    if s.outs[0].dtype != _shape_dtype(x):
        xv = g.op("Cast", xv, to=g.dtype(s.outs[0].dtype))
    return [g.op("CumSum", xv, g.const(np.asarray(int(dim))))]


@emits("IndexSelect")
def _index_select(g, s):
    x, _, d, idx = s.args
    return [g.op("Gather", g.val(x), g.val(idx), axis=int(d))]


@emits("Gather")
def _gather(g, s):
    x, _, d, idx = s.args
    return [g.op("GatherElements", g.val(x), g.val(idx), axis=int(d))]


@emits("Tri")
def _tri(g, s):
    x, k, lower = s.args
    return [g.op("Trilu", g.val(x), g.const(np.asarray(int(k))), upper=int(not lower))]


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
