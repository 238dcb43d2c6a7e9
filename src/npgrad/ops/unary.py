"""Elementwise functions of one tensor, declared one per line with their derivative.

Each row gives the NumPy forward, what the derivative needs (the input ``x``, the output ``y``, or
both) and the derivative itself written with ``_poly`` helpers, so it is differentiable again under
``create_graph=True``. Functions that only make sense on floats promote integer inputs to the default
float type first, as PyTorch does (``exp`` of an int tensor is float32, not NumPy's float64).
"""
import math

import numpy as np

from .. import _parallel
from .. import dtypes as _dt
from .. import kernels as _kernels
from ..kernels import relu as _krelu
from ..autograd.function import Op
from ..autograd.record import _apply_op
from ..tensor import Tensor
from . import _poly as P
from ._registry import op

_F16 = np.dtype(np.float16)


def _sigmoid_np(x):
    # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) is the correct 0.
    if x.dtype is _F16:  # three roundings in half precision lose a digit; PyTorch computes in float
        return (1.0 / (1.0 + np.exp(-x.astype(np.float32)))).astype(np.float16)
    return 1.0 / (1.0 + np.exp(-x))


def _rsqrt_np(x):
    if x.dtype is _F16:
        return (1.0 / np.sqrt(x.astype(np.float32))).astype(np.float16)
    return 1.0 / np.sqrt(x)


def _relu_np(x):
    if _parallel.worth_splitting(x):  # (64, 16, 28, 28) float32: ~1.1 -> ~0.6 ms
        return _parallel.elementwise(lambda o, a: np.maximum(a, 0, out=o), np.empty_like(x), x)
    return np.maximum(x, 0)


def _relu_mask(y):
    # "not y <= 0" rather than "y > 0": a NaN output passes its gradient, as in PyTorch.
    m = P.data_of(y) <= 0
    return np.logical_not(m, out=m) if type(m) is np.ndarray else not m


def _sign_np(x):
    # PyTorch's sign is (0 < x) - (x < 0): sign(nan) is 0, where np.sign gives nan.
    if x.dtype.kind == "f":
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)
    if x.dtype.kind == "c":  # abs's derivative on complex numbers: z / |z| (0 at 0), PyTorch's sgn
        return sgn_np(x)
    return np.sign(x)


def sgn_np(z):
    """z / |z|, and 0 at 0 (PyTorch's sgn of complex numbers)."""
    z = np.asarray(z)  # a 0-d gradient can arrive as a NumPy scalar
    r = np.array(np.abs(z))
    zero = r == 0
    r[zero] = 1
    # part by part: NumPy's complex / real division goes through |r|^2, which underflows for subnormal |z|
    s = np.empty_like(z)
    np.divide(z.real, r, out=s.real)
    np.divide(z.imag, r, out=s.imag)
    s[zero] = 0
    return s


def _sign(x):
    if isinstance(x, Tensor):
        return x.sgn() if x._data.dtype.kind == "c" else x.sign()
    return _sign_np(x)


def _acosh_deriv(x):
    if P.data_of(x).dtype.kind == "c":
        # sqrt(z - 1) sqrt(z + 1), not sqrt(z^2 - 1): the latter has a branch cut on the imaginary axis, where
        # acosh is analytic
        return 1.0 / (P.sqrt(x - 1.0) * P.sqrt(x + 1.0))
    return 1.0 / P.sqrt(x * x - 1.0)


class _Unary(Op):
    """Base for the table rows below: ``y = fn(x)``, ``dx = g * deriv(x, y)``.

    ``_make`` gives each row its own forward/backward, specialised to what the derivative needs
    (the input ``x``, the output ``y``, both, or nothing for a zero derivative).
    """

    __slots__ = ()
    fn = None
    deriv = None
    saves = ""   # "x", "y", "xy" or "" (a constant derivative such as zero)


def _unary_forward(fn, saves):
    # ``ctx._saved = ...`` is ctx.save_for_backward(...) without its call frame (per-op hot path; on the
    # no-grad context the assignment is dropped, as the call would be).
    if saves == "y":
        def forward(ctx, x):
            y = fn(x)
            ctx._saved = (y,)
            return y
    elif saves == "x":
        def forward(ctx, x):
            ctx._saved = (x,)
            return fn(x)
    elif saves == "xy":
        def forward(ctx, x):
            y = fn(x)
            ctx._saved = (x, y)
            return y
    else:
        def forward(ctx, x):
            return fn(x)
    return staticmethod(forward)


