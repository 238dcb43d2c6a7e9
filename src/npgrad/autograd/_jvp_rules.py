"""Jacobian-vector-product rules for forward-mode AD (see forward_ad.py), one kind per built-in Op.

An Op's kind is looked up by its class name (this layer may not import the operator modules) and cached
per class. A rule gets ``(cls, primals, tangents, outputs, node)``: the op's arguments with the level's
tangents stripped, the tangent per argument (None where there is none), the op's outputs as a tuple,
and, for the kinds that call the op's backward, the graph node the forward recorded. It returns one
tangent per output (None for an output with none).

* ``linear``: the op is linear in its float Tensor arguments together (reductions by sum, movement,
  indexing, concatenation): J t is the op itself applied to the tangents, zeros for a float argument
  without one.
* ``multilinear``: linear in each factor separately (mul, matmul, einsum, cross, linear, convolution),
  plus additive arguments (a bias): J t = sum over factors i of op(..., t_i, ...) with the other factors'
  primals, the bias tangent added in the first term.
* ``diagonal``: elementwise, so each input's Jacobian is diagonal (after broadcasting) and equals its
  transpose: J_k t_k is the op's own backward applied to ``t_k`` broadcast to the output's shape (the
  input-k part of it, before the engine would reduce it to the input's shape).
* ``add``/``sub``: t_a +- t_b, broadcast to the output.
* ``own``: an Op with a ``_jvp_rule(primals, tangents, outputs)`` staticmethod (nn's fused RecurrentLayer, where
  one pass of tangents through its composite recomputation beats the double VJP's three passes).
* anything else: the double-VJP fallback in forward_ad.py.
"""
import numpy as np

LINEAR = frozenset({
    "Neg", "SumTo", "Expand", "Sum", "Mean", "CumSum", "Reshape", "Permute", "Tile", "Flip", "Roll", "Split", "Cat",
    "Stack", "Tri", "Diagonal", "DiagEmbed", "Clone", "GetItem", "IndexSelect", "Gather", "ScatterAdd", "IndexAdd",
    "IndexCopy", "SliceScatter", "SelectScatter", "DiagonalScatter", "AsStrided", "Unfold", "ToCopy", "CopyFrom",
    "Im2Col", "Col2Im", "AvgPool", "_SliceCopy",
    "Transform", "TransformAdjoint",  # torch.fft's transforms (ops/spectral.py): R-linear
    "RealView", "ImagView", "Conj", "ConjPhysical",  # complex parts and conjugation (ops/complex_math.py): R-linear
})

# name -> positions of additive (bias) arguments; every other float Tensor argument is a factor
MULTILINEAR = {"Mul": (), "MatMul": (), "Einsum": (), "Cross": (), "LinearOp": (2,), "ConvNdOp": (2,),
               "ConvTransposeNdOp": (2,)}

DIAGONAL = frozenset({
    "Div", "Pow", "Where", "Maximum", "Minimum", "Fmax", "Fmin", "Clamp", "ClampMin", "ClampMax", "ClampTensor",
    "ClampMinTensor", "ClampMaxTensor", "Atan2", "Hypot", "Xlogy", "Lerp", "LerpTensorWeight", "NanToNum", "Erf",
    "Erfc", "Lgamma", "Digamma", "Erfinv", "Logit", "Sinc", "Xlog1py", "Entr", "Copysign", "LogAddExp",
    "LogAddExp2", "I0", "I1", "I0e", "I1e", "Erfcx", "Ndtri", "LeakyReLUOp", "HardtanhOp", "ELUOp", "GELUOp",
    "SiLUOp", "MishOp", "SoftplusOp", "LogSigmoidOp", "HardsigmoidOp", "HardswishOp", "SoftshrinkOp",
    "HardshrinkOp",
})

_CACHE = {}


def kind_of(cls):
    """``linear``, ``multilinear``, ``diagonal``, ``add``, ``sub``, ``own`` or ``fallback`` for an Op class."""
    k = _CACHE.get(cls)
    if k is None:
        k = _CACHE[cls] = _classify(cls)
    return k


