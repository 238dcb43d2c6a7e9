"""PyTorch's names for the graph nodes of npgrad's built-in operators.

``grad_fn.name()`` is ``<OpClass>Backward0`` by default, which already is PyTorch's name for most
operators (``MulBackward0``, ``TanhBackward0`` ...). Where npgrad factors an operator differently
(one ``Reshape`` for view/reshape/flatten, one ``MatMul`` for mm/mv/dot, one ``GetItem`` for every
index expression ...) the table below gives the name PyTorch would show, sometimes depending on what
the node remembers (the reduced dims of a sum, the shapes of a matmul). A name cannot always be
recovered (``unsqueeze`` is a ``Reshape`` here and reads ``ViewBackward0``); this is best effort for
users who walk the graph, never something the engine depends on.
"""
import numpy as np

__all__ = ["torch_name"]


def _attr(node, name, default=None):
    return node.__dict__.get(name, default)


def _all_dims(node):
    dims, shape = _attr(node, "dims"), _attr(node, "shape")
    if dims is None:
        return True
    if shape is not None:
        return len(tuple(dims)) == len(shape)
    return False


def _sum(node):
    return "SumBackward0" if _all_dims(node) and not _attr(node, "keepdim") else "SumBackward1"


def _mean(node):
    return "MeanBackward0" if _all_dims(node) and not _attr(node, "keepdim") else "MeanBackward1"


def _operand_ndims(node):
    saved = node._saved
    if saved is not None and len(saved) >= 2:
        return tuple(np.ndim(s) for s in saved[:2])
    meta = node._in_meta
    if meta and all(m is not None for m in meta[:2]):
        return tuple(len(m[0]) for m in meta[:2])
    return None


def _matmul(node):
    nd = _operand_ndims(node)
    return {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0",
            (3, 3): "BmmBackward0"}.get(nd, "MatMulBackward0")


def _amax(node):
    is_min = _attr(node, "is_min")
    saved = node._saved
    if is_min is None and saved is not None:
        x, out = saved[0], saved[1]
        dims, keep = _attr(node, "dims"), _attr(node, "keepdim")
        is_min = bool(np.array_equal(np.min(x, axis=dims, keepdims=keep), out, equal_nan=True)
                      and not np.array_equal(np.max(x, axis=dims, keepdims=keep), out, equal_nan=True))
    if _all_dims(node) and not _attr(node, "keepdim"):
        return "MinBackward1" if is_min else "MaxBackward1"
    return "AminBackward0" if is_min else "AmaxBackward0"


def _getitem(node):
    if _attr(node, "advanced"):
        return "IndexBackward0"
    index = _attr(node, "index")
    parts = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in parts):
        return "SelectBackward0"
    if any(i is None for i in parts):
        return "UnsqueezeBackward0"
    return "SliceBackward0"


def _tri(node):
    return "TrilBackward0" if _attr(node, "lower") else "TriuBackward0"


_NAMES = {
    "Sum": _sum,
    "Mean": _mean,
    "MatMul": _matmul,
    "AMax": _amax,
    "GetItem": _getitem,
    "Tri": _tri,
    "Reshape": "ViewBackward0",
    "Square": "PowBackward0",
    "_Cast": "ToCopyBackward0",
    "CumSum": "CumsumBackward0",
    "CumProd": "CumprodBackward0",
    "LogSumExp": "LogsumexpBackward0",
    "Tile": "RepeatBackward0",
    "_Atan2": "Atan2Backward0",
    "Norm": "LinalgVectorNormBackward0",
    "_DiagonalBackward": "DiagEmbedBackward0",
    "CopySlices": "torch::autograd::CopySlices",
}


def torch_name(node):
    """PyTorch's name for a built-in node, or None when the default ``<Class>Backward0`` is it.

    An Op class may also declare its name itself: ``node_name = "AddcmulBackward0"``.
    """
    cls = type(node)
    declared = getattr(cls, "node_name", None)
    if declared is not None:
        return declared
    if not cls.__module__.startswith("npgrad.ops"):
        return None
    entry = _NAMES.get(cls.__name__)
    if entry is None:
        return None
    return entry if isinstance(entry, str) else entry(node)
