"""Activation functions. Each non-trivial one is a single fused Op whose backward formula is written with
array-or-Tensor helpers, so it is differentiable again under ``create_graph=True`` (gradient penalties,
Hessian-vector products). Masks that select a branch are constants of the input's dtype.
"""
import math

import numpy as np

from ... import _parallel
from ... import dtypes as _dt
from ...autograd.function import Op
from ...ops import _poly as P
from ...ops.inplace import inplace as _inplace
from ...ops.pointwise import where as _where
from ...tensor import Tensor
from ._utils import clamp_max, select, zero_where
from ...ops._erf import erf_poly, gelu32_np, normal_cdf_np
from ... import kernels as _kernels
from ...kernels import gelu as _kgelu

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_BETA = math.sqrt(2.0 / math.pi)
_TANH_KAPPA = 0.044715
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# PyTorch's CPU kernel names, which its "not implemented for 'Long'" errors quote.
_KERNELS = {"gelu": "GeluKernelImpl", "elu": "elu_cpu", "selu": "elu_cpu", "celu": "elu_cpu",
            "softshrink": "softshrink_check", "logsigmoid": "log_sigmoid_cpu"}


def _float(x, fn):
    """The input of a floating-point-only activation, with PyTorch's errors for anything else."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if x._data.dtype.kind != "f" and x._data.dtype not in _dt.LOW_PRECISION_NP:
        raise NotImplementedError(f'"{_KERNELS.get(fn, fn + "_cpu")}" not implemented for '
                                  f"'{_dt.scalar_name(x._data.dtype)}'")
    return x


def _maybe_inplace(input, inplace, fn, *args):
    if inplace:
        return _inplace(input, lambda t, *a: fn(t, *a, inplace=False), *args)
    return None


def _plain_activation(fn, op, input, inplace):
    """``fn(input, inplace)`` for an activation without parameters: ``op`` on a floating input, or in place."""
    r = _maybe_inplace(input, inplace, fn)
    if r is not None:
        return r
    return op.apply(_float(input, fn.__name__))


# -- ReLU family -----------------------------------------------------------------------------------------------

def relu(input, inplace=False):
    if inplace:
        return input.relu_()
    return input.relu()


def relu_(input):
    return input.relu_()


class LeakyReLUOp(Op):
    __slots__ = ()
    node_name = "LeakyReluBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return np.where(x > 0, x, x * np.asarray(slope, x.dtype))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        # Branch by the sign of x (a constant); x == 0 takes the negative slope, as in PyTorch.
        return g * np.where(xd > 0, np.asarray(1, xd.dtype), np.asarray(ctx.slope, xd.dtype)), None


def leaky_relu(input, negative_slope=0.01, inplace=False):
    r = _maybe_inplace(input, inplace, leaky_relu, negative_slope)
    if r is not None:
        return r
    return LeakyReLUOp.apply(_float(input, "leaky_relu"), float(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


class HardtanhOp(Op):
    __slots__ = ()
    node_name = "HardtanhBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return np.clip(x, np.asarray(lo, x.dtype), np.asarray(hi, x.dtype))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        # PyTorch's formula, (x <= min || x >= max) ? 0 : grad: a NaN input passes the gradient, and the
        # gradient is selected, not multiplied by a 0/1 mask (a NaN from above must not reach clipped inputs).
        clipped = xd <= ctx.lo
        clipped |= xd >= ctx.hi
        return zero_where(clipped, g), None, None


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    r = _maybe_inplace(input, inplace, hardtanh, min_val, max_val)
    if r is not None:
        return r
    if isinstance(input, Tensor) and input._data.dtype.kind in "iub":
        d = input._data
        if d.dtype.kind == "b":
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if d.dtype.kind == "u" and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        # PyTorch clips integers in their own type, the bounds converted to it (truncated)
        return Tensor._wrap(np.clip(d, np.asarray(min_val).astype(d.dtype), np.asarray(max_val).astype(d.dtype)))
    return HardtanhOp.apply(_float(input, "hardtanh"), min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def threshold(input, threshold, value, inplace=False):
    r = _maybe_inplace(input, inplace, globals()["threshold"], threshold, value)
    if r is not None:
        return r
    # "not x <= threshold" rather than "x > threshold": NaN passes through, as in PyTorch
    return _where(Tensor._wrap(~(input._data <= threshold)), input, value)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


class ELUOp(Op):
    """elu/selu/celu: ``scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))``."""

    __slots__ = ()
    node_name = "EluBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale, grad_input_scale=None):
        ctx.save_for_backward(x)
        ctx.params = (alpha, scale, input_scale if grad_input_scale is None else grad_input_scale)
        dt = x.dtype
        neg = np.expm1(np.minimum(x, 0) * np.asarray(input_scale, dt)) * np.asarray(alpha, dt)
        y = np.where(x > 0, x, neg)
        if scale != 1:
            y *= np.asarray(scale, dt)
        return y

    @staticmethod
    def backward(ctx, g):
        # PyTorch's formula, x <= 0 ? grad * scale * alpha * input_scale * exp(x * input_scale) : grad * scale:
        # NaN and +inf take the positive slope. The branch is selected, so the exponential of the branch not
        # taken never enters the result; min(x, 0) keeps it from overflowing.
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.params
        xd = P.data_of(x)
        neg = xd <= 0
        d = P.where(neg, (scale * alpha * input_scale) * P.exp(clamp_max(x, 0.0) * input_scale), scale)
        return g * d, None, None, None, None


def elu(input, alpha=1.0, inplace=False):
    r = _maybe_inplace(input, inplace, elu, alpha)
    if r is not None:
        return r
    return ELUOp.apply(_float(input, "elu"), float(alpha), 1.0, 1.0)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    r = _maybe_inplace(input, inplace, selu)
    if r is not None:
        return r
    return ELUOp.apply(_float(input, "selu"), _SELU_ALPHA, _SELU_SCALE, 1.0)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    r = _maybe_inplace(input, inplace, celu, alpha)
    if r is not None:
        return r
    # PyTorch's celu derivative uses 1 / float32(alpha) as the input scale; matched so float64 results agree.
    return ELUOp.apply(_float(input, "celu"), float(alpha), 1.0, 1.0 / float(alpha), 1.0 / float(np.float32(alpha)))


# -- smooth activations -----------------------------------------------------------------------------------------

class GELUOp(Op):
    __slots__ = ()
    node_name = "GeluBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        if _kernels.fits(x):  # the compiled kernel (npgrad.kernels.gelu); its backward recomputes the derivative
            y = _kgelu.activation(approximate, x)
            if y is not None:
                ctx.kernel = approximate
                return y
        dt = x.dtype
        if approximate == "tanh":
            inner = (x + x * x * x * np.asarray(_TANH_KAPPA, dt)) * np.asarray(_TANH_BETA, dt)
            t = np.tanh(inner)
            ctx.t = t
            return x * (1 + t) * np.asarray(0.5, dt)
        if dt == np.float32:
            need = ctx.needs_input_grad
            y, ctx.deriv = gelu32_np(x, bool(need) and need[0])
            return y
        cdf = normal_cdf_np(x)
        ctx.cdf = cdf
        return x * cdf

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        gx = _kernel_grad(ctx, x, g)
        if gx is not None:
            return gx, None
        if ctx.approximate == "tanh" and (P.is_tensor(g) or ctx.__dict__.get("deriv") is None):
            x2 = x * x
            t = P.from_forward(g, ctx, "t", lambda: P.tanh((x + x2 * x * _TANH_KAPPA) * _TANH_BETA))
            left = 0.5 * (1 + t)
            right = (0.5 * x) * (1 - t * t) * (_TANH_BETA * (1 + (3 * _TANH_KAPPA) * x2))
            return g * (left + right), None
        if not P.is_tensor(g):
            deriv = ctx.__dict__.get("deriv")
            if deriv is not None:  # float32: forward computed the derivative (gelu32_np)
                if _parallel.worth_splitting(g, deriv) and g.dtype == deriv.dtype:
                    return _parallel.elementwise(lambda o, a, b: np.multiply(a, b, out=o), np.empty_like(g), g,
                                                 deriv), None
                return g * deriv, None
            # The same formula with one buffer: ~1.2x faster than the lines below on arrays (GELU backward of
            # 256x4096 float32: 2.5 vs 3.0 ms), and GPT-style models spend their MLPs here.
            # tests/autograd/test_two_formulas.py checks the two agree.
            buf = np.multiply(x, x, out=np.empty_like(x))  # out=: an array for 0-d x too (exp writes into it)
            buf *= -0.5
            np.exp(buf, out=buf)
            buf *= _INV_SQRT_2PI
            buf *= x
            buf += ctx.cdf
            buf *= g
            return buf, None
        cdf = 0.5 * (1 + erf_poly(x * _SQRT1_2))
        pdf = P.exp(x * x * -0.5) * _INV_SQRT_2PI
        return g * (cdf + x * pdf), None


def _kernel_grad(ctx, x, g):
    """g times the derivative, recomputed by the compiled kernel whose forward ran (``ctx.kernel``: its kind);
    None for a differentiable (create_graph) backward, a gradient the kernel does not take, or no kernel: the
    caller's formulas then run."""
    kind = ctx.__dict__.get("kernel")
    if kind is None or P.is_tensor(g):
        return None
    x = P.data_of(x)
    if g.shape == x.shape and g.dtype == x.dtype:
        g = np.ascontiguousarray(g)  # (a strided upstream gradient: one copy, still one pass after it)
        if _kernels.fits(x, g):
            gx = _kgelu.activation_grad(kind, x, g)
            if gx is not None:
                return gx
    # The kernels switched off since the forward, or numba failing now: the NumPy backward, from the forward
    # intermediates it would have kept.
    if kind == "silu":
        ctx.s = P.sigmoid(x)
    elif kind == "tanh":
        ctx.t = np.tanh((x + x * x * x * np.asarray(_TANH_KAPPA, x.dtype)) * np.asarray(_TANH_BETA, x.dtype))
    elif x.dtype == np.float32:
        ctx.deriv = gelu32_np(x, True)[1]
    else:
        ctx.cdf = normal_cdf_np(x)
    return None


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return GELUOp.apply(_float(input, "gelu"), approximate)