def _unary_backward(deriv, saves):
    if saves == "y":
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * deriv(None, y)
    elif saves == "x":
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * deriv(x, None)
    elif saves == "xy":
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * deriv(x, y)
    else:
        def backward(ctx, g):
            return P.zeros_like(g)
    return staticmethod(backward)


_LN2, _LN10 = math.log(2.0), math.log(10.0)

# Other names PyTorch gives the same function (each also a Tensor method, with its in-place form).
_ALIASES = {"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",), "asinh": ("arcsinh",),
            "acosh": ("arccosh",), "atanh": ("arctanh",), "abs": ("absolute",)}

# name, NumPy forward, saves, derivative d(y)/d(x), keeps integer dtype
_TABLE = [
    ("exp", np.exp, "y", lambda x, y: y, False),
    ("exp2", np.exp2, "y", lambda x, y: y * _LN2, False),
    ("expm1", np.expm1, "y", lambda x, y: y + 1.0, False),
    ("log", np.log, "x", lambda x, y: 1.0 / x, False),
    ("log2", np.log2, "x", lambda x, y: 1.0 / (x * _LN2), False),
    ("log10", np.log10, "x", lambda x, y: 1.0 / (x * _LN10), False),
    ("log1p", np.log1p, "x", lambda x, y: 1.0 / (x + 1.0), False),
    ("sqrt", np.sqrt, "y", lambda x, y: 0.5 / y, False),
    ("rsqrt", _rsqrt_np, "y", lambda x, y: -0.5 * y * y * y, False),
    ("reciprocal", np.reciprocal, "y", lambda x, y: -(y * y), False),
    ("sin", np.sin, "x", lambda x, y: P.cos(x), False),
    ("cos", np.cos, "x", lambda x, y: -P.sin(x), False),
    ("tan", np.tan, "y", lambda x, y: 1.0 + y * y, False),
    ("asin", np.arcsin, "x", lambda x, y: 1.0 / P.sqrt(1.0 - x * x), False),
    ("acos", np.arccos, "x", lambda x, y: -1.0 / P.sqrt(1.0 - x * x), False),
    ("atan", np.arctan, "x", lambda x, y: 1.0 / (1.0 + x * x), False),
    ("sinh", np.sinh, "x", lambda x, y: P.cosh(x), False),
    ("cosh", np.cosh, "x", lambda x, y: P.sinh(x), False),
    ("tanh", np.tanh, "y", lambda x, y: 1.0 - y * y, False),
    ("asinh", np.arcsinh, "x", lambda x, y: 1.0 / P.sqrt(x * x + 1.0), False),
    ("acosh", np.arccosh, "x", lambda x, y: _acosh_deriv(x), False),
    ("atanh", np.arctanh, "x", lambda x, y: 1.0 / (1.0 - x * x), False),
    ("sigmoid", _sigmoid_np, "y", lambda x, y: y * (1.0 - y), False),
    ("abs", np.abs, "x", lambda x, y: _sign(x), True),
    ("square", np.square, "x", lambda x, y: 2.0 * x, True),
    ("relu", _relu_np, "y", lambda x, y: _relu_mask(y), True),
    ("sign", _sign_np, "", None, True),
    ("floor", np.floor, "", None, True),
    ("ceil", np.ceil, "", None, True),
    ("trunc", np.trunc, "", None, True),
]

_OPS = {}


