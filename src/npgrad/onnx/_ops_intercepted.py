"""The functions that compute without an Op and are recorded by interception (see ``_trace``): comparisons,
logical operators, and attention's boolean mask turned into an additive bias."""
import numpy as np

from ._graph import export_error
from ._table import TABLE, _shape_dtype, emits

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