class SiLUOp(Op):
    __slots__ = ()
    node_name = "SiluBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        if _kernels.fits(x):  # the compiled kernel (npgrad.kernels.gelu); its backward recomputes the derivative
            y = _kgelu.activation("silu", x)
            if y is not None:
                ctx.kernel = "silu"
                return y
        s = P.sigmoid(x)
        ctx.s = s
        return x * s

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        gx = _kernel_grad(ctx, x, g)
        if gx is not None:
            return gx
        s = P.from_forward(g, ctx, "s", lambda: P.sigmoid(x))
        return g * (s * (1 + x * (1 - s)))


def silu(input, inplace=False):
    return _plain_activation(silu, SiLUOp, input, inplace)


def _softplus_stable(x):
    # log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): finite for any x, and differentiable as written.
    if isinstance(x, Tensor):
        return x.relu() + (-(x.abs())).exp().log1p()
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


class MishOp(Op):
    __slots__ = ()
    node_name = "MishBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        t = np.tanh(_softplus_stable(x))
        ctx.t = t
        return x * t

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        t = P.from_forward(g, ctx, "t", lambda: P.tanh(_softplus_stable(x)))
        return g * (t + x * P.sigmoid(x) * (1 - t * t))


def mish(input, inplace=False):
    return _plain_activation(mish, MishOp, input, inplace)