def _classify(cls):
    name = cls.__name__
    if name == "Add" or name == "Sub":
        return name.lower()
    if getattr(cls, "_jvp_rule", None) is not None:
        return "own"
    if name in LINEAR:
        return "linear"
    if name in MULTILINEAR:
        return "multilinear"
    if name in DIAGONAL or any(b.__name__ == "_Unary" for b in cls.__mro__[1:]):
        return "diagonal"
    return "fallback"


def needs_node(kind):
    return kind == "diagonal" or kind == "fallback"


def _is_float(a, T):
    return isinstance(a, T) and a._data.dtype.kind == "f"


def _zeros(a):
    return type(a)._wrap(np.zeros(a._data.shape, a._data.dtype))


def _as(t, like):
    """Tangent ``t`` in the dtype of its primal ``like`` (make_dual accepts any float tangent)."""
    if t._data.dtype != like._data.dtype:
        return t.to(like.dtype)
    return t


def _as_tuple(r):
    return r if type(r) is tuple else (r,)


def linear(cls, primals, tangents, outs, node):
    T = type(outs[0])
    sub = []
    for a, t in zip(primals, tangents):
        if t is not None:
            sub.append(_as(t, a))
        elif _is_float(a, T):
            sub.append(_zeros(a))
        else:
            sub.append(a)
    return _as_tuple(cls.apply(*sub))


def multilinear(cls, primals, tangents, outs, node):
    T = type(outs[0])
    additive = MULTILINEAR[cls.__name__]
    factors = [k for k, a in enumerate(primals) if _is_float(a, T) and k not in additive]
    bias = [k for k in additive if k < len(primals) and _is_float(primals[k], T)]
    total = None
    bias_done = False
    for i in factors:
        if tangents[i] is None:
            continue
        sub = list(primals)
        sub[i] = _as(tangents[i], primals[i])
        for k in bias:
            t = tangents[k]
            sub[k] = _as(t, primals[k]) if (t is not None and not bias_done) else _zeros(primals[k])
        bias_done = True
        term = cls.apply(*sub)
        total = term if total is None else total + term
    if not bias_done:  # only a bias has a tangent: op(0, ..., t_bias)
        sub = list(primals)
        sub[factors[0]] = _zeros(primals[factors[0]])
        for k in bias:
            t = tangents[k]
            sub[k] = _as(t, primals[k]) if t is not None else _zeros(primals[k])
        total = cls.apply(*sub)
    return (total,)


def add(cls, primals, tangents, outs, node, sign=1):
    out = outs[0]
    total = None
    for k, t in enumerate(tangents):
        if t is None:
            continue
        if sign < 0 and k == 1:
            t = -t
        total = t if total is None else total + t
    if tuple(total.shape) != tuple(out.shape):
        total = total.expand(out.shape)
    return (total,)


def sub(cls, primals, tangents, outs, node):
    return add(cls, primals, tangents, outs, node, -1)


def diagonal(cls, primals, tangents, outs, node, tracked):
    """J_k t_k = backward(t_k broadcast to the output) for input k; arrays when nothing is tracked."""
    out = outs[0]
    shape = out._data.shape
    total = None
    for k, t in enumerate(tangents):
        if t is None:
            continue
        g = t if tracked else t._data
        if tuple(g.shape) != shape:
            g = g.expand(shape) if tracked else np.broadcast_to(g, shape)
        r = _as_tuple(cls.backward(node, g))[k]
        if r is None:
            continue
        if tuple(r.shape) != shape:  # a formula that reduced or reshaped: not elementwise after all
            return None
        total = r if total is None else total + r
    if total is None:
        return (None,)
    if not tracked:
        total = type(out)._wrap(np.asarray(total))
    return (total,)


def own(cls, primals, tangents, outs, node):
    return _as_tuple(cls._jvp_rule(primals, tangents, outs))


RULES = {"linear": linear, "multilinear": multilinear, "add": add, "sub": sub, "own": own}
