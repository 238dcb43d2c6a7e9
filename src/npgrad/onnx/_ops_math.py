"""Elementwise operators, activations, softmax, matrix products and reductions."""
import math

import numpy as np

from ._table import TABLE, _dims, _out_dtype, _reduce, _shape_dtype, _static_count, emits

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


@emits("MatMul", "Vdot")  # vdot: conj(a) . b, which on the real vectors ONNX carries is a . b
def _matmul(g, s):
    return [g.op("MatMul", g.val(s.args[0]), g.val(s.args[1]))]


@emits("Sum")
def _sum(g, s):
    x, dims, keepdim = s.args[:3]
    xv = g.val(x)
    if s.outs[0].dtype != _shape_dtype(x):   # sum of bools or with dtype=: accumulate in the result's type
        xv = g.op("Cast", xv, to=g.dtype(s.outs[0].dtype))
    return [_reduce(g, "ReduceSum", xv, _dims(dims), keepdim)]


@emits("Mean")
def _mean(g, s):
    x, dims, keepdim = s.args[:3]
    return [_reduce(g, "ReduceMean", g.val(x), _dims(dims), keepdim)]


@emits("AMax")
def _amax(g, s):
    x, dims, keepdim, is_min = s.args
    return [_reduce(g, "ReduceMin" if is_min else "ReduceMax", g.val(x), _dims(dims), keepdim)]


@emits("Prod")
def _prod(g, s):
    x, dim, keepdim = s.args[:3]
    xv = g.val(x)
    if s.outs[0].dtype != _shape_dtype(x):
        xv = g.op("Cast", xv, to=g.dtype(s.outs[0].dtype))
    return [_reduce(g, "ReduceProd", xv, _dims(dim), keepdim)]


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