class SoftplusOp(Op):
    __slots__ = ()
    node_name = "SoftplusBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        dt = x.dtype
        bx = x * np.asarray(beta, dt)
        linear = bx > threshold
        # Where beta*x is past the threshold the function is x itself (PyTorch's reversion to linear).
        soft = np.log1p(np.exp(np.minimum(bx, threshold)))
        if beta != 1:
            soft /= np.asarray(beta, dt)
        return np.where(linear, x, soft)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        beta, threshold = ctx.beta, ctx.threshold
        xd = P.data_of(x)
        linear = (xd * np.asarray(beta, xd.dtype)) > threshold
        s = P.sigmoid(x * beta)
        return g * P.where(linear, 1.0, s), None, None


def softplus(input, beta=1.0, threshold=20.0):
    return SoftplusOp.apply(_float(input, "softplus"), beta, threshold)


class LogSigmoidOp(Op):
    __slots__ = ()
    node_name = "LogSigmoidBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for any x.
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * P.sigmoid(-x)


def logsigmoid(input):
    return LogSigmoidOp.apply(_float(input, "logsigmoid"))


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def _relu6_of_shifted(x):
    """clip(x + 3, 0, 6) in x's dtype, a new array (hardsigmoid's and hardswish's common factor)."""
    y = np.add(x, np.asarray(3, x.dtype), out=np.empty_like(x))  # out=: an array for 0-d x too (clip writes into it)
    return np.clip(y, np.asarray(0, x.dtype), np.asarray(6, x.dtype), out=y)