def _make(name, fn, saves, deriv, keeps_int):
    cls = type(name.capitalize(), (_Unary,), {
        "__slots__": (), "fn": staticmethod(fn), "saves": saves,
        "deriv": staticmethod(deriv) if deriv else None, "__module__": __name__,
        "node_name": "PowBackward0" if name == "square" else None,  # PyTorch's square is pow(x, 2)
        "forward": _unary_forward(fn, saves), "backward": _unary_backward(deriv, saves)})
    _OPS[name] = cls
    integral_identity = name in ("floor", "ceil", "trunc")

    def unary(input):
        kind = input._data.dtype.kind
        if kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
            if kind == "c":
                if name in _COMPLEX_REFUSED:
                    raise _COMPLEX_REFUSED[name]()
                return _apply_op(cls, (input,))
            if kind == "b":
                _check_bool(name, input)
                if name == "sign":
                    return input.clone()
                if name == "square":  # PyTorch's square is pow(x, 2): bool ** int gives int64
                    input = input._cast(_dt.int64)
            if integral_identity:
                return input.clone()
            if not keeps_int:
                input = input._cast(_dt.get_default_dtype())
        return _apply_op(cls, (input,))

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"Elementwise {name}, differentiable."
    aliases = _ALIASES.get(name, ())
    methods = (name,) + aliases + (("__abs__",) if name == "abs" else ())
    globals()[name] = op(*aliases, methods=methods, inplace="generic")(unary)
    return unary


# PyTorch's refusals of complex input (the other rows compute on complex numbers, as NumPy does).
_COMPLEX_REFUSED = {
    "sign": lambda: NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                        "Please use torch.sgn instead."),
    "relu": lambda: NotImplementedError("clamp is not supported for complex types"),
    **{n: (lambda n=n: NotImplementedError(f"{n} is not supported for complex inputs")) for n in ("floor", "ceil",
                                                                                                  "trunc")},
}


def _check_bool(name, input):
    """PyTorch has no bool kernel for these; the others promote bool to int64 or float."""
    if name in ("floor", "ceil", "trunc"):
        raise NotImplementedError(f'"{name}_vml_cpu" not implemented for \'Bool\'')
    if name == "abs":
        raise NotImplementedError('"abs_cpu" not implemented for \'Bool\'')
    if name == "relu":
        raise RuntimeError("Boolean inputs not supported for relu")


for _row in _TABLE:
    _make(*_row)


def _relu_backward(ctx, g):
    # PyTorch's threshold_backward selects: inputs relu zeroed get an exact 0 even from a NaN gradient
    (y,) = ctx.saved_tensors
    if type(g) is np.ndarray and g.shape == y.shape and _kernels.fits(g, y):
        got = _krelu.relu_grad(g, y)  # (compiled: one pass, where the mask below takes four)
        if got is not None:
            return got
    if _parallel.worth_splitting(g, y) and g.dtype == y.dtype:
        return _parallel.elementwise(_relu_grad_into, np.empty_like(g), g, y)
    return P.where(_relu_mask(y), g, 0.0)


def _relu_grad_into(out, g, y):
    """out = where(not y <= 0, g, 0) for one piece, by the bit selection P.where makes (bits_select): g's bits
    ANDed with all-ones where the gradient passes (a NaN output passes it, as in PyTorch) and zeros elsewhere."""
    it = P._SAME_WIDTH_INT.get(g.dtype)
    if it is None:
        np.copyto(out, P.where(_relu_mask(y), g, 0.0))
        return
    m = np.less_equal(y, 0).view(np.int8).astype(it)
    m -= 1
    np.bitwise_and(g.view(it), m, out=out.view(it))


_OPS["relu"].backward = staticmethod(_relu_backward)


class Frac(_Unary):
    # frac(x) = x - trunc(x): derivative 1 everywhere it is defined.
    __slots__ = ()

    @staticmethod
    def forward(ctx, x):
        return x - np.trunc(x)

    @staticmethod
    def backward(ctx, g):
        return g


_OPS["frac"] = Frac


@op(inplace="generic")
def frac(input):
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{_dt.scalar_name(input.dtype)}'")
    return Frac.apply(input)


class Round(Op):
    __slots__ = ()

    @staticmethod
    def forward(ctx, x, decimals):
        return np.round(x, decimals) if decimals else np.round(x)

    @staticmethod
    def backward(ctx, g):
        return P.zeros_like(g), None


@op(inplace="generic")
def round(input, *, decimals=0):  # noqa: A001
    if input._data.dtype.kind != "f" and input._data.dtype not in _dt.LOW_PRECISION_NP:
        if input._data.dtype.kind in "bc":
            raise _dt.not_implemented("round_vml_cpu", input._data.dtype)
        return input.clone()
    return (RoundDecimals if decimals else Round).apply(input, decimals)


class RoundDecimals(Round):
    __slots__ = ()
    node_name = "RoundBackward1"  # PyTorch's node for round(decimals=...)