class HardsigmoidOp(Op):
    __slots__ = ()
    node_name = "HardsigmoidBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        y = _relu6_of_shifted(x)
        y /= np.asarray(6, x.dtype)
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        # PyTorch's formula, (x > -3 && x < 3) ? grad / 6 : 0: a NaN input gets 0.
        return select((xd > -3.0) & (xd < 3.0), g * (1.0 / 6.0))


def hardsigmoid(input, inplace=False):
    return _plain_activation(hardsigmoid, HardsigmoidOp, input, inplace)


class HardswishOp(Op):
    __slots__ = ()
    node_name = "HardswishBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        y = _relu6_of_shifted(x)
        y *= x
        y /= np.asarray(6, x.dtype)
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        # PyTorch's formula: 0 for x <= -3, grad * (x / 3 + 1/2) for -3 < x < 3, else grad (NaN and +inf too).
        # Each branch is selected, so nothing from a branch not taken (an inf slope, a NaN from above) leaks in.
        mid = (xd > -3.0) & (xd < 3.0)
        low = xd <= -3.0
        return P.where(low, 0.0, P.where(mid, g * (x / 3.0 + 0.5), g))


def hardswish(input, inplace=False):
    return _plain_activation(hardswish, HardswishOp, input, inplace)


class _Shrink(Op):
    """softshrink and hardshrink: 0 inside [-lambd, lambd]; outside, x shifted toward 0 by lambd (soft) or x
    itself (hard). NaN is outside (PyTorch tests for the inside), so it stays NaN with gradient 1."""

    __slots__ = ()

    @staticmethod
    def forward(ctx, x, lambd, soft):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        lo, hi = np.asarray(-lambd, x.dtype), np.asarray(lambd, x.dtype)
        if soft:  # x - clip(x, -lambd, lambd): x -+ lambd outside, 0 inside, NaN for NaN
            return x - np.clip(x, lo, hi)
        return np.where((x >= lo) & (x <= hi), np.asarray(0, x.dtype), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = P.data_of(x)
        lambd = ctx.lambd
        inside = xd >= -lambd
        inside &= xd <= lambd
        return zero_where(inside, g), None, None


class SoftshrinkOp(_Shrink):
    __slots__ = ()
    node_name = "SoftshrinkBackward0"  # PyTorch's name for this node


class HardshrinkOp(_Shrink):
    __slots__ = ()
    node_name = "HardshrinkBackward0"  # PyTorch's name for this node


def softshrink(input, lambd=0.5):
    x = _float(input, "softshrink")
    top = float(np.finfo(x._data.dtype).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {_dt.scalar_name(x.dtype)}, "
                           f"but found {lambd:g}")
    return SoftshrinkOp.apply(x, float(lambd), True)


def hardshrink(input, lambd=0.5):
    return HardshrinkOp.apply(_float(input, "hardshrink"), float(lambd), False)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {n}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def prelu(input, weight):
    a, b = input._data.dtype, weight._data.dtype
    if a != b:  # PyTorch refuses to promote here (a float64 input with a float32 parameter would silently upcast)
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_dt.scalar_name(a)} and {_dt.scalar_name(b)}")
    if a.kind not in "fc":
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{_dt.scalar_name(a)}'")
    if weight.numel() != 1:
        if input.dim() < 2 or input.shape[1] != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {input.shape[1] if input.dim() >= 2 else 1}.")
        w = weight.reshape((1, -1) + (1,) * (input.dim() - 2))
    else:
        w = weight.reshape(())
    return _where(Tensor._wrap(input._data > 0), input, w * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if inplace and training:  # (evaluation mode is leaky_relu, in place below)
        return _maybe_inplace(input, True, rrelu, lower, upper, training)
    if training:
        from ...random import rng
        slopes = rng().uniform(lower, upper, input.shape).astype(input._data.dtype)
        return _where(Tensor._wrap(input._data >= 0), input, input * Tensor._wrap(slopes))
    return leaky_relu(input, (lower + upper) / 2, inplace)
